import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// How SDL Core words an app's request for its HMI: the methods it becomes and their parameters.
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
                (
                    "UI.ChangeRegistration",
                    [.init(key: "language", value: json["hmiDisplayLanguage"] ?? .string("EN-US"))] + members(["appName", "ngnMediaScreenAppName"])
                ),
            ]
        case "AddSubMenu":
            var menuParams: [SDLJSONValue.Member] = [.init(key: "menuName", value: json["menuName"] ?? .string(""))]
            if let position = json["position"] { menuParams.append(.init(key: "position", value: position)) }
            if let parent = json["parentID"] { menuParams.append(.init(key: "parentID", value: parent)) }
            return [("UI.AddSubMenu", members(["menuID"]) + [.init(key: "menuParams", value: .object(menuParams))] + members(["menuIcon", "menuLayout"]))]
        case "DeleteSubMenu":
            return [("UI.DeleteSubMenu", members(["menuID"]))]
        case "SetMediaClockTimer":
            return [
                (
                    "UI.SetMediaClockTimer",
                    members(["startTime", "endTime", "updateMode", "audioStreamingIndicator", "countRate", "forwardSeekIndicator", "backSeekIndicator"])
                )
            ]
        case "CreateWindow":
            return [("UI.CreateWindow", members(["windowID", "windowName", "type", "associatedServiceType", "duplicateUpdatesFromWindowID"]))]
        case "DeleteWindow":
            return [("UI.DeleteWindow", members(["windowID"]))]
        case "SetDisplayLayout":
            return [("UI.SetDisplayLayout", members(["displayLayout", "dayColorScheme", "nightColorScheme"]))]
        case "SetAppIcon":
            guard let name = json["syncFileName"] else { return [] }
            return [
                (
                    "UI.SetAppIcon",
                    [.init(key: "syncFileName", value: .object([.init(key: "value", value: name), .init(key: "imageType", value: .string("DYNAMIC"))]))]
                )
            ]
        case "SubscribeButton", "UnsubscribeButton":
            return [("Buttons.\(function)", members(["buttonName"]))]
        case "DialNumber":
            return [("BasicCommunication.DialNumber", members(["number"]))]
        case "SendLocation":
            return [
                (
                    "Navigation.SendLocation",
                    members([
                        "longitudeDegrees", "latitudeDegrees", "locationName", "locationDescription", "addressLines", "phoneNumber", "locationImage",
                        "timeStamp", "address", "deliveryMode",
                    ])
                )
            ]
        case "GetWayPoints":
            return [("Navigation.GetWayPoints", members(["wayPointType"]))]
        case "SubscribeWayPoints", "UnsubscribeWayPoints":
            return [("Navigation.\(function)", [])]
        case "ShowConstantTBT":
            let texts = textFields(
                json,
                [
                    ("navigationText1", "navigationText1"), ("navigationText2", "navigationText2"), ("eta", "ETA"), ("totalDistance", "totalDistance"),
                    ("timeToDestination", "timeToDestination"),
                ])
            return [
                (
                    "Navigation.ShowConstantTBT",
                    [.init(key: "navigationTexts", value: .array(texts))]
                        + members([
                            "turnIcon", "nextTurnIcon", "distanceToManeuver", "distanceToManeuverScale", "maneuverComplete", "softButtons",
                        ])
                )
            ]
        case "AlertManeuver":
            var parts: [(String, [SDLJSONValue.Member])] = [("Navigation.AlertManeuver", members(["softButtons"]))]
            if let chunks = json["ttsChunks"] {
                parts.append(("TTS.Speak", [.init(key: "ttsChunks", value: chunks), .init(key: "speakType", value: .string("ALERT_MANEUVER"))]))
            }
            return parts
        case "UpdateTurnList":
            var turns: [SDLJSONValue] = []
            if case .array(let list)? = json["turnList"] {
                turns = list.map { turn in
                    var fields: [SDLJSONValue.Member] = []
                    if case .string? = turn["navigationText"] {
                        fields.append(.init(key: "navigationText", value: textField("turnText", turn["navigationText"])))
                    }
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
            ui += Self.members(
                of: json, function == "Alert" ? ["softButtons", "progressIndicator", "cancelID", "alertIcon"] : ["softButtons", "cancelID", "alertIcon"])
            var parts: [(method: String, params: [SDLJSONValue.Member])] = [("UI.\(function)", ui)]
            if speaks, let chunks = json["ttsChunks"] {
                parts.append(
                    (
                        "TTS.Speak",
                        [.init(key: "ttsChunks", value: chunks), .init(key: "speakType", value: .string(function == "Alert" ? "ALERT" : "SUBTLE_ALERT"))]
                    ))
            }
            return (parts, .milliseconds(duration))
        case "Speak":
            return ([("TTS.Speak", Self.members(of: json, ["ttsChunks"]) + [.init(key: "speakType", value: .string("SPEAK"))])], .zero)
        case "PerformAudioPassThru":
            // The popup while the microphone records, and the prompt spoken first.
            let maxDuration = Self.milliseconds(json["maxDuration"], default: 10_000)
            let texts = Self.textFields(
                json, [("audioPassThruDisplayText1", "audioPassThruDisplayText1"), ("audioPassThruDisplayText2", "audioPassThruDisplayText2")])
            var parts: [(method: String, params: [SDLJSONValue.Member])] = [
                (
                    "UI.PerformAudioPassThru",
                    [
                        .init(key: "audioPassThruDisplayTexts", value: .array(texts)), .init(key: "maxDuration", value: .integer(maxDuration)),
                        .init(key: "muteAudio", value: json["muteAudio"] ?? .bool(true)),
                    ]
                )
            ]
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
        let setIDs: [Int] =
            if case .array(let ids)? = json["interactionChoiceSetIDList"] {
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
                    let bytes = fileStore(of: appID).bytes(of: name), let path = HMIFiles.write(bytes, name: name, appID: appID, in: folder)
                {
                    return .object(fields.map { $0.key == "value" ? .init(key: "value", value: .string(path)) : $0 })
                }
                return .object(fields.map { .init(key: $0.key, value: rewrite($0.value)) })
            default:
                return value
            }
        }
        return members.map { .init(key: $0.key, value: rewrite($0.value)) }
    }
}
