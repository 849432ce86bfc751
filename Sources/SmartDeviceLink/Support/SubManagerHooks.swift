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
