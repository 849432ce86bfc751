import SDLRPC
import SDLRuntime

/// CreateWindow and DeleteWindow (RPC 6.0+), as SDL Core answers them: widgets only (the main
/// window exists from registration), unique IDs and names, and an OnHMIStatus for the new
/// window so the app learns its level (NONE until the HMI shows it).
extension SDLHeadUnitEmulator {
    func createWindow(_ request: CreateWindow, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        guard request.windowID != 0, app.windows[request.windowID] == nil else {
            return (.failure(.invalidId, "window \(request.windowID) exists"), [])
        }
        guard request.type == .widget else {
            return (.failure(.invalidData, "only WIDGET windows can be created; the MAIN window exists"), [])
        }
        guard !app.windows.values.contains(request.windowName) else {
            return (.failure(.duplicateName, "a window is named \(request.windowName)"), [])
        }
        apps[appID]?.windows[request.windowID] = request.windowName
        let status = notification(
            OnHMIStatus(hmiLevel: .none, audioStreamingState: .notAudible, systemContext: .main, videoStreamingState: .notStreamable, windowID: request.windowID),
            to: appID)
        return (.success(), [status])
    }

    func deleteWindow(_ request: DeleteWindow, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.windows.removeValue(forKey: request.windowID) != nil else {
            return (.failure(.invalidId, "no window \(request.windowID)"), [])
        }
        return (.success(), [])
    }
}
