import Foundation
import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

/// A recording format: header-less mono linear PCM, 8-bit unsigned or 16-bit signed
/// little-endian, at one of the spec's sampling rates.
public struct SDLAudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Samples per second: 8, 16, 22 or 44 kHz.
    public var samplingRate: SamplingRate
    /// 8-bit unsigned or 16-bit signed samples.
    public var bitsPerSample: BitsPerSample
    /// The encoding; PCM is the only one the spec has.
    public var audioType: AudioType

    /// A recording format.
    ///
    /// - Parameters:
    ///   - samplingRate: 8, 16, 22 or 44 kHz.
    ///   - bitsPerSample: 8 or 16 bits.
    ///   - audioType: PCM (the only type of the spec).
    public init(samplingRate: SamplingRate, bitsPerSample: BitsPerSample, audioType: AudioType = .pcm) {
        self.samplingRate = samplingRate
        self.bitsPerSample = bitsPerSample
        self.audioType = audioType
    }

    init(_ capability: AudioPassThruCapabilities) {
        self.init(samplingRate: capability.samplingRate, bitsPerSample: capability.bitsPerSample, audioType: capability.audioType)
    }

    /// Samples per second (22 kHz is 22,050, 44 kHz 44,100).
    public var sampleRate: Int {
        switch samplingRate {
        case ._8khz: 8_000
        case ._16khz: 16_000
        case ._22khz: 22_050
        case ._44khz: 44_100
        default: 0
        }
    }

    /// Bytes of one sample: 2 for 16-bit, 1 for 8-bit.
    public var bytesPerSample: Int { bitsPerSample == ._16Bit ? 2 : 1 }

    /// Bytes of one second of audio.
    public var byteRate: Int { sampleRate * bytesPerSample }

    /// The format in the spec's terms, such as `PCM 16_BIT 16KHZ`, for logs.
    public var description: String { "\(audioType.rawValue) \(bitsPerSample.rawValue) \(samplingRate.rawValue)" }
}

/// What to record: the format (the head unit's first when nil), the longest recording, the
/// text shown and the prompt spoken while the microphone is open.
public struct SDLAudioPassThru: Sendable {
    /// The recording format, one of the head unit's audio pass-thru capabilities; nil takes
    /// the head unit's first.
    public var format: SDLAudioFormat?
    /// The recording stops by itself after this (1 ms to 1,000 s).
    public var maxDuration: Duration
    /// The first line shown while the microphone is open.
    public var text: String?
    /// The second line shown while the microphone is open.
    public var secondaryText: String?
    /// Spoken before recording starts.
    public var prompt: SDLSpeech?
    /// Mutes the car's other audio while recording (the head unit's default when nil).
    public var muteAudio: Bool?

    /// A recording of at most `maxDuration`, with what the driver sees and hears meanwhile.
    ///
    /// - Parameters:
    ///   - format: one of the head unit's audio pass-thru capabilities; its first when nil.
    ///   - maxDuration: the longest recording.
    ///   - text: shown while recording.
    ///   - secondaryText: a second line.
    ///   - prompt: spoken before recording starts.
    ///   - muteAudio: mutes other audio while recording.
    public init(
        format: SDLAudioFormat? = nil, maxDuration: Duration, text: String? = nil, secondaryText: String? = nil,
        prompt: SDLSpeech? = nil, muteAudio: Bool? = nil
    ) {
        self.format = format
        self.maxDuration = maxDuration
        self.text = text
        self.secondaryText = secondaryText
        self.prompt = prompt
        self.muteAudio = muteAudio
    }
}

/// How a recording ended.
public enum SDLAudioPassThruEnd: Sendable, Hashable {
    /// Its maximum duration elapsed or the driver pressed Done (SUCCESS: SDL Core does not
    /// tell them apart).
    case finished
    /// The app ended it (``SDLAudioCapture/end()``, EndAudioPassThru).
    case endedByApp
    /// The driver pressed Cancel (ABORTED), or the app ended it before it started.
    case cancelled
}

/// A recording in progress: iterate it for the PCM chunks as the head unit sends them
/// (OnAudioPassThru); the sequence ends when the recording does, after its last chunk, and
/// ``result()`` tells how. Iterate it once.
///
/// ```swift
/// let capture = try await manager.screen.startAudioPassThru(SDLAudioPassThru(maxDuration: .seconds(5)))
/// var pcm: [UInt8] = []
/// for await chunk in capture { pcm += chunk }
/// let end = try await capture.result()
/// try SDLWAV.write(pcm, format: capture.format, to: "/tmp/recording.wav")
/// ```
public struct SDLAudioCapture: AsyncSequence, Sendable {
    /// Each element is one chunk of header-less PCM in `format`.
    public typealias Element = [UInt8]
    /// Iterates the chunks as the head unit sends them.
    public typealias AsyncIterator = AsyncStream<[UInt8]>.Iterator

    /// The format of the chunks.
    public let format: SDLAudioFormat
    let job: AudioPassThruJob
    let outcome: Task<SDLAudioPassThruEnd, any Error>
    let screen: SDLScreenManager
    let operationID: Int

    /// Iterates the recording's chunks; iterate a capture once.
    public func makeAsyncIterator() -> AsyncIterator { job.chunks.makeAsyncIterator() }

    /// Ends the recording (EndAudioPassThru); one still waiting in the screen queue never starts.
    public func end() async {
        job.endedByApp()
        await screen.cancelInteraction(operationID)
    }

