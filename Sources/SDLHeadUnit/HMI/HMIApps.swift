import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// Apps as the HMI hears of them: registered, listed, gone, activated by Core.
extension SDLHeadUnitEmulator {
    /// The app as `Common.HMIApplication` describes it.
    func hmiApplication(_ appID: String) -> SDLJSONValue? {
        guard let app = apps[appID] else { return nil }
        var members: [SDLJSONValue.Member] = [
            .init(key: "appName", value: .string(app.name)),
            .init(
                key: "deviceInfo",
                value: .object([
                    .init(key: "name", value: .string("Emulated device \(app.connectionID)")), .init(key: "id", value: .string("device-\(app.connectionID)")),
                    .init(key: "transportType", value: .string("WIFI")), .init(key: "isSDLAllowed", value: .bool(true)),
                ])),
            .init(key: "policyAppID", value: .string(appID)),
            .init(key: "appType", value: .array(app.appTypes.map { .string($0.rawValue) })),
            .init(key: "isMediaApplication", value: .bool(app.isMedia)),
            .init(key: "hmiDisplayLanguageDesired", value: .string(app.language.rawValue)),
            .init(key: "appID", value: .integer(hmi.appID(of: appID))),
        ]
        if !app.vrSynonyms.isEmpty { members.append(.init(key: "vrSynonyms", value: .array(app.vrSynonyms.map(SDLJSONValue.string)))) }
        return .object(members)
    }

    /// A registration, told to the HMI: OnAppRegistered, then UpdateAppList with every app.
    func hmiAppRegistered(_ appID: String) -> [Effect] {
        guard hmi.isConnected, let application = hmiApplication(appID) else { return [] }
        let registered = HMIMessage.notification(
            method: "BasicCommunication.OnAppRegistered", params: .object([.init(key: "application", value: application)]))
        return [.toHMI(.subscribers("BasicCommunication.OnAppRegistered"), registered)] + hmiAppListUpdate()
    }

    /// BasicCommunication.UpdateAppList with the apps registered now.
    func hmiAppListUpdate() -> [Effect] {
        guard hmi.components["BasicCommunication"] != nil else { return [] }
        let applications = apps.values.sorted { $0.connectionID < $1.connectionID }.compactMap { hmiApplication($0.appID) }
        return [coreRequest("BasicCommunication.UpdateAppList", [.init(key: "applications", value: .array(applications))])]
    }

    /// The app left: OnAppUnregistered (`unexpectedDisconnect` after a drop), and the app list.
    func hmiAppUnregistered(_ appID: String, unexpected: Bool) -> [Effect] {
        guard hmi.isConnected, let hmiAppID = hmi.appIDs[appID] else { return [] }
        let gone = HMIMessage.notification(
            method: "BasicCommunication.OnAppUnregistered",
            params: .object([.init(key: "unexpectedDisconnect", value: .bool(unexpected)), .init(key: "appID", value: .integer(hmiAppID))]))
        return [.toHMI(.subscribers("BasicCommunication.OnAppUnregistered"), gone)] + hmiAppListUpdate()
    }

    /// An app's HMI level changed by Core (not by the HMI): BasicCommunication.ActivateApp for FULL.
    func hmiActivated(_ appID: String) -> [Effect] {
        guard hmi.components["BasicCommunication"] != nil, apps[appID] != nil else { return [] }
        return [coreRequest("BasicCommunication.ActivateApp", [.init(key: "appID", value: .integer(hmi.appID(of: appID)))])]
    }

    /// One of the Core half's own requests to the HMI (not part of an app's request): waited for
    /// `hmiTimeout`, its answer (`streamOf`: a StartStream's) handled by `hmiAnswered`.
    func coreRequest(_ method: String, _ params: [SDLJSONValue.Member], streamOf: String? = nil) -> Effect {
        let id = hmi.requestID()
        hmi.pending[id] = HMIPendingRequest(method: method, exchange: nil, startUp: false, streamOf: streamOf)
        schedule(.hmiRequest(id: id), after: configuration.hmiTimeout)
        return .toHMI(.component(HMIBridge.component(of: method)), HMIMessage.request(id: id, method: method, params: .object(params)))
    }
}
