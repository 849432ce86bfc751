import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Audio pass-thru against the emulator's synthetic microphone: chunks as a sequence, the three
/// ways a recording ends, the format check, and the WAV helper.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct AudioPassThruTests {
    static let appID = "microphone"

    static func emulator(_ clock: ManualClock) -> SDLHeadUnitEmulator {
        FeatureTestSupport.emulator(on: clock) { $0.audioPassThruChunkInterval = .milliseconds(100) }
    }

    @Test func aRecordingRunsToItsMaximumDurationWithEveryChunk() async throws {
        let clock = ManualClock()
        let headUnit = Self.emulator(clock)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let format = SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit)
            let capture = try await manager.screen.startAudioPassThru(
                SDLAudioPassThru(format: format, maxDuration: .seconds(1), text: "Speak now", prompt: "Speak now"))
            let collected = Task {
                var pcm: [UInt8] = []
                var chunks = 0
                for await chunk in capture {
                    pcm += chunk
                    chunks += 1
                }
                return (pcm, chunks)
            }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            for _ in 0..<10 { clock.advance(by: .milliseconds(100)) }
            #expect(try await capture.result() == .finished)
            let (pcm, chunks) = await collected.value
            #expect(pcm.count == format.byteRate)
            #expect(chunks == 10)
            let sent = try #require(await ScreenTestSupport.sent(headUnit, appID: Self.appID, "PerformAudioPassThru").first)
            #expect(sent["samplingRate"] == .string("16KHZ"))
            #expect(sent["bitsPerSample"] == .string("16_BIT"))
            #expect(sent["maxDuration"] == .integer(1_000))
            #expect(sent["audioPassThruDisplayText1"] == .string("Speak now"))

            let wav = SDLWAV.encode(pcm, format: format)
            #expect(Array(wav[0..<4]) == Array("RIFF".utf8))
            #expect(wav.count == 44 + pcm.count)
            #expect(Array(wav[24..<28]) == [0x80, 0x3E, 0, 0])  // 16,000 Hz
        }
    }

    @Test func theAppTheDriversDoneAndCancelEndARecording() async throws {
        let clock = ManualClock()
        let headUnit = Self.emulator(clock)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let options = SDLAudioPassThru(maxDuration: .seconds(10))

            let byApp = try await manager.screen.startAudioPassThru(options)
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            clock.advance(by: .milliseconds(100))
            // The first chunk is in before the app ends the recording.
            var chunks = byApp.makeAsyncIterator()
            #expect(await chunks.next() != nil)
            await byApp.end()
            #expect(try await byApp.result() == .endedByApp)
            #expect(await ScreenTestSupport.sent(headUnit, appID: Self.appID, "EndAudioPassThru").count == 1)

            let done = try await manager.screen.startAudioPassThru(options)
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            try await headUnit.answerInteraction(appID: Self.appID, .dismiss)
            #expect(try await done.result() == .finished)

            let cancelled = try await manager.screen.startAudioPassThru(options)
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            try await headUnit.answerInteraction(appID: Self.appID, .cancel)
            #expect(try await cancelled.result() == .cancelled)
        }
    }

    @Test func aFormatTheHeadUnitDoesNotRecordIsRefusedBeforeSending() async throws {
        let headUnit = Self.emulator(ManualClock())
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            do throws(SDLScreenError) {
                _ = try await detailed(SDLScreenError.self) {
                    try await manager.screen.startAudioPassThru(
                        SDLAudioPassThru(format: SDLAudioFormat(samplingRate: ._22khz, bitsPerSample: ._16Bit), maxDuration: .seconds(2)))
                }
                Issue.record("a 22 kHz recording was started")
            } catch {
                guard case .invalid(.audioFormatUnsupported) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await ScreenTestSupport.sent(headUnit, appID: Self.appID, "PerformAudioPassThru").isEmpty)
        }
    }
}
