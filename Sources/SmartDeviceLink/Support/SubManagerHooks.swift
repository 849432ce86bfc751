// The hooks a sub-manager has nothing to do in, stated explicitly (the protocol has no defaults).

extension SDLSystemCapabilityManager {
    /// Capabilities are fetched while the connection is set up, before Ready.
    func connectionReady(_ connection: SDLConnectionContext) {}
}

extension SDLFileManager {
    /// Files are listed while the connection is set up, before Ready.
    func connectionReady(_ connection: SDLConnectionContext) {}
    /// Uploads fail with the connection; the list of files stays for the next one.
    func managerStopped() {}
}

extension SDLVehicleDataManager {
    /// Requests in flight fail with the connection; subscriptions are renewed on the next.
    func connectionEnded() {}
}

extension SDLButtonManager {
    /// Subscriptions are renewed on the next connection.
    func connectionEnded() {}
}

extension SDLAppServiceManager {
    /// Services are published again on the next connection.
    func connectionEnded() {}
}

extension SDLScreenManager {
    /// The queue waits for the next connection's Ready.
    func connectionEnded() {}
}

extension SDLNavigationManager {
    /// The waypoint subscription is renewed on the next connection.
    func connectionEnded() {}
}

extension SDLRemoteControlManager {
    /// Module subscriptions are renewed on the next connection.
    func connectionEnded() {}
}

// Sub-managers whose readers are made per call (and end with `managerStopped()`) publish no
// stream of their own that a late subscriber could wait on.
extension SDLSystemCapabilityManager {
    /// Its capability streams are made per subscription and end in `managerStopped()`; an
    /// eager sub-manager is never made late.
    nonisolated func endStreams() {}
}

extension SDLFileManager {
    /// No stream of its own (an eager sub-manager is never made late).
    nonisolated func endStreams() {}
}

extension SDLVehicleDataManager {
    /// Subscriptions are made per call, against a run that is over: they fail.
    nonisolated func endStreams() {}
}

extension SDLButtonManager {
    /// Subscriptions are made per call, against a run that is over: they fail.
    nonisolated func endStreams() {}
}

extension SDLScreenManager {
    /// Its operations fail once the run is over; press readers are made per call.
    nonisolated func endStreams() {}
}

extension SDLNavigationManager {
    /// Waypoint readers are made per call, against a run that is over: they fail.
    nonisolated func endStreams() {}
}

extension SDLRemoteControlManager {
    /// Module readers are made per call, against a run that is over: they fail.
    nonisolated func endStreams() {}
}

extension SDLHapticManager {
    /// No stream of its own.
    nonisolated func endStreams() {}
}
