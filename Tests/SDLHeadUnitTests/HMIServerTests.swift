import Logging
import SDLConcurrency
import SDLHMIRPC
import SDLHMIServer
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The emulator as SDL Core toward an HMI: a test HMI (`TestHMI`, over a real WebSocket, on
/// the generated HMI types) connects to `SDLHMIServer`, and each test asserts what both sides
/// sent: the HMI's messages and the app's.
@Suite(.timeLimit(.minutes(1))) struct HMIServerTests {
    static let subscriptions = [
        "BasicCommunication.OnAppRegistered", "BasicCommunication.OnAppUnregistered", "Buttons.OnButtonSubscription",
    ]

    /// An emulator that waits for its HMI, its HMI server on a free port, and `body` with both.
    static func withHMIServer(
        _ configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (SDLHeadUnitEmulator, Int) async throws -> Void
    ) async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        configuration.waitsForHMI = true
        configure(&configuration)
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        let (bound, report) = AsyncStream<Int>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { report.finish() }
                // Quiet: Hummingbird logs a cancelled server (the test's end) as an error.
                var logger = Logger(label: "SDLHMIServer")
                logger.logLevel = .critical
                try await SDLHMIServer(headUnit: emulator, port: 0, logger: logger) { port in report.yield(port) }.run()
            }
            var ports = bound.makeAsyncIterator()
            guard let port = await ports.next() else {
                // The bind failed: its error ends the test now.
                try await group.next()
                return
            }
            try await body(emulator, port)
            group.cancelAll()
        }
    }

    /// `withHMIServer` with a test HMI connected and started up: `body` runs once apps are served.
    static func withReadyHMI(
        _ configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (SDLHeadUnitEmulator, TestHMI) async throws -> Void
    ) async throws {
        try await withHMIServer(configure) { emulator, port in
            try await TestHMI.with(port: port) { hmi in
                try await readyHMI(hmi, emulator)
                try await body(emulator, hmi)
            }
        }
    }

    /// Connects an HMI, starts it up and waits until the emulator serves apps.
    static func readyHMI(_ hmi: TestHMI, _ emulator: SDLHeadUnitEmulator) async throws {
        let events = emulator.events()
        try await hmi.start(subscriptions: subscriptions)
        for await event in events { if case .hmiReady = event { break } }
    }

    @Test func startsUpAsCoreAndUsesTheHMIsAnswers() async throws {
        // The HMI's navigation capability, among UI.GetCapabilities' systemCapabilities.
        let answer: TestHMI.Answer = { method, params in
            guard method == "UI.GetCapabilities" else { return TestHMI.standardAnswers(method, params) }
            return (
                .success,
                [
                    .init(
                        key: "systemCapabilities",
                        value: .object([
                            .init(
                                key: "navigationCapability",
                                value: .object([
                                    .init(key: "sendLocationEnabled", value: .bool(false)), .init(key: "getWayPointsEnabled", value: .bool(true)),
                                ]))
                        ]))
                ]
            )
        }
        try await Self.withHMIServer { emulator, port in
            try await TestHMI.with(port: port, answer: answer) { hmi in
                #expect(try await hmi.broker("MB.registerComponent", [.init(key: "componentName", value: .string("BasicCommunication"))]) == .integer(1000))
                #expect(try await hmi.broker("MB.registerComponent", [.init(key: "componentName", value: .string("UI"))]) == .integer(2000))
                #expect(await emulator.isHMIReady == false)
                try await Self.readyHMI(hmi, emulator)
                // The questions SDL Core asks its HMI once it is ready, each to a component it registered.
                let asked = Set(hmi.received.filter { $0.contains(".Get") || $0.hasSuffix(".IsReady") })
                for question in [
                    "BasicCommunication.GetSystemInfo", "UI.IsReady", "UI.GetCapabilities", "UI.GetLanguage", "UI.GetSupportedLanguages",
                    "VR.IsReady", "TTS.IsReady", "TTS.GetCapabilities", "Buttons.GetCapabilities", "VehicleInfo.IsReady", "VehicleInfo.GetVehicleType",
                    "RC.GetCapabilities",
                ] {
                    #expect(asked.contains(question), "\(question) was not asked")
                }
                // The HMI's vehicle and system software reach the app at registration.
                let app = try await TestApp.register(to: emulator, appID: "hmi-app", activate: false)
                #expect(app.registration.vehicleType?.make == "TestHMI Motors")
                #expect(app.registration.systemSoftwareVersion == "test-hmi-1.0")
                let navigation = try await app.client.send(GetSystemCapability(systemCapabilityType: .navigation))
                #expect(navigation.systemCapability?.navigationCapability?.sendLocationEnabled == false)
                let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
                #expect(registered.params["application"]?["appName"] == .string("Demo hmi-app"))
                #expect(registered.params["application"]?["policyAppID"] == .string("hmi-app"))
                let list = try #require(await hmi.next("BasicCommunication.UpdateAppList"))
                guard case .array(let applications)? = list.params["applications"] else {
                    Issue.record("UpdateAppList without applications")
                    return
                }
                #expect(applications.map { $0["appName"] } == [.string("Demo hmi-app")])
            }
        }
    }

    @Test func theHMIActivatesAndItsAnswerDecidesTheApps() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let app = try await TestApp.register(to: emulator, appID: "show-app", activate: false)
            let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
            guard case .integer(let hmiAppID)? = registered.params["application"]?["appID"] else {
                Issue.record("no HMI app ID")
                return
            }
            // The driver picks the app on the HMI: SDL.ActivateApp; the app hears FULL.
            let answer = try #require(try await hmi.request(SDL.ActivateApp(appID: hmiAppID)))
            #expect(answer.json["result"]?["code"] == .integer(0))
            #expect(await app.status { $0.hmiLevel == .full } != nil)

            // Show goes to the HMI as UI.Show; its SUCCESS is the app's.
            async let shown = app.client.send(Show(mainField1: "Hello HMI", mainField2: "Line two"))
            let show = try #require(await hmi.next("UI.Show"))
            let typed = try #require(show.message).decode(UI.Show.self).value
            #expect(typed.appID == hmiAppID)
            #expect(typed.showStrings.map(\.fieldText) == ["Hello HMI", "Line two"])
            #expect(typed.showStrings.first?.fieldName == .mainField1)
            try await hmi.respond(to: show, .success)
            #expect(try await shown.resultCode == .success)

            // The HMI refuses the next one: the app gets REJECTED, and the HMI's info.
            async let refused = app.client.send(Show(mainField1: "Too much"))
            let second = try #require(await hmi.next("UI.Show"))
            try await hmi.respond(to: second, .rejected, [.init(key: "info", value: .string("the screen is busy"))])
            let response = try await refused
            #expect(response.resultCode == .rejected)
            #expect(response.success == false)
            #expect(response.info == "the screen is busy")
            // What the HMI refused did not change the app's screen on the head unit.
            #expect(try await emulator.screen(appID: "show-app")["mainField1"] == .string("Hello HMI"))
        }
    }

    /// An app registered, activated by the HMI, and its HMI app ID.
    static func activeApp(_ hmi: TestHMI, _ emulator: SDLHeadUnitEmulator, appID: String) async throws -> (TestApp, Int) {
        let app = try await TestApp.register(to: emulator, appID: appID, activate: false)
        let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
        guard case .integer(let hmiAppID)? = registered.params["application"]?["appID"] else { throw TestHMIError.notARequest("OnAppRegistered") }
        _ = try await hmi.request(SDL.ActivateApp(appID: hmiAppID))
        _ = await app.status { $0.hmiLevel == .full }
        return (app, hmiAppID)
    }

    @Test func aCommandOnTwoComponentsIsAnsweredAsCoreCombinesThem() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "menu-app")
            async let added = app.client.send(AddCommand(cmdID: 7, menuParams: MenuParams(menuName: "Seven"), vrCommands: ["Seven"]))
            let ui = try #require(await hmi.next("UI.AddCommand"))
            let vr = try #require(await hmi.next("VR.AddCommand"))
            #expect(ui.params["cmdID"] == .integer(7) && ui.params["appID"] == .integer(hmiAppID))
            #expect(ui.params["menuParams"]?["menuName"] == .string("Seven"))
            #expect(vr.params["vrCommands"] == .array([.string("Seven")]) && vr.params["type"] == .string("Command"))
            // UI accepts, VR has no voice: the app's command exists, UNSUPPORTED_RESOURCE.
            try await hmi.respond(to: ui, .success)
            try await hmi.respond(to: vr, .unsupportedResource, [.init(key: "info", value: .string("VR is off"))])
            let response = try await added
            #expect(response.success && response.resultCode == .unsupportedResource)
            #expect(response.info == "VR is off")

            // The driver picks it on the HMI: OnCommand reaches the app.
            let commands = app.client.notifications(OnCommand.self)
            try await hmi.notify(UI.OnCommand(cmdID: 7, appID: hmiAppID))
            var heard = commands.makeAsyncIterator()
            #expect(await heard.next()?.cmdID == 7)
        }
    }

    @Test func aSoftButtonPressedOnTheHMIReachesTheAppAndExitLeavesItInNone() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "button-app")
            async let shown = app.client.send(Show(mainField1: "Press", softButtons: [SoftButton(type: .text, text: "Go", softButtonID: 5)]))
            let show = try #require(await hmi.next("UI.Show"))
            let typed = try #require(show.message).decode(UI.Show.self).value
            #expect(typed.softButtons?.map(\.softButtonID) == [5])
            try await hmi.respond(to: show, .success)
            #expect(try await shown.success)

            // As SDL's HMIs press: button down, button up, the press; the app hears the same.
            let events = app.client.notifications(OnButtonEvent.self)
            let presses = app.client.notifications(OnButtonPress.self)
            try await hmi.notify(Buttons.OnButtonEvent(name: .customButton, mode: .buttondown, customButtonID: 5, appID: hmiAppID))
            try await hmi.notify(Buttons.OnButtonEvent(name: .customButton, mode: .buttonup, customButtonID: 5, appID: hmiAppID))
            try await hmi.notify(Buttons.OnButtonPress(name: .customButton, mode: .short, customButtonID: 5, appID: hmiAppID))
            var heardEvents = events.makeAsyncIterator()
            #expect(await heardEvents.next()?.buttonEventMode == .buttondown)
            #expect(await heardEvents.next()?.buttonEventMode == .buttonup)
            var heard = presses.makeAsyncIterator()
            let press = await heard.next()
            #expect(press?.buttonName == .customButton && press?.customButtonID == 5)
            let received = await emulator.recordedRPCs(appID: "button-app").filter { $0.direction == "out" }.map(\.functionName)
            #expect(received.suffix(3) == ["OnButtonEvent", "OnButtonEvent", "OnButtonPress"])

            // The driver closes the app on the HMI: NONE.
            try await hmi.notify(BasicCommunication.OnExitApplication(reason: .userExit, appID: hmiAppID))
            #expect(await app.status { $0.hmiLevel == HMILevel.none } != nil)
        }
    }

    @Test func anHMIThatDoesNotAnswerLeavesTheAppWithGenericErrorAndOnResetTimeoutExtendsTheWait() async throws {
        let clock = ManualClock()
        try await Self.withReadyHMI({ $0.clock = SDLClock(clock) }) { emulator, hmi in
            let (app, _) = try await Self.activeApp(hmi, emulator, appID: "slow-app")
            // No answer within Core's 10 s: GENERIC_ERROR, naming the component.
            async let unanswered = app.client.send(Show(mainField1: "Nobody home"))
            _ = try #require(await hmi.next("UI.Show"))
            clock.advance(by: .seconds(10))
            let response = try await unanswered
            #expect(response.resultCode == .genericError && response.success == false)
            #expect(response.info == "UI component does not respond")

            // The HMI asks for more time 9 s in: the wait starts again, and its late answer counts.
            async let extended = app.client.send(Show(mainField1: "Wait for me"))
            let show = try #require(await hmi.next("UI.Show"))
            clock.advance(by: .seconds(9))
            try await hmi.notify(BasicCommunication.OnResetTimeout(requestID: try #require(show.id), methodName: "UI.Show"))
            // A round trip through the emulator: the reset is in before time moves on.
            _ = try await hmi.broker("MB.subscribeTo", [.init(key: "propertyName", value: .string("UI.OnRecordStart"))])
            clock.advance(by: .seconds(9))
            try await hmi.respond(to: show, .success)
            #expect(try await extended.resultCode == .success)
        }
    }

    @Test func anHMIThatLeavesFailsWhatWaitedForItAtOnce() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, _) = try await Self.activeApp(hmi, emulator, appID: "orphan-app")
            async let shown = app.client.send(Show(mainField1: "Anyone?"))
            _ = try #require(await hmi.next("UI.Show"))
            // The HMI goes away with the Show unanswered: the app hears at once, not after 10 s.
            hmi.disconnect()
            let response = try await shown
            #expect(response.resultCode == .genericError)
            #expect(response.info == "UI component does not respond")
        }
    }

    @Test func anAlertWhoseSpeechTheHMICannotSayIsAWarning() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "alert-app")
            async let alerted = app.client.send(SDLAlert(alertText1: "Fuel low", ttsChunks: [TTSChunk(text: "F_UE_L", type: .sapiPhonemes)], duration: 3000))
            let ui = try #require(await hmi.next("UI.Alert"))
            let tts = try #require(await hmi.next("TTS.Speak"))
            let typed = try #require(ui.message).decode(UI.Alert.self).value
            #expect(typed.alertStrings.map(\.fieldText) == ["Fuel low"] && typed.alertType == .both && typed.duration == 3000 && typed.appID == hmiAppID)
            let speech = try #require(tts.message).decode(TTS.Speak.self).value
            #expect(speech.ttsChunks.map(\.text) == ["F_UE_L"] && speech.speakType == .alert)
            // The HMI shows it over the app: ALERT, then MAIN again.
            try await hmi.notify(UI.OnSystemContext(systemContext: .alert, appID: hmiAppID))
            #expect(await app.status { $0.systemContext == .alert } != nil)
            try await hmi.respond(to: ui, .success)
            try await hmi.respond(to: tts, .unsupportedResource)
            let response = try await alerted
            #expect(response.success && response.resultCode == .warnings)
            #expect(response.info == "Unsupported phoneme type sent in a prompt")
        }
    }

    @Test func aComponentThatIsNotReadyIsSentNothingAndWhatNeedsItIsUnsupported() async throws {
        // The HMI has no speech and no navigation (IsReady available: false).
        let answer: TestHMI.Answer = { method, params in
            guard method == "TTS.IsReady" || method == "Navigation.IsReady" else { return TestHMI.standardAnswers(method, params) }
            return (.success, [.init(key: "available", value: .bool(false))])
        }
        try await Self.withHMIServer { emulator, port in
            try await TestHMI.with(port: port, answer: answer) { hmi in
                try await Self.readyHMI(hmi, emulator)
                let (app, _) = try await Self.activeApp(hmi, emulator, appID: "quiet-app")
                // The alert is shown, its speech is not sent: success, UNSUPPORTED_RESOURCE (not
                // the WARNINGS of a prompt the HMI could not say).
                async let alerted = app.client.send(SDLAlert(alertText1: "Fuel low", ttsChunks: [TTSChunk(text: "Fuel low", type: .text)], duration: 3000))
                let ui = try #require(await hmi.next("UI.Alert"))
                try await hmi.respond(to: ui, .success)
                let alert = try await alerted
                #expect(alert.success && alert.resultCode == .unsupportedResource)
                #expect(alert.info == "TTS is not supported by system")
                // A request for the absent component alone fails without reaching the HMI.
                let located = try await app.client.send(SendLocation(longitudeDegrees: 13.4, latitudeDegrees: 52.5, locationName: "Home"))
                #expect(!located.success && located.resultCode == .unsupportedResource)
                #expect(located.info == "Navigation is not supported by system")
                #expect(!hmi.received.contains("TTS.Speak") && !hmi.received.contains("Navigation.SendLocation"))
            }
        }
    }

    @Test func aTouchOnTheHMIReachesTheNavigationAppOnScreen() async throws {
        try await Self.withReadyHMI({ $0.policy = SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: "touch-nav") }) { emulator, hmi in
            let nav = try await TestApp.register(to: emulator, appID: "touch-nav", types: [.navigation], activate: false)
            let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
            let hmiAppID = try #require(registered.params["application"]?["appID"].flatMap { if case .integer(let id) = $0 { id } else { nil } })
            _ = try await hmi.request(SDL.ActivateApp(appID: hmiAppID))
            _ = await nav.status { $0.hmiLevel == .full }
            var touches = nav.client.notifications(OnTouchEvent.self).makeAsyncIterator()
            try await hmi.notify(UI.OnTouchEvent(type: .begin, event: [Common.TouchEvent(id: 0, ts: [1200], c: [Common.TouchCoord(x: 40, y: 80)])]))
            let touch = try #require(await touches.next())
            #expect(touch.type == .begin && touch.event.first?.ts == [1200] && touch.event.first?.c == [TouchCoord(x: 40, y: 80)])
            await nav.close()
        }
    }

    @Test func theHMIDecidesTheVideosParametersAndHearsOfTheStream() async throws {
        let configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { $0.hmiStreamURL = { appID, _ in "http://127.0.0.1:1/apps/\(appID)/video" } }
        try await Self.withHMIServer(configure) { emulator, port in
            try await TestHMI.with(port: port) { hmi in
                let events = emulator.events()
                try await hmi.start(subscriptions: Self.subscriptions + ["Navigation.OnVideoDataStreaming"])
                for await event in events { if case .hmiReady = event { break } }
                let nav = try await TestApp.register(to: emulator, appID: "stream-nav", types: [.navigation], activate: false)
                let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
                let hmiAppID = try #require(registered.params["application"]?["appID"].flatMap { if case .integer(let id) = $0 { id } else { nil } })
                _ = try await hmi.request(SDL.ActivateApp(appID: hmiAppID))
                _ = await nav.status { $0.hmiLevel == .full }
                let video = {
                    var video = SDLControlPayload()
                    (video.videoProtocol, video.videoCodec, video.width, video.height) = ("RAW", "H264", 800, 480)
                    return video
                }()

                // The HMI refuses the codec: the app's StartService is NAKed with it.
                async let refused: Void = {
                    do {
                        _ = try await nav.session.startService(.video, parameters: video)
                        Issue.record("the HMI's refusal was not the app's")
                    } catch SDLSessionError.startRejected(_, let rejectedParams, _) {
                        #expect(rejectedParams == ["codec"])
                    }
                }()
                let config = try #require(await hmi.next("Navigation.SetVideoConfig"))
                #expect(config.params["config"]?["codec"] == .string("H264") && config.params["config"]?["width"] == .integer(800))
                #expect(config.params["appID"] == .integer(hmiAppID))
                try await hmi.respond(to: config, .rejected, [.init(key: "rejectedParams", value: .array([.string("codec")]))])
                try await refused

                // Activated again, the HMI accepts: ACK, then StartStream with the URL to play.
                _ = try await hmi.request(SDL.ActivateApp(appID: hmiAppID))
                _ = await nav.status { $0.hmiLevel == .full }
                async let started = nav.session.startService(.video, parameters: video)
                try await hmi.respond(to: try #require(await hmi.next("Navigation.SetVideoConfig")), .success)
                #expect(try await started.videoCodec == "H264")
                let start = try #require(await hmi.next("Navigation.StartStream"))
                #expect(start.params["url"] == .string("http://127.0.0.1:1/apps/stream-nav/video") && start.params["appID"] == .integer(hmiAppID))
                try await hmi.respond(to: start, .success)
                #expect(await hmi.next("Navigation.OnVideoDataStreaming")?.params["available"] == .bool(true))

                // The app ends it: the HMI stops playing.
                try await nav.session.endService(.video)
                #expect(await hmi.next("Navigation.OnVideoDataStreaming")?.params["available"] == .bool(false))
                #expect(await hmi.next("Navigation.StopStream")?.params["appID"] == .integer(hmiAppID))
                await nav.close()
            }
        }
    }

    @Test func whatAPromptCanSayIsTheConnectedHMIsToAnswer() async throws {
        // The configured speech is TEXT only; the HMI says the phonemes all the same.
        try await Self.withReadyHMI({ $0.capabilities = SDLHeadUnitEmulator.Configuration.sdlCoreDefaults.capabilities }) { emulator, hmi in
            let (app, _) = try await Self.activeApp(hmi, emulator, appID: "speak-app")
            async let spoken = app.client.send(Speak(ttsChunks: [TTSChunk(text: "H_EH_L_OW", type: .sapiPhonemes)]))
            try await hmi.respond(to: try #require(await hmi.next("TTS.Speak")), .success)
            let response = try await spoken
            #expect(response.success && response.resultCode == .success && response.info == nil)
        }
    }

    @Test func changeRegistrationGoesToItsThreeComponentsAndALanguageTheHMILacksIsRejected() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "rename-app")
            async let changed = app.client.send(ChangeRegistration(language: .deDe, hmiDisplayLanguage: .deDe, appName: "Umbenannt", vrSynonyms: ["Umbenannt"]))
            let vr = try #require(await hmi.next("VR.ChangeRegistration"))
            let tts = try #require(await hmi.next("TTS.ChangeRegistration"))
            let ui = try #require(await hmi.next("UI.ChangeRegistration"))
            #expect(
                vr.params["language"] == .string("DE-DE") && vr.params["vrSynonyms"] == .array([.string("Umbenannt")])
                    && vr.params["appID"] == .integer(hmiAppID))
            #expect(ui.params["language"] == .string("DE-DE") && ui.params["appName"] == .string("Umbenannt"))
            // UI and VR accept, TTS has no voice for it: a success, UNSUPPORTED_RESOURCE.
            try await hmi.respond(to: ui, .success)
            try await hmi.respond(to: vr, .success)
            try await hmi.respond(to: tts, .unsupportedResource, [.init(key: "info", value: .string("no German voice"))])
            let response = try await changed
            #expect(response.success && response.resultCode == .unsupportedResource && response.info == "no German voice")
            // French is not among the HMI's languages (EN-US, DE-DE): REJECTED by the Core half.
            let refused = try await app.client.send(ChangeRegistration(language: .frFr, hmiDisplayLanguage: .frFr))
            #expect(!refused.success && refused.resultCode == .rejected)
            #expect(hmi.received.filter { $0 == "UI.ChangeRegistration" }.count == 1)
        }
    }

    @Test func theDriversRemoteControlConsentIsAskedOnTheHMI() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            func rcApp(_ appID: String) async throws -> TestApp {
                let app = try await TestApp.register(to: emulator, appID: appID, name: "RC \(appID)", types: [.remoteControl], activate: false)
                let registered = try #require(await hmi.next("BasicCommunication.OnAppRegistered"))
                let hmiAppID = try #require(registered.params["application"]?["appID"].flatMap { if case .integer(let id) = $0 { id } else { nil } })
                _ = try await hmi.request(SDL.ActivateApp(appID: hmiAppID))
                _ = await app.status { $0.hmiLevel == .full }
                return app
            }
            func fan(_ speed: Int) -> SetInteriorVehicleData {
                SetInteriorVehicleData(moduleData: ModuleData(moduleType: .climate, moduleId: "C0A", climateControlData: ClimateControlData(fanSpeed: speed)))
            }
            let first = try await rcApp("rc-first")
            async let taken = first.client.send(fan(50))
            try await hmi.respond(to: try #require(await hmi.next("RC.SetInteriorVehicleData")), .success)
            #expect(try await taken.success)
            let second = try await rcApp("rc-second")

            // The driver says no on the HMI: the app hears it, and the module stays the first app's.
            async let refused = second.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C0A"]))
            let ask = try #require(await hmi.next("RC.GetInteriorVehicleDataConsent"))
            #expect(ask.params["moduleType"] == .string("CLIMATE") && ask.params["moduleIds"] == .array([.string("C0A")]))
            try await hmi.respond(to: ask, .success, [.init(key: "allowed", value: .array([.bool(false)]))])
            #expect(try await refused.allowed == [false])
            #expect(try await second.client.send(fan(30)).resultCode == .inUse)

            // Then yes: the module changes hands.
            async let allowed = second.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C0A"]))
            try await hmi.respond(
                to: try #require(await hmi.next("RC.GetInteriorVehicleDataConsent")), .success, [.init(key: "allowed", value: .array([.bool(true)]))])
            #expect(try await allowed.allowed == [true])
            async let changed = second.client.send(fan(30))
            try await hmi.respond(to: try #require(await hmi.next("RC.SetInteriorVehicleData")), .success)
            #expect(try await changed.success)
            await first.close()
            await second.close()
        }
    }

    @Test func anAudioPassThruIsTheHMIsPopupWhileCoreRecords() async throws {
        let clock = ManualClock()
        try await Self.withReadyHMI({ $0.clock = SDLClock(clock) }) { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "mic-app")
            let chunks = app.client.rawNotifications(OnAudioPassThru.self)
            let record = PerformAudioPassThru(
                audioPassThruDisplayText1: "Speak now", samplingRate: ._16khz, maxDuration: 2_000, bitsPerSample: ._16Bit, audioType: .pcm)
            async let recorded = app.client.send(record)
            let ui = try #require(await hmi.next("UI.PerformAudioPassThru"))
            #expect(
                ui.params["audioPassThruDisplayTexts"]
                    == .array([
                        .object([
                            .init(key: "fieldName", value: .string("audioPassThruDisplayText1")), .init(key: "fieldText", value: .string("Speak now")),
                        ])
                    ]))
            #expect(ui.params["maxDuration"] == .integer(2_000) && ui.params["muteAudio"] == .bool(true) && ui.params["appID"] == .integer(hmiAppID))
            // Core records while the HMI shows the popup: the app gets the microphone's chunks.
            clock.advance(by: .milliseconds(100))
            #expect(await Wait.next(1, of: chunks).first?.payload.bulkData.count == 3_200)
            // The HMI's answer is the app's.
            try await hmi.respond(to: ui, .success)
            #expect(try await recorded.resultCode == .success)

            // EndAudioPassThru is the HMI's to answer, and then so is the recording.
            async let again = app.client.send(record)
            let second = try #require(await hmi.next("UI.PerformAudioPassThru"))
            async let ended = app.client.send(EndAudioPassThru())
            let end = try #require(await hmi.next("UI.EndAudioPassThru"))
            #expect(end.params["appID"] == .integer(hmiAppID))
            try await hmi.respond(to: end, .success)
            try await hmi.respond(to: second, .success)
            #expect(try await ended.success)
            #expect(try await again.resultCode == .success)
        }
    }

    @Test func theHMIHearsOfPublishedAppServicesAndReadsTheirRecords() async throws {
        try await Self.withHMIServer { emulator, port in
            try await TestHMI.with(port: port) { hmi in
                let events = emulator.events()
                try await hmi.start(subscriptions: Self.subscriptions + ["BasicCommunication.OnSystemCapabilityUpdated", "AppService.OnAppServiceData"])
                for await event in events { if case .hmiReady = event { break } }
                let provider = try await TestApp.register(to: emulator, appID: "tunes-provider", media: true)
                let published = try await provider.client.send(
                    PublishAppService(
                        appServiceManifest: AppServiceManifest(
                            serviceName: "Tunes", serviceType: "MEDIA", allowAppConsumers: true, mediaServiceManifest: MediaServiceManifest())))
                let serviceID = try #require(published.appServiceRecord?.serviceID)
                // As Core's BroadcastCapabilityUpdate: published, then activated (the only MEDIA service).
                let update = try #require(await hmi.next("BasicCommunication.OnSystemCapabilityUpdated"))
                let capability = update.params["systemCapability"]
                #expect(capability?["systemCapabilityType"] == .string("APP_SERVICES"))
                let first = capability?["appServicesCapabilities"]?["appServices"].flatMap { if case .array(let list) = $0 { list.first } else { nil } }
                #expect(first?["updateReason"] == .string("PUBLISHED") && first?["updatedAppServiceRecord"]?["serviceID"] == .string(serviceID))
                // The HMI reads the registry.
                let records = try #require(await hmi.request(AppService.GetAppServiceRecords(serviceType: "MEDIA")))
                guard case .array(let listed)? = records.json["result"]?["serviceRecords"] else {
                    Issue.record("no serviceRecords in \(records.json)")
                    return
                }
                #expect(listed.compactMap { $0["serviceID"] } == [SDLJSONValue.string(serviceID)])

                // The HMI as a consumer: its requests go to the provider app, whose answers are its.
                try await provider.client.handleRequests(GetAppServiceData.self) { request in
                    GetAppServiceDataResponse(
                        success: true, resultCode: .success,
                        serviceData: AppServiceData(
                            serviceType: request.serviceType, serviceID: serviceID, mediaServiceData: MediaServiceData(mediaTitle: "Song")))
                }
                try await provider.client.handleRequests(PerformAppServiceInteraction.self) { request in
                    PerformAppServiceInteractionResponse(
                        success: true, resultCode: .success, serviceSpecificResult: "played \(request.serviceUri) for \(request.originApp)")
                }
                let data = try #require(await hmi.request(AppService.GetAppServiceData(serviceType: "MEDIA", subscribe: true)))
                #expect(data.json["result"]?["code"] == .integer(0))
                #expect(data.json["result"]?["serviceData"]?["mediaServiceData"]?["mediaTitle"] == .string("Song"))
                let played = try #require(await hmi.request(AppService.PerformAppServiceInteraction(serviceUri: "tunes://play", serviceID: serviceID)))
                #expect(played.json["result"]?["serviceSpecificResult"] == .string("played tunes://play for HMI"))
                // Subscribed: the provider's new data reaches the HMI.
                try await provider.client.sendNotification(
                    OnAppServiceData(
                        serviceData: AppServiceData(serviceType: "MEDIA", serviceID: serviceID, mediaServiceData: MediaServiceData(mediaTitle: "Next"))))
                let next = try #require(await hmi.next("AppService.OnAppServiceData"))
                #expect(next.params["serviceData"]?["mediaServiceData"]?["mediaTitle"] == .string("Next"))
                // A service that is not there: the HMI's error, not the provider's.
                let missing = try #require(await hmi.request(AppService.PerformAppServiceInteraction(serviceUri: "x", serviceID: "nope")))
                #expect(missing.json["error"]?["code"] == .integer(Common.Result.invalidId.code))
                await provider.close()
            }
        }
    }

    @Test func aChoiceOnTheHMIAnswersThePerformInteractionAndATimeoutIsTimedOut() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, _) = try await Self.activeApp(hmi, emulator, appID: "choice-app")
            let set = try await app.client.send(
                CreateInteractionChoiceSet(
                    interactionChoiceSetID: 40, choiceSet: [Choice(choiceID: 41, menuName: "Coffee"), Choice(choiceID: 42, menuName: "Tea")]))
            #expect(set.success)
            async let chosen = app.client.send(
                PerformInteraction(
                    initialText: "Drink?", interactionMode: .manualOnly, interactionChoiceSetIDList: [40], timeout: 5000))
            let ui = try #require(await hmi.next("UI.PerformInteraction"))
            let typed = try #require(ui.message).decode(UI.PerformInteraction.self).value
            #expect(typed.choiceSet?.map(\.menuName) == ["Coffee", "Tea"] && typed.initialText?.fieldText == "Drink?" && typed.timeout == 5000)
            try await hmi.respond(to: ui, .success, [.init(key: "choiceID", value: .integer(42))])
            let response = try await chosen
            #expect(response.success && response.choiceID == 42 && response.triggerSource == .menu)

            // The driver does not choose: the HMI says TIMED_OUT, and so does the app's answer.
            async let ignored = app.client.send(
                PerformInteraction(
                    initialText: "Drink?", interactionMode: .manualOnly, interactionChoiceSetIDList: [40], timeout: 5000))
            let again = try #require(await hmi.next("UI.PerformInteraction"))
            try await hmi.respond(to: again, .timedOut)
            let timedOut = try await ignored
            #expect(timedOut.resultCode == .timedOut && timedOut.success == false)
        }
    }

    @Test func vehicleDataIsTheHMIs() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, _) = try await Self.activeApp(hmi, emulator, appID: "car-app")
            // GetVehicleData: the HMI's VehicleInfo answers with the car's value.
            async let read = app.client.send(GetVehicleData(speed: true))
            let get = try #require(await hmi.next("VehicleInfo.GetVehicleData"))
            #expect(get.params["speed"] == .bool(true))
            try await hmi.respond(to: get, .success, [.init(key: "speed", value: .float(42.5))])
            let reading = try await read
            #expect(reading.success && reading.speed == 42.5)

            // The first subscriber of an item goes to the HMI; its OnVehicleData reaches the app.
            async let subscribed = app.client.send(SubscribeVehicleData(speed: true))
            let subscribe = try #require(await hmi.next("VehicleInfo.SubscribeVehicleData"))
            try await hmi.respond(
                to: subscribe, .success,
                [
                    .init(
                        key: "speed",
                        value: .object([.init(key: "dataType", value: .string("VEHICLEDATA_SPEED")), .init(key: "resultCode", value: .string("SUCCESS"))]))
                ])
            let subscription = try await subscribed
            #expect(subscription.success && subscription.speed?.resultCode == .success)
            let updates = app.client.notifications(OnVehicleData.self)
            try await hmi.notify(VehicleInfo.OnVehicleData(speed: 88.0))
            var heard = updates.makeAsyncIterator()
            #expect(await heard.next()?.speed == 88.0)
        }
    }

    @Test func buttonSubscriptionsAndLayoutsGoToTheHMI() async throws {
        try await Self.withReadyHMI { emulator, hmi in
            let (app, hmiAppID) = try await Self.activeApp(hmi, emulator, appID: "layout-app")
            async let subscribed = app.client.send(SubscribeButton(buttonName: .ok))
            let subscribe = try #require(await hmi.next("Buttons.SubscribeButton"))
            #expect(subscribe.params["buttonName"] == .string("OK") && subscribe.params["appID"] == .integer(hmiAppID))
            try await hmi.respond(to: subscribe, .success)
            #expect(try await subscribed.success)

            async let layout = app.client.send(SetDisplayLayout(displayLayout: "NON-MEDIA"))
            let set = try #require(await hmi.next("UI.SetDisplayLayout"))
            #expect(set.params["displayLayout"] == .string("NON-MEDIA"))
            try await hmi.respond(to: set, .rejected, [.init(key: "info", value: .string("not now"))])
            let response = try await layout
            #expect(response.resultCode == .rejected && response.info == "not now")

            // A widget: the HMI creates it (UI.CreateWindow); the app then hears its capability.
            async let created = app.client.send(CreateWindow(windowID: 2, windowName: "Gauge", type: .widget))
            let window = try #require(await hmi.next("UI.CreateWindow"))
            let typed = try #require(window.message).decode(UI.CreateWindow.self).value
            #expect(typed.windowID == 2 && typed.windowName == "Gauge" && typed.type == .widget && typed.appID == hmiAppID)
            try await hmi.respond(to: window, .success)
            #expect(try await created.success)
        }
    }

    @Test func twoComponentsCombineAsCore() {
        func combined(_ codes: Common.Result...) -> (Bool, SDLResult) {
            let outcome = SDLHeadUnitEmulator.combinedHMIResult(codes.map(\.code))
            return (outcome.success, outcome.resultCode)
        }
        // SDL Core's PrepareResultForMobileResponse and PrepareResultCodeForResponse.
        #expect(combined(.success, .unsupportedResource) == (true, .unsupportedResource))
        #expect(combined(.unsupportedResource, .success) == (true, .unsupportedResource))
        #expect(combined(.warnings, .success) == (true, .warnings))
        #expect(combined(.success, .rejected) == (false, .rejected))
        #expect(combined(.rejected, .aborted) == (false, .aborted))
        #expect(combined(.success) == (true, .success))
        #expect(combined(.unsupportedResource) == (true, .unsupportedResource))
    }
}
