import SDLConcurrency
import SDLHMIRPC
import SDLRPC
import SDLRuntime

/// What comes from the HMIs: the message broker's requests, the HMI's own requests and
/// notifications, and its answers to Core's requests.
extension SDLHeadUnitEmulator {
    /// One message from HMI connection `id`.
    func hmiReceived(_ bytes: [UInt8], from id: Int) async -> [Effect] {
        let message: SDLJSONRPCMessage
        do {
            message = try SDLJSONRPC.read(bytes, policy: .lenient)
        } catch {
            // SDL Core drops what it cannot read; the log says what was wrong, by field path.
            logHMI("in", bytes)
            configuration.log?(.object([.init(key: "hmi", value: .string("in")), .init(key: "error", value: .string("\(error)"))]))
            return []
        }
        // Parsed once, for the parameters and the log.
        let body = (try? SDLJSONValue(parsing: bytes)) ?? .object([])
        logHMI("in", body)
        let method = message.method ?? ""
        switch message.kind {
        case .request(let requestID):
            return hmiRequest(method, params: body["params"] ?? .object([]), id: requestID, from: id)
        case .notification:
            return await hmiNotification(method, params: body["params"] ?? .object([]), from: id)
        case .response(let requestID, let code):
            guard case .number(let number) = requestID else { return [] }
            return hmiAnswered(number, code: code, result: body["result"] ?? .object([]))
        case .error(let requestID, let code, let text):
            guard case .number(let number)? = requestID else { return [] }
            var result: [SDLJSONValue.Member] = []
            if let text { result.append(.init(key: "info", value: .string(text))) }
            return hmiAnswered(number, code: code, result: .object(result))
        }
    }

    /// The HMI left: requests that waited for its components are answered as timed out now.
    func hmiDisconnected(_ id: Int) -> [Effect] {
        let lost = hmi.disconnect(id)
        if !hmi.isReady { hmiReadiness.yield(false) }
        var effects: [Effect] = []
        for (requestID, request) in lost.sorted(by: { $0.key < $1.key }) {
            cancelTimer(.hmiRequest(id: requestID))
            if request.awaited {
                awaitedAnswered(
                    id, HMIComponentResult(code: Common.Result.genericError.code, info: "\(HMIBridge.component(of: request.method)) component does not respond")
                )
            }
            if let exchange = request.exchange { effects += finishExchange(exchange, timedOut: request.method) }
        }
        return effects
    }

    // MARK: Requests from the HMI

    private func hmiRequest(_ method: String, params: SDLJSONValue, id requestID: SDLJSONRPCID, from connection: Int) -> [Effect] {
        func answer(_ message: [UInt8]) -> [Effect] { [.toHMI(.connection(connection), message)] }
        switch method {
        case "MB.registerComponent":
            guard case .string(let name)? = params["componentName"] else {
                return answer(HMIMessage.error(id: requestID, code: -32600, message: "Wrong method parameter."))
            }
            guard hmi.components[name] == nil else {
                return answer(HMIMessage.error(id: requestID, code: -32000, message: "Controller has been already registered."))
            }
            hmi.components[name] = connection
            hmi.registeredComponents += 1
            // The component's requests take IDs from here (1000, 2000...), as Core's broker says.
            return answer(HMIMessage.brokerResult(id: requestID, .integer(1000 * hmi.registeredComponents)))
        case "MB.unregisterComponent":
            guard case .string(let name)? = params["componentName"] else {
                return answer(HMIMessage.error(id: requestID, code: -32600, message: "Wrong method parameter."))
            }
            hmi.components[name] = nil
            return answer(HMIMessage.brokerResult(id: requestID, .string("OK")))
        case "MB.subscribeTo", "MB.unsubscribeFrom":
            guard case .string(let name)? = params["propertyName"] else {
                return answer(HMIMessage.error(id: requestID, code: -32600, message: "Wrong method parameter."))
            }
            if method == "MB.unsubscribeFrom" {
                hmi.subscriptions[name]?.remove(connection)
            } else if hmi.subscriptions[name, default: []].insert(connection).inserted == false {
                return answer(HMIMessage.error(id: requestID, code: -32000, message: "Subscribe has been already registered."))
            }
            return answer(HMIMessage.brokerResult(id: requestID, .string("OK")))
        case "SDL.ActivateApp":
            guard case .integer(let hmiAppID)? = params["appID"], let appID = hmi.appKey(of: hmiAppID), apps[appID] != nil else {
                return answer(HMIMessage.response(id: requestID, method: method, code: Common.Result.applicationNotRegistered.code))
            }
            let answered = HMIMessage.response(
                id: requestID, method: method,
                result: [
                    .init(key: "isSDLAllowed", value: .bool(true)), .init(key: "isPermissionsConsentNeeded", value: .bool(false)),
                    .init(key: "isAppPermissionsRevoked", value: .bool(false)), .init(key: "isAppRevoked", value: .bool(false)),
                ])
            return answer(answered) + activationEffects(appID) + hmiActivated(appID)
        case "AppService.GetAppServiceData", "AppService.PerformAppServiceInteraction":
            return hmiConsumes(method, params, id: requestID, from: connection)
        case "AppService.GetAppServiceRecords":
            // The services apps published (of one type, if it names one).
            let type: String? = if case .string(let name)? = params["serviceType"] { name } else { nil }
            let records: [SDLJSONValue] = appServices.services.values.sorted { $0.record.serviceID < $1.record.serviceID }
                .filter { type == nil || $0.record.serviceManifest.serviceType == type }
                .compactMap { (try? SDLJSON.encode($0.record)).flatMap { try? SDLJSONValue(parsing: $0) } }
            return answer(HMIMessage.response(id: requestID, method: method, result: [.init(key: "serviceRecords", value: .array(records))]))
        default:
            // SDL's other requests (policies, consent, URLs) are not emulated yet: said so, not faked.
            return answer(
                HMIMessage.error(id: requestID, code: Common.Result.unsupportedRequest.code, message: "the emulator does not answer \(method)", method: method))
        }
    }

