import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// Where third-party apps and a differential run against SDL Core 8.2 found the emulator
/// answering differently: app identity and names, the RPC version answered, DISPLAYS updates,
/// widgets, SetDisplayLayout from 6.0, unknown function IDs.
@Suite(.timeLimit(.minutes(1))) struct IdentityAndNameTests {
    @Test func appsAreKeyedByFullAppID() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "1234567890", name: "One", fullAppID: "1234567890-aaaa")
        let second = try await TestApp.register(to: headUnit, appID: "1234567890", name: "Two", fullAppID: "1234567890-bbbb")
        #expect(first.registration.success && second.registration.success)
        #expect(await headUnit.registeredApps().map(\.appID).sorted() == ["1234567890-aaaa", "1234567890-bbbb"])
        await first.close()
        await second.close()
    }

    @Test func aNameAnotherAppHasIsDuplicateAndEndsTheSession() async throws {
        let headUnit = TestApp.headUnit()
        let music = try await TestApp.register(to: headUnit, appID: "music", name: "Music", vrSynonyms: ["Tunes"])
        for (appID, name, synonyms) in [("a", "MUSIC", nil), ("b", "Tunes", nil), ("c", "Radio", ["music"])] as [(String, String, [String]?)] {
            let clash = try await TestApp.register(to: headUnit, appID: appID, name: name, activate: false, vrSynonyms: synonyms)
            #expect(clash.registration.resultCode == .duplicateName, "\(name)")
            #expect(clash.registration.info == nil)
            // SDL Core ends the session after the answer: the client's run ends.
            await #expect(throws: (any Error).self) { try await clash.running.value }
        }
        #expect(await headUnit.registeredApps().map(\.appID) == ["music"])
        await music.close()
    }

    /// Over TCP the answer must leave before the connection closes: Core sends the refused
    /// registration's response first, then ends the session (it used to be lost in the close).
    @Test func aRefusedRegistrationIsAnsweredOverTCPBeforeTheSessionEnds() async throws {
        let headUnit = TestApp.headUnit()
        let listener = try await SDLTCPListener.bind(host: "127.0.0.1", port: 0)
        let serving = Task { try await listener.run { transport in await headUnit.serve(transport) } }
        defer { serving.cancel() }
        let music = try await TestApp.register(
            to: headUnit, appID: "music", name: "Music", activate: false,
            over: try await SDLChannelTransport.connect(host: "127.0.0.1", port: listener.port))
        #expect(music.registration.success)
        for (appID, name, types) in [("dup", "music", nil), ("web", "Browser", [AppHMIType.webView]), ("nl", "Two\nLines", nil)] {
            let refused = try await TestApp.register(
                to: headUnit, appID: appID, name: name, types: types, activate: false,
                over: try await SDLChannelTransport.connect(host: "127.0.0.1", port: listener.port))
            #expect(refused.registration.resultCode == [.duplicateName, .disallowed, .invalidData][["dup", "web", "nl"].firstIndex(of: appID)!])
            await #expect(throws: (any Error).self) { try await refused.running.value }
        }
        #expect(await headUnit.registeredApps().map(\.appID) == ["music"])
        await music.close()
        await listener.close()
    }

    @Test func changeRegistrationToAnotherAppsNameIsDuplicateAndTheSessionStays() async throws {
        let headUnit = TestApp.headUnit()
        let music = try await TestApp.register(to: headUnit, appID: "music", name: "Music")
        let news = try await TestApp.register(to: headUnit, appID: "news", name: "News")
        let renamed = try await news.client.send(ChangeRegistration(language: .enUs, hmiDisplayLanguage: .enUs, appName: "music"))
        #expect(renamed.resultCode == .duplicateName)
        #expect(try await news.client.send(ChangeRegistration(language: .enUs, hmiDisplayLanguage: .enUs, appName: "Headlines")).resultCode == .success)
        await music.close()
        await news.close()
    }

    @Test func appTypesThePolicyDoesNotAllow() async throws {
        let headUnit = TestApp.headUnit()
        let web = try await TestApp.register(to: headUnit, appID: "web", name: "Web", types: [.webView], activate: false)
        #expect(web.registration.resultCode == .disallowed)
        #expect(web.registration.info == "WEB_VIEW AppHmiType is absent in application policies, because they are empty")

        var policy = SDLHeadUnitPolicy.sdlCoreDefault
        policy.appHMITypes["nav"] = [.default]
        await headUnit.setPolicy(policy)
        let nav = try await TestApp.register(to: headUnit, appID: "nav", name: "Nav", types: [.navigation], activate: false)
        #expect(nav.registration.success)
        #expect(nav.registration.resultCode == .warnings)
        #expect(nav.registration.info == "Following AppHmiTypes are not present in policy table:NAVIGATION,")
        await nav.close()
    }

    @Test func theRPCVersionSDLCoreAnswers() async throws {
        let headUnit = TestApp.headUnit()
        for (major, minor, expected) in [(4, 5, "4.5.1"), (2, 0, "4.5.1"), (6, 2, "6.2.0"), (8, 0, "8.0.0"), (9, 1, "8.0.0")] {
            let app = try await TestApp.register(
                to: headUnit, appID: "v\(major)\(minor)", name: "V\(major)\(minor)", activate: false,
                version: SyncMsgVersion(majorVersion: major, minorVersion: minor, patchVersion: 0))
            let version = try #require(app.registration.syncMsgVersion)
            #expect("\(version.majorVersion).\(version.minorVersion).\(version.patchVersion ?? 0)" == expected)
            await app.close()
        }
    }

    @Test func anUnknownFunctionIsUnsupportedUnderItsOwnID() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let reply = try await app.client.sendRaw(functionName: "Nonsense", functionID: 0x0ABC_DEF, json: Array("{}".utf8))
        #expect(reply.payload.functionID == 0x0ABC_DEF)
        #expect(try SDLJSON.decode(GenericResponse.self, from: reply.payload.json).value.resultCode == .unsupportedRequest)
        await app.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct DisplaysAndWindowsTests {
    @Test func aTemplateChangeTellsTheAppItsWindowUnasked() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        var updates = app.client.notifications(OnSystemCapabilityUpdated.self).makeAsyncIterator()
        let show = try await app.client.send(Show(mainField1: "Hi", templateConfiguration: TemplateConfiguration(template: "NON-MEDIA")))
        #expect(show.success)
        let update = try #require(await updates.next())
        #expect(update.systemCapability.systemCapabilityType == .displays)
        let display = try #require(update.systemCapability.displayCapabilities?.first)
        let windows = try #require(display.windowCapabilities)
        #expect(windows.map { $0.windowID ?? 0 } == [0])
        #expect(windows[0].menuLayoutsAvailable == [.list, .tiles])
        #expect(windows[0].keyboardCapabilities?.maskInputCharactersSupported == true)
        #expect(windows[0].dynamicUpdateCapabilities != nil)
        #expect(await headUnit.requestsReceived(from: app.appID).contains("GetSystemCapability") == false)
        await app.close()
    }

    @Test func widgetsStartInNoneAndTheDriverShowsThem() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        var updates = app.client.notifications(OnSystemCapabilityUpdated.self).makeAsyncIterator()
        #expect(try await app.client.send(CreateWindow(windowID: 2, windowName: "Now playing", type: .widget)).success)
        let created = try #require(await app.status { $0.windowID == 2 })
        #expect(created.hmiLevel == .none)
        let update = try #require(await updates.next())
        #expect(update.systemCapability.displayCapabilities?.first?.windowCapabilities?.map { $0.windowID ?? 0 } == [2])
        #expect(try await app.client.send(Show(mainField1: "x", windowID: 2)).resultCode == .disallowed)
        #expect(try await app.client.send(Show(mainField1: "x", windowID: 7)).resultCode == .invalidId)
        #expect(try await app.client.send(CreateWindow(windowID: 2, windowName: "Again", type: .widget)).resultCode == .invalidId)
        #expect(try await app.client.send(CreateWindow(windowID: 3, windowName: "Now playing", type: .widget)).resultCode == .duplicateName)
        #expect(try await app.client.send(DeleteWindow(windowID: 0)).resultCode == .invalidId)

        #expect(try await ControlClient.with(headUnit) { try await $0.handle(method: "POST", path: "/apps/\(app.appID)/windows/2/show") }.status == 200)
        #expect(await app.status { $0.windowID == 2 && $0.hmiLevel == .full } != nil)
        #expect(try await app.client.send(Show(mainField1: "x", windowID: 2)).success)
        await app.close()
    }

    @Test func setDisplayLayoutFromSixOnWarnsAndRefusesNewColoursForTheSameLayout() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let layout = try await app.client.send(SetDisplayLayout(displayLayout: "NON-MEDIA"))
        #expect(layout.success)
        #expect(layout.resultCode == .warnings)
        #expect(layout.info?.hasPrefix("The RPC is deprecated") == true)
        let recoloured = try await app.client.send(
            SetDisplayLayout(
                displayLayout: "NON-MEDIA", dayColorScheme: TemplateColorScheme(primaryColor: RGBColor(red: 1, green: 2, blue: 3))))
        #expect(recoloured.resultCode == .rejected)
        await app.close()

        let old = try await TestApp.register(
            to: headUnit, appID: "old", name: "Old", version: SyncMsgVersion(majorVersion: 5, minorVersion: 0, patchVersion: 0))
        #expect(try await old.client.send(SetDisplayLayout(displayLayout: "NON-MEDIA")).resultCode == .success)
        await old.close()
    }

    /// As SDL's HMI (sdl_hmi's isTemplateSupported) decides: each app type its templates,
    /// announced to it, and a change to another REJECTED with sdl_hmi's words.
    @Test func templatesAreTheAppTypes() async throws {
        let headUnit = TestApp.headUnit()
        let plain = try await TestApp.register(to: headUnit, appID: "plain", name: "Plain")
        #expect(plain.registration.displayCapabilities?.templatesAvailable == ["DEFAULT", "NON-MEDIA"])
        let refused = try await plain.client.send(Show(mainField1: "x", templateConfiguration: TemplateConfiguration(template: "GRAPHIC_WITH_TEXT")))
        #expect(!refused.success && refused.resultCode == .rejected)
        #expect(refused.info == "The requested layout is not supported for this app type")
        #expect(try await plain.client.send(Show(templateConfiguration: TemplateConfiguration(template: "MEDIA"))).resultCode == .rejected)
        #expect(try await plain.client.send(SetDisplayLayout(displayLayout: "MEDIA")).resultCode == .rejected)
        #expect(try await plain.client.send(Show(templateConfiguration: TemplateConfiguration(template: "NON-MEDIA"))).success)

        let music = try await TestApp.register(to: headUnit, appID: "music", name: "Music", media: true)
        #expect(music.registration.displayCapabilities?.templatesAvailable == ["DEFAULT", "MEDIA", "NON-MEDIA", "ONSCREEN_PRESETS"])
        #expect(try await music.client.send(Show(templateConfiguration: TemplateConfiguration(template: "ONSCREEN_PRESETS"))).success)
        let nav = try await TestApp.register(to: headUnit, appID: "nav", name: "Nav", types: [.navigation])
        let window = try await nav.client.send(GetSystemCapability(systemCapabilityType: .displays))
        #expect(
            window.systemCapability?.displayCapabilities?.first?.windowCapabilities?.first?.templatesAvailable
                == ["DEFAULT", "NON-MEDIA", "NAV_FULLSCREEN_MAP"])
        #expect(try await nav.client.send(Show(templateConfiguration: TemplateConfiguration(template: "NAV_FULLSCREEN_MAP"))).success)
        for app in [plain, music, nav] { await app.close() }

        // Core's stand-in HMI accepts any template the display lists.
        var configuration = SDLHeadUnitEmulator.Configuration.sdlCoreDefaults
        configuration.activationDelay = nil
        let standIn = SDLHeadUnitEmulator(configuration: configuration)
        let any = try await TestApp.register(to: standIn, appID: "any")
        #expect(try await any.client.send(Show(mainField1: "x", templateConfiguration: TemplateConfiguration(template: "GRAPHIC_WITH_TEXT"))).success)
        await any.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct FilesServicesAndStreamingAppTests {
    @Test func fileNamesThatClimbOutAndGetFile() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(try await app.client.send(PutFile(syncFileName: "../etc/passwd", fileType: .binary), bulkData: [1]).resultCode == .invalidData)
        #expect(try await app.client.send(GetFile(fileName: "missing.png")).resultCode == .fileNotFound)
        _ = try await app.client.send(PutFile(syncFileName: "notes.txt", fileType: .json), bulkData: Array("hello".utf8))
        let reply = try await app.client.sendRaw(
            functionName: "GetFile", functionID: GetFile.wireFunctionID ?? 0, json: try SDLJSON.encode(GetFile(fileName: "notes.txt")))
        let file = try SDLJSON.decode(GetFileResponse.self, from: reply.payload.json).value
        #expect(file.resultCode == .success)
        #expect(reply.payload.bulkData == Array("hello".utf8))
        // With its bytes it comes on the hybrid service, as SDL Core sends a message with binary data.
        #expect(reply.serviceType == .hybrid)
        #expect(file.crc == Int(SDLCRC32.checksum(Array("hello".utf8))))
        // No OnHashChange after PutFile (SDL Core's list of resumption changes leaves files out).
        #expect(await headUnit.sentToApp(app.appID).contains("OnHashChange") == false)
        await app.close()
    }

    @Test func aSecondPublishOfATypeUpdatesTheManifest() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        var updates = app.client.notifications(OnSystemCapabilityUpdated.self).makeAsyncIterator()
        _ = try await app.client.send(GetSystemCapability(systemCapabilityType: .appServices, subscribe: true))
        let first = try await app.client.send(PublishAppService(appServiceManifest: AppServiceManifest(serviceName: "Sky", serviceType: "WEATHER")))
        let second = try await app.client.send(PublishAppService(appServiceManifest: AppServiceManifest(serviceName: "Sky 2", serviceType: "WEATHER")))
        #expect(second.success)
        #expect(second.appServiceRecord?.serviceID == first.appServiceRecord?.serviceID)
        var reasons: [ServiceUpdateReason] = []
        while reasons.last != .manifestUpdate, let update = await updates.next() {
            reasons += update.systemCapability.appServicesCapabilities?.appServices?.compactMap(\.updateReason) ?? []
        }
        #expect(reasons.last == .manifestUpdate)
        let unknown = try await app.client.send(UnpublishAppService(serviceID: "nope"))
        #expect(unknown.resultCode == .invalidId)
        #expect(unknown.info == "No app service with the requested service ID was published by this application")
        await app.close()
    }

    @Test func requestsForOtherKindsOfApps() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let haptic = try await app.client.send(SendHapticData(hapticRectData: []))
        #expect(haptic.resultCode == .disallowed)
        #expect(haptic.info == "Application is not of type Navigation or Mobile Projection")
        #expect(try await app.client.send(GetSystemCapability(systemCapabilityType: .remoteControl)).resultCode == .disallowed)
        let cloud = try await app.client.send(GetCloudAppProperties(appID: "nowhere"))
        #expect(cloud.resultCode == .dataNotAvailable)
        #expect(cloud.info == "Cloud app does not exist on module")
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        #expect(try await nav.client.send(SendHapticData(hapticRectData: [HapticRect(id: 1, rect: SDLRectangle(x: 0, y: 0, width: 10, height: 10))])).success)
        await app.close()
        await nav.close()
    }
}

