import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// HMI levels across apps, and state that stays with its app.
@Suite(.timeLimit(.minutes(1))) struct HMILevelTests {
    @Test func activatingAnotherAppMovesMediaToLimitedAndOthersToBackground() async throws {
        let headUnit = TestApp.headUnit()
        let music = try await TestApp.register(to: headUnit, appID: "music", media: true, activate: false)
        let notes = try await TestApp.register(to: headUnit, appID: "notes", activate: false)
        let weather = try await TestApp.register(to: headUnit, appID: "weather", activate: false)
        #expect(await music.status { _ in true }?.hmiLevel == HMILevel.none)
        try await headUnit.activate(appID: "music")
        #expect(await music.status { $0.hmiLevel == .full }?.audioStreamingState == .audible)
        try await headUnit.activate(appID: "notes")
        #expect(await music.status { $0.hmiLevel != .full }?.hmiLevel == .limited)
        #expect(await notes.status { $0.hmiLevel == .full }?.audioStreamingState == .notAudible)
        try await headUnit.activate(appID: "weather")
        #expect(await notes.status { $0.hmiLevel != .full && $0.hmiLevel != .none }?.hmiLevel == .background)
        try await headUnit.exit(appID: "weather")
        #expect(await weather.status { $0.hmiLevel == .none } != nil)
        let levels = Dictionary(uniqueKeysWithValues: await headUnit.registeredApps().map { ($0.appID, $0.hmiLevel) })
        #expect(levels == ["music": .limited, "notes": .background, "weather": HMILevel.none])
        for app in [music, notes, weather] { await app.close() }
    }

    @Test func oneAppsMenuNeverReachesAnother() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "a")
        let second = try await TestApp.register(to: headUnit, appID: "b")
        #expect(try await first.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"))).success)
        // The same ID is free in the other app.
        #expect(try await second.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Stop"))).success)
        let firstMenu = try await headUnit.screen(appID: "a")["menu"]?["commands"]
        #expect(firstMenu == .array([try SDLJSONValue(parsing: #"{"cmdID":1,"menuParams":{"menuName":"Play"}}"#)]))
        await first.close()
        await second.close()
    }

    @Test func unknownAppsAreAControlError() async {
        let headUnit = TestApp.headUnit()
        await #expect(throws: SDLHeadUnitControlError.unknownApp("nope")) { try await headUnit.activate(appID: "nope") }
    }
}

/// Registration as SDL Core answers it.
@Suite(.timeLimit(.minutes(1))) struct RegistrationTests {
    @Test func afterRegistrationComeSDLCoresNotificationsInOrder() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, activate: false)
        let sent = await headUnit.recordedRPCs(appID: app.appID).filter { $0.direction == "out" }
        #expect(
            Array(sent.prefix(6).map(\.functionName)) == [
                "RegisterAppInterface", "OnHMIStatus", "OnPermissionsChange", "OnSystemRequest", "OnDriverDistraction", "OnDriverDistraction",
            ])
        // As in both recorded SDL Core sessions: dismissal enabled with Core's warning, then disabled.
        let distractions = sent.filter { $0.functionName == "OnDriverDistraction" }.compactMap(\.parameters)
        #expect(distractions.map { $0["state"] } == [.string("DD_OFF"), .string("DD_OFF")])
        #expect(distractions.map { $0["lockScreenDismissalEnabled"] } == [.bool(true), .bool(false)])
        #expect(
            distractions.map { $0["lockScreenDismissalWarning"] } == [
                .string("Swipe down to dismiss, acknowledging that you are not the driver"), nil,
            ])
        await app.close()
    }

    @Test func anotherLanguageIsSuccessWithWrongLanguage() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, language: .deDe)
        #expect(app.registration.success)
        #expect(app.registration.resultCode == .wrongLanguage)
        #expect(app.registration.language == .enUs)
        await app.close()
    }

    @Test func anUnknownHashIsResumeFailed() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, hashID: "0123456789abcdef0123456789abcdef")
        #expect(app.registration.success)
        #expect(app.registration.resultCode == .resumeFailed)
        #expect(app.registration.info == "Hash from RAI does not match to saved resume data.")
        await app.close()
    }

    @Test func theSameAppIDTwiceIsRefused() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "same")
        let second = try await TestApp.register(to: headUnit, appID: "same", activate: false)
        #expect(!second.registration.success)
        #expect(second.registration.resultCode == .applicationRegisteredAlready)
        await first.close()
        await second.close()
    }

    @Test func anUnknownFunctionIsUnsupportedAndBadDataInvalid() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let reply = try await app.client.sendRaw(functionName: "Nonsense", functionID: 0x0ABC_DEF, json: Array("{}".utf8))
        let unknown = try SDLJSON.decode(GenericResponse.self, from: reply.payload.json).value
        #expect(unknown.info == "Module does not recognize this function id")
        // Wrong types and malformed JSON: INVALID_DATA, and the session goes on.
        let wrongType = try await app.client.sendRaw(functionName: "Show", functionID: 13, json: Array(#"{"mainField1":5}"#.utf8))
        #expect(try SDLJSON.decode(ShowResponse.self, from: wrongType.payload.json).value.resultCode == .invalidData)
        let malformed = try await app.client.sendRaw(functionName: "Show", functionID: 13, json: Array(#"{"mainField1":"#.utf8))
        #expect(try SDLJSON.decode(ShowResponse.self, from: malformed.payload.json).value.resultCode == .invalidData)
        // Out of range: a string over its maxlength, a number past its maximum.
        let long = try await app.client.sendRaw(
            functionName: "Show", functionID: 13, json: Array("{\"mainField1\":\"\(String(repeating: "x", count: 501))\"}".utf8))
        #expect(try SDLJSON.decode(ShowResponse.self, from: long.payload.json).value.resultCode == .invalidData)
        let slider = try await app.client.sendRaw(functionName: "Slider", functionID: 26, json: Array(#"{"numTicks":99,"position":1,"sliderHeader":"x"}"#.utf8))
        #expect(try SDLJSON.decode(SliderResponse.self, from: slider.payload.json).value.resultCode == .invalidData)
        #expect(try await app.client.send(ListFiles()).success)
        await app.close()
    }

    @Test func everyRPCInAndOutIsRecorded() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(Show(mainField1: "Hi"))
        let recorded = await headUnit.recordedRPCs(appID: "1234")
        #expect(recorded.first?.functionName == "RegisterAppInterface")
        #expect(recorded.first?.direction == "in")
        #expect(recorded.contains { $0.direction == "out" && $0.functionName == "OnHMIStatus" })
        #expect(await headUnit.requestsReceived(from: "1234") == ["RegisterAppInterface", "Show"])
        #expect(recorded.last?.json["params"]?["resultCode"] == .string("SUCCESS"))
        await app.close()
    }
}
