import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// An app request sent on to the HMI in one or two parts (`UI.AddCommand` + `VR.AddCommand`);
/// the app is answered once every part is, with SDL Core's combination of the results.
struct HMIExchange: Sendable {
    let appID: String
    let function: String
    /// The response's function ID and the request's correlation ID.
    let responseID: UInt32
    let correlationID: UInt32
    /// The request IDs still waiting.
    var waiting: Set<Int>
    /// Each part's answer, by method.
    var results: [String: HMIComponentResult] = [:]
    /// What the Core half's own rules made of the request besides its answer (OnHashChange...),
    /// sent once the HMI accepted it.
    let effects: [SDLHeadUnitEmulator.Effect]
    /// The Core half's own answer, when it decided one (SDL Core's own checks: an image not
    /// found is WARNINGS, items already subscribed IGNORED): it stands when the HMI says SUCCESS.
    var coreReply: Reply?
    /// The Core half's own answer's members (the items it answered itself), under the HMI's.
    var baseFields: [SDLJSONValue.Member] = []
    /// Runs with the HMI's answer once every part is answered (an RC consent it gave or refused).
    var onAnswer: (@Sendable (isolated SDLHeadUnitEmulator, Reply) -> Void)?
    /// For a request that changes only the app's own state (its screen, menu, buttons): the
    /// Core half's rule, applied again once the HMI accepted it (its state was put back when the
    /// request went to the HMI, so a refusal leaves nothing behind); its effects replace `effects`.
    var reapply: (@Sendable (isolated SDLHeadUnitEmulator) -> [SDLHeadUnitEmulator.Effect])?
}

/// One component's answer: its `Common.Result` number and `info`.
struct HMIComponentResult: Sendable {
    var code: Int
    var info: String?
    /// The result's other members (`choiceID`, `sliderPosition`, `tryAgainTime`...), for the app's answer.
    var fields: [SDLJSONValue.Member] = []
    /// The component said IsReady `available: false` (Core answered for it).
    var componentAbsent = false

    var isOK: Bool {
        [Common.Result.success, .warnings, .wrongLanguage, .retry, .saved, .truncatedData].map(\.code).contains(code)
    }

    var isUnsupportedResource: Bool { code == Common.Result.unsupportedResource.code }

    /// The answer's `result` members besides `code` and `method`.
    var members: [SDLJSONValue.Member] {
        (info.map { [SDLJSONValue.Member(key: "info", value: .string($0))] } ?? []) + fields
    }

    /// The app's result code with the same name (SDL Core's HMIToMobileResult).
    var mobileResult: SDLResult { SDLResult(rawValue: Common.Result(code: code).rawValue) }
}

