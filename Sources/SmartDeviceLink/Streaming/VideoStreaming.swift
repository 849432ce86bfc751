import SDLProtocol
import SDLRPC

/// What a navigation or projection app can send, and how hard the manager pushes: formats in
/// preference order, the video size, frame rate and bitrate, and how many frames may wait when
/// the connection is behind.
public struct SDLVideoStreamingConfiguration: Sendable {
    /// Which video sizes to offer the head unit.
    public enum Resolution: Sendable, Hashable {
        /// The head unit's preferred resolution, then its additional ones, each divided by its
        /// `scale` (the app renders fewer pixels and the head unit scales them up).
        case headUnitPreferred
        /// These sizes, in preference order, in the app's pixels.
        case exactly([ImageResolution])
    }

    /// Formats in preference order. RAW carries any codec's bytes as they are; RTP is
    /// packetised here for H.264 only. The head unit's `supportedFormats`, when it lists them,
    /// narrow the list. The iOS library's default: H.264 over RTP, then over RAW.
    public var formats: [VideoStreamingFormat] = [
        VideoStreamingFormat(protocol: .rtp, codec: .h264), VideoStreamingFormat(protocol: .raw, codec: .h264),
    ]
    /// The sizes to offer; a refused one is followed by the next.
    public var resolution = Resolution.headUnitPreferred
    /// The frame rate the app's encoder should aim for; the head unit's `preferredFPS` caps it
    /// (default: the head unit's, or 15).
    public var frameRate: Int?
    /// The bitrate in kbit/s the app's encoder should stay under; the head unit's `maxBitrate`
    /// caps it (default: the head unit's, or 600).
    public var maxBitrate: Int?
    /// Frames that may wait for the connection before non-key frames are dropped (see
    /// ``SDLVideoStreamingManager/send(_:)``).
    public var maxQueuedFrames = 4

    /// H.264 over RTP then RAW, the head unit's preferred sizes, four frames of queue.
    public init() {}
}

/// What the head unit accepted: the app encodes to this.
public struct SDLVideoStreamParameters: Sendable, Hashable {
    /// The format the stream carries.
    public var format: VideoStreamingFormat
    /// The video's size in the app's pixels (nil when neither side named one).
    public var resolution: ImageResolution?
    /// How much the head unit scales the video up; touches come divided by it, haptic
    /// rectangles go multiplied by it.
    public var scale: Double
    /// The largest message on the video service (from the StartServiceACK).
    public var mtu: Int
    /// The frame rate to encode at.
    public var frameRate: Int
    /// The bitrate to stay under, in kbit/s.
    public var maxBitrate: Int
    /// Whether the head unit takes haptic rectangles (SendHapticData).
    public var hapticSpatialDataSupported: Bool
    /// Whether the service is encrypted (`SDLEncryptionConfiguration/video`).
    public var isEncrypted = false
}

/// Why a stream (video or audio) may not flow for now; its manager resumes it by itself.
public enum SDLStreamSuspension: Sendable, Hashable, CustomStringConvertible {
    /// The app is not STREAMABLE (video: in BACKGROUND, or another video app is on screen) or
    /// not audible (audio). The service stays open; nothing is sent until the app may stream
    /// again.
    case notStreamable
    /// The app is in NONE: the service is ended and starts again once the app is activated.
    case hmiLevelNone
    /// The head unit ended the service; it starts again the next time the app may stream.
    case endedByHeadUnit
    /// The connection dropped; the service starts again after the manager reconnects.
    case connectionLost

    /// The reason in words.
    public var description: String {
        switch self {
        case .notStreamable: "not streamable"
        case .hmiLevelNone: "HMI level NONE"
        case .endedByHeadUnit: "ended by the head unit"
        case .connectionLost: "connection lost"
        }
    }
}

/// Where the video stream is. Follow it with ``SDLVideoStreamingManager/states()``.
public enum SDLVideoStreamState: Sendable, CustomStringConvertible {
    /// No stream: the manager is not running, the app is no NAVIGATION or PROJECTION app, or
    /// the manager stopped.
    case stopped
    /// StartService is on its way (a refused format is followed by the next).
    case starting
    /// Frames flow: encode to these parameters.
    case streaming(SDLVideoStreamParameters)
    /// Frames may not flow for now; the stream comes back by itself.
    case suspended(SDLStreamSuspension)
    /// The head unit refused every format, or the start failed. A refusal of every format
    /// stands until the next connection; any other failure is retried the next time the app
    /// becomes STREAMABLE. Its code is `refusedByHeadUnit` (every format, or the service,
    /// refused), `unsupportedByHeadUnit` (no configured format can be sent) or `wrongAppType`;
    /// its message names the formats tried and the head unit's reason.
    case failed(SDLError)

    /// The accepted parameters while streaming.
    public var parameters: SDLVideoStreamParameters? {
        if case .streaming(let parameters) = self { parameters } else { nil }
    }

