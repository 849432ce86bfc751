import SDLHMIRPC
import SDLProtocol
import SDLRuntime

/// Video and audio streams as SDL Core 8.2 tells its HMI of them: `Navigation.SetVideoConfig`
/// before a video service with parameters is accepted (the HMI's refusal is the app's NAK, with
/// its `rejectedParams`), `Navigation.StartStream`/`StartAudioStream` with the URL the HMI plays
/// once the service runs, `Navigation.OnVideoDataStreaming`/`OnAudioDataStreaming` when it
/// starts and ends, `Navigation.StopStream`/`StopAudioStream` when it ends.
extension SDLHeadUnitEmulator {
    /// Asks the connected HMI `method` and waits for its answer: GENERIC_ERROR when it does not
    /// answer within `hmiTimeout` or leaves, UNSUPPORTED_RESOURCE for a component it said is absent.
    func askHMI(_ method: String, params: [SDLJSONValue.Member]) async -> HMIComponentResult {
        let component = HMIBridge.component(of: method)
        guard !hmi.unavailable.contains(component) else {
            return HMIComponentResult(code: Common.Result.unsupportedResource.code, info: "\(component) is not supported by system", componentAbsent: true)
        }
        let id = hmi.requestID()
        hmi.pending[id] = HMIPendingRequest(method: method, exchange: nil, startUp: false, awaited: true)
        schedule(.hmiRequest(id: id), after: configuration.hmiTimeout)
        await perform([.toHMI(.component(component), HMIMessage.request(id: id, method: method, params: .object(params)))])
        // The answer may have come while the request was sent.
        return await withCheckedContinuation { waiter in
            if let early = hmi.earlyAnswers.removeValue(forKey: id) {
                waiter.resume(returning: early)
            } else {
                hmi.waiters[id] = waiter
            }
        }
    }

    /// The answer to an `askHMI` question: to its wait, or kept until the wait begins.
    func awaitedAnswered(_ id: Int, _ result: HMIComponentResult) {
        if let waiter = hmi.waiters.removeValue(forKey: id) {
            waiter.resume(returning: result)
        } else {
            hmi.earlyAnswers[id] = result
        }
    }

    /// The HMI's answer to a video service's parameters, nil when there is nothing to ask
    /// (no HMI, or no parameters: SDL Core asks only about those the app sent).
    func hmiVideoConfigRefusal(_ request: SDLControlPayload?, appID: String) async -> StreamingAnswer? {
        guard hmi.isReady, let request, request.videoProtocol != nil || request.videoCodec != nil || request.width != nil || request.height != nil
        else { return nil }
        var config: [SDLJSONValue.Member] = []
        if let name = request.videoProtocol { config.append(.init(key: "protocol", value: .string(name))) }
        if let codec = request.videoCodec { config.append(.init(key: "codec", value: .string(codec))) }
        if let width = request.width { config.append(.init(key: "width", value: .integer(Int(width)))) }
        if let height = request.height { config.append(.init(key: "height", value: .integer(Int(height)))) }
        let answer = await askHMI(
            "Navigation.SetVideoConfig", params: [.init(key: "config", value: .object(config)), .init(key: "appID", value: .integer(hmi.appID(of: appID)))])
        guard answer.code != Common.Result.success.code else { return nil }
        var rejected: [String]?
        if case .array(let names)? = answer.fields.first(where: { $0.key == "rejectedParams" })?.value {
            rejected = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        return .refused(reason: "Received SetVideoConfig failure response", rejectedParams: rejected)
    }

    /// The app's service runs: the HMI is told where to play it.
    func hmiStreamStarted(_ service: SDLServiceType, appID: String) -> [Effect] {
        guard hmi.isReady, service == .video || service == .audio, !hmi.unavailable.contains("Navigation") else { return [] }
        let method = service == .video ? "Navigation.StartStream" : "Navigation.StartAudioStream"
        let url =
            configuration.hmiStreamURL?(appID, Int(service.rawValue))
            ?? (service == .video ? "http://127.0.0.1:5050" : "http://127.0.0.1:5080")
        return [coreRequest(method, [.init(key: "url", value: .string(url)), .init(key: "appID", value: .integer(hmi.appID(of: appID)))], streamOf: appID)]
    }

    /// The HMI accepted playing the stream (`request`'s StartStream): it hears the data flows.
    func hmiStreamAccepted(_ request: HMIPendingRequest, code: Int) -> [Effect] {
        guard code == Common.Result.success.code, let appID = request.streamOf, apps[appID] != nil else { return [] }
        return [hmiDataStreaming(video: request.method == "Navigation.StartStream", available: true)]
    }

    /// The app's service ended (the app's EndService, NONE, the app gone): the HMI stops playing it.
    func hmiStreamEnded(_ service: SDLServiceType, appID: String) -> [Effect] {
        guard hmi.isReady, service == .video || service == .audio, !hmi.unavailable.contains("Navigation") else { return [] }
        let video = service == .video
        let method = video ? "Navigation.StopStream" : "Navigation.StopAudioStream"
        return [hmiDataStreaming(video: video, available: false), coreRequest(method, [.init(key: "appID", value: .integer(hmi.appID(of: appID)))])]
    }

    private func hmiDataStreaming(video: Bool, available: Bool) -> Effect {
        let method = video ? "Navigation.OnVideoDataStreaming" : "Navigation.OnAudioDataStreaming"
        return .toHMI(.subscribers(method), HMIMessage.notification(method: method, params: .object([.init(key: "available", value: .bool(available))])))
    }
}
