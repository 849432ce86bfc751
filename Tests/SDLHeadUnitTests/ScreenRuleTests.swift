import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Menus, choice sets, buttons and the media clock with SDL Core's answers (SDLHeadUnit's article "Screen, menus and windows").
@Suite(.timeLimit(.minutes(1))) struct MenuRuleTests {
    @Test func commandAndSubMenuIDsFollowSDLCore() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let client = app.client
        let hashes = client.notifications(OnHashChange.self)
        #expect(try await client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"), vrCommands: ["play"])).resultCode == .success)
        var hashIterator = hashes.makeAsyncIterator()
        let hash = await hashIterator.next()
        #expect(hash?.hashID.count == 32)
        #expect(try await client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Again"))).resultCode == .invalidId)
        #expect(try await client.send(AddCommand(cmdID: 2, menuParams: MenuParams(parentID: 99, menuName: "Orphan"))).resultCode == .invalidId)
        #expect(try await client.send(AddCommand(cmdID: 3, menuParams: MenuParams(menuName: "Other"), vrCommands: ["Play"])).resultCode == .duplicateName)
        // A repeated menuName is accepted.
        #expect(try await client.send(AddCommand(cmdID: 4, menuParams: MenuParams(menuName: "Play"))).resultCode == .success)
        #expect(try await client.send(DeleteCommand(cmdID: 42)).resultCode == .invalidId)
        #expect(try await client.send(AddSubMenu(menuID: 10, menuName: "More")).resultCode == .success)
        #expect(try await client.send(AddSubMenu(menuID: 10, menuName: "More again")).resultCode == .invalidId)
        #expect(try await client.send(AddCommand(cmdID: 5, menuParams: MenuParams(parentID: 10, menuName: "Inside"))).resultCode == .success)
        #expect(try await client.send(DeleteSubMenu(menuID: 10)).resultCode == .success)
        #expect(try await client.send(DeleteSubMenu(menuID: 10)).resultCode == .invalidId)
        // The sub-menu took its command with it.
        #expect(try await client.send(DeleteCommand(cmdID: 5)).resultCode == .invalidId)
        let commands = try await headUnit.screen(appID: app.appID)["menu"]?["commands"]
        guard case .array(let remaining)? = commands else {
            Issue.record("no menu")
            return
        }
        #expect(remaining.map { $0["cmdID"] } == [.integer(1), .integer(4)])
        await app.close()
    }

    @Test func choiceSetIDsFollowSDLCore() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let set = CreateInteractionChoiceSet(interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 7, menuName: "Seven")])
        #expect(try await app.client.send(set).resultCode == .success)
        #expect(try await app.client.send(set).resultCode == .invalidId)
        // A choiceID used in another set is accepted.
        #expect(
            try await app.client.send(CreateInteractionChoiceSet(interactionChoiceSetID: 2, choiceSet: [Choice(choiceID: 7, menuName: "Seven")])).resultCode
                == .success)
        #expect(try await app.client.send(DeleteInteractionChoiceSet(interactionChoiceSetID: 3)).resultCode == .invalidId)
        #expect(try await app.client.send(DeleteInteractionChoiceSet(interactionChoiceSetID: 2)).resultCode == .success)
        await app.close()
    }

    @Test func theMenuIsOnTopUntilClosedOrUsed() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        _ = try await app.client.send(AddCommand(cmdID: 3, menuParams: MenuParams(menuName: "Three")))
        #expect(try await app.client.send(ShowAppMenu(menuID: 99)).resultCode == .invalidId)
        #expect(try await app.client.send(ShowAppMenu()).resultCode == .success)
        #expect(await app.status { $0.systemContext == .menu } != nil)
        #expect(try await headUnit.screen(appID: app.appID)["onTop"]?["kind"] == .string("menu"))
        try await headUnit.selectCommand(appID: app.appID, cmdID: 3)
        #expect(await app.status { $0.systemContext == .main } != nil)
        _ = try await app.client.send(ShowAppMenu())
        try await headUnit.answerInteraction(appID: app.appID, .dismiss)
        #expect(try await headUnit.screen(appID: app.appID)["systemContext"] == .string("MAIN"))
        await app.close()
    }

    @Test func selectingACommandSendsOnCommand() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let commands = app.client.notifications(OnCommand.self)
        _ = try await app.client.send(AddCommand(cmdID: 3, menuParams: MenuParams(menuName: "Three")))
        try await headUnit.selectCommand(appID: app.appID, cmdID: 3)
        var iterator = commands.makeAsyncIterator()
        let command = await iterator.next()
        #expect(command?.cmdID == 3)
        #expect(command?.triggerSource == .menu)
        await #expect(throws: SDLHeadUnitControlError.unknownCommand(4)) { try await headUnit.selectCommand(appID: app.appID, cmdID: 4) }
        await app.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct ButtonRuleTests {
    @Test func subscriptionsFollowSDLCore() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(try await app.client.send(SubscribeButton(buttonName: .ok)).resultCode == .success)
        #expect(try await app.client.send(SubscribeButton(buttonName: .ok)).resultCode == .ignored)
        #expect(try await app.client.send(UnsubscribeButton(buttonName: .preset1)).resultCode == .ignored)
        // Media buttons are for media apps.
        #expect(try await app.client.send(SubscribeButton(buttonName: .seekleft)).resultCode == .rejected)
        #expect(try await app.client.send(SetMediaClockTimer(updateMode: .clear)).resultCode == .rejected)
        await app.close()
    }

    @Test func aPressReachesTheSubscribedAppInFull() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, media: true)
        let presses = app.client.notifications(OnButtonPress.self)
        let events = app.client.notifications(OnButtonEvent.self)
        _ = try await app.client.send(SubscribeButton(buttonName: .playPause))
        try await headUnit.activate(appID: app.appID)
        _ = await app.status { $0.hmiLevel == .full }
        await headUnit.press(.playPause, mode: .long)
        var pressIterator = presses.makeAsyncIterator()
        let press = await pressIterator.next()
        #expect(press?.buttonName == .playPause)
        #expect(press?.buttonPressMode == .long)
        var eventIterator = events.makeAsyncIterator()
        #expect(await eventIterator.next()?.buttonEventMode == .buttondown)
        #expect(await eventIterator.next()?.buttonEventMode == .buttonup)
        await app.close()
    }

    @Test func aSoftButtonPressCarriesItsID() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let presses = app.client.notifications(OnButtonPress.self)
        _ = try await app.client.send(Show(softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 21)]))
        try await headUnit.pressSoftButton(appID: app.appID, id: 21)
        var iterator = presses.makeAsyncIterator()
        let press = await iterator.next()
        #expect(press?.buttonName == .customButton)
        #expect(press?.customButtonID == 21)
        await #expect(throws: SDLHeadUnitControlError.unknownSoftButton(22)) { try await headUnit.pressSoftButton(appID: app.appID, id: 22) }
        await app.close()
    }
}

