import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The session-level side of video and audio streaming, as SDL Core 8.2 runs it: who may start
/// the video (11) and audio (10) services and when, `videoStreamingState` STREAMABLE for the
/// video app on screen, and services ended when the app goes to NONE. (What is streamed is not
/// looked at here.)
extension SDLHeadUnitEmulator {
    /// The head unit's answer to a StartService for a streaming service.
    enum StreamingAnswer: Sendable, Equatable {
        /// Started: the accepted video parameters (nil for audio).
        case accepted(SDLControlPayload?)
        /// Refused: SDL Core's `reason` and, for parameters it cannot take, `rejectedParams`.
        case refused(reason: String, rejectedParams: [String]?)
    }

    /// Video protocols and codecs SDL Core knows (others are refused at once).
    static let videoProtocols: Set<String> = ["RAW", "RTP", "RTSP", "RTMP", "WEBM"]
    static let videoCodecs: Set<String> = ["H264", "H265", "Theora", "VP8", "VP9"]

    /// Whether the app may stream video at all: NAVIGATION and PROJECTION apps.
    static func isVideoApp(_ app: EmulatedApp) -> Bool {
        app.appTypes.contains(.navigation) || app.appTypes.contains(.projection)
    }

    /// A StartService for `service` (video or audio) on the app's session: the answer, and what
    /// follows it (a refused navigation app goes to NONE).
    func startStreaming(_ service: SDLServiceType, request: SDLControlPayload?, sessionID: UInt8, on connection: EmulatedConnection) async -> (
        StreamingAnswer, [Effect]
    ) {
        let number = service.rawValue
        guard let appID = appID(on: connection), let app = apps[appID] else {
            return (.refused(reason: "Service type: \(number) disallowed with current HMI type", rejectedParams: nil), [])
        }
        // A PROJECTION app that is not media has no audio.
        let typeAllowed = Self.isVideoApp(app) && (service == .video || app.isAudioApp)
        let answer: StreamingAnswer
        if !typeAllowed {
            answer = .refused(reason: "Service type: \(number) disallowed with current HMI type", rejectedParams: nil)
        } else if app.hmiLevel != .full && app.hmiLevel != .limited {
            answer = .refused(reason: "Service type: \(number) disallowed with current HMI level", rejectedParams: nil)
        } else if app.streamingServices.contains(service) {
            answer = .refused(
                reason: "Cannot start an unprotected service of type \(number). Session \(sessionID) already has an unprotected service of type \(number)",
                rejectedParams: nil)
        } else if service == .video {
            answer = acceptVideo(request)
        } else {
            answer = .accepted(nil)
        }
        // With an HMI connected, it has the last word on the video's parameters.
        if case .accepted = answer, service == .video, let refusal = await hmiVideoConfigRefusal(request, appID: appID) {
            return (refusal, apps[appID].map { $0.hmiLevel != .none ? setLevel(.none, of: appID) : [] } ?? [])
        }
        switch answer {
        case .accepted(let parameters):
            // The app may have gone while the HMI was asked.
            guard apps[appID] != nil, apps[appID]?.streamingServices.contains(service) == false else {
                return (.refused(reason: "Service type: \(number) disallowed with current HMI level", rejectedParams: nil), [])
            }
            apps[appID]?.streamingServices.insert(service)
            noteStreamingAllowance(of: appID)
            if service == .video {
                apps[appID]?.video = VideoReception(videoProtocol: parameters?.videoProtocol ?? "RAW", videoCodec: parameters?.videoCodec ?? "H264")
            }
            emit(.streamingStarted(appID: appID, service: Int(number)))
            return (answer, hmiStreamStarted(service, appID: appID))
        case .refused:
            // SDL Core reports a refused video or audio service as rejected
            // (HandleRejectedServiceStatus) and takes the app to NONE, whichever service and
            // reason: a format the head unit cannot show, an app type or a level that may not
            // stream. Only a service the session already has leaves the app as it is.
            let duplicate = app.streamingServices.contains(service)
            return (answer, !duplicate && app.hmiLevel != .none ? setLevel(.none, of: appID) : [])
        }
    }

