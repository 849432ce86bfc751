import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The format an audio pass-thru captures in.
struct AudioFormat: Sendable, Hashable {
    var samplingRate: SamplingRate
    var bitsPerSample: BitsPerSample
    var audioType: AudioType

    /// Samples per second (8KHZ is 8,000, 22KHZ is 22,050...).
    var sampleRate: Int {
        switch samplingRate {
        case ._8khz: 8_000
        case ._16khz: 16_000
        case ._22khz: 22_050
        default: 44_100
        }
    }

    var bytesPerSample: Int { bitsPerSample == ._16Bit ? 2 : 1 }

    /// `PCM 16_BIT 16KHZ`, as an info text names it.
    var description: String { "\(audioType.rawValue) \(bitsPerSample.rawValue) \(samplingRate.rawValue)" }
}

/// An audio pass-thru in progress: what the microphone "recorded" so far.
struct AudioCapture: Sendable {
    let format: AudioFormat
    let maxDuration: Duration
    /// The interaction on top it belongs to.
    let serial: Int
    /// When recording started, on the emulator's clock.
    let start: Duration
    /// Emulated time each chunk covers.
    let interval: Duration
    /// Recording time the chunks sent so far cover.
    var covered = Duration.zero
    /// Samples sent so far; the tone's phase continues from here.
    var samplesSent = 0

    /// Where the next chunk ends: one interval on, the last one at exactly `maxDuration`.
    var nextChunkEnd: Duration { min(covered + interval, maxDuration) }
}

/// PerformAudioPassThru, EndAudioPassThru and OnAudioPassThru: the head unit "records" a 440 Hz
/// tone and sends it in chunks of `Configuration.audioPassThruChunkInterval` of emulated time
/// until `maxDuration`, the app's EndAudioPassThru or the driver ends it; the response always
/// comes after the last chunk.
extension SDLHeadUnitEmulator {
    /// The formats the head unit records in (the registration's `audioPassThruCapabilities`).
    var audioPassThruFormats: [AudioFormat] {
        guard case .array(let items)? = configuration.capabilities["audioPassThruCapabilities"] else { return [] }
        return items.compactMap { item in
            guard case .string(let rate)? = item["samplingRate"], case .string(let bits)? = item["bitsPerSample"],
                case .string(let type)? = item["audioType"]
            else { return nil }
            return AudioFormat(samplingRate: SamplingRate(rawValue: rate), bitsPerSample: BitsPerSample(rawValue: bits), audioType: AudioType(rawValue: type))
        }
    }

    func performAudioPassThru(_ request: PerformAudioPassThru, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let format = AudioFormat(samplingRate: request.samplingRate, bitsPerSample: request.bitsPerSample, audioType: request.audioType)
        let supported = audioPassThruFormats
        guard supported.contains(format) else {
            let formats = supported.map(\.description).joined(separator: ", ")
            return (.failure(.rejected, "the head unit does not record \(format.description); it records \(formats)"), [])
        }
        // Recording starts now; read before the interaction is announced, so that whoever
        // waits for it and then moves the clock cannot move the start.
        let start = configuration.clock.now
        // No timer: the capture loop ends the interaction at maxDuration.
        let (reply, effects) = startInteraction(.audioPassThru, rpc: rpc, appID: appID, cancelID: nil, timeout: nil)
        guard reply.isDeferred, let serial = apps[appID]?.interaction?.serial else { return (reply, effects) }
        let interval = configuration.audioPassThruChunkInterval > .zero ? configuration.audioPassThruChunkInterval : .milliseconds(100)
        let capture = AudioCapture(format: format, maxDuration: .milliseconds(request.maxDuration), serial: serial, start: start, interval: interval)
        apps[appID]?.audioCapture = capture
        if capture.covered < capture.maxDuration { schedule(.audioChunk(appID: appID, serial: serial), at: start + capture.nextChunkEnd) }
        return (reply, effects)
    }

    /// EndAudioPassThru: PerformAudioPassThru is answered SUCCESS, then EndAudioPassThru SUCCESS;
    /// with nothing recording, REJECTED.
    func endAudioPassThru(rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.interaction?.kind == .audioPassThru else {
            return (.failure(.rejected, "no audio pass-thru is in progress"), [])
        }
        let ended = finishInteraction(appID, with: .success())
        return (.deferred, ended + [.respond(appID: appID, functionID: rpc.functionID, correlationID: rpc.correlationID, .success())])
    }

    /// A connected HMI answered the audio pass-thru it showed: the recording stops (if it has
    /// not reached maxDuration yet).
    func recordingAnswered(appID: String, serial: Int) {
        guard apps[appID]?.interaction?.serial == serial else { return }
        _ = finishInteraction(appID, with: .success())
    }

    /// Bytes of audio the head unit sent the app in OnAudioPassThru since it registered.
    public func audioPassThruBytesSent(appID: String) -> Int {
        apps[appID]?.audioPassThruBytesSent ?? 0
    }

    /// The chunk timer (`TimerKey.audioChunk`) went off: sends the samples recorded up to the
    /// chunk's end and sets the next chunk's timer; at `maxDuration` the capture ends and
    /// PerformAudioPassThru is answered after that last chunk. Nothing once the capture is over
    /// (ended, aborted, app gone).
    func audioChunkDue(appID: String, serial: Int) async {
        guard var capture = apps[appID]?.audioCapture, capture.serial == serial, apps[appID]?.interaction?.serial == serial else { return }
        let elapsed = capture.nextChunkEnd
        let total = Self.sampleCount(in: elapsed, rate: capture.format.sampleRate)
        let samples = Self.tone(from: capture.samplesSent, count: max(0, total - capture.samplesSent), format: capture.format)
        capture.samplesSent = max(total, capture.samplesSent)
        capture.covered = elapsed
        apps[appID]?.audioCapture = capture
        apps[appID]?.audioPassThruBytesSent += samples.count
        var effects: [Effect] = [
            .notify(
                appID: appID,
                SDLRPCPayload(
                    rpcType: .notification, functionID: OnAudioPassThru.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                    json: Array("{}".utf8), bulkData: samples))
        ]
        if elapsed >= capture.maxDuration {
            effects += finishInteraction(appID, with: .success())
        } else {
            schedule(.audioChunk(appID: appID, serial: serial), at: capture.start + capture.nextChunkEnd)
        }
        await perform(effects)
    }

    /// Samples in the first `duration` of a recording at `rate` (rounded down, so chunks add up
    /// to exactly the recording's length).
    static func sampleCount(in duration: Duration, rate: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        let microseconds = Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
        return microseconds * rate / 1_000_000
    }

    /// A 440 Hz sine, mono, half scale: 8-bit unsigned or 16-bit signed little-endian PCM, from
    /// sample `index` on (the phase continues across chunks).
    static func tone(from index: Int, count: Int, format: AudioFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * format.bytesPerSample)
        let step = 2 * Double.pi * 440 / Double(format.sampleRate)
        for sample in index..<(index + count) {
            let value = 0.5 * sin(step * Double(sample))
            if format.bytesPerSample == 2 {
                let level = UInt16(bitPattern: Int16((value * 32_767).rounded()))
                bytes.append(UInt8(truncatingIfNeeded: level))
                bytes.append(UInt8(truncatingIfNeeded: level >> 8))
            } else {
                bytes.append(UInt8(clamping: Int((128 + value * 127).rounded())))
            }
        }
        return bytes
    }
}