extension SDLHeadUnitEmulator {
    /// The HMI requests an app request becomes, as SDL Core 8.2 forwards it (params as JSON,
    /// without the HMI app ID, which `forwardToHMI` adds); nil when Core answers it alone.
    static func hmiParts(of function: String, _ json: SDLJSONValue) -> [(method: String, params: [SDLJSONValue.Member])] {
        func members(_ keys: [String]) -> [SDLJSONValue.Member] { Self.members(of: json, keys) }
        switch function {
        case "Show":
            return [("UI.Show", showParams(json))]
        case "AddCommand":
            var parts: [(String, [SDLJSONValue.Member])] = []
            if json["menuParams"] != nil { parts.append(("UI.AddCommand", members(["cmdID", "menuParams", "cmdIcon"]))) }
            if json["vrCommands"] != nil {
                parts.append(("VR.AddCommand", members(["cmdID", "vrCommands"]) + [.init(key: "type", value: .string("Command"))]))
            }
            return parts
        case "DeleteCommand":
            return [("UI.DeleteCommand", members(["cmdID"]))]
        case "EndAudioPassThru":
            return [("UI.EndAudioPassThru", [])]
        case "ChangeRegistration":
            // In SDL Core's order: VR, TTS, UI (its language the display's).
            return [
                ("VR.ChangeRegistration", members(["language", "vrSynonyms"])), ("TTS.ChangeRegistration", members(["language", "ttsName"])),
                ("UI.ChangeRegistration", [.init(key: "language", value: json["hmiDisplayLanguage"] ?? .string("EN-US"))] + members(["appName", "ngnMediaScreenAppName"])),
            ]
        case "AddSubMenu":
            var menuParams: [SDLJSONValue.Member] = [.init(key: "menuName", value: json["menuName"] ?? .string(""))]
            if let position = json["position"] { menuParams.append(.init(key: "position", value: position)) }
            if let parent = json["parentID"] { menuParams.append(.init(key: "parentID", value: parent)) }
            return [("UI.AddSubMenu", members(["menuID"]) + [.init(key: "menuParams", value: .object(menuParams))] + members(["menuIcon", "menuLayout"]))]
        case "DeleteSubMenu":
            return [("UI.DeleteSubMenu", members(["menuID"]))]
        case "SetMediaClockTimer":
            return [("UI.SetMediaClockTimer", members(["startTime", "endTime", "updateMode", "audioStreamingIndicator", "countRate", "forwardSeekIndicator", "backSeekIndicator"]))]
        case "CreateWindow":
            return [("UI.CreateWindow", members(["windowID", "windowName", "type", "associatedServiceType", "duplicateUpdatesFromWindowID"]))]
        case "DeleteWindow":
            return [("UI.DeleteWindow", members(["windowID"]))]
        case "SetDisplayLayout":
            return [("UI.SetDisplayLayout", members(["displayLayout", "dayColorScheme", "nightColorScheme"]))]
        case "SetAppIcon":
            guard let name = json["syncFileName"] else { return [] }
            return [("UI.SetAppIcon", [.init(key: "syncFileName", value: .object([.init(key: "value", value: name), .init(key: "imageType", value: .string("DYNAMIC"))]))])]
        case "SubscribeButton", "UnsubscribeButton":
            return [("Buttons.\(function)", members(["buttonName"]))]
        case "DialNumber":
            return [("BasicCommunication.DialNumber", members(["number"]))]
        case "SendLocation":
            return [("Navigation.SendLocation", members([
                "longitudeDegrees", "latitudeDegrees", "locationName", "locationDescription", "addressLines", "phoneNumber", "locationImage",
                "timeStamp", "address", "deliveryMode",
            ]))]
        case "GetWayPoints":
            return [("Navigation.GetWayPoints", members(["wayPointType"]))]
        case "SubscribeWayPoints", "UnsubscribeWayPoints":
            return [("Navigation.\(function)", [])]
        case "ShowConstantTBT":
            let texts = textFields(json, [
                ("navigationText1", "navigationText1"), ("navigationText2", "navigationText2"), ("eta", "ETA"), ("totalDistance", "totalDistance"),
                ("timeToDestination", "timeToDestination"),
            ])
            return [("Navigation.ShowConstantTBT", [.init(key: "navigationTexts", value: .array(texts))] + members([
                "turnIcon", "nextTurnIcon", "distanceToManeuver", "distanceToManeuverScale", "maneuverComplete", "softButtons",
            ]))]
        case "AlertManeuver":
            var parts: [(String, [SDLJSONValue.Member])] = [("Navigation.AlertManeuver", members(["softButtons"]))]
            if let chunks = json["ttsChunks"] { parts.append(("TTS.Speak", [.init(key: "ttsChunks", value: chunks), .init(key: "speakType", value: .string("ALERT_MANEUVER"))])) }
            return parts
        case "UpdateTurnList":
            var turns: [SDLJSONValue] = []
            if case .array(let list)? = json["turnList"] {
                turns = list.map { turn in
                    var fields: [SDLJSONValue.Member] = []
                    if case .string? = turn["navigationText"] { fields.append(.init(key: "navigationText", value: textField("turnText", turn["navigationText"]))) }
                    if let icon = turn["turnIcon"] { fields.append(.init(key: "turnIcon", value: icon)) }
                    return .object(fields)
                }
            }
            return [("Navigation.UpdateTurnList", [.init(key: "turnList", value: .array(turns))] + members(["softButtons"]))]
        case "GetInteriorVehicleData":
            return [("RC.GetInteriorVehicleData", members(["moduleType", "moduleId", "subscribe"]))]
        case "SetInteriorVehicleData":
            return [("RC.SetInteriorVehicleData", members(["moduleData"]))]
        case "ButtonPress":
            return [("Buttons.ButtonPress", members(["moduleType", "moduleId", "buttonName", "buttonPressMode"]))]
        case "GetInteriorVehicleDataConsent":
            // The driver is asked on the HMI: its `allowed` is the app's.
            return [("RC.GetInteriorVehicleDataConsent", members(["moduleType", "moduleIds"]))]
        case "SetGlobalProperties":
            var parts: [(String, [SDLJSONValue.Member])] = []
            let ui = members(["vrHelpTitle", "vrHelp", "menuTitle", "menuIcon", "keyboardProperties", "menuLayout", "userLocation"])
            let tts = members(["helpPrompt", "timeoutPrompt"])
            if !ui.isEmpty { parts.append(("UI.SetGlobalProperties", ui)) }
            if !tts.isEmpty { parts.append(("TTS.SetGlobalProperties", tts)) }
            return parts
        default:
            return []
        }
    }

    /// Show's parameters as UI.Show takes them: the text fields as `showStrings`.
    private static func showParams(_ json: SDLJSONValue) -> [SDLJSONValue.Member] {
        let textFields = ["mainField1", "mainField2", "mainField3", "mainField4", "statusBar", "mediaClock", "mediaTrack", "templateTitle"]
        var strings: [SDLJSONValue] = []
        for field in textFields {
            guard case .string? = json[field], case .object(var entry) = textField(field, json[field]) else { continue }
            if field.hasPrefix("mainField"), let tags = json["metadataTags"]?[field] { entry.append(.init(key: "fieldTypes", value: tags)) }
            strings.append(.object(entry))
        }
        var params: [SDLJSONValue.Member] = [.init(key: "showStrings", value: .array(strings))]
        for key in ["alignment", "graphic", "secondaryGraphic", "softButtons", "customPresets", "windowID", "templateConfiguration"] {
            if let value = json[key] { params.append(.init(key: key, value: value)) }
        }
        return params
    }

    /// The requests the driver answers on the HMI: the Core half checks them (its rules start
    /// them as the built-in HMI would), then the HMI shows them and its answer is the app's.
    static let interactions: Set<String> = ["Alert", "SubtleAlert", "PerformInteraction", "Slider", "ScrollableMessage", "Speak", "PerformAudioPassThru"]

