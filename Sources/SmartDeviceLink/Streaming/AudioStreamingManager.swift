import Foundation
import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC

/// Where the audio stream is. Follow it with ``SDLAudioStreamingManager/states()``.
public enum SDLAudioStreamState: Sendable, CustomStringConvertible {
    /// No stream: the manager is not running, the app is no NAVIGATION or PROJECTION app, or
    /// the manager stopped.
    case stopped
    /// StartService(audio) is on its way.
    case starting
    /// Prompts play, in this format (the head unit's `pcmStreamCapabilities`).
    case streaming(SDLAudioFormat)
    /// Nothing plays for now (a prompt under way pauses and goes on where it stopped); the
    /// stream comes back by itself.
    case suspended(SDLStreamSuspension)
    /// The head unit refused the audio service (a PROJECTION app that is not also media has
    /// none); tried again the next time the app may stream.
    case failed(SDLError)

    /// The state in words, for logs.
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .starting: "starting"
        case .streaming(let format): "streaming \(format)"
        case .suspended(let reason): "suspended (\(reason))"
        case .failed(let error): "failed (\(error.message))"
        }
    }
}

/// Something to say: PCM in any format the library converts (see ``SDLPCMBuffer``).
public struct SDLAudioPrompt: Sendable {
    /// The audio, converted to the head unit's format when it starts playing.
    public var pcm: SDLPCMBuffer

    /// A prompt of PCM samples.
    public init(_ pcm: SDLPCMBuffer) {
        self.pcm = pcm
    }

    /// A prompt from a WAV file's bytes.
    public init(wav: [UInt8]) throws {
        // The buffer already throws `invalidArgument` with the PCM error as its cause.
        self.pcm = try SDLPCMBuffer(wav: wav)
    }

    /// A prompt from a WAV file.
    public init(wavFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SDLError(.io, SDLPCMError.unreadable(path: path).description, underlying: SDLPCMError.unreadable(path: path))
        }
        try self.init(wav: Array(data))
    }

    /// A prompt from compressed audio (MP3...), through the app's decoder.
    public init(encoded: [UInt8], decoder: any SDLAudioDecoder) async throws {
        do {
            self.pcm = try await decoder.decode(encoded)
        } catch {
            throw SDLError(error)
        }
    }
}

/// A queued prompt's identity: its end is reported with it.
public struct SDLAudioPromptID: Sendable, Hashable, CustomStringConvertible {
    /// Counts from 1 on each manager.
    public let rawValue: Int
    /// `prompt N`.
    public var description: String { "prompt \(rawValue)" }
}

/// How a prompt ended.
public enum SDLAudioPromptOutcome: Sendable, Hashable {
    /// Played to its end (the head unit had every byte, and its playing time has passed).
    case played
    /// Cancelled by the app, or dropped when the manager stopped.
    case cancelled
}

/// The end of one prompt, as ``SDLAudioStreamingManager/promptEnds()`` reports it.
public struct SDLAudioPromptEnd: Sendable, Hashable {
    /// Which prompt.
    public var id: SDLAudioPromptID
    /// How it ended.
    public var outcome: SDLAudioPromptOutcome
}

/// The audio service's one offer: SDL Core takes no parameters for it.
struct AudioOffer: StreamServiceOffer {
    var name: String { "PCM" }
    func isRuledOut(by parameters: Set<String>, of refused: AudioOffer) -> Bool { true }
}

/// The audio service's lifecycle: one offer, the head unit's PCM format once started.
typealias AudioStreamLifecycle = StreamServiceLifecycle<AudioOffer, SDLAudioFormat>

