import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// PerformAudioPassThru on a manual clock: chunks of exactly one interval's samples, the
/// response after the last chunk, and the ways a recording ends.
@Suite(.timeLimit(.minutes(1))) struct AudioPassThruTests {
    static func record(_ app: TestApp, maxDuration: Int, rate: SamplingRate = ._16khz, bits: BitsPerSample = ._16Bit) -> Task<
        PerformAudioPassThruResponse, any Error
    > {
        Task {
            try await app.client.send(
                PerformAudioPassThru(audioPassThruDisplayText1: "Speak now", samplingRate: rate, maxDuration: maxDuration, bitsPerSample: bits, audioType: .pcm)
            )
        }
    }

    @Test func chunksCoverExactlyMaxDurationThenTheResponse() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let chunks = app.client.rawNotifications(OnAudioPassThru.self)
        let recording = Self.record(app, maxDuration: 1_000)
        await Wait.interaction(events, kind: "audioPassThru")
        #expect(await app.status { $0.systemContext == .hmiObscured } != nil)
        clock.advance(by: .seconds(1))
        let response = try await recording.value
        #expect(response.resultCode == .success)
        let received = await Wait.next(10, of: chunks)
        // 16 kHz, 16-bit mono: 1,600 samples (3,200 bytes) per 100 ms chunk.
        #expect(received.map(\.payload.bulkData.count) == Array(repeating: 3_200, count: 10))
        #expect(received.reduce(0) { $0 + $1.payload.bulkData.count } == 1 * 16_000 * 2)
        #expect(await headUnit.audioPassThruBytesSent(appID: app.appID) == 32_000)
        // A 440 Hz tone starting at phase 0 (little-endian int16, half scale).
        let samples = received.flatMap(\.payload.bulkData)
        func sample(_ index: Int) -> Int16 { Int16(bitPattern: UInt16(samples[2 * index]) | UInt16(samples[2 * index + 1]) << 8) }
        #expect(sample(0) == 0)
        #expect(sample(9) > 16_000)  // a quarter period of 440 Hz at 16 kHz is ~9 samples
        // Every chunk went out before the answer.
        let sent = await headUnit.sentToApp(app.appID)
        #expect(try #require(sent.lastIndex(of: "OnAudioPassThru")) < #require(sent.firstIndex(of: "PerformAudioPassThruResponse")))
        #expect(await app.status { $0.systemContext == .main } != nil)
        await app.close()
    }

    @Test func chunksFollowTheIntervalAndThePhaseContinues() async throws {
        let clock = ManualClock()
        let headUnit = try TestApp.headUnit(clock: clock) {
            try $0.setCapability("audioPassThruCapabilities", #"[{"audioType":"PCM","bitsPerSample":"8_BIT","samplingRate":"8KHZ"}]"#)
            $0.audioPassThruChunkInterval = .milliseconds(30)
        }
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let chunks = app.client.rawNotifications(OnAudioPassThru.self)
        let recording = Self.record(app, maxDuration: 250, rate: ._8khz, bits: ._8Bit)
        await Wait.interaction(events, kind: "audioPassThru")
        clock.advance(by: .milliseconds(250))
        #expect(try await recording.value.resultCode == .success)
        // Eight chunks of 30 ms (240 samples), the last of the remaining 10 ms: 0.25 s × 8,000 × 1 byte.
        let received = await Wait.next(9, of: chunks)
        #expect(received.map(\.payload.bulkData.count) == Array(repeating: 240, count: 8) + [80])
        #expect(await headUnit.audioPassThruBytesSent(appID: app.appID) == 2_000)
        // 8-bit unsigned, silence at 128: the tone starts at 128, and the second chunk goes on
        // where the first stopped (440 Hz × 30 ms = 13.2 periods: 128 + 63.5 × sin(0.4π) ≈ 188).
        #expect(received.first?.payload.bulkData.first == 128)
        #expect(received.dropFirst().first?.payload.bulkData.first == 188)
        await app.close()
    }

    @Test func aFormatTheHeadUnitDoesNotRecordIsRejected() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(app.registration.audioPassThruCapabilities?.count == 2)
        let response = try await Self.record(app, maxDuration: 1_000, rate: ._22khz, bits: ._16Bit).value
        #expect(response.resultCode == .rejected)
        #expect(response.info?.contains("PCM 8_BIT 44KHZ") == true)
        #expect(response.info?.contains("PCM 16_BIT 16KHZ") == true)
        await app.close()
    }

    @Test func endAudioPassThruEndsTheRecording() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        #expect(try await app.client.send(EndAudioPassThru()).resultCode == .rejected)
        let chunks = app.client.rawNotifications(OnAudioPassThru.self)
        let recording = Self.record(app, maxDuration: 10_000)
        await Wait.interaction(events, kind: "audioPassThru")
        clock.advance(by: .milliseconds(300))
        #expect(await Wait.next(3, of: chunks).count == 3)
        // CancelInteraction does not end an audio pass-thru.
        // Not one of the interactions CancelInteraction ends: INVALID_ID, as on SDL Core.
        #expect(try await app.client.send(CancelInteraction(functionID: PerformAudioPassThru.functionIDValue)).resultCode == .invalidId)
        #expect(try await app.client.send(EndAudioPassThru()).resultCode == .success)
        #expect(try await recording.value.resultCode == .success)
        let sent = await headUnit.sentToApp(app.appID)
        #expect(try #require(sent.firstIndex(of: "PerformAudioPassThruResponse")) < #require(sent.lastIndex(of: "EndAudioPassThruResponse")))
        #expect(await headUnit.audioPassThruBytesSent(appID: app.appID) == 3 * 3_200)
        #expect(try await app.client.send(EndAudioPassThru()).resultCode == .rejected)
        await app.close()
    }

    @Test func theDriverEndsItAndAnAlertAbortsIt() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let done = Self.record(app, maxDuration: 60_000)
        await Wait.interaction(events, kind: "audioPassThru")
        try await headUnit.answerInteraction(appID: app.appID, .dismiss)
        #expect(try await done.value.resultCode == .success)

        let cancelled = Self.record(app, maxDuration: 60_000)
        await Wait.interaction(events, kind: "audioPassThru")
        try await headUnit.answerInteraction(appID: app.appID, .cancel)
        #expect(try await cancelled.value.resultCode == .aborted)

        let interrupted = Self.record(app, maxDuration: 60_000)
        await Wait.interaction(events, kind: "audioPassThru")
        async let alert = app.client.send(SDLAlert(alertText1: "Incoming call"))
        #expect(try await interrupted.value.resultCode == .aborted)
        await Wait.interaction(events, kind: "alert")
        try await headUnit.answerInteraction(appID: app.appID, .dismiss)
        #expect(try await alert.resultCode == .success)
        await app.close()
    }
}
