import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Popup menus (choice sets) against the stateful emulator: preloading without duplicates, the
/// interaction, the driver's answer, cancellation and timeouts.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ChoiceSetTests {
    static let appID = "choices"

    /// A manager in FULL for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(_ headUnit: SDLHeadUnitEmulator, _ body: (SDLManager) async throws -> Void) async throws {
        try await ScreenTestSupport.withManager(headUnit, appID: appID, body)
    }

    static func sent(_ headUnit: SDLHeadUnitEmulator, _ function: String) async -> [SDLJSONValue] {
        await ScreenTestSupport.sent(headUnit, appID: appID, function)
    }

    static let red = SDLChoiceCell(text: "Red", voiceCommands: ["Red"])
    static let green = SDLChoiceCell(text: "Green", voiceCommands: ["Green"])
    static let blue = SDLChoiceCell(text: "Blue", voiceCommands: ["Blue"])

    /// Waits until the emulator shows the interaction, then answers with the cell's choice ID.
    static func choose(_ cell: SDLChoiceCell, on headUnit: SDLHeadUnitEmulator, manager: SDLManager, events: AsyncStream<SDLHeadUnitEvent>) async throws {
        for await event in events {
            if case .interactionStarted = event { break }
        }
        let id = try #require(await manager.screen.preloadedChoices[cell])
        try await headUnit.answerInteraction(appID: appID, .choice(id))
    }

    /// The voice help list goes with the interaction; the lines and images the emulator's window
    /// shows (SDL Core's defaults list secondaryText, tertiaryText, choiceImage) go with the cells.
    @Test func theHelpListAndTheShownLinesGoOut() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let cover = SDLArtwork(bytes: Array(repeating: 7, count: 200), format: .png, name: "jazz.png")
            let jazz = SDLChoiceCell(text: "Jazz", secondaryText: "Smooth", tertiaryText: "24/7", voiceCommands: ["Jazz"], artwork: cover)
            let events = headUnit.events()
            let set = SDLChoiceSet(title: "Station", cells: [jazz], helpList: ["Jazz", "Say a station"])
            let presented = Task { try await manager.screen.present(set, mode: .both) }
            try await Self.choose(jazz, on: headUnit, manager: manager, events: events)
            _ = try await presented.value
            let interaction = try #require(await Self.sent(headUnit, "PerformInteraction").first)
            #expect(
                interaction["vrHelp"]
                    == .array([
                        .object([.init(key: "text", value: .string("Jazz")), .init(key: "position", value: .integer(1))]),
                        .object([.init(key: "text", value: .string("Say a station")), .init(key: "position", value: .integer(2))]),
                    ]))
            let choice = try #require(await Self.sent(headUnit, "CreateInteractionChoiceSet").first?["choiceSet"]?[0])
            #expect(choice["secondaryText"] == .string("Smooth") && choice["tertiaryText"] == .string("24/7"))
            #expect(choice["image"]?["value"] == .string("jazz.png"))
        }
    }

    @Test func preloadedCellsAreNeverCreatedTwiceAndAChoiceComesBack() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.preloadChoices([Self.red, Self.green])
            try await manager.screen.preloadChoices([Self.red, Self.green])
            #expect(await Self.sent(headUnit, "CreateInteractionChoiceSet").count == 2)

            let events = headUnit.events()
            let set = SDLChoiceSet(title: "Colour", cells: [Self.red, Self.green, Self.blue], layout: .tiles, searchable: true, timeout: .seconds(20))
            let presented = Task { try await manager.screen.present(set, mode: .both) }
            try await Self.choose(Self.blue, on: headUnit, manager: manager, events: events)
            #expect(try await presented.value == .selected(cell: Self.blue, index: 2, trigger: .menu))
            // Only blue was new.
            let created = await Self.sent(headUnit, "CreateInteractionChoiceSet")
            #expect(created.count == 3)
            let interaction = try #require(await Self.sent(headUnit, "PerformInteraction").first)
            #expect(interaction["interactionLayout"] == .string("ICON_WITH_SEARCH"))
            #expect(interaction["interactionMode"] == .string("BOTH"))
            #expect(interaction["timeout"] == .integer(20_000))
            #expect(interaction["initialText"] == .string("Colour"))
            guard case .array(let ids)? = interaction["interactionChoiceSetIDList"] else {
                Issue.record("no choice set IDs")
                return
            }
            #expect(ids.count == 3)

            try await manager.screen.deleteChoices([Self.red])
            #expect(await Self.sent(headUnit, "DeleteInteractionChoiceSet").count == 1)
            #expect(await manager.screen.preloadedCells == [Self.green, Self.blue])
        }
    }

    @Test func cancellingThePresentingTaskSendsCancelInteraction() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let events = headUnit.events()
            let presented = Task { try await manager.screen.present(SDLChoiceSet(title: "Pick", cells: [Self.red, Self.green])) }
            for await event in events {
                if case .interactionStarted = event { break }
            }
            presented.cancel()
            #expect(try await presented.value == .cancelled)
            let cancel = try #require(await Self.sent(headUnit, "CancelInteraction").first)
            let interaction = try #require(await Self.sent(headUnit, "PerformInteraction").first)
            #expect(cancel["cancelID"] == interaction["cancelID"])
        }
    }

    @Test func nobodyChoosingIsATimeout() async throws {
        let clock = ManualClock()
        let headUnit = FeatureTestSupport.emulator(on: clock)
        try await Self.withManager(headUnit) { manager in
            let events = headUnit.events()
            let presented = Task { try await manager.screen.present(SDLChoiceSet(title: "Pick", cells: [Self.red], timeout: .seconds(5))) }
            for await event in events {
                if case .interactionStarted = event { break }
            }
            clock.advance(by: .seconds(5))
            let value2 = try await presented.value
            #expect(value2 == .timedOut)
        }
    }

    @Test func invalidSetsAreRefusedBeforeSending() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let plain = SDLChoiceCell(text: "Plain")
            await expectSDLError(SDLScreenError.self) { _ = try await manager.screen.present(SDLChoiceSet(title: "x", cells: [Self.red, Self.red])) }
            await expectSDLError(SDLScreenError.self) { _ = try await manager.screen.present(SDLChoiceSet(title: "x", cells: [Self.red, plain])) }
            await expectSDLError(SDLScreenError.self) { _ = try await manager.screen.present(SDLChoiceSet(title: "x", cells: [plain]), mode: .vrOnly) }
            #expect(await Self.sent(headUnit, "CreateInteractionChoiceSet").isEmpty)
        }
    }
}
