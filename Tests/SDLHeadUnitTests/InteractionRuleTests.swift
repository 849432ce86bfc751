import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Alerts and subtle alerts: on top for their duration, closed by their soft buttons, by the
/// driver or by the app, and what an Alert does to what else is on top.
@Suite(.timeLimit(.minutes(1))) struct AlertRuleTests {
    @Test func anAlertStaysForItsDurationWithoutSoftButtons() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let alert = app.client.send(SDLAlert(alertText1: "Low fuel", duration: 4_000))
        await Wait.interaction(events, kind: "alert")
        #expect(try await headUnit.screen(appID: app.appID)["onTop"]?["kind"] == .string("alert"))
        #expect(await app.status { $0.systemContext == .alert } != nil)
        clock.advance(by: .milliseconds(3_999))
        #expect(try await headUnit.screen(appID: app.appID)["onTop"]?["kind"] == .string("alert"))
        clock.advance(by: .milliseconds(1))
        let response = try await alert
        #expect(response.success && response.resultCode == .success)
        #expect(await app.status { $0.systemContext == .main } != nil)
        // Without `duration`, 5 seconds.
        async let second = app.client.send(SDLAlert(alertText1: "Still low"))
        await Wait.interaction(events, kind: "alert")
        clock.advance(by: .seconds(5))
        #expect(try await second.resultCode == .success)
        await app.close()
    }

    /// A ScrollableMessage without `timeout` closes when SDL's HMI closes it: after sdl_hmi's
    /// default 10 s, SUCCESS (not the spec's 30 s defvalue).
    @Test func aScrollableMessageWithoutTimeoutClosesAfterTheHMIsTenSeconds() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let message = app.client.send(ScrollableMessage(scrollableMessageBody: "Terms of use"))
        await Wait.interaction(events, kind: "scrollableMessage")
        clock.advance(by: .milliseconds(9_999))
        #expect(try await headUnit.screen(appID: app.appID)["onTop"]?["kind"] == .string("scrollableMessage"))
        clock.advance(by: .milliseconds(1))
        #expect(try await message.resultCode == .success)
        await app.close()
    }

    @Test func aSoftButtonClosesTheAlertAfterItsPressUnlessItKeepsTheContext() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let presses = app.client.notifications(OnButtonPress.self)
        async let alert = app.client.send(
            SDLAlert(
                alertText1: "Low fuel",
                softButtons: [
                    SoftButton(type: .text, text: "Later", softButtonID: 6, systemAction: .keepContext),
                    SoftButton(type: .text, text: "OK", softButtonID: 5),
                ]))
        await Wait.interaction(events, kind: "alert")
        try await headUnit.pressSoftButton(appID: app.appID, id: 6)
        var iterator = presses.makeAsyncIterator()
        #expect(await iterator.next()?.customButtonID == 6)
        #expect(try await headUnit.screen(appID: app.appID)["onTop"]?["kind"] == .string("alert"))
        // Not a button of the alert (nor of the screen): an error, the alert stays.
        await #expect(throws: SDLHeadUnitControlError.unknownSoftButton(7)) { try await headUnit.pressSoftButton(appID: app.appID, id: 7) }
        try await headUnit.pressSoftButton(appID: app.appID, id: 5)
        #expect(try await alert.resultCode == .success)
        #expect(await iterator.next()?.customButtonID == 5)
        // The press reaches the app before the alert's answer.
        let sent = await headUnit.sentToApp(app.appID)
        let lastPress = try #require(sent.lastIndex(of: "OnButtonPress"))
        let answer = try #require(sent.lastIndex(of: "AlertResponse"))
        #expect(sent[answer - 3..<answer] == ["OnButtonEvent", "OnButtonEvent", "OnButtonPress"])
        #expect(lastPress < answer)
        await app.close()
    }

    @Test(arguments: ["slider", "scrollableMessage", "performInteraction"])
    func anAlertAbortsWhatIsOnTop(kind: String) async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(CreateInteractionChoiceSet(interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 1, menuName: "One")]))
        let onTop = Task { () -> SDLResult in
            switch kind {
            case "slider": try await app.client.send(SDLSlider(numTicks: 3, position: 1, sliderHeader: "Fan")).resultCode
            case "scrollableMessage": try await app.client.send(ScrollableMessage(scrollableMessageBody: "Terms")).resultCode
            default:
                try await app.client.send(PerformInteraction(initialText: "Pick", interactionMode: .manualOnly, interactionChoiceSetIDList: [1])).resultCode
            }
        }
        await Wait.interaction(events, kind: kind)
        async let alert = app.client.send(SDLAlert(alertText1: "Accident ahead"))
        #expect(try await onTop.value == .aborted)
        await Wait.interaction(events, kind: "alert")
        // A second alert while one is up: REJECTED; the first stays.
        #expect(try await app.client.send(SDLAlert(alertText1: "Another")).resultCode == .rejected)
        try await headUnit.answerInteraction(appID: app.appID, .dismiss)
        #expect(try await alert.resultCode == .success)
        await app.close()
    }

    @Test func aSubtleAlertAbortsNothingAndIsTapped() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let slider = app.client.send(SDLSlider(numTicks: 3, position: 1, sliderHeader: "Fan"))
        await Wait.interaction(events, kind: "slider")
        #expect(try await app.client.send(SubtleAlert(alertText1: "Traffic")).resultCode == .rejected)
        try await headUnit.answerInteraction(appID: app.appID, .sliderPosition(2))
        #expect(try await slider.sliderPosition == 2)

        let tapped = app.client.notifications(OnSubtleAlertPressed.self)
        async let subtle = app.client.send(SubtleAlert(alertText1: "Traffic", softButtons: [SoftButton(type: .text, text: "Reroute", softButtonID: 9)]))
        await Wait.interaction(events, kind: "subtleAlert")
        #expect(try await app.client.send(SubtleAlert(alertText1: "Again")).resultCode == .rejected)
        // An alert does not push a subtle alert aside (it is an alert in progress).
        #expect(try await app.client.send(SDLAlert(alertText1: "Alert")).resultCode == .rejected)
        await #expect(throws: SDLHeadUnitControlError.self) { try await headUnit.pressSubtleAlert(appID: "nobody") }
        try await headUnit.pressSubtleAlert(appID: app.appID)
        #expect(try await subtle.resultCode == .success)
        var iterator = tapped.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        let sent = await headUnit.sentToApp(app.appID)
        #expect(try #require(sent.lastIndex(of: "OnSubtleAlertPressed")) < #require(sent.lastIndex(of: "SubtleAlertResponse")))
        await #expect(throws: SDLHeadUnitControlError.nothingToAnswer(appID: app.appID)) { try await headUnit.pressSubtleAlert(appID: app.appID) }

        // Its soft button closes it too.
        async let withButton = app.client.send(SubtleAlert(alertText1: "Traffic", softButtons: [SoftButton(type: .text, text: "Reroute", softButtonID: 9)]))
        await Wait.interaction(events, kind: "subtleAlert")
        try await headUnit.pressSoftButton(appID: app.appID, id: 9)
        #expect(try await withButton.resultCode == .success)
        await app.close()
    }

    @Test(arguments: ["alert", "subtleAlert", "scrollableMessage", "performInteraction", "slider"])
    func cancelInteractionAbortsIt(kind: String) async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(CreateInteractionChoiceSet(interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 1, menuName: "One")]))
        let functionID: Int
        let onTop: Task<SDLResult, any Error>
        switch kind {
        case "alert":
            functionID = SDLAlert.functionIDValue
            onTop = Task { try await app.client.send(SDLAlert(alertText1: "Loading", progressIndicator: true, cancelID: 4)).resultCode }
        case "subtleAlert":
            functionID = SubtleAlert.functionIDValue
            onTop = Task { try await app.client.send(SubtleAlert(alertText1: "Loading", cancelID: 4)).resultCode }
        case "scrollableMessage":
            functionID = ScrollableMessage.functionIDValue
            onTop = Task { try await app.client.send(ScrollableMessage(scrollableMessageBody: "Terms", cancelID: 4)).resultCode }
        case "performInteraction":
            functionID = PerformInteraction.functionIDValue
            onTop = Task {
                try await app.client.send(PerformInteraction(initialText: "Pick", interactionMode: .manualOnly, interactionChoiceSetIDList: [1], cancelID: 4))
                    .resultCode
            }
        default:
            functionID = SDLSlider.functionIDValue
            onTop = Task { try await app.client.send(SDLSlider(numTicks: 3, position: 1, sliderHeader: "Fan", cancelID: 4)).resultCode }
        }
        await Wait.interaction(events, kind: kind)
        // Another function or another cancel ID: nothing to cancel.
        // Show is no interaction: SDL Core answers INVALID_ID.
        #expect(try await app.client.send(CancelInteraction(cancelID: 4, functionID: Show.functionIDValue)).resultCode == .invalidId)
        #expect(try await app.client.send(CancelInteraction(cancelID: 5, functionID: functionID)).resultCode == .ignored)
        #expect(try await app.client.send(CancelInteraction(cancelID: 4, functionID: functionID)).resultCode == .success)
        #expect(try await onTop.value == .aborted)
        #expect(try await headUnit.screen(appID: app.appID)["systemContext"] == .string("MAIN"))
        await app.close()
    }

    @Test func alertSpeechFollowsTheSpeechRules() async throws {
        let headUnit = try TestApp.headUnit { try $0.setCapability("speechCapabilities", #"["TEXT","FILE"]"#) }
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let missing = try await app.client.send(SDLAlert(alertText1: "Ding", ttsChunks: [TTSChunk(text: "ding.wav", type: .file)]))
        #expect(missing.resultCode == .fileNotFound)
        #expect(!missing.success)
        #expect(try await app.client.send(SubtleAlert(ttsChunks: [TTSChunk(text: "ding.wav", type: .file)])).resultCode == .fileNotFound)
        // A chunk type the head unit does not speak: shown, and answered WARNINGS when it ends.
        async let phonemes = app.client.send(SDLAlert(alertText1: "Hello", ttsChunks: [TTSChunk(text: "h @ l oU", type: .sapiPhonemes)]))
        await Wait.interaction(events, kind: "alert")
        try await headUnit.answerInteraction(appID: app.appID, .dismiss)
        let answer = try await phonemes
        #expect(answer.success)
        #expect(answer.resultCode == .warnings)
        #expect(answer.info == "Unsupported phoneme type sent in a prompt")
        await app.close()
    }
}

/// Speak: answered after the speaking time, interrupted by a newer Speak, and SDL Core's
/// answers for unsupported chunk types and missing files.
@Suite(.timeLimit(.minutes(1))) struct SpeakRuleTests {
    @Test func aNewerSpeakInterruptsTheOneBeingSpoken() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock) { $0.speakingTime = .seconds(2) }
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let first = app.client.send(Speak(ttsChunks: [TTSChunk(text: "Turn left in 300 metres", type: .text)]))
        await Wait.request(events, "Speak")
        try await app.settle()
        async let second = app.client.send(Speak(ttsChunks: [TTSChunk(text: "Turn left now", type: .text)]))
        let interrupted = try await first
        #expect(interrupted.resultCode == .aborted)
        #expect(interrupted.info == "interrupted by a newer Speak")
        clock.advance(by: .milliseconds(1_999))
        try await app.settle()
        clock.advance(by: .milliseconds(1))
        let spoken = try await second
        #expect(spoken.resultCode == .success)
        await app.close()
    }

    /// The timer loop runs inside the first connection's serve; when that app leaves, the next
    /// connection's serve takes it over, so another app's Speak still ends on time.
    @Test func timersOutliveTheConnectionThatRanThem() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock) { $0.speakingTime = .seconds(2) }
        let events = headUnit.events()
        let first = try await TestApp.register(to: headUnit)
        let second = try await TestApp.register(to: headUnit, appID: "5678", name: "Other")
        await first.close()
        for await event in events {
            if case .appUnregistered("1234") = event { break }
        }
        async let spoken = second.client.send(Speak(ttsChunks: [TTSChunk(text: "Turn left now", type: .text)]))
        await Wait.request(events, "Speak")
        try await second.settle()
        clock.advance(by: .seconds(2))
        #expect(try await spoken.resultCode == .success)
        await second.close()
    }

    @Test func unsupportedTypesAndMissingFiles() async throws {
        let headUnit = try TestApp.headUnit { try $0.setCapability("speechCapabilities", #"["TEXT","FILE"]"#) }
        let app = try await TestApp.register(to: headUnit)
        // Answered at once by default (a stand-in HMI).
        #expect(try await app.client.send(Speak(ttsChunks: [TTSChunk(text: "Hello", type: .text)])).resultCode == .success)
        let warned = try await app.client.send(Speak(ttsChunks: [TTSChunk(text: "Hello", type: .text), TTSChunk(text: "500", type: .silence)]))
        #expect(warned.success)
        #expect(warned.resultCode == .warnings)
        #expect(warned.info == "Unsupported phoneme type sent in a prompt")
        let missing = try await app.client.send(Speak(ttsChunks: [TTSChunk(text: "chime.wav", type: .file)]))
        #expect(!missing.success)
        #expect(missing.resultCode == .fileNotFound)
        _ = try await app.client.send(PutFile(syncFileName: "chime.wav", fileType: .audioWave), bulkData: [1, 2, 3])
        #expect(try await app.client.send(Speak(ttsChunks: [TTSChunk(text: "chime.wav", type: .file)])).resultCode == .success)
        await app.close()
    }

    @Test func theDefaultHeadUnitSpeaksWhatSDLCoreSpeaks() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(app.registration.speechCapabilities == [.text, .sapiPhonemes, .lhplusPhonemes, .preRecorded, .silence, .file])
        #expect(try await app.client.send(Speak(ttsChunks: [TTSChunk(text: "500", type: .silence)])).resultCode == .success)
        await app.close()
    }
}
