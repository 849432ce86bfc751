import SDLProtocol
import SDLRPC
import SDLRuntime

/// The consistency checks SDL Core makes itself, before a request reaches its rule (and before
/// anything waits for the driver): requests the spec lets through but Core refuses, with Core's
/// result codes. Each check reads the request as sent (JSON) and the app's state.
extension SDLHeadUnitEmulator {
    typealias CoreCheck = @Sendable (_ request: SDLJSONValue, _ app: EmulatedApp) -> Reply?

    /// The checks by function name.
    static let coreChecks: [String: CoreCheck] = [
        "GetVehicleData": { request, _ in hasVehicleDataItem(request) ? nil : invalid("no vehicle data item is requested") },
        "SubscribeVehicleData": { request, _ in hasVehicleDataItem(request) ? nil : invalid("no vehicle data item is requested") },
        "UnsubscribeVehicleData": { request, _ in hasVehicleDataItem(request) ? nil : invalid("no vehicle data item is requested") },
        "AlertManeuver": { request, _ in
            if request["ttsChunks"] == nil && request["softButtons"] == nil { return invalid("neither ttsChunks nor softButtons") }
            return hasNewline(request) ? invalid("a text holds a newline") : softButtonCheck(request)
        },
        "ShowConstantTBT": { request, _ in hasNewline(request) ? invalid("a text holds a newline") : softButtonCheck(request) },
        "UpdateTurnList": { request, _ in
            if case .array(let turns)? = request["turnList"], turns.contains(where: { $0["navigationText"] == nil && $0["turnIcon"] == nil }) {
                return invalid("a turn has neither navigationText nor turnIcon")
            }
            return hasNewline(request) ? invalid("a text holds a newline") : softButtonCheck(request)
        },
        "Show": { request, _ in softButtonCheck(request) },
        "Alert": { request, _ in softButtonCheck(request) },
        "SubtleAlert": { request, _ in softButtonCheck(request) },
        // Core's whitespace check on the names an app may change.
        "ChangeRegistration": { request, _ in
            let names = ["appName", "ngnMediaScreenAppName", "vrSynonyms", "ttsName"].compactMap { request[$0] }
            return names.contains(where: hasNewline) ? invalid("a name holds a newline") : nil
        },
        "ScrollableMessage": { request, _ in softButtonCheck(request) },
        "SendLocation": { request, _ in
            (request["latitudeDegrees"] == nil) != (request["longitudeDegrees"] == nil) ? invalid("only one coordinate") : nil
        },
        "SetMediaClockTimer": { request, _ in
            guard case .string(let mode)? = request["updateMode"], mode == "COUNTUP" || mode == "COUNTDOWN" else { return nil }
            return request["startTime"] == nil ? invalid("\(mode) needs a startTime") : nil
        },
        "Slider": { request, _ in
            guard case .integer(let ticks)? = request["numTicks"], case .integer(let position)? = request["position"] else { return nil }
            if position > ticks { return invalid("position \(position) is past numTicks \(ticks)") }
            if case .array(let footers)? = request["sliderFooter"], footers.count != 1, footers.count != ticks {
                return invalid("sliderFooter has \(footers.count) entries for \(ticks) ticks")
            }
            return nil
        },
        "PerformInteraction": { request, app in performInteractionCheck(request, app) },
        "CreateInteractionChoiceSet": { request, _ in choiceSetCheck(request) },
        "CancelInteraction": { request, _ in
            guard case .integer(let function)? = request["functionID"] else { return nil }
            return interactionFunctionIDs.contains(function) ? nil : .failure(.invalidId, "function \(function) is not an interaction")
        },
        "PerformAudioPassThru": { request, _ in
            let texts = ["audioPassThruDisplayText1", "audioPassThruDisplayText2", "initialPrompt"].compactMap { request[$0] }
            return texts.contains(where: hasNewline) ? invalid("a text holds a newline or a tab") : nil
        },
        // The diagnostic mode (the first byte) must be one the head unit lists (SDL Core's
        // SupportedDiagModes), else REJECTED.
        "DiagnosticMessage": { request, _ in
            guard case .array(let data)? = request["messageData"], case .integer(let mode)? = data.first else { return nil }
            return supportedDiagnosticModes.contains(mode) ? nil : .failure(.rejected, "Received diagnostic mode is not supported.")
        },
        "SetGlobalProperties": { request, _ in
            // Voice help needs its title, and the other way round.
            (request["vrHelp"] == nil) != (request["vrHelpTitle"] == nil) ? .failure(.rejected, "vrHelp and vrHelpTitle go together") : nil
        },
    ]