    /// The app requests SDL Core sends on to its HMI (`forwardedToHMI` says how).
    static let forwardedFunctions: Set<String> = interactions.union([
        "Show", "AddCommand", "DeleteCommand", "AddSubMenu", "DeleteSubMenu", "SetMediaClockTimer", "SetGlobalProperties", "SetDisplayLayout",
        "CreateWindow", "DeleteWindow", "SetAppIcon", "SubscribeButton", "UnsubscribeButton", "DialNumber", "SendLocation", "GetWayPoints",
        "SubscribeWayPoints", "UnsubscribeWayPoints", "ShowConstantTBT", "AlertManeuver", "UpdateTurnList", "GetInteriorVehicleData",
        "SetInteriorVehicleData", "ButtonPress", "GetVehicleData", "SubscribeVehicleData", "UnsubscribeVehicleData", "CancelInteraction",
        "ChangeRegistration", "GetInteriorVehicleDataConsent", "EndAudioPassThru",
    ])

    /// What becomes of an app request the Core half accepted: the HMI parts it goes on as, to
    /// the connected HMI or else to the built-in one, with the app's answer deferred to the
    /// HMI's; nil when Core answers it alone (or refused it).
    func forwardedToHMI(
        _ function: String, rpc: SDLRPCPayload, appID: String, responseID: UInt32, builtIn: (reply: Reply, effects: [Effect]),
        before: EmulatedApp? = nil, reapply: (@Sendable (isolated SDLHeadUnitEmulator) -> [Effect])? = nil
    ) -> (Reply, [Effect])? {
        let json = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        let forward = { (parts: [(method: String, params: [SDLJSONValue.Member])], effects: [Effect], wait: Duration) in
            self.forwardToHMI(
                parts, function: function, appID: appID, responseID: responseID, correlationID: rpc.correlationID, effects: effects, driverTime: wait,
                coreReply: builtIn.reply, request: json)
        }
        switch function {
        case "GetVehicleData":
            // The car's values are the HMI's (VehicleInfo), for the items the policy allows.
            let items = requestedItems(rpc, function: function, appID: appID)
            guard builtIn.reply.isSuccess, !items.isEmpty else { return nil }
            // A connected HMI's values stand alone; the built-in HMI's are the simulated car's.
            var core = builtIn.reply
            if hmi.isReady { core.fields = [] }
            return forwardToHMI(
                [("VehicleInfo.GetVehicleData", items.map { .init(key: $0, value: .bool(true)) })], function: function, appID: appID,
                responseID: responseID, correlationID: rpc.correlationID, effects: [], coreReply: core)
        case "SubscribeVehicleData", "UnsubscribeVehicleData":
            // Core asks the HMI only for an item's first subscriber (and after its last one left);
            // the others it answers itself.
            guard builtIn.reply.isSuccess else { return nil }
            let subscribing = function == "SubscribeVehicleData"
            let items = requestedItems(rpc, function: function, appID: appID).filter { item in
                let subscribers = vehicleState.subscribers(of: item)
                return subscribing ? subscribers == [appID] : subscribers.isEmpty
            }
            guard !items.isEmpty else { return nil }
            return forward([("VehicleInfo.\(function)", items.map { .init(key: $0, value: .bool(true)) })], builtIn.effects, .zero)
        default:
            break
        }
        if function == "GetInteriorVehicleDataConsent" {
            guard builtIn.reply.isSuccess else { return nil }
            let parts = Self.hmiParts(of: function, json)
            guard hmi.isReady else { return forward(parts, builtIn.effects, .zero) }
            // The driver's answer on the HMI replaces the configured one the rule recorded.
            let moduleType: String = if case .string(let type)? = json["moduleType"] { type } else { "" }
            let ids: [String] = if case .array(let list)? = json["moduleIds"] { list.compactMap { if case .string(let id) = $0 { id } else { nil } } } else { [] }
            let (reply, effects) = forward(parts, builtIn.effects, .zero)
            hmi.exchanges[hmi.nextExchange]?.onAnswer = { headUnit, answer in
                headUnit.recordConsents(answer, moduleType: ModuleType(rawValue: moduleType), ids: ids, appID: appID)
            }
            return (reply, effects)
        }
        if function == "EndAudioPassThru" {
            // The built-in HMI's recording ends with the rule's answers (PerformAudioPassThru,
            // then EndAudioPassThru); a connected HMI is asked, and answers both itself.
            guard hmi.isReady else { return nil }
            return forward(Self.hmiParts(of: function, json), [], .zero)
        }
        if function == "CancelInteraction" {
            // The interaction is the HMI's: it is asked to close it (and answers it ABORTED
            // itself). The built-in HMI's was closed by the Core half's rule: its answers follow.
            let parts = [(method: "UI.CancelInteraction", params: Self.members(of: json, ["cancelID", "functionID"]))]
            guard hmi.isReady else {
                // The built-in HMI's cancel is the rule's: its answer (SUCCESS, or IGNORED with
                // nothing to cancel) and the interaction's ABORTED.
                let answer = HMIComponentResult(code: Self.hmiResultCode(builtIn.reply.resultCode), info: builtIn.reply.info)
                return forwardToHMI(
                    parts, function: function, appID: appID, responseID: responseID, correlationID: rpc.correlationID, effects: builtIn.effects,
                    coreReply: .success(), builtInAnswer: answer)
            }
            return forward(parts, [], .zero)
        }
        if Self.interactions.contains(function) {
            // Refused by the Core half (INVALID_ID, a missing file...): that answer stands.
            guard builtIn.reply.isDeferred || builtIn.reply.isSuccess else { return nil }
            let (parts, wait) = interactionParts(of: function, json, appID: appID)
            guard hmi.isReady else {
                // The built-in HMI runs the interaction the rule started; what the rule changed
                // (the system context, an interaction it aborted) is heard at once.
                let (reply, effects) = forward(parts, [], wait)
                return (reply, effects + builtIn.effects)
            }
            if function == "PerformAudioPassThru", let interaction = apps[appID]?.interaction, interaction.correlationID == rpc.correlationID {
                // The Core half records (as Core reads the microphone) while the HMI shows the
                // popup; the HMI's answer is the app's and ends the recording.
                apps[appID]?.interaction?.answeredByHMI = true
                apps[appID]?.systemContext = .main
                let serial = interaction.serial
                let (reply, effects) = forwardToHMI(
                    parts, function: function, appID: appID, responseID: responseID, correlationID: rpc.correlationID, effects: [], driverTime: wait,
                    coreReply: .deferred)
                hmi.exchanges[hmi.nextExchange]?.onAnswer = { headUnit, _ in headUnit.recordingAnswered(appID: appID, serial: serial) }
                return (reply, effects)
            }
            // What the prompt can say is the HMI's to answer (Core does not check it): the Core
            // half's speech verdict does not stand over a connected HMI's answer.
            return forwardToHMI(
                parts, function: function, appID: appID, responseID: responseID, correlationID: rpc.correlationID, effects: [], driverTime: wait,
                coreReply: .deferred)
        }
        guard builtIn.reply.isSuccess, !builtIn.reply.isDeferred else { return nil }
        let parts = Self.hmiParts(of: function, json)
        guard !parts.isEmpty else { return nil }
        guard Self.appStateOnly.contains(function), let before, let reapply else { return forward(parts, builtIn.effects, .zero) }
        // Put the app's state back until the HMI accepts; the rule runs again then.
        apps[appID] = before
        return forwardToHMI(
            parts, function: function, appID: appID, responseID: responseID, correlationID: rpc.correlationID, effects: [], coreReply: builtIn.reply,
            reapply: reapply)
    }

