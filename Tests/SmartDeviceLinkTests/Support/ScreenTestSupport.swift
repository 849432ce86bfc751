import SDLHeadUnit
import SDLRPC
import SmartDeviceLink

/// What the screen tests share: a started manager in FULL, and the requests it sent.
enum ScreenTestSupport {
    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String) async throws -> SDLManager {
        let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, appID: appID))
        try await startRunning(manager)
        // Safety timeout: bounds the wait for FULL, so a missing activation ends in failed checks, not a hang.
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// `start`'s manager for the duration of `body`, stopped afterwards even when `body` throws
    /// (a failed `#require`, say): `defer` cannot await.
    static func withManager(_ headUnit: SDLHeadUnitEmulator, appID: String, _ body: (SDLManager) async throws -> Void) async throws {
        try await stopping(start(headUnit, appID: appID), body)
    }

    /// The parameters of each `function` request the app sent, in order.
    static func sent(_ headUnit: SDLHeadUnitEmulator, appID: String, _ function: String) async -> [SDLJSONValue] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == function }.compactMap(\.parameters)
    }
}