    /// SDL Core 8.2's default `SupportedDiagModes` (smartDeviceLink.ini).
    static let supportedDiagnosticModes: Set<Int> = [0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x18, 0x19, 0x22, 0x3E]

    /// Alert, PerformInteraction, Slider, ScrollableMessage, SubtleAlert: what CancelInteraction cancels.
    static let interactionFunctionIDs: Set<Int> = Set(
        [SDLAlert.wireFunctionID, PerformInteraction.wireFunctionID, SDLSlider.wireFunctionID, ScrollableMessage.wireFunctionID, SubtleAlert.wireFunctionID]
            .compactMap { $0.map(Int.init) })

    private static func invalid(_ reason: String) -> Reply { .failure(.invalidData, reason) }

    /// A vehicle-data request names at least one item it asks for (`true`), spec or custom.
    private static func hasVehicleDataItem(_ request: SDLJSONValue) -> Bool {
        guard case .object(let members) = request else { return false }
        return members.contains { $0.value == .bool(true) }
    }

    /// Any string in the request holding a newline or a tab, as characters or escaped (SDL Core's
    /// syntax check on display text).
    static func hasNewline(_ value: SDLJSONValue) -> Bool {
        switch value {
        case .string(let text): ["\n", "\t", "\\n", "\\t"].contains { text.contains($0) }
        case .array(let items): items.contains(where: hasNewline)
        case .object(let members): members.contains { hasNewline($0.value) }
        default: false
        }
    }

    /// A TEXT soft button needs its text.
    private static func softButtonCheck(_ request: SDLJSONValue) -> Reply? {
        guard case .array(let buttons)? = request["softButtons"] else { return nil }
        for button in buttons where button["type"] == .string("TEXT") {
            guard case .string(let text)? = button["text"], !text.allSatisfy(\.isWhitespace) else {
                return invalid("a TEXT soft button has no text")
            }
        }
        return nil
    }

    private static func performInteractionCheck(_ request: SDLJSONValue, _ app: EmulatedApp) -> Reply? {
        if case .string(let text)? = request["initialText"], text.allSatisfy(\.isWhitespace) {
            return invalid("initialText is empty")
        }
        guard case .array(let ids)? = request["interactionChoiceSetIDList"] else { return nil }
        let setIDs = ids.compactMap { if case .integer(let id) = $0 { id } else { nil } }
        if Set(setIDs).count != setIDs.count { return .failure(.invalidId, "a choice set is named twice") }
        guard case .string(let mode)? = request["interactionMode"], mode == "VR_ONLY" || mode == "BOTH" else { return nil }
        for id in setIDs {
            guard let set = app.choiceSets[id], case .array(let choices)? = set["choiceSet"] else { continue }
            if choices.contains(where: { $0["vrCommands"] == nil }) { return invalid("choice set \(id) has choices without voice commands for \(mode)") }
        }
        return nil
    }

    private static func choiceSetCheck(_ request: SDLJSONValue) -> Reply? {
        guard case .array(let choices)? = request["choiceSet"] else { return nil }
        let withVoice = choices.filter { $0["vrCommands"] != nil }
        if !withVoice.isEmpty, withVoice.count != choices.count { return invalid("only some choices have vrCommands") }
        var seen: Set<String> = []
        for choice in withVoice {
            guard case .array(let commands)? = choice["vrCommands"] else { continue }
            for case .string(let command) in commands {
                guard seen.insert(command.lowercased()).inserted else { return .failure(.duplicateName, "the voice command \(command) is repeated") }
            }
        }
        return nil
    }
}
