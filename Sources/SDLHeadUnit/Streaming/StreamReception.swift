import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// What an app streamed to the head unit on one service, as the control API reports it.
public struct SDLStreamStatistics: Sendable, Hashable {
    /// Access units (video) or messages (audio) received and kept.
    public var frames = 0
    /// Bytes received and kept (the payload, before any depacketising).
    public var bytes = 0
    /// Video access units holding an IDR picture.
    public var keyframes = 0
    /// Messages dropped because the app was not allowed to stream at the time.
    public var dropped = 0
    /// When the first and the last kept message arrived, on the emulator's clock.
    public var firstAt: Duration?
    public var lastAt: Duration?

    /// Frames per second between the first and the last frame (0 with fewer than two).
    public var framesPerSecond: Double {
        guard frames > 1, let first = firstAt, let last = lastAt, last > first else { return 0 }
        return Double(frames - 1) / ((last - first) / .seconds(1))
    }

    /// Kilobits per second between the first and the last message.
    public var kilobitsPerSecond: Double {
        guard let first = firstAt, let last = lastAt, last > first else { return 0 }
        return Double(bytes * 8) / 1000 / ((last - first) / .seconds(1))
    }
}

/// A piece of an app's stream as the head unit's consumer gets it: video as H.264 Annex-B (RTP
/// already depacketised), audio as sent (PCM). `sdl headunit --record-streams` writes them to
/// files.
public struct SDLStreamChunk: Sendable, Hashable {
    /// The app that streams.
    public var appID: String
    /// 10 for audio, 11 for video.
    public var service: Int
    /// The bytes, in order.
    public var bytes: [UInt8]
    /// The video codec accepted at StartService (`H264`, `H265`...); nil for audio.
    public var videoCodec: String?

    /// A chunk of `appID`'s stream on `service` (10 audio, 11 video).
    public init(appID: String, service: Int, bytes: [UInt8], videoCodec: String? = nil) {
        self.appID = appID
        self.service = service
        self.bytes = bytes
        self.videoCodec = videoCodec
    }
}

/// A video service's state on the head unit.
struct VideoReception: Sendable {
    /// RAW or RTP (as accepted at StartService).
    var videoProtocol = "RAW"
    /// H264, H265... (as accepted at StartService).
    var videoCodec = "H264"
    var depacketizer = SDLRTPH264Depacketizer()
}

extension SDLHeadUnitEmulator {
    /// How long an app that may no longer stream has before SDL Core ends the service if it keeps
    /// sending.
    static let streamingGrace: Duration = .seconds(1)

    /// Data on a video or audio service: kept (statistics, the consumer) while the app may
    /// stream; dropped for a second after it may not, then the service is ended; on a service
    /// never started (or ended) the app is unregistered with PROTOCOL_VIOLATION, as on SDL Core.
    func receivedStream(_ service: SDLServiceType, payload: [UInt8], on connection: EmulatedConnection) -> [Effect] {
        guard let appID = appID(on: connection), let app = apps[appID] else { return [] }
        let number = Int(service.rawValue)
        guard app.streamingServices.contains(service) else {
            return [
                notification(OnAppInterfaceUnregistered(reason: .protocolViolation), to: appID),
                .disconnect(appID: appID, endService: true, unregistered: true),
            ]
        }
        let now = configuration.clock.now
        let allowed = service == .video ? app.videoStreamingState == .streamable : app.audioStreamingState == .audible
        guard allowed else {
            apps[appID]?.streamStatistics[number, default: SDLStreamStatistics()].dropped += 1
            let since = app.notStreamableSince[number] ?? now
            apps[appID]?.notStreamableSince[number] = since
            guard now - since >= Self.streamingGrace else { return [] }
            // Still sending a second after it had to stop: SDL Core ends the service.
            apps[appID]?.streamingServices.remove(service)
            apps[appID]?.notStreamableSince[number] = nil
            return [.endService(appID: appID, service: service)]
        }
        apps[appID]?.notStreamableSince[number] = nil
        var statistics = app.streamStatistics[number] ?? SDLStreamStatistics()
        statistics.bytes += payload.count
        statistics.firstAt = statistics.firstAt ?? now
        statistics.lastAt = now
        var consumed = payload
        if service == .video {
            var reception = app.video ?? VideoReception()
            if reception.videoProtocol == "RTP" {
                let (annexB, completed) = reception.depacketizer.receive(payload)
                consumed = annexB
                statistics.frames += completed
            } else {
                statistics.frames += 1
            }
            if SDLH264.containsIDR(consumed) { statistics.keyframes += 1 }
            apps[appID]?.video = reception
        } else {
            statistics.frames += 1
        }
        apps[appID]?.streamStatistics[number] = statistics
        if !consumed.isEmpty, configuration.streamSink != nil || streamFanOut.subscriberCount > 0 {
            let chunk = SDLStreamChunk(appID: appID, service: number, bytes: consumed, videoCodec: service == .video ? apps[appID]?.video?.videoCodec : nil)
            configuration.streamSink?(chunk)
            streamFanOut.yield(chunk)
        }
        return []
    }

    /// Data on a streaming service, and what follows it.
    func streamData(_ service: SDLServiceType, payload: [UInt8], on connection: EmulatedConnection) async {
        await perform(receivedStream(service, payload: payload, on: connection))
    }

    /// The app's streaming statistics by service (10 audio, 11 video).
    public func streamStatistics(appID: String) -> [Int: SDLStreamStatistics] {
        apps[appID]?.streamStatistics ?? [:]
    }
}
