import SDLProtocol
import SDLRPC
import SDLRuntime

/// GetSystemCapability and OnSystemCapabilityUpdated, from the configured capabilities.
extension SDLHeadUnitEmulator {
    func getSystemCapability(_ request: GetSystemCapability, appID: String) -> (Reply, [Effect]) {
        // SDL Core keeps the remote-control capability for remote-control apps.
        if request.systemCapabilityType == .remoteControl, apps[appID]?.appTypes.contains(.remoteControl) != true {
            return (.failure(.disallowed, nil), [])
        }
        if configuration.unavailableCapabilities.contains(request.systemCapabilityType) {
            return (.failure(.dataNotAvailable, "the HMI has no \(request.systemCapabilityType.rawValue) capability"), [])
        }
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

    /// OnSystemCapabilityUpdated for `type`; for DISPLAYS (every app has it, unasked) only
    /// `window`'s capability, as SDL Core passes on the HMI's update after a template change or
    /// CreateWindow.
    func capabilityUpdate(_ type: SystemCapabilityType, to appID: String, window: Int? = nil) -> Effect? {
        guard !configuration.unavailableCapabilities.contains(type), let capability = systemCapability(type, for: appID, window: window),
            let json = try? SDLJSONValue(parsing: Array(#"{"systemCapability":\#(capability.jsonString)}"#.utf8))
        else { return nil }
        return .notify(
            appID: appID,
            SDLRPCPayload(
                rpcType: .notification, functionID: OnSystemCapabilityUpdated.wireFunctionID ?? 0,
                correlationID: Self.notificationCorrelationID, json: json.jsonBytes))
    }

    /// `{"systemCapabilityType": …, "<field>": …}` as the app sees it now (DISPLAYS follows its
    /// template); nil for a type the head unit does not have.
    func systemCapability(_ type: SystemCapabilityType, for appID: String, window: Int? = nil) -> SDLJSONValue? {
        if let fromHMI = hmiSystemCapability(type) {
            return .object([.init(key: "systemCapabilityType", value: .string(type.rawValue)), .init(key: fromHMI.key, value: fromHMI.value)])
        }
        let value: (String, SDLJSONValue)?
        switch type {
        case .displays: value = ("displayCapabilities", .array([displayCapability(for: appID, onlyWindow: window)]))
        case .navigation: value = ("navigationCapability", Self.json(#"{"sendLocationEnabled":true,"getWayPointsEnabled":true}"#))
        case .phoneCall: value = ("phoneCapability", Self.json(#"{"dialNumberEnabled":true}"#))
        case .videoStreaming:
            value = ("videoStreamingCapability", (try? SDLJSONValue(parsing: SDLJSON.encode(configuration.videoStreaming))) ?? .object([]))
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

    /// The app's display in the 6.0 `DisplayCapability` model: the main window (the
    /// registration's `displayCapabilities`) and the app's widgets, or only `onlyWindow`.
    private func displayCapability(for appID: String, onlyWindow: Int? = nil) -> SDLJSONValue {
        // The HMI's display (UI.GetCapabilities) when one is connected, as Core takes it.
        let legacy = hmi.answers["UI.GetCapabilities"]?["displayCapabilities"] ?? configuration.capabilities["displayCapabilities"] ?? .object([])
        let windowIDs = [0] + (apps[appID]?.windows.keys.sorted() ?? [])
        let windows = windowIDs.filter { onlyWindow == nil || $0 == onlyWindow }.map { windowCapability($0, legacy: legacy, appID: appID) }
        return .object([
            .init(key: "displayName", value: legacy["displayName"] ?? .string("GENERIC_DISPLAY")),
            .init(
                key: "windowTypeSupported",
                value: Self.json(#"[{"type":"MAIN","maximumNumberOfWindows":1},{"type":"WIDGET","maximumNumberOfWindows":\#(Self.maximumWidgets)}]"#)),
            .init(key: "windowCapabilities", value: .array(windows)),
        ])
    }

    /// One window's capability: the legacy display's fields, buttons and soft buttons, with the
    /// 6.0 additions SDL libraries read (menu layouts, keyboards, dynamic updates).
    private func windowCapability(_ windowID: Int, legacy: SDLJSONValue, appID: String) -> SDLJSONValue {
        var window: [SDLJSONValue.Member] = [.init(key: "windowID", value: .integer(windowID))]
        for key in ["textFields", "imageFields", "templatesAvailable", "numCustomPresetsAvailable"] {
            guard var value = legacy[key] else { continue }
            // The templates this app's type may use, as SDL's HMI allows them.
            if key == "templatesAvailable", let app = apps[appID] { value = .array(templatesAvailable(to: app)) }
            window.append(.init(key: key, value: value))
        }
        window.append(.init(key: "imageTypeSupported", value: .array([.string("STATIC"), .string("DYNAMIC")])))
        if let buttons = configuration.capabilities["buttonCapabilities"] { window.append(.init(key: "buttonCapabilities", value: buttons)) }
        if let soft = configuration.capabilities["softButtonCapabilities"] { window.append(.init(key: "softButtonCapabilities", value: soft)) }
        window.append(.init(key: "menuLayoutsAvailable", value: .array([.string("LIST"), .string("TILES")])))
        window.append(
            .init(
                key: "dynamicUpdateCapabilities",
                value: configuration.dynamicMenuUpdates
                    ? Self.json(#"{"supportedDynamicImageFieldNames":["cmdIcon","subMenuIcon"],"supportsDynamicSubMenus":true}"#)
                    : Self.json(#"{"supportedDynamicImageFieldNames":[],"supportsDynamicSubMenus":false}"#)))
        // What sdl_hmi (the HMI released with SDL Core 8.2) announces: libraries trim an app's
        // custom keys to `numConfigurableKeys`, so 0 would drop them all.
        window.append(
            .init(
                key: "keyboardCapabilities",
                value: Self.json(
                    #"{"maskInputCharactersSupported":true,"supportedKeyboards":[{"keyboardLayout":"QWERTY","numConfigurableKeys":3},{"keyboardLayout":"QWERTZ","numConfigurableKeys":0},{"keyboardLayout":"AZERTY","numConfigurableKeys":4},{"keyboardLayout":"NUMERIC","numConfigurableKeys":2}]}"#
                )))
        return .object(window)
    }

    static func json(_ text: String) -> SDLJSONValue {
        (try? SDLJSONValue(parsing: Array(text.utf8))) ?? .object([])
    }
}
