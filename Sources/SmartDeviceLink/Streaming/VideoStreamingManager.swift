import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC

/// The video stream of a NAVIGATION or PROJECTION app: starts the video service when the app is
/// STREAMABLE, negotiates a format and size with the head unit, takes the app's encoded frames,
/// suspends while the app may not stream, ends the service on NONE and on stop, and starts it
/// again after a reconnection.
///
/// ```swift
/// for await state in manager.videoStreaming.states() {
///     guard case .streaming(let parameters) = state else { continue }
///     // encode at parameters.resolution, parameters.frameRate, parameters.maxBitrate
/// }
/// ```
///
/// The app brings encoded H.264 (ffmpeg, x264, VideoToolbox...): ``send(_:)`` takes one access
/// unit at a time. Frames wait in a queue of `maxQueuedFrames`; see ``send(_:)`` for what
/// happens when the connection is behind.
/// The video service's lifecycle: offers of formats and sizes, the accepted parameters.
typealias VideoStreamLifecycle = StreamServiceLifecycle<VideoOffer, SDLVideoStreamParameters>

public actor SDLVideoStreamingManager: SDLSubManager, StreamServiceDriver {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    let context: any SDLStreamingContext
    private let configuration: SDLVideoStreamingConfiguration
    let logger: Logger
    var machine = VideoStreamLifecycle()
    let service = SDLServiceType.video
    let protection: SDLStreamProtection
    var isEncrypted = false
    private let stateFanOut = StreamFanOut<SDLVideoStreamState>(bufferLimit: 16, replaysLatest: true, initial: .stopped)
    private var publishedText = "stopped"

    // The current connection's media services and the stream on them.
    private(set) var media: (any SDLMediaServices)?
    private(set) var connectionNumber = 0
    private var packetizer: SDLRTPH264Packetizer?
    private var queue: [(frame: SDLVideoFrame, isKey: Bool)] = []
    private var needsKeyFrame = true
    private var wake: AsyncStream<Void>.Continuation?
    /// Senders waiting for the queue to have room; a cancelled one is resumed at once.
    private let roomWaiters = PendingReplies<Int, Void>()
    /// Key frames waiting for room in the queue (tests synchronise on it).
    var framesWaitingForRoom: Int { roomWaiters.count }
    private var nextWaiter = 0

    /// What went out on this manager's video services.
    public private(set) var statistics = SDLVideoStreamingStatistics()

    init(configuration: SDLVideoStreamingConfiguration, protection: SDLStreamProtection = .none, logger: Logger) {
        self.configuration = configuration
        self.protection = protection
        self.logger = logger
        self.context = link
    }

    /// A video streaming manager on `context` alone, for tests without a manager.
    init(configuration: SDLVideoStreamingConfiguration, context: any SDLStreamingContext, protection: SDLStreamProtection = .none, logger: Logger) {
        self.configuration = configuration
        self.protection = protection
        self.logger = logger
        self.context = context
    }

    /// The stream's state now.
    public nonisolated var state: SDLVideoStreamState { stateFanOut.latest ?? .stopped }

    /// The stream's states, starting with the current one, until the manager stops. A reader
    /// that falls 16 states behind loses the oldest (the latest is always delivered).
    public nonisolated func states() -> AsyncStream<SDLVideoStreamState> { stateFanOut.subscribe() }

    /// The parameters the head unit accepted, while the service runs (streaming or suspended).
    public var acceptedParameters: SDLVideoStreamParameters? { machine.parameters }

    // MARK: Frames

    /// Queues one encoded access unit (Annex-B) for the head unit, in order.
    ///
    /// Back-pressure: at most `maxQueuedFrames` frames wait for the connection. When the queue
    /// is full, a frame that is not a key frame is dropped, and so is every later one until the
    /// next key frame (they would not decode without the dropped one): the result says
    /// ``SDLVideoFrameOutcome/droppedUntilKeyFrame``, ask the encoder for an IDR. A key frame
    /// (``SDLVideoFrame/isKeyFrame(in:)``) is never dropped: its caller waits until there is room. After the stream
    /// starts or resumes, frames are dropped until a key frame comes.
    ///
    /// RAW sends each access unit as one message (frames larger than the MTU go as multi-frame
    /// messages); RTP packetises it (RFC 6184) into messages of at most the negotiated MTU.
    ///
    /// - Throws: ``SDLError`` code `notReady` (the message names the stream's state)
    ///   unless the stream is ``SDLVideoStreamState/streaming(_:)``: nothing is sent on a
    ///   service that is not running; `wrongAppType` for apps other than NAVIGATION and
    ///   PROJECTION.
    @discardableResult
    public func send(_ frame: SDLVideoFrame) async throws -> SDLVideoFrameOutcome {
        while true {
            guard machine.phase == .streaming, media != nil else {
                let types = await context.appTypes
                if !types.contains(.navigation), !types.contains(.projection) { throw SDLVideoStreamingError.wrongAppType.sdlError }
                throw SDLVideoStreamingError.notStreaming(state.description).sdlError
            }
            // H.264 and H.265 are checked and gated on key frames; other codecs' bytes go as they are.
            let codec = machine.parameters?.format.codec ?? .h264
            if codec == .h264 || codec == .h265, !SDLH264.hasStartCode(frame.data) {
                throw SDLError(
                    .invalidArgument, "the frame is not an Annex-B access unit (it does not begin with a 00 00 01 start code); convert AVCC/HVCC samples first")
            }
            let isKey = frame.isKeyFrame(in: codec)
            if needsKeyFrame, !isKey {
                statistics.framesDropped += 1
                return .droppedUntilKeyFrame
            }
            if queue.count < max(1, configuration.maxQueuedFrames) {
                needsKeyFrame = false
                queue.append((frame, isKey))
                wake?.yield()
                return .queued
            }
            guard isKey else {
                needsKeyFrame = true
                statistics.framesDropped += 1
                return .droppedUntilKeyFrame
            }
            try Task.checkCancellation()
            await waitForRoom()
        }
    }

    private func waitForRoom() async {
        let id = nextWaiter
        nextWaiter += 1
        roomWaiters.expect(id)
        // Room, a stop or a cancellation: the loop above looks again either way.
        _ = try? await roomWaiters.wait(for: id, missing: CancellationError(), cancelled: CancellationError())
    }

    private func releaseWaiters() {
        roomWaiters.completeAll(.success(()))
    }

    /// The most bytes of queued frames written at once.
    private static let batchLimit = 1 << 20

    /// Writes queued frames while the stream flows: whatever waits goes out in one write (up to
    /// 1 MiB), so a connection that fell behind catches up in few round trips.
    private func drain(_ media: any SDLMediaServices, connection: Int) async {
        while connection == connectionNumber, machine.phase == .streaming, !queue.isEmpty {
            var batch: [(frame: SDLVideoFrame, isKey: Bool)] = []
            var size = 0
            while let next = queue.first, batch.isEmpty || size + next.frame.data.count <= Self.batchLimit {
                batch.append(queue.removeFirst())
                size += next.frame.data.count
            }
            releaseWaiters()
            var messages: [[UInt8]] = []
            for (frame, _) in batch {
                if packetizer != nil {
                    messages += packetizer!.packetize(frame.data, presentationTime: frame.presentationTime)
                } else {
                    messages.append(frame.data)
                }
            }
            do {
                try await media.sendStreamedMedia(messages: messages, service: .video, encrypted: isEncrypted)
            } catch {
                logger.debug("video frames were not written", metadata: ["error": "\(error)", "frames": "\(batch.count)"])
                return
            }
            statistics.bytesSent += messages.reduce(0) { $0 + $1.count }
            statistics.framesSent += batch.count
            statistics.keyFramesSent += batch.count { $0.isKey }
        }
    }

    // MARK: Lifecycle

    func connectionReady(_ connection: SDLConnectionContext) async {
        guard let media = connection.media, machine.phase != .stopped else { return }
        let types = await context.appTypes
        guard types.contains(.navigation) || types.contains(.projection) else { return }
        connectionNumber += 1
        let number = connectionNumber
        self.media = media
        let capability = await context.capability(.videoStreaming)?.videoStreamingCapability
        let offers = VideoOffer.offers(configuration, capability: capability)
        var unusable: SDLError?
        if offers.isEmpty {
            unusable =
                SDLVideoStreamingError.noUsableFormat(
                    configured: configuration.formats.map(\.name), headUnit: capability?.supportedFormats?.map(\.name) ?? []
                ).sdlError
        }
        let mtu = await media.session?.mtu ?? SDLProtocolVersion.latest.defaultMTU
        let connectionOffer = Offered(offers: offers, unusable: unusable, capability: capability, sessionMTU: mtu)
        let statuses = context.mainWindowStatuses()
        let ended = media.servicesEndedByHeadUnit()
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        connection.tasks.spawn {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in wakes { await self.drain(media, connection: number) }
                }
                group.addTask {
                    for await service in ended where service == .video { await self.headUnitEnded(connection: number) }
                }
                await followStatuses(statuses) { status in
                    await self.connected(connectionOffer, status: status, media: media, connection: number)
                } then: { status in
                    await self.statusChanged(status, media: media, connection: number)
                }
                group.cancelAll()
            }
        }
    }

    /// What a connection offers: computed once per connection.
    private struct Offered: Sendable {
        var offers: [VideoOffer]
        var unusable: SDLError?
        var capability: VideoStreamingCapability?
        var sessionMTU: Int
    }

    private var offered: Offered?

    private func connected(_ offered: Offered, status: OnHMIStatus, media: any SDLMediaServices, connection: Int) async {
        guard connection == connectionNumber else { return }
        self.offered = offered
        let actions = machine.connected(offers: offered.offers, unusable: offered.unusable, level: status.hmiLevel, streamable: status.isStreamable)
        await perform(actions, media: media, connection: connection)
    }

    func mayStream(_ status: OnHMIStatus) -> Bool { status.isStreamable }

    func startParameters(_ offer: VideoOffer) -> SDLControlPayload { offer.payload }

    /// The parameters from the StartServiceACK (it echoes what it accepted) and the capability.
    func accepted(_ ack: SDLControlPayload, offer: VideoOffer) -> SDLVideoStreamParameters {
        let capability = offered?.capability
        var format = offer.format
        if let name = ack.videoProtocol { format.protocol = VideoStreamingProtocol(rawValue: name) }
        if let name = ack.videoCodec { format.codec = VideoStreamingCodec(rawValue: name) }
        var resolution = offer.resolution
        if let width = ack.width, let height = ack.height { resolution = ImageResolution(resolutionWidth: Int(width), resolutionHeight: Int(height)) }
        let headUnitFPS = capability?.preferredFPS.flatMap { $0 > 0 ? $0 : nil }
        let headUnitBitrate = capability?.maxBitrate.flatMap { $0 > 0 ? $0 : nil }
        let frameRate = min(configuration.frameRate ?? headUnitFPS ?? 15, headUnitFPS ?? Int.max)
        let bitrate = min(configuration.maxBitrate ?? headUnitBitrate ?? 600, headUnitBitrate ?? Int.max)
        // Messages are framed at the session's MTU; the ACK's may only lower it.
        let sessionMTU = offered?.sessionMTU ?? SDLProtocolVersion.latest.defaultMTU
        let mtu = min(sessionMTU, ack.mtu.map { Int(clamping: $0) }.flatMap { $0 > 0 ? $0 : nil } ?? sessionMTU)
        return SDLVideoStreamParameters(
            format: format, resolution: resolution, scale: offer.scale, mtu: mtu, frameRate: max(1, frameRate), maxBitrate: max(1, bitrate),
            hapticSpatialDataSupported: capability?.hapticSpatialDataSupported ?? false, isEncrypted: isEncrypted)
    }

    /// The lifecycle's state as the app sees it.
    static func publicState(_ published: VideoStreamLifecycle.Published) -> SDLVideoStreamState {
        switch published {
        case .stopped: .stopped
        case .starting: .starting
        case .streaming(let parameters): .streaming(parameters)
        case .suspended(let reason): .suspended(reason)
        case .failed(.everyOfferRefused(let tried, let reason)): .failed(SDLVideoStreamingError.everyFormatRefused(tried: tried, reason: reason).sdlError)
        case .failed(.startRefused(let reason)): .failed(SDLVideoStreamingError.startRefused(reason: reason).sdlError)
        case .failed(.error(let error)): .failed(error)
        }
    }

    func publish(_ published: VideoStreamLifecycle.Published) {
        let state = Self.publicState(published)
        switch state {
        case .streaming(let parameters):
            needsKeyFrame = true
            if parameters.format.protocol == .rtp {
                if packetizer == nil || packetizer?.mtu != parameters.mtu { packetizer = SDLRTPH264Packetizer(mtu: parameters.mtu) }
            } else {
                packetizer = nil
            }
        default:
            // Frames that did not go out are stale once the stream stops flowing.
            queue.removeAll()
            needsKeyFrame = true
            releaseWaiters()
            if machine.parameters == nil { packetizer = nil }
        }
        guard state.description != publishedText else { return }
        publishedText = state.description
        logger.debug("video stream \(state)")
        stateFanOut.yield(state)
    }

    func connectionEnded() async {
        connectionNumber += 1
        media = nil
        wake?.finish()
        wake = nil
        publishOnly(machine.disconnected())
    }

    func managerStopped() async {
        connectionNumber += 1
        media = nil
        wake?.finish()
        wake = nil
        publishOnly(machine.stop())
        endStreams()
    }

    nonisolated func endStreams() {
        stateFanOut.finish()
    }
}
