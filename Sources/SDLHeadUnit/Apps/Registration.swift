import SDLProtocol
import SDLRPC
import SDLRuntime

/// Registration, HMI levels and the app's life, as SDL Core runs them.
extension SDLHeadUnitEmulator {
    /// The app's key on the head unit: SDL Core (`UseFullAppID = true`) keys apps by `fullAppID`
    /// when present, so two apps whose short `appID`s agree are still two apps.
    static func key(of request: RegisterAppInterface) -> String {
        request.fullAppID.flatMap { $0.isEmpty ? nil : $0 } ?? request.appID
    }

    func register(_ request: RegisterAppInterface, on connectionID: Int) -> (Reply, [Effect]) {
        let key = Self.key(of: request)
        if apps.values.contains(where: { $0.connectionID == connectionID }) {
            return (.failure(.applicationRegisteredAlready, "the app is already registered on this connection"), [])
        }
        if apps[key] != nil {
            return (.failure(.applicationRegisteredAlready, nil), [])
        }
        var appTypes = request.appHMIType ?? []
        var code = SDLResult.success
        var info: String?
        switch policy.checkAppTypes(appTypes, appID: key) {
        case .allowed: break
        case .disallowed(let reason): return (.failure(.disallowed, reason), [])
        case .replaced(let listed, let reason):
            appTypes = listed
            code = .warnings
            info = reason
        }
        // SDL Core's whitespace check on the name.
        if Self.hasNewline(.string(request.appName)) { return (.failure(.invalidData, nil), []) }
        // SDL Core answers no info for a name clash.
        if nameClashes(request.appName, synonyms: request.vrSynonyms ?? [], ttsName: (request.ttsName ?? []).map(\.text), except: nil) {
            return (.failure(.duplicateName, nil), [])
        }
        var app = EmulatedApp(
            appID: key, name: request.appName, connectionID: connectionID, isMedia: request.isMediaApplication,
            appTypes: appTypes, rpcVersion: request.syncMsgVersion, language: request.languageDesired)
        // Every app follows DISPLAYS from registration on, unasked (SDL Core).
        app.capabilitySubscriptions.insert(.displays)
        app.buttonSubscriptions = buttonsSubscribedAtRegistration
        app.vrSynonyms = request.vrSynonyms ?? []
        app.ttsName = (request.ttsName ?? []).map(\.text)
        if request.languageDesired != language || request.hmiDisplayLanguageDesired != language {
            code = .wrongLanguage
        }
        if request.hashID != nil {
            // Resumption data is restored by the resumption store when it matches (see Resumption).
            if let restored = resume(request, into: &app) {
                info = restored
            } else {
                code = code == .success ? .resumeFailed : code
                info = info ?? "Hash from RAI does not match to saved resume data."
            }
        }
        apps[key] = app
        emit(.appRegistered(appID: key))
        var effects: [Effect] = [
            notification(
                OnHMIStatus(hmiLevel: .none, audioStreamingState: .notAudible, systemContext: .main, videoStreamingState: .notStreamable, windowID: 0), to: key),
            permissionsNotification(to: key),
            notification(OnSystemRequest(requestType: .lockScreenIconUrl, url: configuration.lockScreenIconURL), to: key),
            notification(Self.driverDistraction(on: driverDistracted, dismissalEnabled: true), to: key),
            notification(Self.driverDistraction(on: driverDistracted, dismissalEnabled: driverDistracted), to: key),
        ]
        // SDL Core tells a remote-control app (RPC 5.0+) which modules are free when it registers.
        if let status = remoteControlStatus(to: key) { effects.append(status) }
        // SDL's HMI (sdl_hmi) gives the new app's main window capabilities at once, and Core
        // passes them on: libraries (the JavaScript suite's manager) wait for it before a Show.
        if let displays = capabilityUpdate(.displays, to: key, window: 0) { effects.append(displays) }
        if let delay = configuration.activationDelay {
            if delay <= .zero {
                effects += activationEffects(key)
            } else {
                interactionSerial += 1
                schedule(.activation(appID: key, serial: interactionSerial), after: delay)
            }
        }
        let reply = registrationReply(
            code: code, info: info, iconResumed: fileState.icons[key] != nil, version: Self.negotiatedVersion(request.syncMsgVersion, headUnit: ownVersion),
            app: app)
        return (reply, effects)
    }

