import SDLHeadUnit
import SDLTestSupport
import SDLRuntime
import SmartDeviceLink

/// What the feature tests share: a manager of given app types in FULL, waiting for emulator events.
enum FeatureTestSupport {
    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String, appTypes: [AppHMIType]) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID, media: appTypes.contains(.media))
        configuration.appTypes = appTypes
        let manager = SDLManager(configuration: configuration)
        try await manager.start()
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// An emulator whose timeouts and timings run on `clock`, set up further by `configure`.
    static func emulator(
        on clock: ManualClock, _ configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { _ in }
    ) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.clock = SDLClock(clock)
        configure(&configuration)
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    static func isInteractionStarted(_ event: SDLHeadUnitEvent) -> Bool {
        if case .interactionStarted = event { true } else { false }
    }

    /// The functions the app sent, in order, among `functions`.
    static func requests(_ headUnit: SDLHeadUnitEmulator, appID: String, among functions: Set<String>) async -> [String] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && functions.contains($0.functionName) }.map(\.functionName)
    }
}

extension SDLJSONValue {
    /// An array's element; nil for other values or an index out of range.
    subscript(_ index: Int) -> SDLJSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
