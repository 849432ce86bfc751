import Logging
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The keyboard against the stateful emulator: properties, key presses answered with
/// autocomplete lists, the entry, and dismissal.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct KeyboardTests {
    static let appID = "keyboard"

    /// A manager in FULL for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(_ headUnit: SDLHeadUnitEmulator, _ body: (SDLManager) async throws -> Void) async throws {
        try await ScreenTestSupport.withManager(headUnit, appID: appID, body)
    }

    static func sent(_ headUnit: SDLHeadUnitEmulator, _ function: String) async -> [SDLJSONValue] {
        await ScreenTestSupport.sent(headUnit, appID: appID, function)
    }

    /// Presents `keyboard`, has the driver type "Bo" (two key presses, each answered with a
    /// SetGlobalProperties), then submit "Boston"; returns the outcome.
    static func typeBoston(_ keyboard: SDLKeyboard, manager: SDLManager, headUnit: SDLHeadUnitEmulator) async throws -> SDLKeyboardOutcome {
        let events = headUnit.events()
        let presented = Task { try await manager.screen.presentKeyboard(keyboard) }
        await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
        try await headUnit.typeOnKeyboard(appID: appID, "Bo")
        // One SetGlobalProperties per key press (the one before the keyboard went by with the wait above).
        await waitFor(events, count: 2) { $0 == .requestReceived(appID: appID, function: "SetGlobalProperties") }
        try await headUnit.answerInteraction(appID: appID, .text("Boston"))
        return try await presented.value
    }

    /// As the JavaScript suite's manager does against SDL Core with sdl_hmi: DISPLAYS arrives
    /// right after registration (before any Show), and its keyboards announce sdl_hmi's
    /// configurable keys, so an AZERTY keyboard keeps its four custom keys.
    @Test func displaysComesBeforeAnyShowAndCustomKeysFitSDLHMIsKeyboards() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let records = await headUnit.recordedRPCs(appID: Self.appID)
            let displays = records.firstIndex { $0.direction == "out" && $0.functionName == "OnSystemCapabilityUpdated" }
            let firstShow = records.firstIndex { $0.direction == "in" && $0.functionName == "Show" }
            let registered = records.firstIndex { $0.direction == "out" && $0.functionName == "RegisterAppInterface" }
            #expect(displays != nil && registered != nil && displays! > registered!)
            if let firstShow { #expect(displays! < firstShow) }
            let keyboards = await manager.systemCapabilities.defaultMainWindowCapability?.keyboardCapabilities?.supportedKeyboards ?? []
            #expect(keyboards.map(\.numConfigurableKeys) == [3, 0, 4, 2])

            let keyboard = SDLKeyboard(
                initialText: "Code", properties: KeyboardProperties(keyboardLayout: .azerty, customKeys: ["-", "_", "@", "#"]),
                timeout: .seconds(30)
            ) { _ in [] }
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentKeyboard(keyboard) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.answerInteraction(appID: Self.appID, .text("A-1"))
            #expect(try await presented.value == .entered("A-1"))
            let properties = await Self.sent(headUnit, "SetGlobalProperties").compactMap { $0["keyboardProperties"] }
            #expect(properties.first?["customKeys"] == .array([.string("-"), .string("_"), .string("@"), .string("#")]))
        }
    }

    @Test func keyPressesGetAutocompleteListsAndTheEntryComesBack() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let inputs = manager.screen.keyboardInput()
            let keyboard = SDLKeyboard(
                initialText: "City", properties: KeyboardProperties(keyboardLayout: .qwerty, maskInputCharacters: .disableInputKeyMask),
                timeout: .seconds(30)
            ) { entry in ["\(entry)ston", "\(entry)troit"] }
            let outcome = try await Self.typeBoston(keyboard, manager: manager, headUnit: headUnit)
            #expect(outcome == .entered("Boston"))

            let properties = await Self.sent(headUnit, "SetGlobalProperties").map { $0["keyboardProperties"] }
            #expect(properties.count == 3)
            #expect(properties.first??["keypressMode"] == .string("RESEND_CURRENT_ENTRY"))
            #expect(properties.first??["keyboardLayout"] == .string("QWERTY"))
            #expect(
                properties.dropFirst().map { $0?["autoCompleteList"] } == [
                    .array([.string("Bston"), .string("Btroit")]), .array([.string("Boston"), .string("Botroit")]),
                ])
            let interaction = try #require(await Self.sent(headUnit, "PerformInteraction").first)
            #expect(interaction["interactionLayout"] == .string("KEYBOARD"))
            #expect(interaction["initialText"] == .string("City"))
            var seen: [KeyboardEvent] = []
            for await input in inputs {
                seen.append(input.event)
                if input.event == .entrySubmitted { break }
            }
            #expect(seen == [.keypress, .keypress, .entrySubmitted])
        }
    }

    @Test func cancellingDismissesTheKeyboard() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentKeyboard(SDLKeyboard(initialText: "Search")) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            presented.cancel()
            let value3 = try await presented.value
            #expect(value3 == .cancelled)
            #expect(await Self.sent(headUnit, "CancelInteraction").count == 1)
        }
    }

    /// The manager-wide keyboard configuration is what a presentation without its own uses.
    @Test func theManagerWideConfigurationIsTheDefault() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            #expect(await manager.screen.keyboardConfiguration == SDLScreenManager.defaultKeyboardConfiguration)
            await manager.screen.setKeyboardConfiguration(KeyboardProperties(language: .deDe, keyboardLayout: .qwertz, keypressMode: .singleKeypress))
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentKeyboard(SDLKeyboard(initialText: "Stadt")) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.answerInteraction(appID: Self.appID, .text("Berlin"))
            #expect(try await presented.value == .entered("Berlin"))
            let properties = await Self.sent(headUnit, "SetGlobalProperties").last?["keyboardProperties"]
            #expect(properties?["keyboardLayout"] == .string("QWERTZ"))
            #expect(properties?["language"] == .string("DE-DE"))
            #expect(properties?["keypressMode"] == .string("SINGLE_KEYPRESS"))
        }
    }

    /// RPC 7.1 keyboard capabilities: what the head unit cannot do is left out before sending.
    @Test func propertiesFitTheKeyboardCapabilities() {
        let logger = Logger(label: "test")
        let wanted = KeyboardProperties(keyboardLayout: .azerty, maskInputCharacters: .enableInputKeyMask, customKeys: ["-", "_", "@"])
        // No capabilities (SDL Core 8.2's default window): sent as they are.
        #expect(SDLScreenManager.fitted(wanted, to: nil, logger: logger) == wanted)
        let capabilities = KeyboardCapabilities(
            maskInputCharactersSupported: false,
            supportedKeyboards: [
                KeyboardLayoutCapability(keyboardLayout: .qwerty, numConfigurableKeys: 2),
                KeyboardLayoutCapability(keyboardLayout: .azerty, numConfigurableKeys: 2),
            ])
        let fitted = SDLScreenManager.fitted(wanted, to: capabilities, logger: logger)
        #expect(fitted.maskInputCharacters == nil)
        #expect(fitted.keyboardLayout == .azerty)
        #expect(fitted.customKeys == ["-", "_"])
        // A layout the head unit does not list: its own default shows, without the custom keys.
        let numeric = SDLScreenManager.fitted(KeyboardProperties(keyboardLayout: .numeric, customKeys: ["."]), to: capabilities, logger: logger)
        #expect(numeric.keyboardLayout == nil && numeric.customKeys == nil)
    }

    /// The driver backing out is not the app cancelling: `.aborted`, with ENTRY_CANCELLED heard.
    @Test func theDriverBackingOutIsAborted() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let events = headUnit.events()
            var inputs = manager.screen.keyboardInput().makeAsyncIterator()
            let presented = Task { try await manager.screen.presentKeyboard(SDLKeyboard(initialText: "Search")) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.answerInteraction(appID: Self.appID, .cancel)
            let outcome = try await presented.value
            #expect(outcome == .aborted)
            let input = await inputs.next()
            #expect(input?.event == .entryCancelled)
            #expect(await Self.sent(headUnit, "CancelInteraction").isEmpty)
        }
    }

    /// The guide's `updateCharacterSet`: each key press answered with the keys allowed next
    /// (limitedCharacterList), in the same SetGlobalProperties as the autocomplete list.
    @Test func theCharacterSetFollowsTheEntry() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            var keyboard = SDLKeyboard(initialText: "City") { entry in ["\(entry)ston"] }
            keyboard.characterSet = { entry in entry == "B" ? ["e", "o"] : nil }
            let outcome = try await Self.typeBoston(keyboard, manager: manager, headUnit: headUnit)
            #expect(outcome == .entered("Boston"))
            let updates = await Self.sent(headUnit, "SetGlobalProperties").dropFirst().map { $0["keyboardProperties"] }
            #expect(updates.map { $0?["limitedCharacterList"] } == [.array([.string("e"), .string("o")]), nil])
            #expect(updates.map { $0?["autoCompleteList"] } == [.array([.string("Bston")]), .array([.string("Boston")])])
        }
    }

    /// A searchable choice set with the guide's keyboard delegate: LIST_WITH_SEARCH, the keyboard
    /// properties first, each key press answered with the autocomplete list, and the submitted
    /// search text back as `.searched`.
    @Test func aSearchableSetFollowsTheSearchAndReturnsItsText() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let cells = ["Boston", "Bonn", "Denver"].map { SDLChoiceCell(text: $0) }
            let search = SDLKeyboard { entry in cells.map(\.text).filter { $0.hasPrefix(entry) } }
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentSearchable(SDLChoiceSet(title: "City", cells: cells), keyboard: search) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.typeOnKeyboard(appID: Self.appID, "Bo")
            await waitFor(events, count: 2) { $0 == .requestReceived(appID: Self.appID, function: "SetGlobalProperties") }
            try await headUnit.answerInteraction(appID: Self.appID, .text("Bos"))
            #expect(try await presented.value == .searched("Bos"))

            let interaction = try #require(await Self.sent(headUnit, "PerformInteraction").first)
            #expect(interaction["interactionLayout"] == .string("LIST_WITH_SEARCH"))
            #expect(interaction["initialText"] == .string("City"))
            let properties = await Self.sent(headUnit, "SetGlobalProperties").map { $0["keyboardProperties"] }
            #expect(properties.first??["keypressMode"] == .string("RESEND_CURRENT_ENTRY"))
            #expect(
                properties.dropFirst().map { $0?["autoCompleteList"] } == [
                    .array([.string("Boston"), .string("Bonn")]), .array([.string("Boston"), .string("Bonn")]),
                ])
        }
    }

    /// The driver types, then picks a cell: the cell comes back; tiles search as ICON_WITH_SEARCH,
    /// and backing out of the search is ENTRY_CANCELLED then `.cancelled`.
    @Test func aSearchableSetStillReturnsAPickedCell() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let cells = ["Boston", "Denver"].map { SDLChoiceCell(text: $0) }
            let set = SDLChoiceSet(title: "City", cells: cells, layout: .tiles)
            let events = headUnit.events()
            let presented = Task { try await manager.screen.presentSearchable(set) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.typeOnKeyboard(appID: Self.appID, "De")
            let denver = try #require(await manager.screen.preloadedChoiceID(cells[1]))
            try await headUnit.answerInteraction(appID: Self.appID, .choice(denver))
            #expect(try await presented.value == .selected(cell: cells[1], index: 1, trigger: .menu))
            #expect(await Self.sent(headUnit, "PerformInteraction").first?["interactionLayout"] == .string("ICON_WITH_SEARCH"))

            // The head unit reports ENTRY_CANCELLED before the answer: it is in the stream first.
            let inputs = manager.screen.keyboardInput()
            let again = Task { try await manager.screen.presentSearchable(set) }
            await waitFor(events) { if case .interactionStarted = $0 { true } else { false } }
            try await headUnit.answerInteraction(appID: Self.appID, .cancel)
            let cancelled = Task { await waitFor(inputs) { $0.event == .entryCancelled } }
            #expect(try await again.value == .cancelled)
            await cancelled.value  // the suite's time limit bounds it
        }
    }
}
