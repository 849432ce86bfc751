import SDLProtocol
import SDLRPC
import SDLRuntime

/// A Speak being spoken: answered when `Configuration.speakingTime` has passed, or ABORTED by a
/// newer Speak of the same app.
struct PendingSpeech: Sendable {
    let correlationID: UInt32
    let functionID: UInt32
    /// The answer when speaking ends (SUCCESS, or WARNINGS for an unsupported chunk type).
    let reply: Reply
    /// Identifies this Speak for its timer, so a stale timer cannot answer a newer one.
    let serial: Int
    /// The Core half's `TTS.Speak` this speech answers for the built-in HMI, by request ID.
    var hmiRequest: Int?
}

/// What the head unit makes of a prompt's TTS chunks.
enum SpeechVerdict: Sendable, Equatable {
    case speakable
    /// A chunk type the head unit's `speechCapabilities` lack: spoken as far as possible, and
    /// answered `success: true, WARNINGS` with this info (SDL Core's answer).
    case unsupportedType(String)
    /// A FILE chunk names a file the app has not uploaded: FILE_NOT_FOUND.
    case missingFile(String)

    /// The reply for a verdict that stops the request (`missingFile`); SUCCESS otherwise.
    var reply: Reply {
        switch self {
        case .missingFile(let name): .failure(.fileNotFound, "One or more files needed for ttsChunks are not present: \(name)")
        case .unsupportedType(let info): .success(.warnings, info: info)
        case .speakable: .success()
        }
    }
}

/// Speak, and the TTS checks Alert, SubtleAlert and PerformAudioPassThru share.
extension SDLHeadUnitEmulator {
    /// SDL Core's info when the HMI cannot speak a chunk's type.
    static let unsupportedPhonemeInfo = "Unsupported phoneme type sent in a prompt"

    /// The chunk types the head unit speaks (the registration's `speechCapabilities`).
    var speechCapabilities: Set<String> {
        guard case .array(let types)? = configuration.capabilities["speechCapabilities"] else { return [] }
        return Set(types.compactMap { if case .string(let type) = $0 { type } else { nil } })
    }

    /// Checks `chunks` (a JSON array of TTSChunk, or nil): FILE chunks must name an uploaded file,
    /// and every type must be one the head unit speaks.
    func checkSpeech(_ chunks: SDLJSONValue?, appID: String) -> SpeechVerdict {
        guard case .array(let items)? = chunks else { return .speakable }
        let store = fileStore(of: appID)
        for case .string(let name)? in items.filter({ $0["type"] == .string("FILE") }).map({ $0["text"] }) where !store.exists(name) {
            return .missingFile(name)
        }
        let supported = speechCapabilities
        for case .string(let type)? in items.map({ $0["type"] }) where !supported.contains(type) {
            return .unsupportedType(Self.unsupportedPhonemeInfo)
        }
        return .speakable
    }

    /// Speak, as SDL Core checks it: the FILE chunks must be uploaded; the HMI speaks it.
    func speak(_ request: Speak, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let verdict = checkSpeech((try? SDLJSONValue(parsing: rpc.json))?["ttsChunks"], appID: appID)
        if case .missingFile = verdict { return (verdict.reply, []) }
        return (.deferred, [])
    }

    /// The built-in HMI speaks a Speak (Core's `TTS.Speak` `requestID`): it interrupts the one
    /// being spoken (ABORTED) and takes `Configuration.speakingTime`; its answer now (no speaking
    /// time), or nil while it speaks.
    func builtInSpeak(_ request: SDLJSONValue, requestID: Int, appID: String, correlationID: UInt32, functionID: UInt32) -> (HMIComponentResult?, [Effect]) {
        let verdict = checkSpeech(request["ttsChunks"], appID: appID)
        var effects: [Effect] = []
        if let speaking = apps[appID]?.speech {
            // The newer Speak interrupts the one being spoken.
            apps[appID]?.speech = nil
            cancelTimer(.speech(appID: appID, serial: speaking.serial))
            effects += spoken(speaking, appID: appID, .failure(.aborted, "interrupted by a newer Speak"))
        }
        let speakingTime = configuration.speakingTime
        guard speakingTime > .zero else {
            return (HMIComponentResult(code: Self.hmiResultCode(verdict.reply.resultCode), info: verdict.reply.info), effects)
        }
        interactionSerial += 1
        let serial = interactionSerial
        apps[appID]?.speech = PendingSpeech(
            correlationID: correlationID, functionID: functionID, reply: verdict.reply, serial: serial, hmiRequest: requestID)
        schedule(.speech(appID: appID, serial: serial), after: speakingTime)
        return (nil, effects)
    }

    /// The Speak's timer (`TimerKey.speech`) went off: it is answered.
    func speechEnded(appID: String, serial: Int) async {
        guard let speaking = apps[appID]?.speech, speaking.serial == serial else { return }
        apps[appID]?.speech = nil
        await perform(spoken(speaking, appID: appID, speaking.reply))
    }

    /// The Speak's answer: through the built-in HMI's TTS.Speak it holds, else directly.
    private func spoken(_ speaking: PendingSpeech, appID: String, _ reply: Reply) -> [Effect] {
        if let id = speaking.hmiRequest { return builtInHMIAnswered(id, reply) }
        return [.respond(appID: appID, functionID: speaking.functionID, correlationID: speaking.correlationID, reply)]
    }
}