    // MARK: Notifications from the HMI

    private func hmiNotification(_ method: String, params: SDLJSONValue, from connection: Int) async -> [Effect] {
        // Other HMI connections that subscribed hear it too, as through Core's broker.
        let relayed: [Effect] =
            (hmi.subscriptions[method] ?? []).subtracting([connection]).isEmpty
            ? [] : [.toHMI(.subscribers(method), HMIMessage.notification(method: method, params: params))]
        let hmiAppID: Int? = if case .integer(let id)? = params["appID"] { id } else { nil }
        let appID = hmiAppID.flatMap { hmi.appKey(of: $0) }
        switch method {
        case "BasicCommunication.OnReady":
            return relayed + hmiSaidReady()
        case "BasicCommunication.OnExitApplication":
            guard let appID, apps[appID] != nil else { return relayed }
            return relayed + setLevel(.none, of: appID)
        case "BasicCommunication.OnAppDeactivated":
            guard let appID, let app = apps[appID] else { return relayed }
            return relayed + setLevel(app.isAudioApp ? .limited : .background, of: appID)
        case "BasicCommunication.OnResetTimeout", "UI.OnResetTimeout":
            // The driver is still at it: Core's request `requestID` waits again, `resetPeriod`
            // ms (Core's default timeout without one).
            guard case .integer(let requestID)? = params["requestID"], case .string(let reset)? = params["methodName"],
                hmi.pending[requestID]?.method == reset
            else { return relayed }
            let period: Duration = if case .integer(let milliseconds)? = params["resetPeriod"] { .milliseconds(milliseconds) } else { configuration.hmiTimeout }
            schedule(.hmiRequest(id: requestID), after: period)
            return relayed
        default:
            return relayed + (await hmiDriverInput(method, params: params, appID: appID))
        }
    }

    /// OnReady: the emulator asks what SDL Core asks of each registered component.
    private func hmiSaidReady() -> [Effect] {
        hmi.saidReady = true
        var questions: [String] = ["BasicCommunication.GetSystemInfo"]
        for component in ["UI", "VR", "TTS", "Navigation", "VehicleInfo", "RC"] where hmi.components[component] != nil {
            questions.append("\(component).IsReady")
        }
        let asked: [String: [String]] = [
            "UI": ["UI.GetCapabilities", "UI.GetLanguage", "UI.GetSupportedLanguages"],
            "VR": ["VR.GetCapabilities", "VR.GetLanguage", "VR.GetSupportedLanguages"],
            "TTS": ["TTS.GetCapabilities", "TTS.GetLanguage", "TTS.GetSupportedLanguages"],
            "Buttons": ["Buttons.GetCapabilities"], "VehicleInfo": ["VehicleInfo.GetVehicleType"], "RC": ["RC.GetCapabilities"],
        ]
        for component in ["UI", "VR", "TTS", "Buttons", "VehicleInfo", "RC"] where hmi.components[component] != nil {
            questions += asked[component] ?? []
        }
        var effects: [Effect] = []
        for method in questions where hmi.components[HMIBridge.component(of: method)] != nil {
            let id = hmi.requestID()
            hmi.pending[id] = HMIPendingRequest(method: method, exchange: nil, startUp: true)
            hmi.startUpPending.insert(id)
            schedule(.hmiRequest(id: id), after: min(configuration.hmiTimeout, configuration.hmiStartUpTimeout))
            effects.append(.toHMI(.component(HMIBridge.component(of: method)), HMIMessage.request(id: id, method: method, params: .object([]))))
        }
        readinessChanged()
        return effects
    }

    private func readinessChanged() {
        hmiReadiness.yield(hmi.isReady)
        if hmi.isReady { emit(.hmiReady) }
    }

    // MARK: Answers to Core's requests