    /// The forwarded requests that change only the app's own state, applied when the HMI accepts them.
    static let appStateOnly: Set<String> = [
        "Show", "AddCommand", "DeleteCommand", "AddSubMenu", "DeleteSubMenu", "SetMediaClockTimer", "SetGlobalProperties", "SetDisplayLayout",
        "SubscribeButton", "UnsubscribeButton", "CreateWindow", "DeleteWindow",
    ]

    static func members(of json: SDLJSONValue, _ keys: [String]) -> [SDLJSONValue.Member] {
        keys.compactMap { key in json[key].map { SDLJSONValue.Member(key: key, value: $0) } }
    }

    /// `{fieldName, fieldText}` for each of `fields` the request has.
    static func textFields(_ json: SDLJSONValue, _ fields: [(String, String)]) -> [SDLJSONValue] {
        fields.compactMap { key, name in
            guard case .string? = json[key] else { return nil }
            return textField(name, json[key])
        }
    }

    /// A `Common.TextFieldStruct`: the HMI API's text, named by the field it goes in (an absent
    /// text is empty).
    static func textField(_ name: String, _ text: SDLJSONValue?) -> SDLJSONValue {
        .object([.init(key: "fieldName", value: .string(name)), .init(key: "fieldText", value: text ?? .string(""))])
    }

    private static func milliseconds(_ value: SDLJSONValue?, default fallback: Int) -> Int {
        if case .integer(let milliseconds)? = value { milliseconds } else { fallback }
    }

