import SDLProtocol
import SDLRPC
import SDLRuntime

/// Registration, HMI levels and the app's life, as SDL Core runs them.
extension SDLHeadUnitEmulator {
    func register(_ request: RegisterAppInterface, on connectionID: Int) -> (Reply, [Effect]) {
        if apps.values.contains(where: { $0.connectionID == connectionID }) {
            return (.failure(.applicationRegisteredAlready, "the app is already registered on this connection"), [])
        }
        if apps[request.appID] != nil {
            return (.failure(.applicationRegisteredAlready, nil), [])
        }
        var app = EmulatedApp(
            appID: request.appID, name: request.appName, connectionID: connectionID, isMedia: request.isMediaApplication,
            appTypes: request.appHMIType ?? [], rpcVersion: request.syncMsgVersion, language: request.languageDesired)
        var code = SDLResult.success
        var info: String?
        if request.languageDesired != language || request.hmiDisplayLanguageDesired != language {
            code = .wrongLanguage
        }
        if request.hashID != nil {
            // Resumption data is restored by the resumption store when it matches (see Resumption).
            if let restored = resume(request, into: &app) {
                info = restored
            } else {
                code = code == .success ? .resumeFailed : code
                info = "Hash from RAI does not match to saved resume data."
            }
        }
        apps[request.appID] = app
        emit(.appRegistered(appID: request.appID))
        var effects: [Effect] = [
            notification(OnHMIStatus(hmiLevel: .none, audioStreamingState: .notAudible, systemContext: .main, videoStreamingState: .notStreamable, windowID: 0), to: request.appID),
            notification(permissions(for: request.appID), to: request.appID),
            notification(OnSystemRequest(requestType: .lockScreenIconUrl, url: configuration.lockScreenIconURL), to: request.appID),
            notification(OnDriverDistraction(state: .ddOff, lockScreenDismissalEnabled: true), to: request.appID),
        ]
        // SDL Core tells a remote-control app (RPC 5.0+) which modules are free when it registers.
        if let status = remoteControlStatus(to: request.appID) { effects.append(status) }
        if let delay = configuration.activationDelay {
            if delay <= .zero {
                effects += activationEffects(request.appID)
            } else {
                interactionSerial += 1
                schedule(.activation(appID: request.appID, serial: interactionSerial), after: delay)
            }
        }
        return (registrationReply(code: code, info: info, iconResumed: fileState.icons[request.appID] != nil), effects)
    }

    /// `iconResumed` is true when the head unit kept an icon the app set (SetAppIcon) before,
    /// as SDL Core does in its icon folder.
    private func registrationReply(code: SDLResult, info: String?, iconResumed: Bool) -> Reply {
        guard case .object(var members) = configuration.capabilities else { return .success(code, info: info) }
        members.removeAll { ["success", "resultCode", "info", "language", "hmiDisplayLanguage"].contains($0.key) }
        members = members.map { $0.key == "iconResumed" ? .init(key: "iconResumed", value: .bool(iconResumed)) : $0 }
        let languages: [SDLJSONValue.Member] = [
            .init(key: "language", value: .string(language.rawValue)), .init(key: "hmiDisplayLanguage", value: .string(language.rawValue)),
        ]
        return .success(code, info: info, extra: languages + members)
    }

    func unregister(_ request: UnregisterAppInterface, appID: String) -> (Reply, [Effect]) {
        appGone(appID, unregistered: true)
        return (.success(), [])
    }

    func changeRegistration(_ request: ChangeRegistration, appID: String) -> (Reply, [Effect]) {
        apps[appID]?.language = request.language
        if let name = request.appName { apps[appID]?.name = name }
        return (.success(), [])
    }

    /// OnPermissionsChange from the policy, before or after the app's policy update.
    func permissions(for appID: String) -> OnPermissionsChange {
        policy.permissionsChange(for: appID, updated: apps[appID]?.policyUpdated ?? false)
    }

    /// Replaces the policy; every app hears its new permissions.
    public func setPolicy(_ newPolicy: SDLHeadUnitPolicy) async {
        policy = newPolicy
        await perform(apps.keys.sorted().map { notification(permissions(for: $0), to: $0) })
    }

    // MARK: HMI levels

    /// Brings the app to FULL, as the driver choosing it; the app that was in FULL goes to
    /// LIMITED when it plays audio (media, navigation, communication) and to BACKGROUND otherwise.
    public func activate(appID: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform(activationEffects(appID))
    }

    func activationEffects(_ appID: String) -> [Effect] {
        guard apps[appID] != nil else { return [] }
        var effects: [Effect] = []
        // SDL Core's policy update comes with the first activation: vehicle data and the rest
        // of the app's groups are granted, and the app hears it before FULL.
        var updateThroughApp: String?
        if apps[appID]?.policyUpdated == false {
            if let url = configuration.policyServerURL {
                // Through the app and the policy server, after FULL.
                if apps[appID]?.policyUpdateRequested == false { updateThroughApp = url }
            } else {
                apps[appID]?.policyUpdated = true
                effects.append(notification(permissions(for: appID), to: appID))
            }
        }
        for other in apps.values where other.appID != appID && other.hmiLevel == .full {
            effects += setLevel(other.isAudioApp ? .limited : .background, of: other.appID)
        }
        effects += setLevel(.full, of: appID)
        if let url = updateThroughApp { effects.append(policyUpdateRequest(appID: appID, url: url)) }
        return effects
    }

