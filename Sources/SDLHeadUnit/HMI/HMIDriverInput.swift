import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The driver, through the HMI: its notifications relayed to the apps as SDL Core relays them.
extension SDLHeadUnitEmulator {
    /// The HMI's notifications of what the driver did, relayed to the app they name as SDL Core
    /// relays them.
    func hmiDriverInput(_ method: String, params: SDLJSONValue, appID: String?) async -> [Effect] {
        switch method {
        case "Buttons.OnButtonEvent", "Buttons.OnButtonPress":
            // Relayed as the HMI sent them (SDL's HMIs send button down, button up, then the
            // press): a soft button's to the app it names, a hardware button's to the apps
            // subscribed to it that may hear it.
            guard case .string(let name)? = params["name"] else { return [] }
            let button = ButtonName(rawValue: name)
            let customID: Int? = if case .integer(let id)? = params["customButtonID"] { id } else { nil }
            let recipients: [String] =
                if customID != nil, let appID, apps[appID] != nil {
                    [appID]
                } else if button != .customButton {
                    buttonRecipients(button)
                } else { [] }
            guard case .string(let mode)? = params["mode"] else { return [] }
            if method == "Buttons.OnButtonEvent" {
                let event = OnButtonEvent(buttonName: button, buttonEventMode: ButtonEventMode(rawValue: mode), customButtonID: customID)
                return recipients.map { notification(event, to: $0) }
            }
            let press = OnButtonPress(buttonName: button, buttonPressMode: ButtonPressMode(rawValue: mode), customButtonID: customID)
            return recipients.map { notification(press, to: $0) }
        case "UI.OnCommand", "VR.OnCommand":
            if let appID, case .integer(let cmdID)? = params["cmdID"] { try? await commandSelected(appID: appID, cmdID: cmdID) }
        case "UI.OnSubtleAlertPressed":
            // The driver tapped the subtle alert: the app hears it (the HMI activates it and
            // answers the SubtleAlert itself).
            guard let appID, apps[appID] != nil else { return [] }
            return [notification(OnSubtleAlertPressed(), to: appID)]
        case "UI.OnUpdateSubMenu":
            // The driver opened a sub-menu whose cells the app has not sent (dynamic menus).
            guard let appID, apps[appID] != nil, case .integer(let menuID)? = params["menuID"] else { return [] }
            let update: Bool? = if case .bool(let flag)? = params["updateSubCells"] { flag } else { nil }
            return [notification(OnUpdateSubMenu(menuID: menuID, updateSubCells: update), to: appID)]
        case "UI.OnTouchEvent", "Navigation.OnTouchEvent":
            // It names no app: SDL Core gives it to the navigation and projection apps in FULL
            // (the ones whose video is on the screen), as the HMI sent it.
            let touch = SDLJSONValue.object(Self.members(of: params, ["type", "event"]))
            guard case .success = SDLJSONDecoding.decode(OnTouchEvent.self, from: touch.jsonBytes) else { return [] }
            return apps.values.sorted { $0.connectionID < $1.connectionID }.filter { app in
                guard Self.isVideoApp(app), app.hmiLevel == .full,
                    case .allowed = policy.decide("OnTouchEvent", level: app.hmiLevel, appID: app.appID, updated: app.policyUpdated, parameters: [])
                else { return false }
                return true
            }.map { notification(OnTouchEvent.self, json: touch.jsonBytes, to: $0.appID) }
        case "UI.OnDriverDistraction":
            if case .string(let state)? = params["state"] { await driverDistractionChanged(state == "DD_ON") }
        case "VehicleInfo.OnVehicleData":
            // The car's new values: the apps subscribed to them hear them.
            var values = params
            if case .object(let members) = params { values = .object(members.filter { $0.key != "appID" }) }
            try? await vehicleDataChanged(values)
        case "UI.OnSystemContext":
            // What the HMI shows over the app (an alert, a menu, a VR session): the app hears it.
            guard let appID, apps[appID] != nil, case .string(let context)? = params["systemContext"] else { return [] }
            let systemContext = SystemContext(rawValue: context)
            guard apps[appID]?.systemContext != systemContext else { return [] }
            apps[appID]?.systemContext = systemContext
            emit(.systemContextChanged(appID: appID, systemContext))
            return [hmiStatus(of: appID)]
        case "UI.OnKeyboardInput":
            // It names no app: Core gives it to the app on screen, whose keyboard it is.
            guard let target = appID ?? apps.values.first(where: { $0.hmiLevel == .full })?.appID, case .string(let event)? = params["event"] else {
                return []
            }
            var data: String?
            if case .string(let text)? = params["data"] { data = text }
            return [notification(OnKeyboardInput(event: KeyboardEvent(rawValue: event), data: data), to: target)]
        default:
            break
        }
        return []
    }
}