    /// An interaction's HMI parts, as SDL Core 8.2 sends them, and how long the driver has (Core
    /// waits that long beyond its default timeout).
    func interactionParts(of function: String, _ json: SDLJSONValue, appID: String) -> ([(method: String, params: [SDLJSONValue.Member])], Duration) {
        switch function {
        case "Alert", "SubtleAlert":
            let strings = Self.textFields(json, [("alertText1", "alertText1"), ("alertText2", "alertText2"), ("alertText3", "alertText3")])
            let speaks = json["ttsChunks"].map { if case .array(let chunks) = $0 { !chunks.isEmpty } else { false } } ?? false
            let duration = Self.milliseconds(json["duration"], default: 5_000)
            var ui: [SDLJSONValue.Member] = [
                .init(key: "alertStrings", value: .array(strings)), .init(key: "duration", value: .integer(duration)),
                .init(key: "alertType", value: .string(speaks ? "BOTH" : "UI")),
            ]
            ui += Self.members(of: json, function == "Alert" ? ["softButtons", "progressIndicator", "cancelID", "alertIcon"] : ["softButtons", "cancelID", "alertIcon"])
            var parts: [(method: String, params: [SDLJSONValue.Member])] = [("UI.\(function)", ui)]
            if speaks, let chunks = json["ttsChunks"] {
                parts.append(("TTS.Speak", [.init(key: "ttsChunks", value: chunks), .init(key: "speakType", value: .string(function == "Alert" ? "ALERT" : "SUBTLE_ALERT"))]))
            }
            return (parts, .milliseconds(duration))
        case "Speak":
            return ([("TTS.Speak", Self.members(of: json, ["ttsChunks"]) + [.init(key: "speakType", value: .string("SPEAK"))])], .zero)
        case "PerformAudioPassThru":
            // The popup while the microphone records, and the prompt spoken first.
            let maxDuration = Self.milliseconds(json["maxDuration"], default: 10_000)
            let texts = Self.textFields(json, [("audioPassThruDisplayText1", "audioPassThruDisplayText1"), ("audioPassThruDisplayText2", "audioPassThruDisplayText2")])
            var parts: [(method: String, params: [SDLJSONValue.Member])] = [("UI.PerformAudioPassThru", [
                .init(key: "audioPassThruDisplayTexts", value: .array(texts)), .init(key: "maxDuration", value: .integer(maxDuration)),
                .init(key: "muteAudio", value: json["muteAudio"] ?? .bool(true)),
            ])]
            if case .array(let prompt)? = json["initialPrompt"], !prompt.isEmpty {
                parts.append(("TTS.Speak", [.init(key: "ttsChunks", value: .array(prompt)), .init(key: "speakType", value: .string("AUDIO_PASS_THRU"))]))
            }
            return (parts, .milliseconds(maxDuration))
        case "Slider":
            let timeout = Self.milliseconds(json["timeout"], default: 10_000)
            var ui = Self.members(of: json, ["numTicks", "position", "sliderHeader", "sliderFooter", "cancelID"])
            ui.append(.init(key: "timeout", value: .integer(timeout)))
            return ([("UI.Slider", ui)], .milliseconds(timeout))
        case "ScrollableMessage":
            let timeout = Self.milliseconds(json["timeout"], default: 30_000)
            var ui: [SDLJSONValue.Member] = [
                .init(key: "messageText", value: Self.textField("scrollableMessageBody", json["scrollableMessageBody"])),
                .init(key: "timeout", value: .integer(timeout)),
            ]
            ui += Self.members(of: json, ["softButtons", "cancelID"])
            return ([("UI.ScrollableMessage", ui)], .milliseconds(timeout))
        default:
            return performInteractionParts(json, appID: appID)
        }
    }

    /// PerformInteraction: UI.PerformInteraction with the choice sets' choices unless VR_ONLY,
    /// VR.PerformInteraction with their grammars unless MANUAL_ONLY.
    private func performInteractionParts(_ json: SDLJSONValue, appID: String) -> ([(method: String, params: [SDLJSONValue.Member])], Duration) {
        let timeout = Self.milliseconds(json["timeout"], default: 10_000)
        let mode: String = if case .string(let mode)? = json["interactionMode"] { mode } else { "BOTH" }
        let setIDs: [Int] = if case .array(let ids)? = json["interactionChoiceSetIDList"] {
            ids.compactMap { if case .integer(let id) = $0 { id } else { nil } }
        } else { [] }
        var parts: [(method: String, params: [SDLJSONValue.Member])] = []
        if mode != "VR_ONLY" {
            var choices: [SDLJSONValue] = []
            for id in setIDs {
                guard case .array(let set)? = apps[appID]?.choiceSets[id]?["choiceSet"] else { continue }
                for choice in set {
                    choices.append(.object(Self.members(of: choice, ["choiceID", "menuName", "image", "secondaryText", "tertiaryText", "secondaryImage"])))
                }
            }
            var ui: [SDLJSONValue.Member] = [
                .init(key: "initialText", value: Self.textField("initialInteractionText", json["initialText"])),
                .init(key: "choiceSet", value: .array(choices)), .init(key: "timeout", value: .integer(timeout)),
            ]
            ui += Self.members(of: json, ["vrHelp", "interactionLayout", "cancelID"])
            parts.append(("UI.PerformInteraction", ui))
        }
        if mode != "MANUAL_ONLY" {
            var vr = Self.members(of: json, ["helpPrompt", "initialPrompt", "timeoutPrompt", "cancelID"])
            vr += [.init(key: "timeout", value: .integer(timeout)), .init(key: "grammarID", value: .array(setIDs.map(SDLJSONValue.integer)))]
            parts.append(("VR.PerformInteraction", vr))
        }
        return (parts, .milliseconds(timeout))
    }