    /// Whether `name` (or its synonyms, or its TTS name) clashes with another registered app, as
    /// SDL Core checks it (ignoring case): the name against the other's name and voice synonyms,
    /// the synonyms against the other's name, TTS names against each other (registration only).
    func nameClashes(_ name: String, synonyms: [String], ttsName: [String]?, except key: String?) -> Bool {
        let folded = name.lowercased()
        let foldedSynonyms = Set(synonyms.map { $0.lowercased() })
        for other in apps.values where other.appID != key {
            let otherName = other.name.lowercased()
            if otherName == folded || other.vrSynonyms.contains(where: { $0.lowercased() == folded }) || foldedSynonyms.contains(otherName) {
                return true
            }
            if let ttsName, !other.ttsName.isEmpty,
                Set(ttsName.map { $0.lowercased() }).contains(where: { text in other.ttsName.contains { $0.lowercased() == text } })
            {
                return true
            }
        }
        return false
    }

    /// The head unit's RPC version: the configured registration response's (SDL Core 8.2: 8.0.0).
    var ownVersion: SyncMsgVersion {
        configuration.capabilities["syncMsgVersion"].flatMap { try? SDLJSON.decode(SyncMsgVersion.self, from: $0.jsonBytes, policy: .lenient).value }
            ?? SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0)
    }

    /// The RPC version SDL Core answers: its own to an app as new or newer; to an older app, the
    /// app's version, except that an app older than 5.0 (versions were not negotiated before) gets
    /// 4.5.1, and never more than the head unit's own.
    static func negotiatedVersion(_ app: SyncMsgVersion, headUnit own: SyncMsgVersion) -> SyncMsgVersion {
        let ownTuple = (own.majorVersion, own.minorVersion, own.patchVersion ?? 0)
        let requested = (app.majorVersion, app.minorVersion, app.patchVersion ?? 0)
        guard requested < ownTuple else { return own }
        if requested < (5, 0, 0) {
            return (4, 5, 1) < ownTuple ? SyncMsgVersion(majorVersion: 4, minorVersion: 5, patchVersion: 1) : own
        }
        return SyncMsgVersion(majorVersion: requested.0, minorVersion: requested.1, patchVersion: requested.2)
    }

    /// `iconResumed` is true when the head unit kept an icon the app set (SetAppIcon) before,
    /// as SDL Core does in its icon folder.
    private func registrationReply(code: SDLResult, info: String?, iconResumed: Bool, version: SyncMsgVersion, app: EmulatedApp) -> Reply {
        guard case .object(var members) = configuration.capabilities else { return .success(code, info: info) }
        members = withHMICapabilities(members)
        members.removeAll { ["success", "resultCode", "info", "language", "hmiDisplayLanguage"].contains($0.key) }
        members = members.map { member in
            switch member.key {
            case "iconResumed": .init(key: "iconResumed", value: .bool(iconResumed))
            case "syncMsgVersion": .init(key: "syncMsgVersion", value: (try? SDLJSONValue(parsing: SDLJSON.encode(version))) ?? member.value)
            case "displayCapabilities":
                .init(key: "displayCapabilities", value: Self.replacing("templatesAvailable", in: member.value, with: .array(templatesAvailable(to: app))))
            default: member
            }
        }
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
        // SDL Core compares with every other app (no TTS check); the app stays registered.
        if let name = request.appName ?? apps[appID]?.name,
            nameClashes(name, synonyms: request.vrSynonyms ?? [], ttsName: nil, except: appID)
        {
            return (.failure(.duplicateName, nil), [])
        }
        // SDL Core: a language its HMI did not list (GetSupportedLanguages) is REJECTED.
        if !hmiSupports(request.hmiDisplayLanguage, in: "UI") || !hmiSupports(request.language, in: "VR") || !hmiSupports(request.language, in: "TTS") {
            return (.failure(.rejected, nil), [])
        }
        apps[appID]?.language = request.language
        if let name = request.appName { apps[appID]?.name = name }
        if let synonyms = request.vrSynonyms { apps[appID]?.vrSynonyms = synonyms }
        if let ttsName = request.ttsName { apps[appID]?.ttsName = ttsName.map(\.text) }
        return (.success(), [])
    }

    /// Whether the connected HMI's `component` listed `language` at start-up; true when it
    /// listed none (or no HMI is connected).
    private func hmiSupports(_ language: Language, in component: String) -> Bool {
        guard hmi.isReady, case .array(let languages)? = hmi.answers["\(component).GetSupportedLanguages"]?["languages"] else { return true }
        return languages.contains(.string(language.rawValue))
    }

    /// OnPermissionsChange from the policy, before or after the app's policy update, encoded
    /// once per policy entry.
    func permissionsNotification(to appID: String) -> Effect {
        notification(OnPermissionsChange.self, json: policy.permissionsChangeJSON(for: appID, updated: apps[appID]?.policyUpdated ?? false), to: appID)
    }

    /// Replaces the policy; every app hears its new permissions.
    public func setPolicy(_ newPolicy: SDLHeadUnitPolicy) async {
        policy = newPolicy
        await perform(apps.keys.sorted().map { permissionsNotification(to: $0) })
    }

    // MARK: HMI levels

    /// Brings the app to FULL, as the driver choosing it; the app that was in FULL goes to
    /// LIMITED when it plays audio (media, navigation, communication) and to BACKGROUND otherwise.
    public func activate(appID: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        if let hmiDriver { return try await hmiDriver.activate(appID: appID) }
        await perform(activationEffects(appID) + hmiActivated(appID))
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
                effects.append(permissionsNotification(to: appID))
            }
        }
        // The app it replaces gets one OnHMIStatus: a video app displaced by another video app
        // goes LIMITED and NOT_STREAMABLE at once, as SDL Core says it.
        let takesVideo = apps[appID].map { videoStreamingState(of: $0, level: .full) == .streamable } ?? false
        for other in apps.values where other.appID != appID && other.hmiLevel == .full {
            effects += setLevel(other.isAudioApp ? .limited : .background, of: other.appID, displaced: takesVideo)
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

    /// Moves the app to `level`; `displaced`: another video app takes the screen, so this one
    /// is not streamable whatever its level.
    func setLevel(_ level: HMILevel, of appID: String, displaced: Bool = false) -> [Effect] {
        guard var app = apps[appID] else { return [] }
        app.hmiLevel = level
        app.limits.levelChanged(to: level)
        switch level {
        case .full: app.audioStreamingState = app.isAudioApp ? .audible : .notAudible
        case .limited: app.audioStreamingState = app.isAudioApp ? .audible : .notAudible
        default: app.audioStreamingState = .notAudible
        }
        app.videoStreamingState = displaced ? .notStreamable : videoStreamingState(of: app, level: level)
        if level == .none { app.systemContext = .main }
        apps[appID] = app
        noteStreamingAllowance(of: appID)
        emit(.hmiLevelChanged(appID: appID, level))
        // One video app streams at a time; NONE ends the app's streaming services at once.
        var effects = app.videoStreamingState == .streamable ? displaceVideoApps(except: appID) : []
        effects.append(hmiStatus(of: appID))
        if level == .none { effects += endStreaming(of: appID) }
        return effects
    }

    func hmiStatus(of appID: String) -> Effect {
        let app = apps[appID]
        return notification(
            OnHMIStatus(
                hmiLevel: app?.hmiLevel ?? .none, audioStreamingState: app?.audioStreamingState ?? .notAudible,
                systemContext: app?.systemContext ?? .main, videoStreamingState: app?.videoStreamingState ?? .notStreamable, windowID: 0),
            to: appID)
    }

    /// `object` with `key`'s value replaced (when it has that key).
    static func replacing(_ key: String, in object: SDLJSONValue, with value: SDLJSONValue) -> SDLJSONValue {
        guard case .object(let members) = object else { return object }
        return .object(members.map { $0.key == key ? .init(key: key, value: value) : $0 })
    }

    // MARK: Resumption

    /// Restores what the app had when its connection dropped, if `hashID` matches; returns the
    /// info text SDL Core sends, or nil when there is nothing to resume.
    func resume(_ request: RegisterAppInterface, into app: inout EmulatedApp) -> String? {
        let key = Self.key(of: request)  // saved under the same key the app was registered by
        guard let saved = resumption[key], saved.hashID == request.hashID else { return nil }
        resumption[key] = nil
        app.menu = saved.app.menu
        app.choiceSets = saved.app.choiceSets
        app.buttonSubscriptions = saved.app.buttonSubscriptions
        app.capabilitySubscriptions = saved.app.capabilitySubscriptions
        app.subscribedToWayPoints = saved.app.subscribedToWayPoints
        // Vehicle data the app followed, as SDL Core resumes its subscriptions with the HMI.
        if !saved.vehicleData.isEmpty { vehicleState.subscriptions[key] = saved.vehicleData }
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
/// way points, vehicle data) and global properties.
struct ResumptionData: Sendable {
    let hashID: String
    let app: EmulatedApp
    /// The vehicle-data items the app was subscribed to (kept by the vehicle, not the app).
    var vehicleData: Set<String> = []
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