/// SDL Core's own consistency checks: answered at once, before anything waits for the driver.
@Suite(.timeLimit(.minutes(1))) struct CoreCheckTests {
    static func answer(_ app: TestApp, _ type: (some SDLRequest).Type, _ json: String) async throws -> GenericResponse {
        let reply = try await app.client.sendRaw(functionName: type.functionName, functionID: type.wireFunctionID ?? 0, json: Array(json.utf8))
        return try SDLJSON.decode(GenericResponse.self, from: reply.payload.json, policy: .lenient).value
    }

    @Test func requestsTheSpecAllowsButCoreRefuses() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, media: true, types: [.media, .navigation])
        let cases: [(any SDLRequest.Type, String, SDLResult)] = [
            (GetVehicleData.self, #"{}"#, .invalidData),
            (SubscribeVehicleData.self, #"{"speed":false}"#, .invalidData),
            (AlertManeuver.self, #"{}"#, .invalidData),
            (ShowConstantTBT.self, #"{"navigationText1":"Turn\nleft"}"#, .invalidData),
            (Show.self, #"{"softButtons":[{"type":"TEXT","softButtonID":1}]}"#, .invalidData),
            (SubtleAlert.self, #"{"alertText1":"Hi","softButtons":[{"type":"TEXT","softButtonID":1}]}"#, .invalidData),
            (ChangeRegistration.self, #"{"language":"EN-US","hmiDisplayLanguage":"EN-US","appName":"Head\nlines"}"#, .invalidData),
            (ChangeRegistration.self, #"{"language":"EN-US","hmiDisplayLanguage":"EN-US","ttsName":[{"text":"a\tb","type":"TEXT"}]}"#, .invalidData),
            (SendLocation.self, #"{"latitudeDegrees":42.3}"#, .invalidData),
            (SetMediaClockTimer.self, #"{"updateMode":"COUNTUP"}"#, .invalidData),
            (SDLSlider.self, #"{"numTicks":3,"position":4,"sliderHeader":"Pick"}"#, .invalidData),
            (SDLSlider.self, #"{"numTicks":3,"position":1,"sliderHeader":"Pick","sliderFooter":["a","b"]}"#, .invalidData),
            (CancelInteraction.self, #"{"functionID":13}"#, .invalidId),
            (SetGlobalProperties.self, #"{"vrHelp":[{"text":"Play","position":1}]}"#, .rejected),
            (
                PerformAudioPassThru.self,
                #"{"audioPassThruDisplayText1":"Say\\tit","samplingRate":"16KHZ","maxDuration":1000,"bitsPerSample":"16_BIT","audioType":"PCM"}"#, .invalidData
            ),
            (
                CreateInteractionChoiceSet.self,
                #"{"interactionChoiceSetID":1,"choiceSet":[{"choiceID":1,"menuName":"A","vrCommands":["a"]},{"choiceID":2,"menuName":"B"}]}"#, .invalidData
            ),
            (
                CreateInteractionChoiceSet.self,
                #"{"interactionChoiceSetID":2,"choiceSet":[{"choiceID":3,"menuName":"A","vrCommands":["go"]},{"choiceID":4,"menuName":"B","vrCommands":["Go"]}]}"#,
                .duplicateName
            ),
        ]
        for (type, json, expected) in cases {
            let answer = try await Self.answer(app, type, json)
            #expect(answer.resultCode == expected, "\(type.functionName) \(json): \(answer.resultCode) \(answer.info ?? "")")
        }
        // A set without voice commands cannot be used by voice; naming a set twice is INVALID_ID; an empty initial text is INVALID_DATA.
        _ = try await Self.answer(app, CreateInteractionChoiceSet.self, #"{"interactionChoiceSetID":3,"choiceSet":[{"choiceID":5,"menuName":"C"}]}"#)
        let voice = try await Self.answer(app, PerformInteraction.self, #"{"initialText":"Pick","interactionMode":"VR_ONLY","interactionChoiceSetIDList":[3]}"#)
        #expect(voice.resultCode == .invalidData)
        let twice = try await Self.answer(
            app, PerformInteraction.self, #"{"initialText":"Pick","interactionMode":"MANUAL_ONLY","interactionChoiceSetIDList":[3,3]}"#)
        #expect(twice.resultCode == .invalidId)
        let empty = try await Self.answer(
            app, PerformInteraction.self, #"{"initialText":" ","interactionMode":"MANUAL_ONLY","interactionChoiceSetIDList":[3]}"#)
        #expect(empty.resultCode == .invalidData)
        // A name with a newline cannot register.
        let newline = try await TestApp.register(to: headUnit, appID: "nl", name: "Two\nLines", activate: false)
        #expect(newline.registration.resultCode == .invalidData)
        await app.close()
    }
}

/// Vehicle data as SDL Core sends it: the spec's response names, a value in every field, items
/// that change together in one notification.
@Suite(.timeLimit(.minutes(1))) struct VehicleDataAsCoreSendsItTests {
    /// Whether any object inside `value` is empty.
    static func hasEmptyObject(_ value: SDLJSONValue) -> Bool {
        switch value {
        case .object(let members): members.isEmpty || members.contains { hasEmptyObject($0.value) }
        case .array(let items): items.contains(where: hasEmptyObject)
        default: false
        }
    }

    @Test func everyItemHasAValueInEveryFieldAndEverySubscriptionAnswersInTheSpecsNames() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let items = SDLSimulatedVehicle.itemNames
        let all = SDLJSONValue.object(items.map { .init(key: $0, value: .bool(true)) })
        let reply = try await app.client.sendRaw(functionName: "GetVehicleData", functionID: GetVehicleData.wireFunctionID ?? 0, json: all.jsonBytes)
        let values = try SDLJSON.decode(GetVehicleDataResponse.self, from: reply.payload.json)
        #expect(values.warnings.isEmpty && values.unknownKeys.isEmpty)
        let json = try SDLJSONValue(parsing: reply.payload.json)
        for item in items {
            let value = try #require(json[item], "\(item)")
            #expect(!Self.hasEmptyObject(value), "\(item): \(value.jsonString)")
        }
        let subscribeItems = SubscribeVehicleData.structInfo.parameters.map(\.name)
        let subscribeAll = SDLJSONValue.object(subscribeItems.map { .init(key: $0, value: .bool(true)) })
        let subscribed = try await app.client.sendRaw(
            functionName: "SubscribeVehicleData", functionID: SubscribeVehicleData.wireFunctionID ?? 0, json: subscribeAll.jsonBytes)
        let results = try SDLJSON.decode(SubscribeVehicleDataResponse.self, from: subscribed.payload.json)
        #expect(results.unknownKeys.isEmpty, "\(results.unknownKeys)")
        #expect(results.value.clusterModes?.resultCode == .success)
        let answered = try SDLJSONValue(parsing: subscribed.payload.json)
        let names = Set(SubscribeVehicleDataResponse.structInfo.parameters.map(\.name))
        guard case .object(let members) = answered else {
            Issue.record("not an object")
            return
        }
        #expect(members.allSatisfy { names.contains($0.key) })
        #expect(members.count == subscribeItems.count + 2)  // success and resultCode beside one result per item
        await app.close()
    }

    @Test func itemsThatChangeTogetherArriveInOneNotification() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(SubscribeVehicleData(speed: true, rpm: true))
        var updates = app.client.notifications(OnVehicleData.self).makeAsyncIterator()
        try await headUnit.setVehicleData(
            .object([.init(key: "speed", value: .float(88.0)), .init(key: "rpm", value: .integer(3_000)), .init(key: "odometer", value: .integer(1))]))
        let update = try #require(await updates.next())
        #expect(update.speed == 88.0 && update.rpm == 3_000 && update.odometer == nil)
        await app.close()
    }
}

/// The driver's new controls: touches, the keyboard mask, a choice by voice, driver distraction.
@Suite(.timeLimit(.minutes(1))) struct DriverControlTests {
    @Test func touchesReachANavigationAppInFullWhosePolicyGrantsThem() async throws {
        let headUnit = TestApp.headUnit()
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        // SDL Core's default group has no OnTouchEvent.
        #expect(try await headUnit.touch(appID: "nav", .begin, [.init(x: 10, y: 20)]) == false)
        await headUnit.setPolicy(SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: "nav"))
        var touches = nav.client.notifications(OnTouchEvent.self).makeAsyncIterator()
        #expect(try await headUnit.touch(appID: "nav", .begin, [.init(x: 10, y: 20)]))
        #expect(try await headUnit.touch(appID: "nav", .move, [.init(x: 15, y: 25)]))
        let begin = try #require(await touches.next())
        #expect(begin.type == .begin)
        #expect(begin.event.first?.c.first == TouchCoord(x: 10, y: 20))
        #expect(await touches.next()?.event.first?.c.first == TouchCoord(x: 15, y: 25))
        // Not a video app: nothing.
        let plain = try await TestApp.register(to: headUnit, appID: "plain")
        #expect(try await headUnit.touch(appID: "plain", .begin, [.init(x: 1, y: 1)]) == false)
        await nav.close()
        await plain.close()
    }

    @Test func aVoiceChoiceAndTheKeyboardMask() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let events = headUnit.events()
        _ = try await app.client.send(
            CreateInteractionChoiceSet(interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 7, menuName: "Home", vrCommands: ["home"])]))
        async let picked = app.client.send(PerformInteraction(initialText: "Where?", interactionMode: .both, interactionChoiceSetIDList: [1]))
        await Wait.interaction(events)
        try await headUnit.answerInteraction(appID: app.appID, .voiceChoice(7))
        let answer = try await picked
        #expect(answer.choiceID == 7 && answer.triggerSource == .vr)

        var inputs = app.client.notifications(OnKeyboardInput.self).makeAsyncIterator()
        async let typed = app.client.send(
            PerformInteraction(initialText: "Name?", interactionMode: .manualOnly, interactionChoiceSetIDList: [], interactionLayout: .keyboard))
        await Wait.interaction(events)
        try await headUnit.setKeyboardMasked(appID: app.appID, true)
        #expect(await inputs.next()?.event == .inputKeyMaskEnabled)
        try await headUnit.answerInteraction(appID: app.appID, .cancel)
        _ = try await typed
        await app.close()
    }

    @Test func driverDistractionReachesEveryApp() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        var states = app.client.notifications(OnDriverDistraction.self).makeAsyncIterator()
        await headUnit.setDriverDistraction(true)
        #expect(await states.next()?.state == .ddOn)
        await app.close()
    }
}

/// `--log`: a message sent in several frames is decoded once whole; a session that ends
/// normally is not an error.
@Suite(.timeLimit(.minutes(1))) struct WireLogTests {
    @Test func multiFrameMessagesAreLoggedWholeAndANormalEndIsNoError() async throws {
        let lines = Locked<[SDLJSONValue]>([])
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        configuration.log = { line in lines.withLock { $0.append(line) } }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(PutFile(syncFileName: "big.bin", fileType: .binary), bulkData: Array(repeating: 7, count: 300_000))
        await app.close()
        for await event in events { if case .appUnregistered = event { break } }
        try await until { lines.withLock { $0.contains { $0["event"] != nil } } }
        let logged = lines.withLock { $0 }
        let whole = logged.filter { $0["message"] == .bool(true) }
        #expect(whole.contains { $0["name"] == .string("PutFile") && $0["direction"] == .string("in") && $0["bulkDataSize"] == .integer(300_000) })
        #expect(!logged.contains { $0["event"] == .string("error") }, "\(logged.filter { $0["event"] != nil })")
    }
}
