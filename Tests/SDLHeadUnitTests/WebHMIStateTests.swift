import SDLHeadUnit
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// What the web page reads and does through the control API: the display, app icons, the menu
/// the driver opens, the running media clock, the keyboard's entry, and the events that tell
/// the page to look again.
@Suite(.timeLimit(.minutes(1))) struct WebHMIStateTests {
    @Test func theDisplayAndTheAppsTypesAndIcons() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let display = try await api.handle(method: "GET", path: "/display")
            #expect(display.jsonValue == (try SDLJSONValue(parsing: #"{"driverDistraction":false,"height":350,"name":"GENERIC_DISPLAY","width":800}"#)))
            let app = try await TestApp.register(to: headUnit, appID: "media", media: true)
            #expect(try await api.handle(method: "GET", path: "/apps/media/icon").status == 404)
            // SetAppIcon names a file the app uploaded: the list links it, the route serves it as PNG.
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
            _ = try await app.client.send(PutFile(syncFileName: "icon.png", fileType: .graphicPng), bulkData: png)
            #expect(try await app.client.send(SetAppIcon(syncFileName: "icon.png")).success)
            guard case .array(let apps)? = try await api.handle(method: "GET", path: "/apps").jsonValue, let listed = apps.first else {
                Issue.record("no app listed")
                return
            }
            #expect(listed["appTypes"] == .array([.string("MEDIA")]))
            #expect(listed["isMedia"] == .bool(true))
            #expect(listed["icon"] == .string("/apps/media/icon"))
            let icon = try await api.handle(method: "GET", path: "/apps/media/icon")
            #expect(icon.status == 200 && icon.contentType == "image/png" && icon.body == png)
            #expect(try await api.handle(method: "GET", path: "/apps/media/files/icon.png").contentType == "image/png")
            await app.close()
        }
    }

    @Test func theDriverOpensAndClosesTheMenu() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let events = headUnit.events()
            let app = try await TestApp.register(to: headUnit, appID: "menu")
            #expect(try await api.handle(method: "POST", path: "/apps/menu/menu/open").status == 200)
            #expect(await app.status { $0.systemContext == .menu } != nil)
            #expect(try await api.handle(method: "GET", path: "/apps/menu/screen").jsonValue?["onTop"]?["kind"] == .string("menu"))
            #expect(try await api.handle(method: "POST", path: "/apps/menu/menu/close").status == 200)
            #expect(await app.status { $0.systemContext == .main } != nil)
            var contexts: [String] = []
            for await event in events {
                if case .systemContextChanged("menu", let context) = event { contexts.append(context.rawValue) }
                if contexts.count == 2 { break }
            }
            #expect(contexts == ["MENU", "MAIN"])
            // Only an app in FULL has a menu to open.
            try await headUnit.background(appID: "menu")
            #expect(try await api.handle(method: "POST", path: "/apps/menu/menu/open").status == 400)
            await app.close()
        }
    }

    @Test func theMediaClockRunsOnTheHeadUnitsClock() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let app = try await TestApp.register(to: headUnit, appID: "clock", media: true)
        func reading() async throws -> SDLJSONValue? { try await headUnit.screen(appID: "clock")["mediaClockReading"] }
        _ = try await app.client.send(
            SetMediaClockTimer(
                startTime: StartTime(hours: 0, minutes: 1, seconds: 0), endTime: StartTime(hours: 0, minutes: 1, seconds: 10), updateMode: .countup))
        #expect(try await reading() == (try SDLJSONValue(parsing: #"{"seconds":60,"counting":"UP","endSeconds":70}"#)))
        clock.advance(by: .seconds(5))
        #expect(try await reading()?["seconds"] == .integer(65))
        clock.advance(by: .seconds(60))
        #expect(try await reading()?["seconds"] == .integer(70))  // stops at the end time
        _ = try await app.client.send(SetMediaClockTimer(updateMode: .pause))
        clock.advance(by: .seconds(5))
        #expect(try await reading() == (try SDLJSONValue(parsing: #"{"seconds":70,"counting":"PAUSED","endSeconds":70}"#)))
        _ = try await app.client.send(SetMediaClockTimer(startTime: StartTime(hours: 0, minutes: 0, seconds: 30), updateMode: .countdown))
        clock.advance(by: .seconds(40))
        #expect(try await reading()?["seconds"] == .integer(0))  // counting down stops at 0
        _ = try await app.client.send(SetMediaClockTimer(updateMode: .clear))
        #expect(try await reading() == nil)
        await app.close()
    }

    @Test func theKeyboardsEntryIsOnScreen() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        let app = try await TestApp.register(to: headUnit, appID: "keys")
        _ = try await app.client.send(CreateInteractionChoiceSet(interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 1, menuName: "One")]))
        let asked = Task {
            try await app.client.send(
                PerformInteraction(
                    initialText: "City", interactionMode: .manualOnly, interactionChoiceSetIDList: [], interactionLayout: .keyboard))
        }
        await Wait.interaction(events, kind: "performInteraction")
        try await headUnit.typeOnKeyboard(appID: "keys", "Bo")
        let onTop = try await headUnit.screen(appID: "keys")["onTop"]
        #expect(onTop?["keyboardEntry"] == .string("Bo"))
        try await headUnit.answerInteraction(appID: "keys", .text("Boston"))
        #expect(try await asked.value.manualTextEntry == "Boston")
        await app.close()
    }

    @Test func vehicleDataAndDistractionChangesAreEvents() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        try await headUnit.setVehicleData(.object([.init(key: "speed", value: .float(88)), .init(key: "rpm", value: .integer(3000))]))
        await headUnit.setDriverDistraction(true)
        var seen: [SDLHeadUnitEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == 2 { break }
        }
        #expect(seen == [.vehicleDataChanged(items: ["speed", "rpm"]), .driverDistractionChanged(on: true)])
        #expect(
            seen.map(\.json) == [
                try SDLJSONValue(parsing: #"{"event":"vehicleDataChanged","items":["speed","rpm"]}"#),
                try SDLJSONValue(parsing: #"{"event":"driverDistractionChanged","on":true}"#),
            ])
    }
}