/// What waits for the driver: answered by the control methods, by its timeout on an injected
/// clock, or cancelled by the app.
@Suite(.timeLimit(.minutes(1))) struct InteractionTests {
    static func choices(_ app: TestApp) async throws {
        _ = try await app.client.send(
            CreateInteractionChoiceSet(
                interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 1, menuName: "One"), Choice(choiceID: 2, menuName: "Two")]))
    }

    static func waitForInteraction(_ events: AsyncStream<SDLHeadUnitEvent>) async {
        for await event in events { if case .interactionStarted = event { return } }
    }

    @Test func theDriversChoiceAnswersPerformInteraction() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        try await Self.choices(app)
        async let answer = app.client.send(PerformInteraction(initialText: "Pick", interactionMode: .manualOnly, interactionChoiceSetIDList: [1]))
        await Self.waitForInteraction(events)
        #expect(try await headUnit.screen(appID: app.appID)["systemContext"] == .string("HMI_OBSCURED"))
        await #expect(throws: SDLHeadUnitControlError.self) { try await headUnit.answerInteraction(appID: app.appID, .choice(9)) }
        try await headUnit.answerInteraction(appID: app.appID, .choice(2))
        let response = try await answer
        #expect(response.resultCode == .success)
        #expect(response.choiceID == 2)
        #expect(response.triggerSource == .menu)
        #expect(try await headUnit.screen(appID: app.appID)["systemContext"] == .string("MAIN"))
        await app.close()
    }

    @Test func anUnansweredInteractionTimesOut() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        try await Self.choices(app)
        async let answer = app.client.send(
            PerformInteraction(initialText: "Pick", interactionMode: .manualOnly, interactionChoiceSetIDList: [1], timeout: 5_000))
        await Self.waitForInteraction(events)
        clock.advance(by: .seconds(5))
        #expect(try await answer.resultCode == .timedOut)
        await app.close()
    }

    @Test func theAppCancelsWithCancelInteraction() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let slider = app.client.send(SDLSlider(numTicks: 5, position: 1, sliderHeader: "Volume", cancelID: 8))
        await Self.waitForInteraction(events)
        #expect(try await app.client.send(CancelInteraction(cancelID: 7, functionID: SDLSlider.functionIDValue)).resultCode == .ignored)
        #expect(try await app.client.send(CancelInteraction(cancelID: 8, functionID: SDLSlider.functionIDValue)).resultCode == .success)
        #expect(try await slider.resultCode == .aborted)
        await app.close()
    }

    @Test func aSliderAndTheKeyboard() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        async let slider = app.client.send(SDLSlider(numTicks: 5, position: 1, sliderHeader: "Volume"))
        await Self.waitForInteraction(events)
        await #expect(throws: SDLHeadUnitControlError.self) { try await headUnit.answerInteraction(appID: app.appID, .sliderPosition(6)) }
        try await headUnit.answerInteraction(appID: app.appID, .sliderPosition(4))
        #expect(try await slider.sliderPosition == 4)
        try await Self.choices(app)
        async let search = app.client.send(
            PerformInteraction(
                initialText: "Search", interactionMode: .manualOnly, interactionChoiceSetIDList: [1], interactionLayout: .keyboard))
        await Self.waitForInteraction(events)
        try await headUnit.answerInteraction(appID: app.appID, .text("coffee"))
        let typed = try await search
        #expect(typed.manualTextEntry == "coffee")
        #expect(typed.triggerSource == .keyboard)
        await app.close()
    }

    @Test func anAlertWithSoftButtonsWaitsForThePress() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit)
        let presses = app.client.notifications(OnButtonPress.self)
        async let alert = app.client.send(SDLAlert(alertText1: "Low fuel", softButtons: [SoftButton(type: .text, text: "OK", softButtonID: 5)]))
        await Self.waitForInteraction(events)
        #expect(await app.status { $0.systemContext == .alert } != nil)
        try await headUnit.pressSoftButton(appID: app.appID, id: 5)
        #expect(try await alert.resultCode == .success)
        var iterator = presses.makeAsyncIterator()
        #expect(await iterator.next()?.customButtonID == 5)
        #expect(await app.status { $0.systemContext == .main } != nil)
        // No text, speech or buttons: INVALID_DATA; no parameters for SetGlobalProperties either.
        #expect(try await app.client.send(SDLAlert()).resultCode == .invalidData)
        #expect(try await app.client.send(SetGlobalProperties()).resultCode == .invalidData)
        await app.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct CapabilityTests {
    @Test func everyConfiguredTypeAnswersAndDisplaysFollowTheTemplate() async throws {
        let headUnit = TestApp.headUnit()
        // A remote-control app: SDL Core keeps REMOTE_CONTROL for those.
        let app = try await TestApp.register(to: headUnit, types: [.remoteControl])
        let types: [SystemCapabilityType] = [
            .displays, .navigation, .phoneCall, .videoStreaming, .remoteControl, .appServices, .seatLocation, .driverDistraction,
        ]
        for type in types {
            let response = try await app.client.send(GetSystemCapability(systemCapabilityType: type))
            #expect(response.resultCode == .success, "\(type)")
            #expect(response.systemCapability?.systemCapabilityType == type)
        }
        let updates = app.client.notifications(OnSystemCapabilityUpdated.self)
        // An 8.0 app: SDL Core sets the layout and warns that the RPC is deprecated.
        #expect(try await app.client.send(SetDisplayLayout(displayLayout: "NON-MEDIA")).resultCode == .warnings)
        var iterator = updates.makeAsyncIterator()
        let update = await iterator.next()
        #expect(update?.systemCapability.systemCapabilityType == .displays)
        #expect(try await app.client.send(SetDisplayLayout(displayLayout: "NO_SUCH_TEMPLATE")).resultCode == .rejected)
        await app.close()
    }
}