    /// Sends `parts` of the app's request to the HMI — the connected one, else the built-in one —
    /// and defers the app's answer until the HMI has answered them all (or `hmiTimeout` passed);
    /// `effects` (what the Core half's rules made of the request) wait for the HMI's acceptance.
    /// `coreReply` is the Core half's own answer: its fields go under the HMI's, and its result
    /// stands when the HMI's is SUCCESS. `builtInAnswer` is the built-in HMI's answer when the
    /// Core half's rule played its part already.
    func forwardToHMI(
        _ parts: [(method: String, params: [SDLJSONValue.Member])], function: String, appID: String, responseID: UInt32, correlationID: UInt32,
        effects: [Effect], driverTime: Duration = .zero, coreReply: Reply, builtInAnswer: HMIComponentResult? = nil, request: SDLJSONValue = .null,
        reapply: (@Sendable (isolated SDLHeadUnitEmulator) -> [Effect])? = nil
    ) -> (Reply, [Effect]) {
        hmi.nextExchange += 1
        let exchange = hmi.nextExchange
        var messages: [Effect] = []
        var waiting: Set<Int> = []
        var answeredAtOnce: [(id: Int, result: HMIComponentResult)] = []
        let hmiAppID = hmi.isReady ? hmi.appID(of: appID) : 0
        for part in parts {
            let id = hmi.requestID()
            waiting.insert(id)
            hmi.pending[id] = HMIPendingRequest(method: part.method, exchange: exchange, startUp: false, builtIn: !hmi.isReady)
            guard hmi.isReady else {
                if let builtInAnswer {
                    answeredAtOnce.append((id, builtInAnswer))
                    continue
                }
                let (result, shown) = builtInHMIReceived(
                    part.method, requestID: id, appID: appID, function: function, request: request, correlationID: correlationID, functionID: responseID)
                messages += shown
                if let result {
                    answeredAtOnce.append((id, result))
                } else {
                    schedule(.hmiRequest(id: id), after: configuration.hmiTimeout + driverTime)
                }
                continue
            }
            let component = HMIBridge.component(of: part.method)
            guard !hmi.unavailable.contains(component) else {
                // SDL Core's ProcessHMIInterfacesAvailability: the request is not sent, its answer
                // is UNSUPPORTED_RESOURCE.
                answeredAtOnce.append((id, HMIComponentResult(
                    code: Common.Result.unsupportedResource.code, info: "\(component) is not supported by system", componentAbsent: true)))
                continue
            }
            schedule(.hmiRequest(id: id), after: configuration.hmiTimeout + driverTime)
            let params = SDLJSONValue.object(
                withImagePaths(Self.withSoftButtonDefaults(part.params), appID: appID) + [.init(key: "appID", value: .integer(hmiAppID))])
            messages.append(.toHMI(.component(HMIBridge.component(of: part.method)), HMIMessage.request(id: id, method: part.method, params: params)))
        }
        hmi.exchanges[exchange] = HMIExchange(
            appID: appID, function: function, responseID: responseID, correlationID: correlationID, waiting: waiting, effects: effects,
            coreReply: coreReply.isSuccess ? coreReply : nil, baseFields: coreReply.fields, reapply: reapply)
        for answer in answeredAtOnce {
            messages += hmiAnswered(answer.id, code: answer.result.code, result: .object(answer.result.members))
        }
        return (.deferred, messages)
    }

    /// Soft buttons as Core hands them on: with the mobile API's default values filled in
    /// (`isHighlighted` false, `systemAction` DEFAULT_ACTION), which the HMI API requires.
    static func withSoftButtonDefaults(_ members: [SDLJSONValue.Member]) -> [SDLJSONValue.Member] {
        members.map { member in
            guard member.key == "softButtons", case .array(let buttons) = member.value else { return member }
            let filled: [SDLJSONValue] = buttons.map { button in
                guard case .object(var fields) = button else { return button }
                if button["isHighlighted"] == nil { fields.append(.init(key: "isHighlighted", value: .bool(false))) }
                if button["systemAction"] == nil { fields.append(.init(key: "systemAction", value: .string("DEFAULT_ACTION"))) }
                return .object(fields)
            }
            return .init(key: member.key, value: .array(filled))
        }
    }

    /// `members` with each dynamic image's file name replaced by its full path in
    /// `Configuration.hmiFileFolder`, where the file is written for the HMI to load (SDL Core
    /// hands its HMI paths in its `AppStorageFolder`; an HMI opened from the file system loads
    /// them directly). Without a folder, names go as they are.
    func withImagePaths(_ members: [SDLJSONValue.Member], appID: String) -> [SDLJSONValue.Member] {
        guard let folder = configuration.hmiFileFolder else { return members }
        func rewrite(_ value: SDLJSONValue) -> SDLJSONValue {
            switch value {
            case .array(let items):
                return .array(items.map(rewrite))
            case .object(let fields):
                if value["imageType"] == .string("DYNAMIC"), case .string(let name)? = value["value"], !Self.isUnsafe(name), !name.contains("/"),
                   let bytes = fileStore(of: appID).bytes(of: name), let path = HMIFiles.write(bytes, name: name, appID: appID, in: folder) {
                    return .object(fields.map { $0.key == "value" ? .init(key: "value", value: .string(path)) : $0 })
                }
                return .object(fields.map { .init(key: $0.key, value: rewrite($0.value)) })
            default:
                return value
            }
        }
        return members.map { .init(key: $0.key, value: rewrite($0.value)) }
    }