    /// Sends the app to BACKGROUND (another screen is shown).
    public func background(appID: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform(setLevel(.background, of: appID))
    }

    /// The driver exits the app: NONE.
    public func exit(appID: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform(setLevel(.none, of: appID))
    }

    /// CloseApplication (6.0+): answered SUCCESS, then the app goes to NONE (OnHMIStatus NONE,
    /// NOT_AUDIBLE, MAIN) and stays registered, as when the driver exits it.
    func closeApplication(appID: String) -> (Reply, [Effect]) {
        var effects = finishInteraction(appID, with: .failure(.aborted, "the app was closed"))
        effects += setLevel(.none, of: appID)
        return (.success(), effects)
    }

    /// Drops the app's transport without EndService, as a pulled cable.
    public func disconnect(appID: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform([.disconnect(appID: appID, endService: false, unregistered: false)])
    }

    func setLevel(_ level: HMILevel, of appID: String) -> [Effect] {
        guard var app = apps[appID] else { return [] }
        app.hmiLevel = level
        app.limits.levelChanged(to: level)
        switch level {
        case .full: app.audioStreamingState = app.isAudioApp ? .audible : .notAudible
        case .limited: app.audioStreamingState = app.isAudioApp ? .audible : .notAudible
        default: app.audioStreamingState = .notAudible
        }
        if level == .none { app.systemContext = .main }
        apps[appID] = app
        emit(.hmiLevelChanged(appID: appID, level))
        return [hmiStatus(of: appID)]
    }

    func hmiStatus(of appID: String) -> Effect {
        let app = apps[appID]
        return notification(
            OnHMIStatus(
                hmiLevel: app?.hmiLevel ?? .none, audioStreamingState: app?.audioStreamingState ?? .notAudible,
                systemContext: app?.systemContext ?? .main, videoStreamingState: app?.videoStreamingState ?? .notStreamable, windowID: 0),
            to: appID)
    }

    // MARK: Resumption

    /// Restores what the app had when its connection dropped, if `hashID` matches; returns the
    /// info text SDL Core sends, or nil when there is nothing to resume.
    func resume(_ request: RegisterAppInterface, into app: inout EmulatedApp) -> String? {
        guard let saved = resumption[request.appID], saved.hashID == request.hashID else { return nil }
        resumption[request.appID] = nil
        app.menu = saved.app.menu
        app.choiceSets = saved.app.choiceSets
        app.buttonSubscriptions = saved.app.buttonSubscriptions
        app.capabilitySubscriptions = saved.app.capabilitySubscriptions
        app.subscribedToWayPoints = saved.app.subscribedToWayPoints
        app.screen.globalProperties = saved.app.screen.globalProperties
        app.hashID = saved.hashID
        app.hashCounter = saved.app.hashCounter
        return "Data resumption successful"
    }

    // MARK: Language

    /// Changes the head unit's language: every app gets OnLanguageChange, then is unregistered
    /// with LANGUAGE_CHANGE and its session ended, as SDL Core does; apps register again.
    public func setLanguage(_ newLanguage: Language) async {
        guard newLanguage != language else { return }
        language = newLanguage
        var effects: [Effect] = []
        for app in apps.values.sorted(by: { $0.connectionID < $1.connectionID }) {
            effects.append(notification(OnLanguageChange(language: newLanguage, hmiDisplayLanguage: newLanguage), to: app.appID))
            effects.append(notification(OnAppInterfaceUnregistered(reason: .languageChange), to: app.appID))
            effects.append(.disconnect(appID: app.appID, endService: true, unregistered: true))
        }
        await perform(effects)
    }

    /// The head unit's language now.
    public var currentLanguage: Language { language }
}

/// What resumption brings back: the menu, choice sets, subscriptions (buttons, capabilities,
/// way points) and global properties.
struct ResumptionData: Sendable {
    let hashID: String
    let app: EmulatedApp
}

/// Why the control API refused.
public enum SDLHeadUnitControlError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No app with this app ID is registered now (HTTP 404).
    case unknownApp(String)
    /// Nothing waits for the driver on this app's screen (HTTP 409).
    case nothingToAnswer(appID: String)
    /// The driver's action does not fit what is on screen (a choice that is not offered, a slider
    /// position out of range, no keyboard shown) or its input is malformed (HTTP 400); the string
    /// says why.
    case invalidAnswer(String)
    /// No soft button with this ID is on the app's screen or on what is on top of it (HTTP 404).
    case unknownSoftButton(Int)
    /// The app's menu has no command with this `cmdID` (HTTP 404).
    case unknownCommand(Int)
    /// No remote-control module of that type (and ID) is in the car.
    case unknownModule(String)

    /// A sentence saying what was refused, as the control API's `error` text.
    public var description: String {
        switch self {
        case .unknownApp(let appID): "no app with ID \(appID) is registered"
        case .nothingToAnswer(let appID): "nothing waits for the user on \(appID)'s screen"
        case .invalidAnswer(let reason): "that answer does not fit what is on screen: \(reason)"
        case .unknownSoftButton(let id): "no soft button with ID \(id) is on screen"
        case .unknownCommand(let id): "no command with ID \(id) is in the menu"
        case .unknownModule(let module): "the car has no remote-control module \(module)"
        }
    }
}
