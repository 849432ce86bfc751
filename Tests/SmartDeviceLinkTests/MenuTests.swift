import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The main menu against the stateful emulator: the minimal set of menu RPCs for each change,
/// read from the emulator's record.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct MenuTests {
    static let appID = "menu"

    /// A manager in FULL for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(_ headUnit: SDLHeadUnitEmulator = SDLHeadUnitEmulator(), _ body: (SDLManager) async throws -> Void) async throws {
        try await ScreenTestSupport.withManager(headUnit, appID: appID, body)
    }

    /// The menu RPCs sent since `from`, as "AddCommand B1@0<B", "DeleteSubMenu B"...
    static func sent(_ headUnit: SDLHeadUnitEmulator, from: Int = 0) async -> [String] {
        let functions: Set<String> = ["AddCommand", "AddSubMenu", "DeleteCommand", "DeleteSubMenu", "ShowAppMenu", "SetGlobalProperties"]
        let records = await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && functions.contains($0.functionName) }
        var names: [Int: String] = [:]
        var lines: [String] = []
        func int(_ value: SDLJSONValue?) -> Int? { if case .integer(let number)? = value { number } else { nil } }
        func text(_ value: SDLJSONValue?) -> String? { if case .string(let string)? = value { string } else { nil } }
        for record in records {
            let parameters = record.parameters
            switch record.functionName {
            case "AddCommand":
                let id = int(parameters?["cmdID"]) ?? -1
                let menu = parameters?["menuParams"]
                var firstCommand: String?
                if case .array(let commands)? = parameters?["vrCommands"] { firstCommand = text(commands.first) }
                let name = text(menu?["menuName"]) ?? "voice \(firstCommand ?? "?")"
                names[id] = name
                let parent = int(menu?["parentID"]).flatMap { names[$0] }.map { "<\($0)" } ?? ""
                lines.append("AddCommand \(name)" + (int(menu?["position"]).map { "@\($0)" } ?? "") + parent)
            case "AddSubMenu":
                let id = int(parameters?["menuID"]) ?? -1
                let name = text(parameters?["menuName"]) ?? "?"
                names[id] = name
                lines.append("AddSubMenu \(name)@\(int(parameters?["position"]) ?? -1)")
            case "DeleteCommand": lines.append("DeleteCommand \(names[int(parameters?["cmdID"]) ?? -1] ?? "?")")
            case "DeleteSubMenu": lines.append("DeleteSubMenu \(names[int(parameters?["menuID"]) ?? -1] ?? "?")")
            case "ShowAppMenu": lines.append("ShowAppMenu" + (int(parameters?["menuID"]).flatMap { names[$0] }.map { " \($0)" } ?? ""))
            default: lines.append(record.functionName)
            }
        }
        return Array(lines.dropFirst(from))
    }

    /// The IDs of the submenus and commands on the head unit, by title.
    static func ids(_ headUnit: SDLHeadUnitEmulator) async throws -> (subMenus: [String: Int], commands: [String: Int]) {
        let menu = try await headUnit.screen(appID: appID)["menu"]
        func byName(_ key: String, name: (SDLJSONValue) -> SDLJSONValue?, id: String) -> [String: Int] {
            guard case .array(let items)? = menu?[key] else { return [:] }
            var found: [String: Int] = [:]
            for item in items { if case .string(let title)? = name(item), case .integer(let number)? = item[id] { found[title] = number } }
            return found
        }
        return (byName("subMenus", name: { $0["menuName"] }, id: "menuID"), byName("commands", name: { $0["menuParams"]?["menuName"] }, id: "cmdID"))
    }

    static func cell(_ title: String, voice: [String]? = nil) -> SDLMenuCell {
        SDLMenuCell(title: title, voiceCommands: voice)
    }

    @Test func setsAndUpdatesTheMenuWithTheMinimalChanges() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let screen = manager.screen
            try await screen.setMenu([Self.cell("A"), SDLMenuCell(title: "B", subCells: [Self.cell("B1"), Self.cell("B2")]), Self.cell("C")])
            #expect(await Self.sent(headUnit) == ["AddCommand A@0", "AddSubMenu B@1", "AddCommand B1@0<B", "AddCommand B2@1<B", "AddCommand C@2"])

            // Remove a submenu, add a cell.
            try await screen.setMenu([Self.cell("A"), Self.cell("C"), Self.cell("D")])
            #expect(await Self.sent(headUnit, from: 5) == ["DeleteSubMenu B", "AddCommand D@2"])

            // Move: one cell deleted and added again at its new place; the others stay.
            try await screen.setMenu([Self.cell("C"), Self.cell("A"), Self.cell("D")])
            let moved = await Self.sent(headUnit, from: 7)
            #expect(moved == ["DeleteCommand A", "AddCommand A@1"] || moved == ["DeleteCommand C", "AddCommand C@0"])

            // Rename: the old cell goes, the new one comes at its place.
            try await screen.setMenu([Self.cell("C"), Self.cell("A2"), Self.cell("D")])
            let renamed = await Self.sent(headUnit, from: 9)
            #expect(renamed.contains("AddCommand A2@1"))
            #expect(renamed.count == 2)

            // Nothing changed: nothing sent.
            try await screen.setMenu([Self.cell("C"), Self.cell("A2"), Self.cell("D")])
            #expect(await Self.sent(headUnit).count == 11)
            // The emulator's menu is the app's.
            let menu = try await headUnit.screen(appID: Self.appID)["menu"]
            #expect(menu != nil)
        }
    }

    @Test func aSubmenuKeptIsUpdatedInside() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.setMenu([SDLMenuCell(title: "B", subCells: [Self.cell("B1"), Self.cell("B2")])])
            try await manager.screen.setMenu([SDLMenuCell(title: "B", subCells: [Self.cell("B1"), Self.cell("B3")])])
            #expect(await Self.sent(headUnit, from: 3) == ["DeleteCommand B2", "AddCommand B3@1<B"])
        }
    }

    @Test func withoutDynamicUpdatesEveryCellIsRewritten() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.setMenuConfiguration(SDLMenuConfiguration(dynamicUpdates: .forceOff))
            try await manager.screen.setMenu([Self.cell("A"), Self.cell("B")])
            try await manager.screen.setMenu([Self.cell("A"), Self.cell("C")])
            #expect(
                await Self.sent(headUnit) == [
                    "SetGlobalProperties", "AddCommand A@0", "AddCommand B@1", "DeleteCommand B", "DeleteCommand A", "AddCommand A@0", "AddCommand C@1",
                ])
        }
    }

    @Test func selectionsReachTheHandlerAndMenusOpen() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let (selected, sink) = AsyncStream<TriggerSource>.makeStream()
            let (spoken, spokenSink) = AsyncStream<Void>.makeStream()
            try await manager.screen.setMenu([
                SDLMenuCell(title: "Play", voiceCommands: ["Play"]) { source in sink.yield(source) },
                SDLMenuCell(title: "More", subCells: [Self.cell("Settings")]),
            ])
            try await manager.screen.setVoiceCommands([SDLVoiceCommand(voiceCommands: ["Skip"]) { spokenSink.yield() }])
            let records = await headUnit.recordedRPCs(appID: Self.appID).filter { $0.direction == "in" && $0.functionName == "AddCommand" }
            let ids = records.compactMap { record -> Int? in if case .integer(let id)? = record.parameters?["cmdID"] { id } else { nil } }
            try await headUnit.selectCommand(appID: Self.appID, cmdID: ids[0])
            var iterator = selected.makeAsyncIterator()
            #expect(await iterator.next() == .menu)
            try await headUnit.selectCommand(appID: Self.appID, cmdID: ids[2])
            for await _ in spoken { break }

            try await manager.screen.openMenu()
            try await manager.screen.openSubmenu("More")
            #expect(await Self.sent(headUnit).suffix(2) == ["ShowAppMenu", "ShowAppMenu More"])
        }
    }

    @Test func duplicateTitlesAndVoiceCommandsAreRefusedBeforeSending() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            await expectSDLError(SDLScreenError.self) { try await manager.screen.setMenu([Self.cell("A"), Self.cell("A")]) }
            await expectSDLError(SDLScreenError.self) { try await manager.screen.setMenu([Self.cell("A", voice: ["go"]), Self.cell("B", voice: ["Go"])]) }
            try await manager.screen.setMenu([Self.cell("A", voice: ["go"])])
            await expectSDLError(SDLScreenError.self) { try await manager.screen.setVoiceCommands([SDLVoiceCommand(voiceCommands: ["go"])]) }
            await expectSDLError(SDLScreenError.self) {
                try await manager.screen.setMenu([SDLMenuCell(title: "X", subCells: [SDLMenuCell(title: "Y", subCells: [])])])
            }
            #expect(await Self.sent(headUnit) == ["AddCommand A@0"])
        }
    }

    /// The guide: a menu whose artwork is not on the head unit yet shows without it first, then
    /// the cells with artwork are replaced once it is uploaded; the same menu again sends nothing.
    @Test func theTextOnlyMenuComesFirstThenTheArtwork() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let art = SDLArtwork(bytes: Array(repeating: 5, count: 500), format: .png, name: "radio.png")
            let cells = [SDLMenuCell(title: "Radio", icon: art, voiceCommands: ["Radio"]), SDLMenuCell(title: "Settings", voiceCommands: ["Settings"])]
            try await manager.screen.setMenu(cells)
            #expect(await Self.sent(headUnit) == ["AddCommand Radio@0", "AddCommand Settings@1", "DeleteCommand Radio", "AddCommand Radio@0"])
            let records = await headUnit.recordedRPCs(appID: Self.appID).filter { $0.direction == "in" }
            let order = records.map(\.functionName).filter { ["AddCommand", "PutFile", "DeleteCommand"].contains($0) }
            #expect(order == ["AddCommand", "AddCommand", "PutFile", "DeleteCommand", "AddCommand"])
            let commands = records.filter { $0.functionName == "AddCommand" }
            #expect(commands.first?.parameters?["cmdIcon"] == nil)
            #expect(commands.last?.parameters?["cmdIcon"]?["value"] == .string("radio.png"))
            let count = await Self.sent(headUnit).count
            try await manager.screen.setMenu(cells)
            #expect(await Self.sent(headUnit).count == count)
        }
    }

    /// Dynamic submenus (RPC 7.0): the submenu goes empty, and its cells only when the driver
    /// opens it and the head unit asks (OnUpdateSubMenu); their handlers work; a second opening
    /// sends nothing more, and a menu change keeps a filled submenu filled.
    @Test func dynamicSubmenusAreFilledWhenTheHeadUnitAsks() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.dynamicMenuUpdates = true
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit) { manager in
            let picked = Locked<[TriggerSource]>([])
            let stations = SDLMenuCell(
                title: "Stations",
                subCells: [
                    SDLMenuCell(title: "Jazz", voiceCommands: ["Jazz"]) { source in picked.withLock { $0.append(source) } }, Self.cell("Rock"),
                ])
            try await manager.screen.setMenu([Self.cell("Home"), stations])
            #expect(await Self.sent(headUnit) == ["AddCommand Home@0", "AddSubMenu Stations@1"])

            let events = headUnit.events()
            try await headUnit.setMenuOpen(appID: Self.appID, true)
            let menuID = try #require(try await Self.ids(headUnit).subMenus["Stations"])
            try await headUnit.openSubmenu(appID: Self.appID, menuID: menuID)
            await waitFor(events, count: 2) { $0 == .requestReceived(appID: Self.appID, function: "AddCommand") }
            try await until { (try? await Self.ids(headUnit).commands.count) == 3 }
            #expect(await Self.sent(headUnit) == ["AddCommand Home@0", "AddSubMenu Stations@1", "AddCommand Jazz@0<Stations", "AddCommand Rock@1<Stations"])

            let jazz = try #require(try await Self.ids(headUnit).commands["Jazz"])
            try await headUnit.selectCommand(appID: Self.appID, cmdID: jazz)
            try await until { picked.current == [.menu] }

            // Opening it again: already filled, nothing asked for (the emulator asks only for an
            // empty submenu); a head unit asking again gets nothing either.
            try await headUnit.setMenuOpen(appID: Self.appID, true)
            try await headUnit.openSubmenu(appID: Self.appID, menuID: menuID)
            try await manager.screen.fillSubmenu(menuID)
            #expect(await Self.sent(headUnit).count == 4)
            try await manager.screen.setMenu([Self.cell("Home"), stations, Self.cell("Help")])
            #expect(await Self.sent(headUnit, from: 4) == ["AddCommand Help@2"])
        }
    }

    /// A submenu the app replaced before the head unit asked: the request for the old ID is
    /// ignored, and the new submenu's cells wait for their own request.
    @Test func aRequestForASubmenuNoLongerThereIsIgnored() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.dynamicMenuUpdates = true
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.setMenu([SDLMenuCell(title: "A", subCells: [Self.cell("A1")])])
            let old = try #require(try await Self.ids(headUnit).subMenus["A"])
            try await manager.screen.fillSubmenu(old + 1_000)  // unknown: nothing happens
            try await manager.screen.setMenu([SDLMenuCell(title: "B", subCells: [Self.cell("B1")])])
            try await manager.screen.fillSubmenu(old)
            #expect(await Self.sent(headUnit) == ["AddSubMenu A@0", "DeleteSubMenu A", "AddSubMenu B@0"])
        }
    }

    /// On-demand menu icons (RPC 7.0 `supportedDynamicImageFieldNames`): the command names its
    /// icon at once, with nothing uploaded and no text-only round; the icon is uploaded when the
    /// head unit shows the menu and asks for it (OnUpdateFile).
    @Test func menuIconsAreUploadedWhenTheHeadUnitAsks() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.dynamicMenuUpdates = true
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit) { manager in
            let art = SDLArtwork(bytes: Array(repeating: 7, count: 300), format: .png, name: "radio-dynamic.png")
            try await manager.screen.setMenu([SDLMenuCell(title: "Radio", icon: art)])
            #expect(await Self.sent(headUnit) == ["AddCommand Radio@0"])
            let command = try #require(await ScreenTestSupport.sent(headUnit, appID: Self.appID, "AddCommand").first)
            #expect(command["cmdIcon"]?["value"] == .string("radio-dynamic.png"))
            #expect(await ScreenTestSupport.sent(headUnit, appID: Self.appID, "PutFile").isEmpty)

            let events = headUnit.events()
            try await headUnit.setMenuOpen(appID: Self.appID, true)
            await waitFor(events) { $0 == .requestReceived(appID: Self.appID, function: "PutFile") }
            try await until { await headUnit.files(appID: Self.appID).contains("radio-dynamic.png") }
            #expect(await headUnit.file(appID: Self.appID, name: "radio-dynamic.png") == Array(repeating: 7, count: 300))
        }
    }

    @Test func theMenuTitleAndIconGoWithSetGlobalProperties() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.setMenuTitle("My App", icon: .staticIcon(.album))
            let sent = await ScreenTestSupport.sent(headUnit, appID: Self.appID, "SetGlobalProperties")
            #expect(sent.first?["menuTitle"] == .string("My App"))
            #expect(sent.first?["menuIcon"]?["imageType"] == .string("STATIC"))
        }
    }

    @Test func theDiffKeepsTheLongestCommonRun() {
        func looks(_ titles: [String]) -> [SDLMenuCell.Look] { titles.map { SDLMenuCell(title: $0).look } }
        let (kept, deleted) = MenuDiff.diff(old: looks(["a", "b", "c", "d"]), new: looks(["a", "c", "e", "d"]))
        #expect(kept == [0, 2, nil, 3])
        #expect(deleted == [1])
    }
}