    /// The state in words, for logs.
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .starting: "starting"
        case .streaming(let parameters):
            "streaming \(parameters.format.protocol.rawValue)/\(parameters.format.codec.rawValue)"
                + (parameters.resolution.map { " \($0.resolutionWidth)x\($0.resolutionHeight)" } ?? "")
        case .suspended(let reason): "suspended (\(reason))"
        case .failed(let error): "failed (\(error.message))"
        }
    }
}

/// One encoded access unit: H.264 or H.265 in Annex-B byte-stream form (or another negotiated
/// codec's bytes), with the time it is to be shown.
public struct SDLVideoFrame: Sendable {
    /// The access unit's bytes: NAL units after 00 00 01 or 00 00 00 01 start codes.
    public var data: [UInt8]
    /// When the frame is to be shown, from the stream's start (RTP timestamps derive from it).
    public var presentationTime: Duration
    /// A frame of Annex-B bytes shown at `presentationTime`.
    public init(annexB data: [UInt8], presentationTime: Duration) {
        self.data = data
        self.presentationTime = presentationTime
    }

    /// Whether, in `codec`, it holds what decoding starts from (H.264: IDR or parameter sets;
    /// H.265: IRAP or parameter sets): such frames are never dropped. Frames of other codecs
    /// all count as key frames (the manager cannot read them).
    public func isKeyFrame(in codec: VideoStreamingCodec) -> Bool {
        switch codec {
        case .h264: SDLH264.isEssential(data)
        case .h265: SDLH265.isEssential(data)
        default: true
        }
    }
}

/// What became of a frame handed to ``SDLVideoStreamingManager/send(_:)``.
public enum SDLVideoFrameOutcome: Sendable, Hashable {
    /// Queued; it goes out in order.
    case queued
    /// Dropped: the connection was behind (`maxQueuedFrames` waiting), or a frame before it
    /// was dropped, or the stream (re)started, and the head unit's decoder needs a key frame
    /// first. Send a key frame soon (ask the encoder for an IDR).
    case droppedUntilKeyFrame
}

/// What the app sent on the video service, on this manager.
public struct SDLVideoStreamingStatistics: Sendable, Hashable {
    /// Frames written to the connection.
    public var framesSent = 0
    /// Key frames among them.
    public var keyFramesSent = 0
    /// Frames dropped by the back-pressure policy or while waiting for a key frame.
    public var framesDropped = 0
    /// Payload bytes written (after RTP packetisation).
    public var bytesSent = 0
}

/// Why the video stream could not start, or why a frame was refused: the `underlying` cause
/// of an ``SDLError``.
package enum SDLVideoStreamingError: SDLErrorConvertible, Sendable, Hashable, CustomStringConvertible {
    /// `send(_:)` while the stream is not flowing (frames are never sent on a service that is
    /// not started: SDL Core unregisters such an app).
    case notStreaming(String)
    /// Only NAVIGATION and PROJECTION apps stream video.
    case wrongAppType
    /// None of the configured formats can be sent, or the head unit lists none of them.
    case noUsableFormat(configured: [String], headUnit: [String])
    /// The head unit refused every format and resolution offered.
    case everyFormatRefused(tried: [String], reason: String?)
    /// The head unit refused the service for a reason other than its parameters (the HMI
    /// level, the app type, a service already running).
    case startRefused(reason: String?)

    /// The error in words.
    public var description: String {
        switch self {
        case .notStreaming(let state): "the video stream is not flowing (it is \(state)); the frame was not sent"
        case .wrongAppType: "only NAVIGATION and PROJECTION apps stream video"
        case .noUsableFormat(let configured, let headUnit):
            "no configured video format can be sent: the app offers \(configured.joined(separator: ", ")), the head unit takes \(headUnit.joined(separator: ", "))"
        case .everyFormatRefused(let tried, let reason):
            "the head unit refused every video format offered (\(tried.joined(separator: "; ")))" + (reason.map { ": \($0)" } ?? "")
        case .startRefused(let reason): "the head unit refused the video service" + (reason.map { ": \($0)" } ?? "")
        }
    }

    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let code: SDLError.Code =
            switch self {
            case .notStreaming: .notReady
            case .wrongAppType: .wrongAppType
            case .noUsableFormat: .unsupportedByHeadUnit
            case .everyFormatRefused, .startRefused: .refusedByHeadUnit
            }
        return SDLError(code, description, underlying: self)
    }
}

extension VideoStreamingFormat {
    /// `RTP/H264`.
    var name: String { "\(`protocol`.rawValue)/\(codec.rawValue)" }

    /// Whether this library can send it: RAW passes any codec's bytes, RTP is packetised for
    /// H.264 only.
    var isSendable: Bool { `protocol` == .raw || (`protocol` == .rtp && codec == .h264) }
}
