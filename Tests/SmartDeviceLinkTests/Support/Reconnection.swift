import SDLHeadUnit
import SDLTestSupport
import SmartDeviceLink

extension SDLManager {
    /// Drops the app's connection on the emulator and returns once the manager went through
    /// `reconnecting` back to Ready (true) or stopped trying (false).
    /// With a manual session clock (the tests' default), the back-off passes by advancing it:
    /// no real waiting.
    func dropAndReconnect(on headUnit: SDLHeadUnitEmulator, appID: String) async throws -> Bool {
        let states = stateChanges()
        try await headUnit.disconnect(appID: appID)
        return await reconnected(states, clock: manualClock)
    }

    /// The session clock when it is a test's `ManualClock`.
    var manualClock: ManualClock? { configuration.session.clock.base as? ManualClock }
}

/// Whether `states` goes through `reconnecting` back to Ready (false once it stops). Advances
/// `clock` past the reconnection back-off when the manager starts waiting.
func reconnected(_ states: AsyncStream<SDLManager.State>, clock: ManualClock? = nil) async -> Bool {
    var sawReconnecting = false
    for await state in states {
        if state == .reconnecting, !sawReconnecting {
            sawReconnecting = true
            // The standard policy waits at most 5 s; the manager read the clock before saying
            // `reconnecting`, so this always passes its deadline.
            clock?.advance(by: .seconds(10))
        }
        if sawReconnecting && state == .ready { return true }
        if state == .stopped { return false }
    }
    return false
}
