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
}

/// A video service's state on the head unit.
struct VideoReception: Sendable {
    /// RAW or RTP (as accepted at StartService).
    var videoProtocol = "RAW"
    var depacketizer = RTPH264Depacketizer()
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
            if H264.containsIDR(consumed) { statistics.keyframes += 1 }
            apps[appID]?.video = reception
        } else {
            statistics.frames += 1
        }
        apps[appID]?.streamStatistics[number] = statistics
        if let sink = configuration.streamSink, !consumed.isEmpty { sink(SDLStreamChunk(appID: appID, service: number, bytes: consumed)) }
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

/// H.264 Annex-B helpers.
enum H264 {
    /// The NAL unit types in Annex-B bytes (after each 00 00 01 start code).
    static func nalTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                types.append(bytes[index + 3] & 0x1F)
                index += 3
            } else {
                index += 1
            }
        }
        return types
    }

    /// Whether the bytes hold an IDR slice (NAL type 5).
    static func containsIDR(_ bytes: [UInt8]) -> Bool { nalTypes(bytes).contains(5) }
}

/// RTP carrying H.264 (RFC 6184) over the SDL video service, each packet preceded by its 2-byte
/// length (RFC 4571, as SDL libraries send it): single NAL units, STAP-A and FU-A, turned back
/// into Annex-B.
struct RTPH264Depacketizer: Sendable {
    private var pending: [UInt8] = []
    private var fragment: [UInt8]?

    /// Takes the bytes of one SDL message; returns the Annex-B bytes completed and how many access
    /// units ended (RTP marker bit).
    mutating func receive(_ bytes: [UInt8]) -> (annexB: [UInt8], accessUnits: Int) {
        pending += bytes
        var output: [UInt8] = []
        var units = 0
        while pending.count >= 2 {
            let length = Int(pending[0]) << 8 | Int(pending[1])
            guard pending.count >= 2 + length else { break }
            let packet = Array(pending[2..<(2 + length)])
            pending.removeFirst(2 + length)
            guard packet.count > 12, packet[0] >> 6 == 2 else { continue }
            let csrcCount = Int(packet[0] & 0x0F)
            var offset = 12 + 4 * csrcCount
            if packet[0] & 0x10 != 0, packet.count >= offset + 4 {
                offset += 4 + 4 * (Int(packet[offset + 2]) << 8 | Int(packet[offset + 3]))
            }
            guard offset < packet.count else { continue }
            output += nalUnits(Array(packet[offset...]))
            if packet[1] & 0x80 != 0 { units += 1 }
        }
        return (output, units)
    }

    private static let startCode: [UInt8] = [0, 0, 0, 1]

    private mutating func nalUnits(_ payload: [UInt8]) -> [UInt8] {
        let type = payload[0] & 0x1F
        switch type {
        case 24:  // STAP-A: 16-bit sizes, then the units
            var output: [UInt8] = []
            var index = 1
            while index + 2 <= payload.count {
                let size = Int(payload[index]) << 8 | Int(payload[index + 1])
                index += 2
                guard index + size <= payload.count else { break }
                output += Self.startCode + payload[index..<(index + size)]
                index += size
            }
            return output
        case 28:  // FU-A: a unit in fragments
            guard payload.count > 2 else { return [] }
            let header = payload[1]
            if header & 0x80 != 0 { fragment = [(payload[0] & 0xE0) | (header & 0x1F)] }
            fragment? += payload[2...]
            guard header & 0x40 != 0, let unit = fragment else { return [] }
            fragment = nil
            return Self.startCode + unit
        default:
            return Self.startCode + payload
        }
    }
}