    /// One part of an exchange was answered; the app's answer goes when the last one is.
    func componentAnswered(_ exchange: Int, method: String, code: Int, result: SDLJSONValue) -> [Effect] {
        guard var pending = hmi.exchanges[exchange] else { return [] }
        let info: String? = if case .string(let text)? = result["info"] { text } else { nil }
        let fields: [SDLJSONValue.Member] = if case .object(let members) = result {
            members.filter { !["code", "method", "info"].contains($0.key) }
        } else { [] }
        let answer = HMIComponentResult(
            code: code, info: info, fields: fields, componentAbsent: hmi.unavailable.contains(HMIBridge.component(of: method)))
        pending.results[method] = answer
        pending.waiting = pending.waiting.filter { hmi.pending[$0] != nil }
        hmi.exchanges[exchange] = pending
        // The driver chose (on the screen, by voice or on the keyboard): that part answers the
        // PerformInteraction, whatever the other would have said.
        let chose = pending.function == "PerformInteraction" && (result["choiceID"] != nil || result["manualTextEntry"] != nil)
        guard pending.waiting.isEmpty || chose else { return [] }
        hmi.exchanges[exchange] = nil
        for id in pending.waiting {
            hmi.pending[id] = nil
            cancelTimer(.hmiRequest(id: id))
        }
        var reply = if chose {
            Self.combined([answer])
        } else if pending.function == "ChangeRegistration" {
            Self.changeRegistrationCombined(pending.results)
        } else {
            Self.combined(pending.results.sorted { $0.key < $1.key }.map(\.value))
        }
        let answered = pending.results.sorted { $0.key < $1.key }.flatMap(\.value.fields)
        let answeredKeys = Set(answered.map(\.key))
        reply.fields = pending.baseFields.filter { !answeredKeys.contains($0.key) } + answered
        if chose, !answeredKeys.contains("triggerSource") {
            let source = method.hasPrefix("VR.") ? "VR" : result["manualTextEntry"] != nil ? "KEYBOARD" : "MENU"
            reply.fields.append(.init(key: "triggerSource", value: .string(source)))
        }
        if ["Alert", "SubtleAlert"].contains(pending.function), let ui = pending.results["UI.\(pending.function)"], ui.isOK,
           let speech = pending.results["TTS.Speak"], speech.isUnsupportedResource, !speech.componentAbsent {
            // SDL Core's AlertRequest: the alert was shown, its speech was not.
            reply = .success(.warnings, info: "Unsupported phoneme type sent in a prompt", extra: reply.fields)
        }
        pending.onAnswer?(self, reply)
        if reply.isSuccess, reply.resultCode == .success, let core = pending.coreReply, core.resultCode != .success || core.info != nil {
            reply.resultCode = core.resultCode
            reply.info = core.info
        }
        let response = Effect.respond(appID: pending.appID, functionID: pending.responseID, correlationID: pending.correlationID, reply)
        guard reply.isSuccess else { return [response] }
        return [response] + (pending.reapply.map { $0(self) } ?? pending.effects)
    }

    /// The app went away: the answers it waited for are no longer wanted (a later registration
    /// of the app must not get them).
    func hmiRequestsDropped(of appID: String) {
        for (id, exchange) in hmi.exchanges where exchange.appID == appID {
            hmi.exchanges[id] = nil
            for request in exchange.waiting {
                hmi.pending[request] = nil
                cancelTimer(.hmiRequest(id: request))
            }
        }
    }

    /// A part went unanswered, or the HMI that would answer it left: SDL Core answers the app
    /// GENERIC_ERROR, naming the component that did not respond.
    func finishExchange(_ exchange: Int, timedOut method: String) -> [Effect] {
        guard let pending = hmi.exchanges.removeValue(forKey: exchange) else { return [] }
        for id in pending.waiting {
            hmi.pending[id] = nil
            cancelTimer(.hmiRequest(id: id))
        }
        let reply = Reply.failure(.genericError, "\(HMIBridge.component(of: method)) component does not respond")
        pending.onAnswer?(self, reply)
        return [.respond(appID: pending.appID, functionID: pending.responseID, correlationID: pending.correlationID, reply)]
    }

    /// SDL Core's combination of one or two components' results (`PrepareResultForMobileResponse`
    /// and `PrepareResultCodeForResponse`): with two, success when one is OK and the other OK or
    /// UNSUPPORTED_RESOURCE; the code UNSUPPORTED_RESOURCE when one is, WARNINGS when one warns
    /// and the other is OK, else the higher of the two.
    static func combined(_ results: [HMIComponentResult]) -> Reply {
        let first = results.first ?? HMIComponentResult(code: Common.Result.success.code)
        let second = results.dropFirst().first
        let info = results.compactMap(\.info).joined(separator: ", ")
        guard second != nil else {
            // One component: its result, UNSUPPORTED_RESOURCE counting as success when the
            // component is there (only this part of the request is not).
            let success = first.isOK || (first.isUnsupportedResource && !first.componentAbsent)
            return success ? .success(first.mobileResult, info: info.isEmpty ? nil : info) : .failure(first.mobileResult, info.isEmpty ? nil : info)
        }
        func checks(_ a: HMIComponentResult, _ b: HMIComponentResult?) -> Bool {
            guard a.isOK else { return false }
            guard let b else { return true }
            return b.isOK || b.isUnsupportedResource
        }
        let success = checks(first, second) || second.map { checks($0, first) } == true
        let code: SDLResult
        func unsupported(_ a: HMIComponentResult?, _ b: HMIComponentResult?) -> Bool {
            guard let b, b.isUnsupportedResource else { return false }
            return a == nil || a!.isOK || a!.isUnsupportedResource
        }
        func warns(_ a: HMIComponentResult?, _ b: HMIComponentResult?) -> Bool {
            guard let b, b.code == Common.Result.warnings.code else { return false }
            return a == nil || a!.isOK
        }
        if unsupported(first, second) || unsupported(second, first) {
            code = .unsupportedResource
        } else if warns(first, second) || warns(second, first) {
            code = .warnings
        } else {
            let codes = results.filter { !$0.isUnsupportedResource }
            code = codes.max { $0.code < $1.code }?.mobileResult ?? first.mobileResult
        }
        return success ? .success(code, info: info.isEmpty ? nil : info) : .failure(code, info.isEmpty ? nil : info)
    }

