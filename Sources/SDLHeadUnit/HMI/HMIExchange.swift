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

/// The exchanges that wait for the HMI's answers: one part answered, all of them, none in time.
extension SDLHeadUnitEmulator {
    /// One part of an exchange was answered; the app's answer goes when the last one is.
    func componentAnswered(_ exchange: Int, method: String, code: Int, result: SDLJSONValue) -> [Effect] {
        guard var pending = hmi.exchanges[exchange] else { return [] }
        let info: String? = if case .string(let text)? = result["info"] { text } else { nil }
        let fields: [SDLJSONValue.Member] =
            if case .object(let members) = result {
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
        var reply =
            if chose {
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
            let speech = pending.results["TTS.Speak"], speech.isUnsupportedResource, !speech.componentAbsent
        {
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
        let ui = results["UI.ChangeRegistration"]
        let vr = results["VR.ChangeRegistration"]
        let tts = results["TTS.ChangeRegistration"]
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
}