    /// How the recording ended; throws when the head unit refused it or the exchange failed.
    public func result() async throws -> SDLAudioPassThruEnd {
        do throws(SDLScreenError) {
            do {
                return try await outcome.value
            } catch let error as SDLScreenError {
                throw error
            } catch {
                throw .stopped
            }
        } catch {
            throw SDLError(error)
        }
    }
}

/// A recording waiting in, or run by, the screen queue.
final class AudioPassThruJob: Sendable {
    let options: SDLAudioPassThru
    let format: SDLAudioFormat
    let chunks: AsyncStream<[UInt8]>
    let sink: AsyncStream<[UInt8]>.Continuation
    private let ended = Mutex(false)

    init(options: SDLAudioPassThru, format: SDLAudioFormat) {
        self.options = options
        self.format = format
        (chunks, sink) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
    }

    func endedByApp() { ended.withLock { $0 = true } }
    var wasEndedByApp: Bool { ended.withLock { $0 } }
}

extension SDLScreenManager {
    /// Opens the car's microphone through the screen queue (PerformAudioPassThru) and returns
    /// the recording at once; its chunks arrive as the head unit sends them. The format must be
    /// one of the head unit's audio pass-thru capabilities (checked before sending). The
    /// recording ends at `maxDuration`, when the driver presses Done or Cancel, or with
    /// ``SDLAudioCapture/end()``.
    public func startAudioPassThru(_ options: SDLAudioPassThru) async throws -> SDLAudioCapture {
        do throws(SDLScreenError) {
            guard let manager = current else { throw .stopped }
            try Self.validate(options.maxDuration, allowed: .milliseconds(1) ... .seconds(1_000))
            let supported = (await manager.audioPassThruCapabilities() ?? []).map(SDLAudioFormat.init)
            let format: SDLAudioFormat
            if let wanted = options.format {
                guard supported.isEmpty || supported.contains(wanted) else { throw .invalid(.audioFormatUnsupported(wanted, supported: supported)) }
                format = wanted
            } else {
                format = supported.first ?? SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit)
            }
            let job = AudioPassThruJob(options: options, format: format)
            let id = nextOperationID()
            // Unstructured by design: the app holds the capture (chunks, `end()`, `result()`) of a
            // recording that runs on its behalf, like a task it would start itself.
            let outcome = Task { () async throws -> SDLAudioPassThruEnd in
                // However it ends (dropped from the queue included), the chunks end with it.
                defer { job.sink.finish() }
                guard case .audioPassThru(let end) = try await self.enqueue(.audioPassThru(job), id: id) else { return .cancelled }
                return end
            }
            return SDLAudioCapture(format: format, job: job, outcome: outcome, screen: self, operationID: id)
        } catch {
            throw SDLError(error)
        }
    }

    func record(_ job: AudioPassThruJob) async throws(SDLScreenError) -> SDLAudioPassThruEnd {
        defer { job.sink.finish() }
        guard let manager = current else { throw .stopped }
        if job.wasEndedByApp { return .cancelled }
        let prompt = try await prepare(job.options.prompt, optional: true, manager: manager)
        guard let chunkID = OnAudioPassThru.wireFunctionID else { throw .stopped }
        // Chunks are taken as they are read, so all of them are in before the answer is.
        let observation = manager.observeNotifications(functionIDs: [chunkID]) { message in
            if !message.payload.bulkData.isEmpty { job.sink.yield(message.payload.bulkData) }
        }
        defer { observation.cancel() }
        let options = job.options
        let request = PerformAudioPassThru(
            initialPrompt: prompt, audioPassThruDisplayText1: options.text, audioPassThruDisplayText2: options.secondaryText,
            samplingRate: job.format.samplingRate, maxDuration: Self.milliseconds(options.maxDuration),
            bitsPerSample: job.format.bitsPerSample, audioType: job.format.audioType, muteAudio: options.muteAudio)
        let response = try await SDLScreenError.sending(PerformAudioPassThru.functionName) {
            try await manager.send(request, timeout: options.maxDuration + .seconds(30))
        }
        if response.resultCode == .aborted { return .cancelled }
        guard response.success || response.resultCode == .warnings else {
            throw .refused(PerformAudioPassThru.functionName, response.resultCode, info: response.info)
        }
        return job.wasEndedByApp ? .endedByApp : .finished
    }
}

/// WAV files from the header-less PCM of audio pass-thru.
public enum SDLWAV {
    /// The 44-byte RIFF header for `dataLength` bytes of `format`.
    public static func header(format: SDLAudioFormat, dataLength: Int) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return Array("RIFF".utf8) + le32(36 + dataLength) + Array("WAVE".utf8)
            + Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(format.sampleRate) + le32(format.byteRate)
            + le16(format.bytesPerSample) + le16(format.bytesPerSample * 8)
            + Array("data".utf8) + le32(dataLength)
    }

    /// `pcm` as a WAV file's bytes.
    public static func encode(_ pcm: [UInt8], format: SDLAudioFormat) -> [UInt8] {
        header(format: format, dataLength: pcm.count) + pcm
    }

    /// Writes `pcm` as a WAV file at `path`.
    public static func write(_ pcm: [UInt8], format: SDLAudioFormat, to path: String) throws {
        do throws(SDLWAVError) {
            guard FileManager.default.createFile(atPath: path, contents: Data(encode(pcm, format: format))) else {
                throw .unwritable(path: path)
            }
        } catch {
            throw SDLError(error)
        }
    }
}

/// Why a WAV file was not written.
package enum SDLWAVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file at `path` could not be created or written.
    case unwritable(path: String)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .unwritable(let path): "cannot write \(path)"
        }
    }
}
