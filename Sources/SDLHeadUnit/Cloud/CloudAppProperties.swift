import SDLRPC

extension SDLHeadUnitEmulator {
    /// SetCloudAppProperties (RPC 5.1): an app (an app store, a companion) adds or changes a
    /// cloud app's policy-table entry; the fields it sends replace those held, as SDL Core's
    /// policy handler does.
    func setCloudAppProperties(_ request: SetCloudAppProperties) -> (Reply, [Effect]) {
        let new = request.properties
        var entry = cloudAppProperties[new.appID] ?? CloudAppProperties(appID: new.appID)
        if let nicknames = new.nicknames { entry.nicknames = nicknames }
        if let enabled = new.enabled { entry.enabled = enabled }
        if let token = new.authToken { entry.authToken = token }
        if let transport = new.cloudTransportType { entry.cloudTransportType = transport }
        if let preference = new.hybridAppPreference { entry.hybridAppPreference = preference }
        if let endpoint = new.endpoint { entry.endpoint = endpoint }
        cloudAppProperties[new.appID] = entry
        return (.success(), [])
    }

    /// GetCloudAppProperties: the entry held, `enabled` true unless set otherwise; an app ID
    /// the policy table does not know is DATA_NOT_AVAILABLE "Cloud app does not exist on module".
    func getCloudAppProperties(_ request: GetCloudAppProperties) -> (Reply, [Effect]) {
        guard var entry = cloudAppProperties[request.appID] else {
            return (.failure(.dataNotAvailable, "Cloud app does not exist on module"), [])
        }
        entry.enabled = entry.enabled ?? true
        return (.typed(GetCloudAppPropertiesResponse(properties: entry, success: true, resultCode: .success)), [])
    }

    /// A cloud app's policy-table entry as apps set it, for tests and the control API.
    public func cloudAppEntry(appID: String) -> CloudAppProperties? {
        cloudAppProperties[appID]
    }
}