    /// SDL Core's ChangeRegistration answer from its three components' (UI, VR, TTS): a success
    /// when none failed and not all are UNSUPPORTED_RESOURCE; UNSUPPORTED_RESOURCE when one is,
    /// else the worst of the others. Core's own "not supported by system" infos give way to
    /// what an HMI said itself.
    static func changeRegistrationCombined(_ results: [String: HMIComponentResult]) -> Reply {
        let ui = results["UI.ChangeRegistration"], vr = results["VR.ChangeRegistration"], tts = results["TTS.ChangeRegistration"]
        let parts = [ui, vr, tts].compactMap { $0 }
        let acceptable = [Common.Result.success, .warnings, .wrongLanguage, .retry, .saved, .unsupportedResource].map(\.code)
        let allUnsupported = parts.allSatisfy(\.isUnsupportedResource)
        var success = !allUnsupported && parts.count == 3 && parts.allSatisfy { acceptable.contains($0.code) }
        let code: SDLResult
        if success, parts.contains(where: \.isUnsupportedResource) {
            code = .unsupportedResource
            success = combined([ui, tts].compactMap { $0 }).success && combined([tts, vr].compactMap { $0 }).success
        } else {
            code = parts.filter { !$0.isUnsupportedResource }.max { $0.code < $1.code }?.mobileResult ?? .unsupportedResource
        }
        let saidByHMI = parts.contains { !$0.componentAbsent && $0.info?.isEmpty == false }
        let info = parts.compactMap { part -> String? in
            guard let info = part.info, !info.isEmpty, !(saidByHMI && part.componentAbsent) else { return nil }
            return info
        }.joined(separator: ", ")
        return success ? .success(code, info: info.isEmpty ? nil : info) : .failure(code, info.isEmpty ? nil : info)
    }

    /// `combined` for result numbers alone, for tests of the rule.
    package static func combinedHMIResult(_ codes: [Int]) -> (success: Bool, resultCode: SDLResult) {
        let reply = combined(codes.map { HMIComponentResult(code: $0) })
        return (reply.success, reply.resultCode)
    }

    // MARK: Apps, as the HMI hears of them

    /// The app as `Common.HMIApplication` describes it.
    func hmiApplication(_ appID: String) -> SDLJSONValue? {
        guard let app = apps[appID] else { return nil }
        var members: [SDLJSONValue.Member] = [
            .init(key: "appName", value: .string(app.name)),
            .init(key: "deviceInfo", value: .object([
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
        let id = hmi.requestID()
        hmi.pending[id] = HMIPendingRequest(method: "BasicCommunication.UpdateAppList", exchange: nil, startUp: false)
        schedule(.hmiRequest(id: id), after: configuration.hmiTimeout)
        let request = HMIMessage.request(id: id, method: "BasicCommunication.UpdateAppList", params: .object([.init(key: "applications", value: .array(applications))]))
        return [.toHMI(.component("BasicCommunication"), request)]
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
        let id = hmi.requestID()
        hmi.pending[id] = HMIPendingRequest(method: "BasicCommunication.ActivateApp", exchange: nil, startUp: false)
        schedule(.hmiRequest(id: id), after: configuration.hmiTimeout)
        return [.toHMI(.component("BasicCommunication"), HMIMessage.request(id: id, method: "BasicCommunication.ActivateApp", params: .object([.init(key: "appID", value: .integer(hmi.appID(of: appID)))])))]
    }

    // MARK: The driver, through the HMI

    /// The HMI's notifications of what the driver did, relayed to the app they name as SDL Core
    /// relays them.
    func hmiDriverInput(_ method: String, params: SDLJSONValue, appID: String?) async -> [Effect] {
        switch method {
        case "Buttons.OnButtonPress":
            guard case .string(let name)? = params["name"] else { return [] }
            let mode: ButtonPressMode = if case .string(let raw)? = params["mode"] { ButtonPressMode(rawValue: raw) } else { .short }
            if case .integer(let customID)? = params["customButtonID"], let appID, apps[appID] != nil {
                // A connected HMI's soft buttons are its own (an alert's, a message's): SDL Core
                // relays the press to the app it names. The built-in HMI's press closes its alert.
                guard hmi.isReady else {
                    try? await softButtonPressed(appID: appID, id: customID, mode: mode)
                    return []
                }
                return buttonNotifications(.customButton, mode: mode, customButtonID: customID, to: appID)
            } else if name != "CUSTOM_BUTTON" {
                await buttonPressed(ButtonName(rawValue: name), mode: mode)
            }
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