    /// The video parameters the head unit accepts: known protocols and codecs, as a pair its
    /// VIDEO_STREAMING capability lists (what the HMI's SetVideoConfig would take), echoed back.
    private func acceptVideo(_ request: SDLControlPayload?) -> StreamingAnswer {
        var rejected: [String] = []
        let protocolName = request?.videoProtocol ?? "RAW"
        let codec = request?.videoCodec ?? "H264"
        if !Self.videoProtocols.contains(protocolName) { rejected.append("videoProtocol") }
        if !Self.videoCodecs.contains(codec) { rejected.append("videoCodec") }
        if rejected.isEmpty, let formats = configuration.videoStreaming.supportedFormats,
            !formats.contains(where: { $0.protocol.rawValue == protocolName && $0.codec.rawValue == codec })
        {
            rejected = ["videoProtocol", "videoCodec"]
        }
        if rejected.isEmpty, let refusal = configuration.videoConfigurationRefusal, let refused = refusal(request ?? SDLControlPayload()), !refused.isEmpty {
            rejected = refused
        }
        guard rejected.isEmpty else { return .refused(reason: "Received SetVideoConfig failure response", rejectedParams: rejected) }
        var ack = SDLControlPayload()
        ack.height = request?.height
        ack.width = request?.width
        ack.videoProtocol = request?.videoProtocol ?? "RAW"
        ack.videoCodec = request?.videoCodec ?? "H264"
        // SDL Core gives the video service's MTU: its 128 KiB.
        ack.mtu = 131_072
        return .accepted(ack)
    }

    /// The app ended `service` (EndService); false when it was not running.
    @discardableResult
    func streamingEnded(_ service: SDLServiceType, on connection: EmulatedConnection) async -> Bool {
        guard let appID = appID(on: connection), apps[appID]?.streamingServices.remove(service) != nil else { return false }
        apps[appID]?.notStreamableSince[Int(service.rawValue)] = nil
        emit(.streamingEnded(appID: appID, service: Int(service.rawValue)))
        await perform(hmiStreamEnded(service, appID: appID))
        return true
    }

    /// The `videoStreamingState` the app's level gives it: STREAMABLE for the video app in FULL or
    /// LIMITED that no other video app has displaced.
    func videoStreamingState(of app: EmulatedApp, level: HMILevel) -> VideoStreamingState {
        Self.isVideoApp(app) && (level == .full || level == .limited) ? .streamable : .notStreamable
    }

    /// Another video app takes the screen: the one that was streamable is not any more.
    func displaceVideoApps(except appID: String) -> [Effect] {
        var effects: [Effect] = []
        for other in apps.values where other.appID != appID && other.videoStreamingState == .streamable {
            apps[other.appID]?.videoStreamingState = .notStreamable
            noteStreamingAllowance(of: other.appID)
            effects.append(hmiStatus(of: other.appID))
        }
        return effects
    }

    /// Starts the one-second grace (`streamingGrace`) the moment the app may no longer stream a
    /// service it runs, and clears it when it may again: SDL Core counts from the change of
    /// state, not from the first frame it drops.
    func noteStreamingAllowance(of appID: String) {
        guard var app = apps[appID] else { return }
        let now = configuration.clock.now
        for service in app.streamingServices {
            let number = Int(service.rawValue)
            let allowed = service == .video ? app.videoStreamingState == .streamable : app.audioStreamingState == .audible
            if allowed {
                app.notStreamableSince[number] = nil
            } else if app.notStreamableSince[number] == nil {
                app.notStreamableSince[number] = now
            }
        }
        apps[appID] = app
    }

    /// Going to NONE ends the app's streaming services at once (EndService from the head unit).
    func endStreaming(of appID: String) -> [Effect] {
        guard let services = apps[appID]?.streamingServices, !services.isEmpty else { return [] }
        apps[appID]?.streamingServices = []
        apps[appID]?.notStreamableSince = [:]
        let sorted = services.sorted { $0.rawValue < $1.rawValue }
        return sorted.map { .endService(appID: appID, service: $0) } + sorted.flatMap { hmiStreamEnded($0, appID: appID) }
    }

    /// SendHapticData (the app's focusable rectangles) is for navigation and projection apps.
    func sendHapticData(_ request: SendHapticData, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID], Self.isVideoApp(app) else {
            return (.failure(.disallowed, "Application is not of type Navigation or Mobile Projection"), [])
        }
        apps[appID]?.hapticRects = request.hapticRectData ?? []
        return (.success(), [])
    }

    /// The app's focusable rectangles from its latest SendHapticData, in the head unit's
    /// pixels (empty when it cleared them or sent none).
    public func hapticRects(appID: String) -> [HapticRect] {
        apps[appID]?.hapticRects ?? []
    }
}
