import SDLHMIRPC
import SDLRPC
import SDLRuntime

/// The built-in HMI: the HMI half in process, for when no HMI is connected over the HMI API.
/// The Core half hands it each part of a request as it hands a connected HMI (`HMIHalf`), and
/// its answers come back the same way (`hmiAnswered`, Core's combination). It accepts what the
/// Core half accepted and shows the Core half's record of each app (its screen, menu, windows:
/// what the control API and the web page read); it shows interactions itself (REJECTED when
/// something is on top, an Alert aborting what is) and speaks, holding them until the driver
/// (the control API's methods), their timeout or the app ends them.
struct BuiltInHMI: HMIHalf {
    func receive(_ part: HMIRequestPart, by headUnit: isolated SDLHeadUnitEmulator) -> HMIPartOutcome {
        let (answer, effects) = headUnit.builtInHMIReceived(
            part.method, requestID: part.id, appID: part.appID, function: part.function, request: part.request, correlationID: part.correlationID,
            functionID: part.functionID)
        return HMIPartOutcome(answer: answer, effects: effects)
    }
}

extension SDLHeadUnitEmulator {
    /// The HMI requests the built-in HMI holds on the interaction its rule started.
    static let builtInHeldMethods: Set<String> = [
        "UI.Alert", "UI.SubtleAlert", "UI.PerformInteraction", "VR.PerformInteraction", "UI.Slider", "UI.ScrollableMessage",
        "UI.PerformAudioPassThru",
    ]

    /// The built-in HMI receives Core's request `requestID` (`method`, part of the app's
    /// `function` request `correlationID`, whose parameters are `request`): its answer now
    /// (SUCCESS: it shows what the Core half accepted; REJECTED: something is on top), or nil
    /// when it holds the request (an interaction or a Speak answers it later), and what showing
    /// it changed (the system context, an interaction an Alert aborted).
    func builtInHMIReceived(
        _ method: String, requestID: Int, appID: String, function: String, request: SDLJSONValue, correlationID: UInt32, functionID: UInt32
    ) -> (HMIComponentResult?, [Effect]) {
        let success = HMIComponentResult(code: Common.Result.success.code)
        if Self.builtInHeldMethods.contains(method) {
            // The interaction's other part (VR after UI), or an audio pass-thru the Core half
            // started with its recording: held on it.
            if let interaction = apps[appID]?.interaction, interaction.correlationID == correlationID {
                apps[appID]?.interaction?.hmiRequests[method] = requestID
                return (nil, [])
            }
            guard let kind = Self.builtInInteractionKinds[function] else { return (success, []) }
            let (refusal, effects) = showInteraction(
                kind, request: request, correlationID: correlationID, functionID: functionID, appID: appID,
                cancelID: Self.integer(request["cancelID"]), timeout: .milliseconds(Self.builtInTimeout(of: kind, request)))
            if let refusal { return (HMIComponentResult(code: Self.hmiResultCode(refusal.resultCode), info: refusal.info), effects) }
            apps[appID]?.interaction?.hmiRequests[method] = requestID
            return (nil, effects)
        }
        if method == "TTS.Speak", function == "Speak" {
            return builtInSpeak(request, requestID: requestID, appID: appID, correlationID: correlationID, functionID: functionID)
        }
        return (success, [])
    }

    /// The interactions the built-in HMI shows, by the app's request.
    static let builtInInteractionKinds: [String: PendingInteraction.Kind] = [
        "Alert": .alert, "SubtleAlert": .subtleAlert, "PerformInteraction": .performInteraction, "Slider": .slider,
        "ScrollableMessage": .scrollableMessage,
    ]

    /// How long the built-in HMI shows an interaction, in ms: an alert its `duration` (5 s), the
    /// others their `timeout` (10 s; without one SDL's HMI, sdl_hmi, closes a scrollable message
    /// after its default 10 s, not the spec's 30 s).
    static func builtInTimeout(of kind: PendingInteraction.Kind, _ request: SDLJSONValue) -> Int {
        switch kind {
        case .alert, .subtleAlert: integer(request["duration"]) ?? 5_000
        default: integer(request["timeout"]) ?? 10_000
        }
    }

    private static func integer(_ value: SDLJSONValue?) -> Int? {
        if case .integer(let number)? = value { number } else { nil }
    }

    /// The built-in HMI answers a request it held with `reply` (its code, info and fields).
    func builtInHMIAnswered(_ requestID: Int, _ reply: Reply) -> [Effect] {
        var result = reply.fields
        if let info = reply.info { result.insert(.init(key: "info", value: .string(info)), at: 0) }
        return hmiAnswered(requestID, code: Self.hmiResultCode(reply.resultCode), result: .object(result))
    }

    /// The interaction ended with `reply`: the part the driver answered (a spoken choice the VR
    /// part, anything else the UI part) gets it; the other part closes with the same result.
    func builtInInteractionAnswered(_ interaction: PendingInteraction, _ reply: Reply) -> [Effect] {
        let methods = interaction.hmiRequests.keys.sorted()
        let spoken = reply.fields.contains { $0.key == "triggerSource" && $0.value == .string(TriggerSource.vr.rawValue) }
        let primary = methods.first { $0.hasPrefix(spoken ? "VR." : "UI.") } ?? methods.first
        var effects: [Effect] = []
        if let primary, let id = interaction.hmiRequests[primary] { effects += builtInHMIAnswered(id, reply) }
        for method in methods where method != primary {
            // Said once: the combined answer joins the parts' infos.
            var closing = reply
            closing.info = nil
            closing.fields = []
            if let id = interaction.hmiRequests[method] { effects += builtInHMIAnswered(id, closing) }
        }
        return effects
    }

    /// The HMI API's number for a mobile result code (SDL Core's MobileToHMIResult).
    static func hmiResultCode(_ code: SDLResult) -> Int {
        Common.Result(rawValue: code.rawValue).code
    }
}
