import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Alerts, subtle alerts, sliders and scrollable messages against the stateful emulator: the
/// requests sent, in order, and what the app is told.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct AlertTests {
    static let appID = "alerts"

    static func sent(_ headUnit: SDLHeadUnitEmulator, _ function: String) async -> [SDLJSONValue] {
        await ScreenTestSupport.sent(headUnit, appID: appID, function)
    }

    static let icon = SDLArtwork(bytes: Array(repeating: 7, count: 300), format: .png, name: "alert-icon")

    @Test func anAlertUploadsItsIconFirstAndReportsThePressedButton() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let (pressed, pressedSink) = AsyncStream<String>.makeStream()
            let alert = SDLAlertView(
                text: "Traffic ahead", secondaryText: "20 min delay", tertiaryText: "Reroute?", icon: Self.icon,
                buttons: [
                    SDLSoftButton(name: "Reroute", text: "Reroute") { _ in pressedSink.yield("Reroute") },
                    SDLSoftButton(name: "Ignore", text: "Ignore") { _ in pressedSink.yield("Ignore") },
                ],
                audio: "Traffic ahead", duration: .seconds(8), showWaitIndicator: true)
            let presented = Task { try await manager.screen.presentAlert(alert) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)

            let sent = try #require(await Self.sent(headUnit, "Alert").first)
            #expect(sent["alertText1"] == .string("Traffic ahead"))
            #expect(sent["alertText2"] == .string("20 min delay"))
            #expect(sent["alertText3"] == .string("Reroute?"))
            #expect(sent["duration"] == .integer(8_000))
            #expect(sent["progressIndicator"] == .bool(true))
            #expect(sent["ttsChunks"]?[0]?["text"] == .string("Traffic ahead"))
            #expect(sent["alertIcon"]?["value"] == .string("alert-icon"))
            #expect(sent["cancelID"] != nil)
            guard case .array(let buttons)? = sent["softButtons"], buttons.count == 2, case .integer(let rerouteID)? = buttons[0]["softButtonID"] else {
                Issue.record("the alert's soft buttons: \(String(describing: sent["softButtons"]))")
                return
            }
            #expect(buttons.map { $0["text"] } == [.string("Reroute"), .string("Ignore")])

            try await headUnit.pressSoftButton(appID: Self.appID, id: rerouteID, mode: .short)
            #expect(try await presented.value == .buttonPressed("Reroute"))
            var iterator = pressed.makeAsyncIterator()
            #expect(await iterator.next() == "Reroute")
            // The icon went up before the alert that shows it.
            #expect(await FeatureTestSupport.requests(headUnit, appID: Self.appID, among: ["PutFile", "Alert"]) == ["PutFile", "Alert"])
        }
    }

    @Test func aSecondAlertWaitsForTheFirst() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let first = Task { try await manager.screen.presentAlert(SDLAlertView(text: "First")) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            let second = Task { try await manager.screen.presentAlert(SDLAlertView(text: "Second")) }
            try await until { await !manager.screen.queue.isEmpty }
            #expect(await Self.sent(headUnit, "Alert").count == 1)

            try await headUnit.answerInteraction(appID: Self.appID, .dismiss)
            #expect(try await first.value == .dismissed)
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            try await headUnit.answerInteraction(appID: Self.appID, .dismiss)
            #expect(try await second.value == .dismissed)
            #expect(await Self.sent(headUnit, "Alert").map { $0["alertText1"] } == [.string("First"), .string("Second")])
            // Never two on screen: the emulator would have answered REJECTED.
            let answers = await headUnit.recordedRPCs(appID: Self.appID).filter { $0.direction == "out" && $0.functionName == "Alert" }
            #expect(answers.map { $0.parameters?["resultCode"] } == [.string("SUCCESS"), .string("SUCCESS")])
        }
    }

    @Test func cancellingTheTaskDismissesTheAlertWithCancelInteraction() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentAlert(SDLAlertView(text: "Searching…", showWaitIndicator: true)) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            presented.cancel()
            #expect(try await presented.value == .cancelled)
            let cancel = try #require(await Self.sent(headUnit, "CancelInteraction").first)
            let alert = try #require(await Self.sent(headUnit, "Alert").first)
            #expect(cancel["cancelID"] == alert["cancelID"])
            #expect(cancel["functionID"] == .integer(Int(SDLAlert.wireFunctionID ?? 0)))
        }
    }

    @Test func anAlertTimesOutAsDismissed() async throws {
        let clock = ManualClock()
        let headUnit = FeatureTestSupport.emulator(on: clock)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentAlert(SDLAlertView(text: "Brief", duration: .seconds(3))) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            clock.advance(by: .seconds(3))
            let value1 = try await presented.value
            #expect(value1 == .dismissed)
        }
    }

    @Test func theGuidesRulesAreCheckedBeforeSending() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            func refusal(_ alert: SDLAlertView) async -> SDLPresentationError? {
                do {
                    _ = try await manager.screen.presentAlert(alert)
                } catch {
                    if case .invalid(let reason)? = (error as? SDLError)?.underlying as? SDLScreenError { return reason }
                }
                return nil
            }
            #expect(await refusal(SDLAlertView(buttons: [SDLSoftButton(name: "OK", text: "OK")])) == .alertNeedsTextOrSpeech)
            let five = (1...5).map { SDLSoftButton(name: "B\($0)", text: "B\($0)") }
            #expect(await refusal(SDLAlertView(text: "x", buttons: five)) == .tooManyButtons(count: 5, maximum: 4))
            #expect(await refusal(SDLAlertView(text: "x", duration: .seconds(20))) == .durationOutOfRange(.seconds(20), allowed: .seconds(3) ... .seconds(10)))
            #expect(await refusal(SDLAlertView(audio: SDLSpeech([.prerecorded(.negativeJingle)]))) != nil)
            #expect(await Self.sent(headUnit, "Alert").isEmpty)
        }
    }

    @Test func theDriverTappingASubtleAlertIsReported() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let presented = Task {
                try await manager.screen.presentSubtleAlert(SDLSubtleAlertView(text: "New message", secondaryText: "From Ann", audio: "New message"))
            }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            try await headUnit.pressSubtleAlert(appID: Self.appID)
            #expect(try await presented.value == .pressed)
            let sent = try #require(await Self.sent(headUnit, "SubtleAlert").first)
            #expect(sent["alertText1"] == .string("New message"))
            #expect(sent["alertText2"] == .string("From Ann"))
        }
    }

    @Test func aSliderReturnsThePositionOrItsTimeout() async throws {
        let clock = ManualClock()
        let headUnit = FeatureTestSupport.emulator(on: clock)
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let slider = SDLSliderView(ticks: 3, position: 2, header: "Fan", footer: .perPosition(["Low", "Mid", "High"]), timeout: .seconds(10))
            let chosen = Task { try await manager.screen.presentSlider(slider) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            try await headUnit.answerInteraction(appID: Self.appID, .sliderPosition(3))
            #expect(try await chosen.value == .selected(3))
            let sent = try #require(await Self.sent(headUnit, "Slider").first)
            #expect(sent["numTicks"] == .integer(3))
            #expect(sent["position"] == .integer(2))
            #expect(sent["sliderHeader"] == .string("Fan"))
            #expect(sent["sliderFooter"] == .array([.string("Low"), .string("Mid"), .string("High")]))
            #expect(sent["timeout"] == .integer(10_000))

            let unanswered = Task {
                try await manager.screen.presentSlider(SDLSliderView(ticks: 5, header: "Volume", footer: .single("Level"), timeout: .seconds(5)))
            }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            clock.advance(by: .seconds(5))
            #expect(try await unanswered.value == .timedOut)

            await expectSDLError(SDLScreenError.self) {
                _ = try await manager.screen.presentSlider(SDLSliderView(ticks: 3, header: "x", footer: .perPosition(["a"])))
            }
            await expectSDLError(SDLScreenError.self) { _ = try await manager.screen.presentSlider(SDLSliderView(ticks: 30, header: "x")) }
            #expect(await Self.sent(headUnit, "Slider").count == 2)
        }
    }

    @Test func aScrollableMessageReportsItsButtonAndCancellation() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await ScreenTestSupport.withManager(headUnit, appID: Self.appID) { manager in
            let events = headUnit.events()
            let message = SDLScrollableMessage(
                text: "Lorem ipsum dolor sit amet", buttons: [SDLSoftButton(name: "More", text: "More"), SDLSoftButton(name: "Close", text: "Close")],
                timeout: .seconds(50))
            let shown = Task { try await manager.screen.presentScrollableMessage(message) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            let sent = try #require(await Self.sent(headUnit, "ScrollableMessage").first)
            #expect(sent["scrollableMessageBody"] == .string("Lorem ipsum dolor sit amet"))
            #expect(sent["timeout"] == .integer(50_000))
            guard case .integer(let closeID)? = sent["softButtons"]?[1]?["softButtonID"] else {
                Issue.record("no soft buttons in \(sent)")
                return
            }
            try await headUnit.pressSoftButton(appID: Self.appID, id: closeID, mode: .short)
            #expect(try await shown.value == .buttonPressed("Close"))

            let cancelled = Task { try await manager.screen.presentScrollableMessage(SDLScrollableMessage(text: "Second")) }
            await waitFor(events, FeatureTestSupport.isInteractionStarted)
            cancelled.cancel()
            #expect(try await cancelled.value == .cancelled)
            #expect(await Self.sent(headUnit, "CancelInteraction").first?["functionID"] == .integer(Int(ScrollableMessage.wireFunctionID ?? 0)))
        }
    }
}
