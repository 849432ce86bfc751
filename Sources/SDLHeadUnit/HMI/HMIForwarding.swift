import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// What the Core half does with a request it accepted: the HMI parts it goes on as, to the
/// connected HMI or the built-in one, and the app's answer deferred to the HMI's.
extension SDLHeadUnitEmulator {
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
            let ids: [String] =
                if case .array(let list)? = json["moduleIds"] { list.compactMap { if case .string(let id) = $0 { id } else { nil } } } else { [] }
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
        // Whichever HMI answers, it is handed each part the same way.
        let half: any HMIHalf = hmi.isReady ? ConnectedHMI() : BuiltInHMI()
        for part in parts {
            let id = hmi.requestID()
            waiting.insert(id)
            hmi.pending[id] = HMIPendingRequest(method: part.method, exchange: exchange, startUp: false, builtIn: !hmi.isReady)
            let outcome =
                builtInAnswer.map { HMIPartOutcome(answer: $0) }
                ?? half.receive(
                    HMIRequestPart(
                        id: id, method: part.method, params: part.params, appID: appID, function: function, request: request, correlationID: correlationID,
                        functionID: responseID),
                    by: self)
            messages += outcome.effects
            if let answer = outcome.answer {
                answeredAtOnce.append((id, answer))
            } else {
                schedule(.hmiRequest(id: id), after: configuration.hmiTimeout + driverTime)
            }
        }
        hmi.exchanges[exchange] = HMIExchange(
            appID: appID, function: function, responseID: responseID, correlationID: correlationID, waiting: waiting, effects: effects,
            coreReply: coreReply.isSuccess ? coreReply : nil, baseFields: coreReply.fields, reapply: reapply)
        for answer in answeredAtOnce {
            messages += hmiAnswered(answer.id, code: answer.result.code, result: .object(answer.result.members))
        }
        return (.deferred, messages)
    }
}

/// One part of an app's request as the Core half hands it to the HMI: Core's request (its ID,
/// method and parameters in Core's wording) and the app request it is part of.
struct HMIRequestPart: Sendable {
    let id: Int
    let method: String
    let params: [SDLJSONValue.Member]
    /// The app (its key on the head unit), its request's name, parameters, correlation and function IDs.
    let appID: String
    let function: String
    let request: SDLJSONValue
    let correlationID: UInt32
    let functionID: UInt32
}

/// What an HMI made of a part: its answer now (nil: later, through `hmiAnswered`), and what
/// receiving it caused (a message on the wire, what the built-in HMI showed).
struct HMIPartOutcome {
    var answer: HMIComponentResult?
    var effects: [SDLHeadUnitEmulator.Effect] = []
}

/// The HMI half as the Core half sees it, whichever HMI it is: it is handed Core's requests one
/// part at a time and answers each, now or later.
protocol HMIHalf: Sendable {
    func receive(_ part: HMIRequestPart, by headUnit: isolated SDLHeadUnitEmulator) -> HMIPartOutcome
}

/// An HMI connected over the HMI API: the part goes as a JSON-RPC request, with the app's HMI ID,
/// the files' paths and the soft buttons' defaults; a component it said is absent gets nothing.
struct ConnectedHMI: HMIHalf {
    func receive(_ part: HMIRequestPart, by headUnit: isolated SDLHeadUnitEmulator) -> HMIPartOutcome {
        let component = HMIBridge.component(of: part.method)
        guard !headUnit.hmi.unavailable.contains(component) else {
            // SDL Core's ProcessHMIInterfacesAvailability: the request is not sent, its answer
            // is UNSUPPORTED_RESOURCE.
            return HMIPartOutcome(
                answer: HMIComponentResult(
                    code: Common.Result.unsupportedResource.code, info: "\(component) is not supported by system", componentAbsent: true))
        }
        let params = SDLJSONValue.object(
            headUnit.withImagePaths(SDLHeadUnitEmulator.withSoftButtonDefaults(part.params), appID: part.appID)
                + [.init(key: "appID", value: .integer(headUnit.hmi.appID(of: part.appID)))])
        return HMIPartOutcome(answer: nil, effects: [.toHMI(.component(component), HMIMessage.request(id: part.id, method: part.method, params: params))])
    }
}
