import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Spoken prompts over the audio service against the in-process emulator: pacing on a manual
/// clock, the queue, and the HMI state's effects; WAV reading and conversion as pure values.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct AudioStreamingTests {
    static let appID = "voice"
    /// SDL Core's PCM: 16 kHz, 16-bit mono, 32,000 bytes a second; 100 ms chunks of 3,200.
    static let chunk = 3_200

    /// `seconds` of 16 kHz 16-bit mono, every sample `value`.
    static func prompt(seconds: Double, value: Int16) throws -> SDLAudioPrompt {
        let samples = Int(16_000 * seconds)
        let bytes = (0..<samples).flatMap { _ in [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        return SDLAudioPrompt(try SDLPCMBuffer(sampleRate: 16_000, bitsPerSample: 16, bytes: bytes))
    }

    /// A NAVIGATION app streaming audio, with the emulator's audio bytes collected.
    static func start(_ received: Locked<[UInt8]>) async throws -> (SDLHeadUnitEmulator, SDLManager, ManualClock) {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.streamSink = { chunk in if chunk.service == 10 { received.withLock { $0 += chunk.bytes } } }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        let manager = try await VideoStreamingTests.start(headUnit, appID: appID)
        _ = await state(manager) { if case .streaming = $0 { true } else { false } }
        return (headUnit, manager, try #require(manager.manualClock))
    }

    static func state(_ manager: SDLManager, _ match: (SDLAudioStreamState) -> Bool) async -> SDLAudioStreamState? {
        for await state in manager.audioStreaming.states() where match(state) { return state }
        return nil
    }

    @Test func aSecondOfAudioTakesASecondAndNeverRunsMoreThan200MillisecondsAhead() async throws {
        let received = Locked<[UInt8]>([])
        let (_, manager, clock) = try await Self.start(received)
        try await stopping(manager) { manager in
            #expect(manager.audioStreaming.state.description == "streaming PCM 16_BIT 16KHZ")
            let ends = manager.audioStreaming.promptEnds()
            let others = clock.sleeperCount
            let id = await manager.audioStreaming.enqueue(try Self.prompt(seconds: 1, value: 1_000))
            // 200 ms go out at once; then 100 ms each time 100 ms pass.
            try await until { received.withLock { $0.count } == 2 * Self.chunk }
            for step in 1...8 {
                await clock.waitForSleepers(others + 1)
                #expect(received.withLock { $0.count } == min(10, step + 1) * Self.chunk, "at \(step - 1)00 ms")
                clock.advance(by: .milliseconds(100))
                try await until { received.withLock { $0.count } == min(10, step + 2) * Self.chunk }
            }
            // Every byte is out at 800 ms; the prompt has played at 1 s, not before.
            await clock.waitForSleepers(others + 1)
            clock.advance(by: .milliseconds(199))
            await clock.waitForSleepers(others + 1)
            #expect(await manager.audioStreaming.currentPrompt == id, "still playing at 999 ms")
            clock.advance(by: .milliseconds(1))
            var iterator = ends.makeAsyncIterator()
            #expect(await iterator.next() == SDLAudioPromptEnd(id: id, outcome: .played))
            #expect(received.withLock { $0 } == Array(repeating: [0xE8, 0x03], count: 16_000).flatMap { $0 })
            // The player waits for the next prompt after a timed wait ended (its signal is new).
            await manager.audioStreaming.enqueue(try Self.prompt(seconds: 0.1, value: 5))
            try await until { received.withLock { $0.count } == 11 * Self.chunk }
        }
    }

    @Test func promptsPlayInOrderAndCancellingMovesOn() async throws {
        let received = Locked<[UInt8]>([])
        let (_, manager, clock) = try await Self.start(received)
        try await stopping(manager) { manager in
            let audio = manager.audioStreaming
            let ends = audio.promptEnds()
            let others = clock.sleeperCount
            let first = await audio.enqueue(try Self.prompt(seconds: 1, value: 1))
            let second = await audio.enqueue(try Self.prompt(seconds: 1, value: 2))
            let third = await audio.enqueue(try Self.prompt(seconds: 1, value: 3))
            try await until { received.withLock { $0.count } == 2 * Self.chunk }
            #expect(await audio.queuedPrompts == 2, "the first plays, two wait")
            await audio.cancelCurrent()
            // The first's 200 ms still play: the second's first chunk goes 100 ms later, when the
            // head unit holds no more than 100 ms.
            await clock.waitForSleepers(others + 1)
            #expect(received.withLock { $0.count } == 2 * Self.chunk)
            clock.advance(by: .milliseconds(100))
            try await until { received.withLock { $0.count } == 3 * Self.chunk }
            await audio.cancelAll()
            var iterator = ends.makeAsyncIterator()
            #expect(await iterator.next() == SDLAudioPromptEnd(id: first, outcome: .cancelled))
            #expect(await iterator.next() == SDLAudioPromptEnd(id: second, outcome: .cancelled))
            #expect(await iterator.next() == SDLAudioPromptEnd(id: third, outcome: .cancelled))
            let bytes = received.withLock { $0 }
            #expect(Array(bytes[0..<(2 * Self.chunk)]) == Array(repeating: [1, 0], count: Self.chunk).flatMap { $0 })
            #expect(Array(bytes[(2 * Self.chunk)...]) == Array(repeating: [2, 0], count: Self.chunk / 2).flatMap { $0 })
            #expect(await audio.queuedPrompts == 0)

            // Cancelling the task that waits for a prompt cancels the prompt.
            let waiting = Task { await audio.play(try Self.prompt(seconds: 1, value: 4)) }
            try await until { await audio.currentPrompt != nil }
            waiting.cancel()
            #expect(try await waiting.value == .cancelled)
        }
    }

    @Test func aPromptPausesWhileNotAudibleAndTheServiceEndsInNone() async throws {
        let received = Locked<[UInt8]>([])
        let (headUnit, manager, clock) = try await Self.start(received)
        let events = headUnit.events()
        try await stopping(manager) { manager in
            let audio = manager.audioStreaming
            let others = clock.sleeperCount
            await audio.enqueue(try Self.prompt(seconds: 0.5, value: 7))
            try await until { received.withLock { $0.count } == 2 * Self.chunk }
            try await headUnit.background(appID: Self.appID)
            _ = await Self.state(manager) { if case .suspended(.notStreamable) = $0 { true } else { false } }
            // Time passes; nothing goes out while the app is not audible.
            clock.advance(by: .seconds(5))
            try await headUnit.activate(appID: Self.appID)
            _ = await Self.state(manager) { if case .streaming = $0 { true } else { false } }
            // The prompt goes on where it stopped: 200 ms at once, then its last 100 ms.
            try await until { received.withLock { $0.count } == 4 * Self.chunk }
            await clock.waitForSleepers(others + 1)
            clock.advance(by: .milliseconds(100))
            try await until { received.withLock { $0.count } == 5 * Self.chunk }
            #expect(await headUnit.streamStatistics(appID: Self.appID)[10]?.dropped == 0, "nothing came while it was not audible")
            try await headUnit.exit(appID: Self.appID)
            _ = await Self.state(manager) { if case .suspended(.hmiLevelNone) = $0 { true } else { false } }
        }
        await waitFor(events) { if case .streamingEnded(_, 10) = $0 { true } else { false } }
    }
}

/// WAV files read and converted to the head unit's format.
@Suite struct PCMConversionTests {
    static func wav(rate: Int, bits: Int, channels: Int, data: [UInt8], extraChunk: Bool = false) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let fmt =
            Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(rate) + le32(rate * channels * bits / 8) + le16(channels * bits / 8) + le16(bits)
        let list = extraChunk ? Array("LIST".utf8) + le32(3) + [1, 2, 3, 0] : []
        let body = Array("WAVE".utf8) + fmt + list + Array("data".utf8) + le32(data.count) + data
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static let target = SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit)

    @Test func a44kStereoFileBecomes16kMono() throws {
        // 0.1 s at 44.1 kHz stereo, left 0.5, right 0.25 of full scale: mixed to 0.375.
        let frame: [UInt8] = [0x00, 0x40, 0x00, 0x20]
        let pcm = try SDLPCMBuffer(
            wav: Self.wav(rate: 44_100, bits: 16, channels: 2, data: Array(repeating: frame, count: 4_410).flatMap { $0 }, extraChunk: true))
        #expect(pcm.sampleRate == 44_100 && pcm.channels == 2 && pcm.frameCount == 4_410)
        #expect(pcm.duration == .milliseconds(100))
        let converted = pcm.converted(to: Self.target)
        #expect(converted.count == 1_600 * 2)
        let value = Int16(bitPattern: UInt16(converted[10]) | UInt16(converted[11]) << 8)
        #expect(abs(Int(value) - 12_288) <= 1)
    }

    @Test func eightBitUnsignedAnd24BitSamplesAreRequantised() throws {
        let eight = try SDLPCMBuffer(wav: Self.wav(rate: 16_000, bits: 8, channels: 1, data: [128, 255, 0, 192]))
        let converted = eight.converted(to: Self.target)
        let values = stride(from: 0, to: converted.count, by: 2).map { Int16(bitPattern: UInt16(converted[$0]) | UInt16(converted[$0 + 1]) << 8) }
        #expect(values == [0, 32_511, -32_767, 16_384])
        let twentyFour = try SDLPCMBuffer(sampleRate: 8_000, bitsPerSample: 24, bytes: [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0])
        let upsampled = twentyFour.converted(to: Self.target)
        #expect(upsampled.count == 4 * 2, "8 kHz to 16 kHz: twice the samples")
        let eightBit = twentyFour.converted(to: SDLAudioFormat(samplingRate: ._8khz, bitsPerSample: ._8Bit))
        #expect(eightBit == [192, 64])
    }

    /// The PCM error behind what `make` throws (nil when it does not throw): the buffer throws
    /// ``SDLError`` `invalidArgument`, with the detailed reason as its cause.
    static func pcmCause(_ make: () throws -> SDLPCMBuffer) -> SDLPCMError? {
        do {
            _ = try make()
            return nil
        } catch {
            #expect(error is SDLError)
            #expect(SDLError(error).code == .invalidArgument)
            return SDLError(error).underlying as? SDLPCMError
        }
    }

    @Test func whatIsNotAPCMWAVIsRefusedWithItsReason() {
        #expect(Self.pcmCause { try SDLPCMBuffer(wav: Array("ID3 mp3 data".utf8)) } == SDLPCMError.notWAV("no RIFF/WAVE header"))
        var compressed = Self.wav(rate: 16_000, bits: 16, channels: 1, data: [0, 0])
        compressed[20] = 0x55  // MPEG Layer 3 in a WAV
        #expect(
            Self.pcmCause { try SDLPCMBuffer(wav: compressed) }
                == SDLPCMError.unsupportedFormat("WAV encoding 85 (only PCM, 1, is read; decode other formats first)"))
        #expect(Self.pcmCause { try SDLPCMBuffer(sampleRate: 16_000, bitsPerSample: 12, bytes: []) } != nil)
    }

    @Test func hostileWAVsAreRefusedNotCrashedOn() throws {
        // A data chunk claiming 4 GiB (a streamed WAV), a fmt chunk claiming more than the file.
        var streamed = Self.wav(rate: 16_000, bits: 16, channels: 1, data: [1, 0, 2, 0])
        streamed.replaceSubrange(40..<44, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try SDLPCMBuffer(wav: streamed).frameCount == 2, "what is there is read")
        var lying = Self.wav(rate: 16_000, bits: 16, channels: 1, data: [1, 0])
        lying.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(Self.pcmCause { try SDLPCMBuffer(wav: lying) } != nil)
        // Rates and channel counts out of range, a truncated header.
        #expect(Self.pcmCause { try SDLPCMBuffer(wav: Self.wav(rate: 1, bits: 8, channels: 1, data: Array(repeating: 0, count: 1_000))) } != nil)
        #expect(Self.pcmCause { try SDLPCMBuffer(wav: Self.wav(rate: 16_000, bits: 16, channels: 0, data: [])) } != nil)
        #expect(Self.pcmCause { try SDLPCMBuffer(wav: Array(Self.wav(rate: 16_000, bits: 16, channels: 1, data: [0, 0]).prefix(30))) } != nil)
        // 32-bit samples and WAVE_FORMAT_EXTENSIBLE are read.
        let thirtyTwo = try SDLPCMBuffer(sampleRate: 16_000, bitsPerSample: 32, bytes: [0, 0, 0, 0x40])
        #expect(thirtyTwo.converted(to: Self.target) == [0x00, 0x40])
        var extensible = Self.wav(rate: 16_000, bits: 16, channels: 1, data: [0, 0x20])
        extensible.replaceSubrange(20..<22, with: [0xFE, 0xFF])
        extensible.replaceSubrange(16..<20, with: [40, 0, 0, 0])
        let subFormat: [UInt8] = [22, 0, 16, 0, 4, 0, 0, 0, 1, 0] + Array(repeating: 0, count: 14)
        extensible.insert(contentsOf: subFormat, at: 36)
        #expect(try SDLPCMBuffer(wav: extensible).converted(to: Self.target) == [0, 0x20])
    }
}
