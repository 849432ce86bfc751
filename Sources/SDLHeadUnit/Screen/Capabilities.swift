import SDLProtocol
import SDLRPC
import SDLRuntime

/// GetSystemCapability and OnSystemCapabilityUpdated, from the configured capabilities.
extension SDLHeadUnitEmulator {
    func getSystemCapability(_ request: GetSystemCapability, appID: String) -> (Reply, [Effect]) {
        guard let capability = systemCapability(request.systemCapabilityType, for: appID) else {
            return (.failure(.unsupportedResource, "the head unit has no \(request.systemCapabilityType.rawValue) capability"), [])
        }
        if let subscribe = request.subscribe {
            if subscribe {
                apps[appID]?.capabilitySubscriptions.insert(request.systemCapabilityType)
            } else {
                apps[appID]?.capabilitySubscriptions.remove(request.systemCapabilityType)
            }
        }
        return (.success(extra: [.init(key: "systemCapability", value: capability)]), [])
    }

    /// OnSystemCapabilityUpdated for `type`, when the app subscribed.
    func capabilityUpdate(_ type: SystemCapabilityType, to appID: String) -> Effect? {
        guard let capability = systemCapability(type, for: appID),
              let json = try? SDLJSONValue(parsing: Array(#"{"systemCapability":\#(capability.jsonString)}"#.utf8))
        else { return nil }
        return .notify(appID: appID, SDLRPCPayload(
            rpcType: .notification, functionID: OnSystemCapabilityUpdated.wireFunctionID ?? 0,
            correlationID: Self.notificationCorrelationID, json: json.jsonBytes))
    }

    /// `{"systemCapabilityType": …, "<field>": …}` as the app sees it now (DISPLAYS follows its
    /// template); nil for a type the head unit does not have.
    func systemCapability(_ type: SystemCapabilityType, for appID: String) -> SDLJSONValue? {
        let value: (String, SDLJSONValue)?
        switch type {
        case .displays: value = ("displayCapabilities", .array([displayCapability(for: appID)]))
        case .navigation: value = ("navigationCapability", Self.json(#"{"sendLocationEnabled":true,"getWayPointsEnabled":true}"#))
        case .phoneCall: value = ("phoneCapability", Self.json(#"{"dialNumberEnabled":true}"#))
        case .videoStreaming:
            value = ("videoStreamingCapability", Self.json(#"{"preferredResolution":{"resolutionWidth":800,"resolutionHeight":350},"maxBitrate":20000,"supportedFormats":[{"protocol":"RAW","codec":"H264"},{"protocol":"RTP","codec":"H264"}],"hapticSpatialDataSupported":true,"diagonalScreenSize":8,"pixelPerInch":117,"scale":1}"#))
        case .remoteControl: value = ("remoteControlCapability", remoteControl.capabilityJSON)
        case .appServices: value = ("appServicesCapabilities", appServicesCapability())
        case .seatLocation: value = ("seatLocationCapability", RemoteControlState.seatLocationJSON)
        case .driverDistraction: value = ("driverDistractionCapability", Self.json(#"{"menuLength":10,"subMenuDepth":3}"#))
        default: value = nil
        }
        guard let (key, capability) = value else { return nil }
        return .object([.init(key: "systemCapabilityType", value: .string(type.rawValue)), .init(key: key, value: capability)])
    }

    func appServicesCapability() -> SDLJSONValue {
        appServicesCapabilityJSON()
    }

    /// The registration's `displayCapabilities` in the 6.0 `DisplayCapability` model.
    private func displayCapability(for appID: String) -> SDLJSONValue {
        let legacy = configuration.capabilities["displayCapabilities"] ?? .object([])
        var window: [SDLJSONValue.Member] = [.init(key: "windowID", value: .integer(0))]
        for key in ["textFields", "imageFields", "templatesAvailable", "numCustomPresetsAvailable"] {
            if let value = legacy[key] { window.append(.init(key: key, value: value)) }
        }
        window.append(.init(key: "imageTypeSupported", value: .array([.string("STATIC"), .string("DYNAMIC")])))
        if let buttons = configuration.capabilities["buttonCapabilities"] { window.append(.init(key: "buttonCapabilities", value: buttons)) }
        if let soft = configuration.capabilities["softButtonCapabilities"] { window.append(.init(key: "softButtonCapabilities", value: soft)) }
        window.append(.init(key: "menuLayoutsAvailable", value: .array([.string("LIST"), .string("TILES")])))
        return .object([
            .init(key: "displayName", value: legacy["displayName"] ?? .string("GENERIC_DISPLAY")),
            .init(key: "windowTypeSupported", value: Self.json(#"[{"type":"MAIN","maximumNumberOfWindows":1}]"#)),
            .init(key: "windowCapabilities", value: .array([.object(window)])),
        ])
    }

    static func json(_ text: String) -> SDLJSONValue {
        (try? SDLJSONValue(parsing: Array(text.utf8))) ?? .object([])
    }
}
