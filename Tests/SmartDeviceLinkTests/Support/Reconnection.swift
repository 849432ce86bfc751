import SDLHeadUnit
import SmartDeviceLink

extension SDLManager {
    /// Drops the app's connection on the emulator and returns once the manager went through
    /// `reconnecting` back to Ready (true) or stopped trying (false).
    func dropAndReconnect(on headUnit: SDLHeadUnitEmulator, appID: String) async throws -> Bool {
        let states = stateChanges()
        try await headUnit.disconnect(appID: appID)
        return await reconnected(states)
    }
}

/// Whether `states` goes through `reconnecting` back to Ready (false once it stops).
func reconnected(_ states: AsyncStream<SDLManager.State>) async -> Bool {
    var sawReconnecting = false
    for await state in states {
        if state == .reconnecting { sawReconnecting = true }
        if sawReconnecting && state == .ready { return true }
        if state == .stopped { return false }
    }
    return false
}
