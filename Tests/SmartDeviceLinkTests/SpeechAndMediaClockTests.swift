import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Speak, help prompts and the media clock against the stateful emulator.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SpeechAndMediaClockTests {
    static let appID = "speech"

    static func sent(_ headUnit: SDLHeadUnitEmulator, _ function: String) async -> [SDLJSONValue] {
        await ScreenTestSupport.sent(headUnit, appID: appID, function)
    }

    @Test func aSpeakWaitsForThePreviousOnesAnswer() async throws {
        // The head unit takes a second per prompt and cuts one off when a new one comes: only
        // a manager that waits for each answer gets both spoken.
        let clock = ManualClock()
        let headUnit = FeatureTestSupport.emulator(on: clock) { $0.speakingTime = .seconds(1) }
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let first = Task { try await manager.screen.speak("Turn left") }
            await waitFor(events) { $0 == .requestReceived(appID: Self.appID, function: "Speak") }
            let second = Task { try await manager.screen.speak(SDLSpeech([.text("then"), .silence, .sapiPhonemes("r ay t")])) }
            try await until { await !manager.screen.queue.isEmpty }
            #expect(await Self.sent(headUnit, "Speak").count == 1)
            clock.advance(by: .seconds(1))
            let value4 = try await first.value
            #expect(value4 == .spoken)
            await waitFor(events) { $0 == .requestReceived(appID: Self.appID, function: "Speak") }
            clock.advance(by: .seconds(1))
            let value5 = try await second.value
            #expect(value5 == .spoken)
            let chunks = await Self.sent(headUnit, "Speak").map { $0["ttsChunks"] }
            #expect(chunks.last??[2]?["type"] == .string("SAPI_PHONEMES"))
            #expect(chunks.last??[1]?["type"] == .string("SILENCE"))
        }
    }

    @Test func speechTheHeadUnitCannotSayIsRefusedAndFilesAreUploadedFirst() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        if case .object(var members) = configuration.capabilities, let index = members.firstIndex(where: { $0.key == "speechCapabilities" }) {
            members[index].value = .array([.string("TEXT"), .string("FILE")])
            configuration.capabilities = .object(members)
        }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            do throws(SDLScreenError) {
                try await detailed(SDLScreenError.self) { try await manager.screen.speak(SDLSpeech([.lhplusPhonemes("h @ l oU")])) }
                Issue.record("LH+ phonemes went out to a head unit without them")
            } catch {
                guard case .invalid(.speechUnsupported(.lhplusPhonemes, _)) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await Self.sent(headUnit, "Speak").isEmpty)
            let chime = SDLFile(name: "chime.mp3", bytes: Array(repeating: 1, count: 64), type: .audioMp3)
            let value6 = try await manager.screen.speak(SDLSpeech([.file(chime), .text("Goal")]))
            #expect(value6 == .spoken)
            #expect(await FeatureTestSupport.requests(headUnit, appID: Self.appID, among: ["PutFile", "Speak"]) == ["PutFile", "Speak"])
            #expect(
                await Self.sent(headUnit, "Speak").first?["ttsChunks"]?[0]
                    == .object([.init(key: "text", value: .string("chime.mp3")), .init(key: "type", value: .string("FILE"))]))
        }
    }

    /// SDL Core's default speech capabilities are TEXT only: a SILENCE between two texts is left
    /// out and the texts spoken; with the `.refuse` policy the whole Speak is refused unsent.
    @Test func speechTheHeadUnitCannotSayIsLeftOutOrRefusedAsThePolicySays() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        if case .object(var members) = configuration.capabilities, let index = members.firstIndex(where: { $0.key == "speechCapabilities" }) {
            members[index].value = .array([.string("TEXT")])
            configuration.capabilities = .object(members)
        }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            #expect(await manager.screen.unsupportedSpeechPolicy == .leaveOut)
            let spoken = try await manager.screen.speak(SDLSpeech([.text("one"), .silence, .text("two")]))
            #expect(spoken == .spoken)
            let chunks = await Self.sent(headUnit, "Speak").map { $0["ttsChunks"] }
            #expect(
                chunks == [
                    .array([
                        .object([.init(key: "text", value: .string("one")), .init(key: "type", value: .string("TEXT"))]),
                        .object([.init(key: "text", value: .string("two")), .init(key: "type", value: .string("TEXT"))]),
                    ])
                ])

            await manager.screen.setUnsupportedSpeechPolicy(.refuse)
            do throws(SDLScreenError) {
                try await detailed(SDLScreenError.self) { try await manager.screen.speak(SDLSpeech([.text("one"), .silence, .text("two")])) }
                Issue.record("a SILENCE went out to a head unit that speaks TEXT only")
            } catch {
                guard case .invalid(.speechUnsupported(.silence, [.text])) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await Self.sent(headUnit, "Speak").count == 1)
        }
    }

    @Test func helpPromptsGoOutInOneSetGlobalPropertiesAndReset() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            try await manager.screen.setHelp(
                SDLHelp(
                    helpPrompt: "Say a station name", timeoutPrompt: "Time is up", voiceHelpTitle: "Radio",
                    voiceHelp: [SDLVoiceHelpItem("Play jazz"), SDLVoiceHelpItem("Next station")]))
            let set = try #require(await Self.sent(headUnit, "SetGlobalProperties").last)
            #expect(set["helpPrompt"]?[0]?["text"] == .string("Say a station name"))
            #expect(set["timeoutPrompt"]?[0]?["text"] == .string("Time is up"))
            #expect(set["vrHelpTitle"] == .string("Radio"))
            #expect(set["vrHelp"]?[1]?["position"] == .integer(2))
            try await manager.screen.resetHelp([.helpPrompt, .timeoutPrompt])
            #expect(await Self.sent(headUnit, "ResetGlobalProperties").first?["properties"] == .array([.string("HELPPROMPT"), .string("TIMEOUTPROMPT")]))
            await expectSDLError(SDLScreenError.self) { try await manager.screen.setHelp(SDLHelp(voiceHelpTitle: "Only a title")) }
        }
    }

    @Test func theMediaClockCountsPausesAndIsRefusedToOtherApps() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.media]) { media in
            try await media.screen.setMediaClock(.countUp(from: .seconds(30), to: .seconds(253), indicator: .pause))
            try await media.screen.setMediaClock(.pause(indicator: .play))
            try await media.screen.setMediaClock(.countDown(from: .seconds(600), indicator: .pause))
            try await media.screen.setMediaClock(.clear())
            let clocks = await Self.sent(headUnit, "SetMediaClockTimer")
            #expect(clocks.map { $0["updateMode"] } == [.string("COUNTUP"), .string("PAUSE"), .string("COUNTDOWN"), .string("CLEAR")])
            #expect(
                clocks[0]["startTime"]
                    == .object([.init(key: "hours", value: .integer(0)), .init(key: "minutes", value: .integer(0)), .init(key: "seconds", value: .integer(30))])
            )
            #expect(clocks[0]["endTime"]?["minutes"] == .integer(4))
            #expect(clocks[0]["audioStreamingIndicator"] == .string("PAUSE"))
            #expect(clocks[1]["audioStreamingIndicator"] == .string("PLAY"))
            await expectSDLError(SDLScreenError.self) { try await media.screen.setMediaClock(.countUp(from: .seconds(9), to: .seconds(3))) }
        }

        try await FeatureTestSupport.withManager(headUnit, appID: "not-media", appTypes: [.default]) { other in
            do throws(SDLScreenError) {
                try await detailed(SDLScreenError.self) { try await other.screen.setMediaClock(.countUp(from: .zero)) }
                Issue.record("a non-media app set the media clock")
            } catch {
                guard case .invalid(.notMediaApp) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await ScreenTestSupport.sent(headUnit, appID: "not-media", "SetMediaClockTimer").isEmpty)
        }
    }

    /// RPC 7.1: the seek buttons' jumps and the count rate go with the clock, the emulator runs
    /// it at that rate; out-of-range values are refused before sending; an older head unit gets
    /// the clock without them.
    @Test func seekIndicatorsAndTheCountRate() async throws {
        let clock = ManualClock()
        let headUnit = FeatureTestSupport.emulator(on: clock)
        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.media]) { media in
            try await media.screen.setMediaClock(
                .countUp(from: .zero, to: .seconds(3_600), indicator: .pause).seeking(forward: .seconds(30), back: nil).counting(atRate: 2))
            let sent = await Self.sent(headUnit, "SetMediaClockTimer").last
            #expect(sent?["forwardSeekIndicator"] == .object([.init(key: "type", value: .string("TIME")), .init(key: "seekTime", value: .integer(30))]))
            #expect(sent?["backSeekIndicator"] == .object([.init(key: "type", value: .string("TRACK"))]))
            #expect(sent?["countRate"] == .float(2))
            clock.advance(by: .seconds(10))
            #expect(try await headUnit.screen(appID: Self.appID)["mediaClockReading"]?["seconds"] == .integer(20))

            let count = await Self.sent(headUnit, "SetMediaClockTimer").count
            let seek = await expectSDLError(SDLScreenError.self) {
                try await media.screen.setMediaClock(.countUp(from: .zero).seeking(forward: .seconds(120), back: nil))
            }
            #expect(seek?.description.contains("1 to 99 seconds") == true)
            let rate = await expectSDLError(SDLScreenError.self) { try await media.screen.setMediaClock(.countUp(from: .zero).counting(atRate: 0)) }
            #expect(rate?.description.contains("count rate") == true)
            #expect(await Self.sent(headUnit, "SetMediaClockTimer").count == count)
        }

        let older = VersionGateTests.headUnit(rpc: 7, 0)
        try await FeatureTestSupport.withManager(older, appID: Self.appID, appTypes: [.media]) { media in
            try await media.screen.setMediaClock(.countUp(from: .zero).seeking(forward: .seconds(30), back: .seconds(30)).counting(atRate: 1.5))
            let sent = await Self.sent(older, "SetMediaClockTimer").last
            #expect(sent?["updateMode"] == .string("COUNTUP"))
            #expect(sent?["forwardSeekIndicator"] == nil && sent?["backSeekIndicator"] == nil && sent?["countRate"] == nil)
        }
    }
}