    /// The HMI answered request `id` with `code` (a `Common.Result` number).
    func hmiAnswered(_ id: Int, code: Int, result: SDLJSONValue) -> [Effect] {
        guard let request = hmi.pending.removeValue(forKey: id) else { return [] }
        cancelTimer(.hmiRequest(id: id))
        if request.startUp {
            if code == Common.Result.success.code { startUpAnswer(request.method, result) }
            hmi.startUpPending.remove(id)
            readinessChanged()
            return []
        }
        if request.awaited {
            let info: String? = if case .string(let text)? = result["info"] { text } else { nil }
            let fields: [SDLJSONValue.Member] =
                if case .object(let members) = result { members.filter { !["code", "method", "info"].contains($0.key) } } else { [] }
            awaitedAnswered(id, HMIComponentResult(code: code, info: info, fields: fields))
            return []
        }
        if request.streamOf != nil { return hmiStreamAccepted(request, code: code) }
        guard let exchange = request.exchange else { return [] }
        return componentAnswered(exchange, method: request.method, code: code, result: result)
    }

    /// Core's request `id` went unanswered for `hmiTimeout`.
    func hmiRequestTimedOut(_ id: Int) -> [Effect] {
        guard let request = hmi.pending.removeValue(forKey: id) else { return [] }
        if request.awaited {
            awaitedAnswered(
                id, HMIComponentResult(code: Common.Result.genericError.code, info: "\(HMIBridge.component(of: request.method)) component does not respond"))
        }
        if request.startUp {
            hmi.startUpPending.remove(id)
            readinessChanged()
            return []
        }
        return request.exchange.map { finishExchange($0, timedOut: request.method) } ?? []
    }

    /// Keeps a start-up answer; the language takes effect at once.
    private func startUpAnswer(_ method: String, _ result: SDLJSONValue) {
        hmi.answers[method] = result
        if method.hasSuffix(".IsReady"), result["available"] == .bool(false) { hmi.unavailable.insert(HMIBridge.component(of: method)) }
        if method == "UI.GetLanguage", case .string(let name)? = result["language"] {
            language = Language(rawValue: name)
        }
    }

    /// A system capability as the HMI answered it at start-up (UI.GetCapabilities'
    /// `systemCapabilities`, RC.GetCapabilities), nil when it did not.
    func hmiSystemCapability(_ type: SystemCapabilityType) -> SDLJSONValue.Member? {
        let system = hmi.answers["UI.GetCapabilities"]?["systemCapabilities"]
        let rc = hmi.answers["RC.GetCapabilities"]
        let found: (String, SDLJSONValue?) =
            switch type {
            case .navigation: ("navigationCapability", system?["navigationCapability"])
            case .phoneCall: ("phoneCapability", system?["phoneCapability"])
            case .videoStreaming: ("videoStreamingCapability", system?["videoStreamingCapability"])
            case .driverDistraction: ("driverDistractionCapability", system?["driverDistractionCapability"])
            case .remoteControl: ("remoteControlCapability", rc?["remoteControlCapability"])
            case .seatLocation: ("seatLocationCapability", rc?["seatLocationCapability"])
            default: ("", nil)
            }
        return found.1.map { SDLJSONValue.Member(key: found.0, value: $0) }
    }

    /// The registration's capabilities with what the HMI answered at start-up in place of the
    /// configured ones, as SDL Core overrides `hmi_capabilities.json` with them.
    func withHMICapabilities(_ members: [SDLJSONValue.Member]) -> [SDLJSONValue.Member] {
        var overrides: [String: SDLJSONValue] = [:]
        let ui = hmi.answers["UI.GetCapabilities"]
        for key in ["displayCapabilities", "hmiZoneCapabilities", "softButtonCapabilities", "hmiCapabilities", "pcmStreamCapabilities"] {
            if let value = ui?[key] { overrides[key] = value }
        }
        if let list = ui?["audioPassThruCapabilitiesList"] ?? ui?["audioPassThruCapabilities"].map({ .array([$0]) }) {
            overrides["audioPassThruCapabilities"] = list
        }
        let buttons = hmi.answers["Buttons.GetCapabilities"]
        if let value = buttons?["capabilities"] { overrides["buttonCapabilities"] = value }
        if let value = buttons?["presetBankCapabilities"] { overrides["presetBankCapabilities"] = value }
        if let value = hmi.answers["TTS.GetCapabilities"]?["speechCapabilities"] { overrides["speechCapabilities"] = value }
        if let value = hmi.answers["TTS.GetCapabilities"]?["prerecordedSpeechCapabilities"] { overrides["prerecordedSpeech"] = value }
        if let value = hmi.answers["VR.GetCapabilities"]?["vrCapabilities"] { overrides["vrCapabilities"] = value }
        if let value = hmi.answers["VehicleInfo.GetVehicleType"]?["vehicleType"] { overrides["vehicleType"] = value }
        if let value = hmi.answers["BasicCommunication.GetSystemInfo"]?["ccpu_version"] { overrides["systemSoftwareVersion"] = value }
        guard !overrides.isEmpty else { return members }
        var merged: [SDLJSONValue.Member] = []
        for member in members {
            merged.append(overrides.removeValue(forKey: member.key).map { SDLJSONValue.Member(key: member.key, value: $0) } ?? member)
        }
        // What the configuration did not have goes last.
        return merged + overrides.sorted { $0.key < $1.key }.map { SDLJSONValue.Member(key: $0.key, value: $0.value) }
    }
}
