import Logging
import SDLRPC
import SDLRuntime

/// What the head unit says: text, phonemes, a prerecorded sound, silence or an uploaded audio
/// file, in order. Speak, alerts, help and timeout prompts and audio pass-thru's prompt take it.
///
/// ```swift
/// let greeting: SDLSpeech = "Hello"
/// let chime = SDLSpeech([.file(chimeFile), .text("Goal!")])
/// ```
public struct SDLSpeech: Sendable, Hashable, ExpressibleByStringLiteral {
    /// One piece of speech, of one of the head unit's speech capabilities.
    public enum Chunk: Sendable, Hashable {
        /// Text, spoken in the head unit's language.
        case text(String)
        /// Microsoft SAPI phonemes, e.g. `"h eh - l ow 1"`.
        case sapiPhonemes(String)
        /// Nuance LH+ phonemes.
        case lhplusPhonemes(String)
        /// A sound the head unit has built in (`prerecordedSpeech` lists them).
        case prerecorded(PrerecordedSpeech)
        /// A pause.
        case silence
        /// An audio file (RPC 5.0+), uploaded by the manager before it is used.
        case file(SDLFile)

        var capability: SpeechCapabilities {
            switch self {
            case .text: .text
            case .sapiPhonemes: .sapiPhonemes
            case .lhplusPhonemes: .lhplusPhonemes
            case .prerecorded: .preRecorded
            case .silence: .silence
            case .file: .file
            }
        }

        var ttsChunk: TTSChunk {
            switch self {
            case .text(let text): TTSChunk(text: text, type: .text)
            case .sapiPhonemes(let text): TTSChunk(text: text, type: .sapiPhonemes)
            case .lhplusPhonemes(let text): TTSChunk(text: text, type: .lhplusPhonemes)
            case .prerecorded(let sound): TTSChunk(text: sound.rawValue, type: .preRecorded)
            case .silence: TTSChunk(text: "", type: .silence)
            case .file(let file): TTSChunk(text: file.name, type: .file)
            }
        }
    }

    /// The pieces, spoken in order.
    public var chunks: [Chunk]

    /// Speech made of several chunks.
    ///
    /// - Parameter chunks: the pieces, spoken in order.
    public init(_ chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// Text to speak.
    ///
    /// - Parameter text: spoken in the head unit's language.
    public init(_ text: String) {
        self.chunks = [.text(text)]
    }

    /// Text to speak, written as a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    var ttsChunks: [TTSChunk] { chunks.map(\.ttsChunk) }

    var files: [SDLFile] {
        chunks.compactMap { if case .file(let file) = $0 { file } else { nil } }
    }

    var isEmpty: Bool {
        chunks.allSatisfy { if case .text(let text) = $0 { text.isEmpty } else { false } }
    }
}

/// What the screen manager does with speech the head unit cannot say: a chunk type its
/// `speechCapabilities` lack (SDL Core's default configuration speaks TEXT only, so a SILENCE or
/// a file chunk is unsupported there) or a prerecorded sound it does not list.
public enum SDLUnsupportedSpeechPolicy: Sendable, Hashable {
    /// Those chunks are left out with a warning in the log and the rest is spoken, as the iOS
    /// library does with alert audio. When nothing is left an alert with text or an audio
    /// pass-thru goes without speech, and a Speak is refused (code `unsupportedByHeadUnit`)
    /// with nothing sent.
    case leaveOut
    /// The whole request is refused (code `unsupportedByHeadUnit`) and nothing is sent.
    case refuse
}

extension SDLScreenManager {
    /// Sets what happens to speech the head unit cannot say (``SDLUnsupportedSpeechPolicy``).
    public func setUnsupportedSpeechPolicy(_ policy: SDLUnsupportedSpeechPolicy) {
        unsupportedSpeechPolicy = policy
    }

    /// Checks `speech` against the head unit's speech capabilities and prerecorded sounds (when
    /// the registration lists them), leaving out or refusing what it cannot say as the policy
    /// says, then uploads its files. `optional`: the request has more than its speech (an
    /// alert's text, a recording), so speech left out entirely leaves the request without it.
    func prepare(_ speech: SDLSpeech?, optional: Bool = false, manager: any SDLScreenContext) async throws(SDLScreenError) -> [TTSChunk]? {
        guard var speech, !speech.chunks.isEmpty else { return nil }
        let capabilities = await manager.speechCapabilities()
        var problems: [(chunk: SDLSpeech.Chunk, error: SDLPresentationError)] = []
        for chunk in speech.chunks {
            if let supported = capabilities.speech, !supported.contains(chunk.capability) {
                problems.append((chunk, .speechUnsupported(chunk.capability, supported: supported)))
            } else if case .prerecorded(let sound) = chunk, let sounds = capabilities.prerecorded, !sounds.contains(sound) {
                problems.append((chunk, .prerecordedSoundUnsupported(sound, available: sounds)))
            }
        }
        if let first = problems.first {
            let kept = speech.chunks.filter { chunk in !problems.contains { $0.chunk == chunk } }
            guard unsupportedSpeechPolicy == .leaveOut else { throw .invalid(first.error) }
            guard !SDLSpeech(kept).isEmpty else {
                guard optional else { throw .invalid(first.error) }
                logger.warning(
                    "the head unit can say none of this speech; the request goes without it", metadata: ["left out": "\(problems.map(\.error.description))"])
                return nil
            }
            logger.warning(
                "speech the head unit cannot say is left out",
                metadata: [
                    "left out": "\(problems.map(\.error.description))", "kept": "\(kept.count) of \(speech.chunks.count) chunks",
                ])
            speech = SDLSpeech(kept)
        }
        if !speech.files.isEmpty, await manager.rpcVersion() < .version(5, 0) {
            throw .notSent(.unsupportedByHeadUnit(what: "TTSChunk.type = FILE", available: "since 5.0", headUnit: await manager.rpcVersion()))
        }
        for file in speech.files where await !manager.hasFile(named: file.name) {
            do throws(SDLFileError) { _ = try await manager.uploadFile(file) } catch { throw .uploadFile(file.name, error) }
        }
        return speech.ttsChunks
    }
}
