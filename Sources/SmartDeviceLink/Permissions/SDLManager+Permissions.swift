extension SDLManager {
    /// The permissions of a group of RPCs as they change, across reconnections, until the
    /// manager stops (the guide's permission observer; ``permissions`` is the current
    /// connection's tracker). `.anyChange` yields the current permissions when connected, then
    /// every change, and a new connection's permissions from its first OnPermissionsChange on;
    /// `.allAllowed` yields when every RPC of the group becomes allowed and when they stop being
    /// all allowed (a reconnection starts in NONE, so that is heard too). Keeps the 16 latest
    /// changes for a slow reader.
    public func permissionChanges(of rpcs: [String], _ kind: SDLPermissionObservation = .anyChange) async -> AsyncStream<[String: SDLRPCPermission]> {
        let stream = permissionObservers.add(rpcs, kind)
        await permissions?.notifyObservers()
        return stream
    }
}
