import SDLHeadUnit
import SmartDeviceLink

/// What the screen tests share: a started manager in FULL, and the requests it sent.
enum ScreenTestSupport {
    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String) async throws -> SDLManager {
        let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, appID: appID))
        try await manager.start()
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// The parameters of each `function` request the app sent, in order.
    static func sent(_ headUnit: SDLHeadUnitEmulator, appID: String, _ function: String) async -> [SDLJSONValue] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == function }.compactMap(\.parameters)
    }
}
