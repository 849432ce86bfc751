import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// Text, graphics, templates, the media clock and global properties: what the app puts on its
/// screen, kept as the HMI would show it.
extension SDLHeadUnitEmulator {
    func show(_ request: Show, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let windowID = request.windowID ?? 0
        // SDL Core checks the window exists, then the policy against that window's own level.
        guard let level = level(of: appID, window: windowID) else { return (.failure(.invalidId, nil), []) }
        if windowID != 0, level == .none { return (.failure(.disallowed, nil), []) }
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return (.success(), []) }
        var effects: [Effect] = []
        // SDL's HMI refuses a template the app's type may not use, before it shows anything.
        if let app = apps[appID], case .string(let template)? = members.first(where: { $0.key == "templateConfiguration" })?.value["template"],
            let refusal = templateRefusal(template, for: app, window: windowID)
        {
            return (refusal, [])
        }
        for member in members where windowID == 0 || member.key == "templateConfiguration" {
            if member.key == "templateConfiguration" {
                effects += changeTemplate(member.value, appID: appID, window: windowID)
            } else if case .string("") = member.value {
                apps[appID]?.screen.show[member.key] = nil
            } else {
                apps[appID]?.screen.show[member.key] = member.value
            }
        }
        return (.success(), effects)
    }

    func setDisplayLayout(_ request: SetDisplayLayout, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let layout = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        guard case .string(let name)? = layout["displayLayout"], templatesAvailable.contains(name) else {
            return (.failure(.rejected, "the display does not have that template"), [])
        }
        if let app = apps[appID], let refusal = templateRefusal(name, for: app, window: 0) { return (refusal, []) }
        let templateConfiguration = SDLJSONValue.object(
            [.init(key: "template", value: .string(name))]
                + (layout["dayColorScheme"].map { [.init(key: "dayColorScheme", value: $0)] } ?? [])
                + (layout["nightColorScheme"].map { [.init(key: "nightColorScheme", value: $0)] } ?? []))
        // SDL Core refuses new colours for the layout already shown.
        if let current = apps[appID]?.screen.template, current["template"] == .string(name),
            current["dayColorScheme"] != layout["dayColorScheme"] || current["nightColorScheme"] != layout["nightColorScheme"]
        {
            return (.failure(.rejected, nil), [])
        }
        let effects = changeTemplate(templateConfiguration, appID: appID, window: 0)
        var extra: [SDLJSONValue.Member] = []
        if let display = configuration.capabilities["displayCapabilities"] { extra.append(.init(key: "displayCapabilities", value: display)) }
        if let buttons = configuration.capabilities["buttonCapabilities"] { extra.append(.init(key: "buttonCapabilities", value: buttons)) }
        if let soft = configuration.capabilities["softButtonCapabilities"] { extra.append(.init(key: "softButtonCapabilities", value: soft)) }
        if let presets = configuration.capabilities["presetBankCapabilities"] { extra.append(.init(key: "presetBankCapabilities", value: presets)) }
        // From RPC 6.0 SDL Core sets the layout through the Show path and says so.
        if let version = apps[appID]?.rpcVersion, version.majorVersion >= 6 {
            return (.success(.warnings, info: Self.setDisplayLayoutDeprecated, extra: extra), effects)
        }
        return (.success(extra: extra), effects)
    }

    static let setDisplayLayoutDeprecated =
        "The RPC is deprecated and will be removed in a future version. "
        + "The requested display layout is set to the main window. Please use `Show.templateConfiguration` instead."

    /// sdl_hmi's `SDL.SDLModel.isTemplateSupported`: the templates an app of this type may use.
    static func isTemplateSupported(_ template: String, by app: EmulatedApp) -> Bool {
        switch template {
        case "MEDIA", "ONSCREEN_PRESETS": app.isMedia
        case "NAV_FULLSCREEN_MAP": app.appTypes.contains(.navigation) || app.appTypes.contains(.projection)
        case "WEB_VIEW": app.appTypes.contains(.webView)
        case "NON-MEDIA", "DEFAULT": true
        default: false
        }
    }

    /// REJECTED with sdl_hmi's words when the window's template changes to one the app's type
    /// may not use (only a change is checked, as sdl_hmi does).
    private func templateRefusal(_ template: String, for app: EmulatedApp, window: Int) -> Reply? {
        guard configuration.templatesByAppType, !Self.isTemplateSupported(template, by: app) else { return nil }
        let current = window == 0 ? app.screen.template["template"] : nil
        guard current != .string(template) else { return nil }
        return .failure(.rejected, "The requested layout is not supported for this app type")
    }

    /// The display's templates an app may use: with ``Configuration/templatesByAppType`` those
    /// its type allows, as the display capabilities it is told.
    func templatesAvailable(to app: EmulatedApp) -> [SDLJSONValue] {
        let names = displayTemplates
        guard configuration.templatesByAppType else { return names.map(SDLJSONValue.string) }
        return names.filter { Self.isTemplateSupported($0, by: app) }.map(SDLJSONValue.string)
    }

    var templatesAvailable: Set<String> { Set(displayTemplates) }

    /// The display's `templatesAvailable`, as configured.
    private var displayTemplates: [String] {
        guard case .array(let names)? = configuration.capabilities["displayCapabilities"]?["templatesAvailable"] else { return [] }
        return names.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    /// A new template (and colours) for a window; the app hears that window's capabilities
    /// (OnSystemCapabilityUpdated DISPLAYS), as from SDL Core after every template change.
    private func changeTemplate(_ templateConfiguration: SDLJSONValue, appID: String, window: Int) -> [Effect] {
        if window == 0 { apps[appID]?.screen.template = templateConfiguration }
        return [capabilityUpdate(.displays, to: appID, window: window)].compactMap { $0 }
    }

    func setMediaClockTimer(_ request: SetMediaClockTimer, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.isMedia == true else {
            return (.failure(.rejected, "SetMediaClockTimer is for media apps"), [])
        }
        apps[appID]?.screen.mediaClock = try? SDLJSONValue(parsing: rpc.json)
        let clock = MediaClock.applying(request, to: apps[appID]?.screen.runningClock, at: configuration.clock.now)
        apps[appID]?.screen.runningClock = clock
        return (.success(), [])
    }

    func setGlobalProperties(_ request: SetGlobalProperties, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json), !members.isEmpty else {
            return (.failure(.invalidData, "RPC.msg_params: SetGlobalProperties has no parameters"), [])
        }
        for member in members { apps[appID]?.screen.globalProperties[member.key] = member.value }
        return (.success(), [hashChange(of: appID)])
    }

    func resetGlobalProperties(_ request: ResetGlobalProperties, appID: String) -> (Reply, [Effect]) {
        for property in request.properties {
            for key in Self.globalPropertyKeys(property) { apps[appID]?.screen.globalProperties[key] = nil }
        }
        return (.success(), [hashChange(of: appID)])
    }

    private static func globalPropertyKeys(_ property: GlobalProperty) -> [String] {
        switch property {
        case .helpprompt: ["helpPrompt"]
        case .timeoutprompt: ["timeoutPrompt"]
        case .vrhelptitle: ["vrHelpTitle"]
        case .vrhelpitems: ["vrHelp"]
        case .menuname: ["menuTitle"]
        case .menuicon: ["menuIcon"]
        case .keyboardproperties: ["keyboardProperties"]
        case .userLocation: ["userLocation"]
        default: [property.rawValue]
        }
    }

    /// OnHashChange with a new 32-character hash, after a request that changed resumable state.
    func hashChange(of appID: String) -> Effect {
        var app = apps[appID]
        app?.hashCounter += 1
        let hash = Self.hash(appID: appID, counter: app?.hashCounter ?? 0)
        app?.hashID = hash
        if let app { apps[appID] = app }
        return notification(OnHashChange(hashID: hash), to: appID)
    }

    private static func hash(appID: String, counter: Int) -> String {
        // FNV-1a over the app ID and a counter, printed as 32 hex digits like SDL Core's MD5.
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in Array("\(appID)#\(counter)".utf8) {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 1
        }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(first) + hex(second)
    }

    /// The file names of DYNAMIC images anywhere inside `value`.
    static func dynamicImageNames(_ value: SDLJSONValue) -> [String] {
        switch value {
        case .object(let members):
            if case .string(let name)? = value["value"], case .string("DYNAMIC")? = value["imageType"] { return [name] }
            return members.flatMap { dynamicImageNames($0.value) }
        case .array(let items):
            return items.flatMap(dynamicImageNames)
        default:
            return []
        }
    }

    // MARK: The screen as JSON

    /// Everything on the app's screen: text fields, graphics (by file name), soft buttons,
    /// template and colours, media clock, global properties, the menu, choice sets, button
    /// subscriptions, and what is on top with its system context.
    public func screen(appID: String) throws(SDLHeadUnitControlError) -> SDLJSONValue {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        var members: [SDLJSONValue.Member] = [
            .init(key: "hmiLevel", value: .string(app.hmiLevel.rawValue)),
            .init(key: "systemContext", value: .string(app.systemContext.rawValue)),
            .init(key: "templateConfiguration", value: app.screen.template),
        ]
        members += app.screen.show.keys.sorted().map { .init(key: $0, value: app.screen.show[$0]!) }
        members.append(.init(key: "turnByTurn", value: app.turnByTurn.json))
        // The last SetMediaClockTimer (Show's own, deprecated, `mediaClock` is a string).
        if let clock = app.screen.mediaClock { members.append(.init(key: "mediaClockTimer", value: clock)) }
        if let clock = app.screen.runningClock { members.append(.init(key: "mediaClockReading", value: clock.json(at: configuration.clock.now))) }
        // Every dynamic image on screen, by file name, with where its bytes are and whether the
        // app uploaded it (SDL Core shows nothing for a missing one, and still answers SUCCESS).
        let store = fileStore(of: appID)
        let names = Set(app.screen.show.values.flatMap(Self.dynamicImageNames) + Self.dynamicImageNames(app.turnByTurn.json)).sorted()
        members.append(
            .init(
                key: "images",
                value: .array(
                    names.map { name in
                        .object([
                            .init(key: "name", value: .string(name)), .init(key: "url", value: .string("/apps/\(appID)/files/\(name)")),
                            .init(key: "uploaded", value: .bool(store.exists(name))),
                        ])
                    })))
        members.append(
            .init(
                key: "globalProperties",
                value: .object(app.screen.globalProperties.keys.sorted().map { .init(key: $0, value: app.screen.globalProperties[$0]!) })))
        members.append(
            .init(
                key: "menu",
                value: .object([
                    .init(key: "subMenus", value: .array(app.menu.subMenuOrder.compactMap { app.menu.subMenus[$0] })),
                    .init(key: "commands", value: .array(app.menu.commandOrder.compactMap { app.menu.commands[$0] })),
                ])))
        members.append(.init(key: "choiceSets", value: .array(app.choiceSets.keys.sorted().compactMap { app.choiceSets[$0] })))
        members.append(.init(key: "subscribedButtons", value: .array(app.buttonSubscriptions.map(\.rawValue).sorted().map(SDLJSONValue.string))))
        // A navigation app's video and the areas its haptic data says are focusable.
        members.append(
            .init(
                key: "streaming",
                value: .object(
                    [
                        .init(key: "video", value: .bool(app.streamingServices.contains(.video))),
                        .init(key: "audio", value: .bool(app.streamingServices.contains(.audio))),
                    ] + (app.streamingServices.contains(.video) ? [.init(key: "videoCodec", value: .string(app.video?.videoCodec ?? "H264"))] : []))))
        members.append(.init(key: "hapticRects", value: .array(app.hapticRects.compactMap { try? SDLJSONValue(parsing: SDLJSON.encode($0)) })))
        if app.menuOpen {
            members.append(.init(key: "onTop", value: .object([.init(key: "kind", value: .string("menu"))])))
        } else if let interaction = app.interaction {
            members.append(
                .init(
                    key: "onTop",
                    value: .object(
                        [
                            .init(key: "kind", value: .string(interaction.kind.rawValue)),
                            .init(key: "request", value: interaction.request),
                        ] + (app.keyboardEntry.map { [.init(key: "keyboardEntry", value: .string($0))] } ?? []))))
        }
        return .object(members)
    }
}
