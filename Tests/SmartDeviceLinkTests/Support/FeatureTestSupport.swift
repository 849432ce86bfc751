import SDLConcurrency
import SDLHeadUnit
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink

/// What the feature tests share: a manager of given app types in FULL, waiting for emulator events.
enum FeatureTestSupport {
    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String, appTypes: [AppHMIType]) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID, media: appTypes.contains(.media))
        configuration.appTypes = appTypes
        let manager = SDLManager(configuration: configuration)
        try await startRunning(manager)
        // Safety timeout: bounds the wait for FULL, so a missing activation ends in failed checks, not a hang.
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// `start`'s manager for the duration of `body`, stopped afterwards even when `body` throws
    /// (a failed `#require`, say): `defer` cannot await.
    static func withManager(
        _ headUnit: SDLHeadUnitEmulator, appID: String, appTypes: [AppHMIType], _ body: (SDLManager) async throws -> Void
    ) async throws {
        try await stopping(start(headUnit, appID: appID, appTypes: appTypes), body)
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

/// Runs `body` with `manager`, which the caller started, then stops the manager, also when `body`
/// throws (a failed `#require`, a `try`): `defer` cannot await. The suites' `withManager`
/// helpers are this around their `start`; `withSDLManager` is the same for a bare configuration.
func stopping(_ manager: SDLManager, _ body: (SDLManager) async throws -> Void) async throws {
    try await run({ try await body(manager) }, thenAlways: { await manager.stop() })
}

extension SDLJSONValue {
    /// An array's element; nil for other values or an index out of range.
    subscript(_ index: Int) -> SDLJSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