/// A NAVIGATION or PROJECTION app's spoken prompts, streamed as PCM on the audio service (the
/// car's other audio is attenuated while they play): a queue of prompts from PCM buffers or WAV
/// files, converted to the head unit's format (16 kHz, 16-bit mono on SDL Core) and paced to real
/// time, so the head unit never holds more than 200 ms ahead of what it plays.
///
/// ```swift
/// let turn = try SDLAudioPrompt(wavFile: "turn-left.wav")
/// let outcome = await manager.audioStreaming.play(turn)   // .played once heard to the end
/// ```
///
/// The service starts, suspends and ends with the HMI state like the video one: it runs while
/// the app is in FULL or LIMITED and audible, a prompt under way pauses while it may not play and
/// goes on afterwards, NONE ends the service, and a reconnection starts it again.
public actor SDLAudioStreamingManager: SDLSubManager, StreamServiceDriver {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    let context: any SDLStreamingContext
    let logger: Logger
    var machine = AudioStreamLifecycle()
    let service = SDLServiceType.audio
    let protection: SDLStreamProtection
    var isEncrypted = false
    private let stateFanOut = StreamFanOut<SDLAudioStreamState>(bufferLimit: 16, replaysLatest: true, initial: .stopped)
    private let endFanOut = StreamFanOut<SDLAudioPromptEnd>(bufferLimit: 64)
    private var publishedText = "stopped"

    /// How much audio goes in each message.
    static let chunkDuration: Duration = .milliseconds(100)
    /// How far ahead of playback the stream may run: one chunk.
    static let lead: Duration = .milliseconds(100)

    private(set) var media: (any SDLMediaServices)?
    private(set) var connectionNumber = 0
    /// The head unit's PCM format on the current connection.
    private var connectionFormat = SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit)
    private var wake: AsyncStream<Void>.Continuation?
    private var nextID = 1
    private var queue: [(id: SDLAudioPromptID, prompt: SDLAudioPrompt)] = []
    /// The prompt playing: its bytes in the head unit's format and how many went out.
    private var current: (id: SDLAudioPromptID, bytes: [UInt8], sent: Int)?
    /// Callers of `play(_:)` waiting for their prompt's end; a cancelled one is resumed at once.
    private let promptWaiters = PendingReplies<SDLAudioPromptID, SDLAudioPromptOutcome>()

    /// - Parameter acceptsPrompts: false for an app that is no NAVIGATION or PROJECTION app:
    ///   its prompts end at once instead of waiting for a connection that would refuse them.
    init(protection: SDLStreamProtection = .none, acceptsPrompts: Bool = true, logger: Logger) {
        self.protection = protection
        self.logger = logger
        self.context = link
        self.acceptsPrompts = acceptsPrompts
    }

    /// An audio streaming manager on `context` alone, for tests without a manager.
    init(context: any SDLStreamingContext, protection: SDLStreamProtection = .none, logger: Logger) {
        self.protection = protection
        self.logger = logger
        self.context = context
    }

    /// The stream's state now.
    public nonisolated var state: SDLAudioStreamState { stateFanOut.latest ?? .stopped }

    /// The stream's states, starting with the current one, until the manager stops (a reader 16
    /// behind loses the oldest).
    public nonisolated func states() -> AsyncStream<SDLAudioStreamState> { stateFanOut.subscribe() }

    /// Each prompt's end from now on, in order, until the manager stops (a reader 64 behind loses
    /// the oldest).
    public nonisolated func promptEnds() -> AsyncStream<SDLAudioPromptEnd> { endFanOut.subscribe() }

    /// Prompts waiting behind the one playing.
    public var queuedPrompts: Int { queue.count }

    // MARK: Prompts

    /// Queues a prompt; it plays after those before it, once the stream flows.
    @discardableResult
    public func enqueue(_ prompt: SDLAudioPrompt) -> SDLAudioPromptID {
        enqueue(prompt, waited: false)
    }

    /// `waited`: `play(_:)` waits for its end, expected before anything can end it.
    private func enqueue(_ prompt: SDLAudioPrompt, waited: Bool) -> SDLAudioPromptID {
        let id = SDLAudioPromptID(rawValue: nextID)
        nextID += 1
        if waited { promptWaiters.expect(id) }
        guard acceptsPrompts else {
            // Nothing would ever play it: the manager stopped, or the app cannot stream audio.
            ended(id, .cancelled)
            return id
        }
        queue.append((id, prompt))
        wake?.yield()
        return id
    }

    /// The prompt playing, if one is.
    public var currentPrompt: SDLAudioPromptID? { current?.id }

    /// False once the manager stopped, or when the app is no NAVIGATION or PROJECTION app.
    private var acceptsPrompts = true

    /// Queues a prompt and returns how it ended: `.played` once the head unit has played it to
    /// its end, `.cancelled` when it was cancelled (also by cancelling the calling task) or the
    /// manager stopped first.
    public func play(_ prompt: SDLAudioPrompt) async -> SDLAudioPromptOutcome {
        let id = enqueue(prompt, waited: !Task.isCancelled)
        do {
            return try await promptWaiters.wait(for: id, missing: CancellationError(), cancelled: CancellationError())
        } catch {
            // The calling task was cancelled (its wait ended at once); back here, the prompt goes too.
            cancel(id)
            return .cancelled
        }
    }

    /// Cancels one prompt, waiting or playing.
    public func cancel(_ id: SDLAudioPromptID) {
        if current?.id == id {
            cancelCurrent()
        } else if let index = queue.firstIndex(where: { $0.id == id }) {
            queue.remove(at: index)
            ended(id, .cancelled)
        }
    }

    /// Stops the prompt playing (what the head unit holds still plays out, at most 200 ms);
    /// the next one starts.
    public func cancelCurrent() {
        guard let playing = current else { return }
        current = nil
        ended(playing.id, .cancelled)
        wake?.yield()
    }

    /// Cancels every prompt, the one playing and those waiting.
    public func cancelAll() {
        let waiting = queue
        queue = []
        cancelCurrent()
        for item in waiting { ended(item.id, .cancelled) }
    }

    private func ended(_ id: SDLAudioPromptID, _ outcome: SDLAudioPromptOutcome) {
        endFanOut.yield(SDLAudioPromptEnd(id: id, outcome: outcome))
        promptWaiters.complete(id, .success(outcome))
    }

    // MARK: Playing

    /// What the player does next.
    private enum Step {
        /// Nothing to play, or not streaming: wait for a change.
        case idle
        /// Send the current prompt's bytes up to `end` now.
        case send([UInt8], prompt: SDLAudioPromptID, end: Int)
        /// Wait until this time (the next chunk's turn, or the end of the prompt).
        case wait(until: Duration)
    }

    /// When the bytes of the current prompt sent so far will have played: `sent` bytes were out
    /// at `at`.
    private var playhead: (at: Duration, sent: Int)?
    /// When what the head unit holds will have played (across prompts: a cancelled prompt's
    /// last chunks still play before the next one).
    private var bufferDrainsAt: Duration?

    private func nextStep(now: Duration) -> Step {
        guard machine.phase == .streaming, let format = machine.parameters else {
            playhead = nil
            return .idle
        }
        if current == nil {
            guard !queue.isEmpty else { return .idle }
            let next = queue.removeFirst()
            current = (next.id, next.prompt.pcm.converted(to: format), 0)
            playhead = nil
        }
        guard let playing = current else { return .idle }
        let rate = max(1, format.byteRate)
        var base = playhead ?? (max(now, bufferDrainsAt ?? now), playing.sent)
        var played = base.at + .seconds(Double(playing.sent - base.sent) / Double(rate))
        if played < now {
            // Behind (a slow write, a late wake-up): the head unit ran dry; go on from now rather
            // than send the gap at once.
            base = (now, playing.sent)
            played = now
        }
        playhead = base
        if playing.sent >= playing.bytes.count {
            // Every byte is out: the prompt ends when the head unit has played it.
            if now >= played {
                current = nil
                playhead = nil
                ended(playing.id, .played)
                return nextStep(now: now)
            }
            return .wait(until: played)
        }
        // The next chunk goes out when the head unit holds no more than the lead.
        if played - now > Self.lead { return .wait(until: played - Self.lead) }
        let sampleBytes = max(1, format.bytesPerSample)
        let chunk = max(sampleBytes, Int(Double(rate) * (Self.chunkDuration / .seconds(1))) / sampleBytes * sampleBytes)
        let end = min(playing.bytes.count, playing.sent + chunk)
        return .send(Array(playing.bytes[playing.sent..<end]), prompt: playing.id, end: end)
    }

    /// The chunk went out: the prompt moves on (unless it was cancelled meanwhile).
    private func sent(_ id: SDLAudioPromptID, upTo end: Int, now: Duration) {
        guard var playing = current, playing.id == id, let base = playhead, let format = machine.parameters else { return }
        playing.sent = end
        current = playing
        bufferDrainsAt = base.at + .seconds(Double(end - base.sent) / Double(max(1, format.byteRate)))
    }

    /// A fresh signal for the player's next wait: a wait that times out cancels its reader, which
    /// ends an AsyncStream, so each wait has its own (armed before the player looks, so no change
    /// is missed).
    private func armWake() -> AsyncStream<Void> {
        let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        return signal
    }

    /// The player of one connection: sends the prompts' chunks at their time, until the
    /// connection ends.
    private func play(_ media: any SDLMediaServices, connection: Int) async {
        let clock = context.clock
        while connection == connectionNumber, !Task.isCancelled {
            let signal = armWake()
            switch nextStep(now: clock.now) {
            case .idle:
                for await _ in signal { break }
            case .wait(let deadline):
                await clock.sleep(until: deadline, interruptedBy: signal)
            case .send(let bytes, let id, let end):
                do {
                    try await media.sendStreamedMedia(messages: [bytes], service: .audio, encrypted: isEncrypted)
                    sent(id, upTo: end, now: clock.now)
                } catch {
                    // The service ended (NONE, the head unit's EndService) before the manager heard:
                    // the chunk is sent again once the stream flows; wait for that change.
                    logger.debug("audio was not written", metadata: ["error": "\(error)"])
                    for await _ in signal { break }
                }
            }
        }
    }

    // MARK: Lifecycle

    func connectionReady(_ connection: SDLConnectionContext) async {
        guard let media = connection.media, machine.phase != .stopped else { return }
        let types = await context.appTypes
        guard types.contains(.navigation) || types.contains(.projection) else {
            acceptsPrompts = false
            cancelAll()
            return
        }
        connectionNumber += 1
        let number = connectionNumber
        self.media = media
        connectionFormat = await context.pcmFormat() ?? SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit)
        let statuses = context.mainWindowStatuses()
        let ended = media.servicesEndedByHeadUnit()
        connection.tasks.spawn {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.play(media, connection: number) }
                group.addTask {
                    for await service in ended where service == .audio { await self.headUnitEnded(connection: number) }
                }
                await followStatuses(statuses) { status in
                    await self.connected(status, media: media, connection: number)
                } then: { status in
                    await self.statusChanged(status, media: media, connection: number)
                }
                group.cancelAll()
            }
        }
    }

    private func connected(_ status: OnHMIStatus, media: any SDLMediaServices, connection: Int) async {
        guard connection == connectionNumber else { return }
        let actions = machine.connected(offers: [AudioOffer()], unusable: nil, level: status.hmiLevel, streamable: mayStream(status))
        await perform(actions, media: media, connection: connection)
    }

    func mayStream(_ status: OnHMIStatus) -> Bool { status.isAudible }

    /// SDL Core takes no parameters for the audio service.
    func startParameters(_ offer: AudioOffer) -> SDLControlPayload { SDLControlPayload() }

    /// The head unit's announced format: the ACK says nothing of it.
    func accepted(_ ack: SDLControlPayload, offer: AudioOffer) -> SDLAudioFormat { connectionFormat }

    func publish(_ published: AudioStreamLifecycle.Published) {
        let state: SDLAudioStreamState =
            switch published {
            case .stopped: .stopped
            case .starting: .starting
            case .streaming(let format): .streaming(format)
            case .suspended(let reason): .suspended(reason)
            case .failed(.everyOfferRefused(_, let reason)), .failed(.startRefused(let reason)):
                .failed(SDLError(.refusedByHeadUnit, "the head unit refused the audio service" + (reason.map { ": \($0)" } ?? "")))
            case .failed(.error(let error)): .failed(error)
            }
        // The player looks again: it starts, pauses or goes on.
        wake?.yield()
        guard state.description != publishedText else { return }
        publishedText = state.description
        logger.debug("audio stream \(state)")
        stateFanOut.yield(state)
    }

    func connectionEnded() async {
        connectionNumber += 1
        media = nil
        wake?.finish()
        wake = nil
        playhead = nil
        bufferDrainsAt = nil
        publishOnly(machine.disconnected())
    }

    func managerStopped() async {
        connectionNumber += 1
        media = nil
        wake?.finish()
        wake = nil
        publishOnly(machine.stop())
        acceptsPrompts = false
        cancelAll()
        endStreams()
    }

    nonisolated func endStreams() {
        stateFanOut.finish()
        endFanOut.finish()
    }
}
