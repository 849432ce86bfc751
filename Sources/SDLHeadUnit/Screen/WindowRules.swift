import SDLRPC
import SDLRuntime

/// CreateWindow and DeleteWindow (RPC 6.0+), as SDL Core answers them: widgets only (the main
/// window exists from registration), unique IDs and names, at most `maximumWidgets`; a new
/// widget starts in NONE (its own OnHMIStatus) and the app hears its capabilities
/// (OnSystemCapabilityUpdated DISPLAYS with that window). The driver shows and hides widgets
/// through the control API.
extension SDLHeadUnitEmulator {
    /// How many widgets an app may have at once (DISPLAYS' `windowTypeSupported`).
    static let maximumWidgets = 5

    func createWindow(_ request: CreateWindow, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        // SDL Core's answers carry no info here; the reasons are for the emulator's log.
        guard request.windowID != 0, app.windows[request.windowID] == nil else { return (.failure(.invalidId, nil), []) }
        guard request.type == .widget else { return (.failure(.invalidData, nil), []) }
        if let source = request.duplicateUpdatesFromWindowID, source != 0, app.windows[source] == nil {
            return (.failure(.invalidData, nil), [])
        }
        // The primary widget (ID 1) may carry any name.
        if request.windowID != 1, request.windowName == app.name || app.windows.values.contains(where: { $0.name == request.windowName }) {
            return (.failure(.duplicateName, nil), [])
        }
        guard app.windows.count < Self.maximumWidgets else {
            return (.failure(.rejected, "Maximum allowed amount of windows is exceeded"), [])
        }
        apps[appID]?.windows[request.windowID] = Widget(name: request.windowName)
        var effects = [widgetStatus(appID: appID, windowID: request.windowID)]
        if let update = capabilityUpdate(.displays, to: appID, window: request.windowID) { effects.append(update) }
        effects.append(hashChange(of: appID))
        return (.success(), effects)
    }

    func deleteWindow(_ request: DeleteWindow, appID: String) -> (Reply, [Effect]) {
        guard request.windowID != 0, apps[appID]?.windows.removeValue(forKey: request.windowID) != nil else {
            return (.failure(.invalidId, nil), [])
        }
        return (.success(), [hashChange(of: appID)])
    }

    /// The driver shows a widget (it goes BACKGROUND, then FULL, as SDL Core's HMI activates a
    /// window) or hides it (BACKGROUND, then NONE). Each step is an OnHMIStatus for that window.
    public func setWidgetVisible(appID: String, windowID: Int, _ visible: Bool) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        guard let widget = apps[appID]?.windows[windowID] else { throw .invalidAnswer("the app has no widget \(windowID)") }
        let steps: [HMILevel] = visible ? [.background, .full] : [.background, .none]
        var effects: [Effect] = []
        for level in steps where level != widget.level {
            apps[appID]?.windows[windowID]?.level = level
            effects.append(widgetStatus(appID: appID, windowID: windowID))
        }
        await perform(effects)
    }

    private func widgetStatus(appID: String, windowID: Int) -> Effect {
        let level = apps[appID]?.windows[windowID]?.level ?? .none
        return notification(
            OnHMIStatus(hmiLevel: level, audioStreamingState: .notAudible, systemContext: .main, videoStreamingState: .notStreamable, windowID: windowID),
            to: appID)
    }

    /// The HMI level of one of the app's windows (0: the main window).
    func level(of appID: String, window windowID: Int) -> HMILevel? {
        windowID == 0 ? apps[appID]?.hmiLevel : apps[appID]?.windows[windowID]?.level
    }
}
