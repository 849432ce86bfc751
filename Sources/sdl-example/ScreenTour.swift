import Foundation
import SDLRPC
import SmartDeviceLink

/// The screen manager: text and an image, a template change, soft buttons with a state change
/// pressed through the emulator, a nested menu updated twice with the minimal change, a popup
/// menu and a keyboard entry answered through the emulator. Without `--control-url` (SDL Core)
/// the steps that need a driver are skipped with a note.
struct ScreenTour {
    let place: TourPlace

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: screen")
        var configuration = place.configuration()
        // The icon the head unit lists the app with (uploaded and set once registered).
        configuration.appIcon = SDLArtwork(bytes: SolidPNG.make(width: 64, height: 64, rgb: (0x1E, 0x88, 0xE5)), format: .png)
        guard let manager = await place.start(configuration, steps: steps) else { return false }
        if await place.driver.activate(manager, steps: steps) {
            await textAndTemplate(manager, steps: steps)
            await steps.run("media clock") {
                try await manager.screen.setMediaClock(.countUp(from: .seconds(65), to: .seconds(210), indicator: .pause))
                return "counting up from 1:05 to 3:30 (the head unit runs it)"
            }
            await softButtons(manager.screen, steps: steps)
            await menu(manager.screen, steps: steps)
            await dynamicSubmenu(manager, steps: steps)
            await popupAndKeyboard(manager.screen, steps: steps)
        }
        return await place.finish("screen", [manager], steps: steps)
    }

    func textAndTemplate(_ manager: SDLManager, steps: Steps) async {
        let screen = manager.screen
        let cover = SDLArtwork(bytes: SolidPNG.make(width: 120, height: 120, rgb: (0x8E, 0x24, 0xAA)), format: .png)
        await steps.run("text and image") {
            let result = try await screen.update {
                $0.textField1 = "Swift SDL"
                $0.textField2 = "Screen tour"
                $0.textField1Type = .mediaTitle
                $0.primaryGraphic = cover
            }
            let shown = await screen.shownContent
            guard shown.textField1 == "Swift SDL" else { throw TourError("the head unit did not confirm the text") }
            // A window whose capabilities list no graphic field gets the text alone (the guide's
            // rule), as some SDL Core configurations announce.
            let imageFields = await manager.systemCapabilities.defaultMainWindowCapability?.imageFields
            if imageFields.map({ $0.contains { $0.name == .graphic } }) ?? true {
                guard shown.primaryGraphic == cover else { throw TourError("the head unit did not confirm the image") }
                return "\(result), text first then the uploaded image"
            }
            guard shown.primaryGraphic == nil else { throw TourError("an image went to a window without a graphic field") }
            return "\(result), text only: the head unit lists no graphic field, so the image was withheld"
        }
        await steps.run("template change") {
            // A template the head unit offers this app: SDL's HMI (sdl_hmi) gives each app type
            // its own (NON-MEDIA to every app) and refuses the others, whatever it lists.
            let offered = await manager.systemCapabilities.defaultMainWindowCapability?.templatesAvailable ?? []
            let template =
                offered.contains(PredefinedLayout.nonMedia.rawValue) || offered.isEmpty
                ? PredefinedLayout.nonMedia.rawValue : offered[0]
            let colors = TemplateColorScheme(primaryColor: RGBColor(red: 0x1E, green: 0x88, blue: 0xE5))
            return "\(try await screen.changeLayout(SDLTemplate(template, dayColors: colors))) (\(template), day colours)"
        }
    }

    private func softButtons(_ screen: SDLScreenManager, steps: Steps) async {
        let (presses, pressed) = AsyncStream<Void>.makeStream()
        let like = SDLSoftButton(
            name: "like",
            states: [
                SDLSoftButtonState(name: "off", text: "Like"), SDLSoftButtonState(name: "on", text: "Liked", isHighlighted: true),
            ]
        ) { _ in pressed.yield() }
        await steps.run("soft buttons") {
            try await screen.setSoftButtons([like, SDLSoftButton(name: "skip", text: "Skip")])
            return "like and skip shown"
        }
        guard place.driver.controlURL != nil, let id = await screen.softButtonID("like") else {
            steps.note("no --control-url: not waiting for a driver to press a soft button")
            return
        }
        await place.driver.control("POST", "/apps/\(place.appID)/softbuttons/\(id)/press", steps: steps)
        if await within(
            10,
            {
                for await _ in presses { return true }
                return nil
            }) == true
        {
            await steps.run("soft button pressed") {
                try await screen.transition("like", to: "on")
                return "like → on (Liked, highlighted)"
            }
        } else {
            steps.fail("the soft button press did not arrive")
        }
    }

    func menu(_ screen: SDLScreenManager, steps: Steps) async {
        func cell(_ title: String) -> SDLMenuCell { SDLMenuCell(title: title) { _ in } }
        await steps.run("menu") {
            try await screen.setMenu([cell("Play"), SDLMenuCell(title: "Settings", subCells: [cell("Audio"), cell("Display")])])
            return "Play, Settings › Audio, Display"
        }
        await steps.run("menu updated") {
            try await screen.setMenu([cell("Play"), SDLMenuCell(title: "Settings", subCells: [cell("Audio"), cell("Language")]), cell("About")])
            return "Display → Language inside Settings, About added; the rest kept"
        }
        await steps.run("menu updated again") {
            try await screen.setMenu([cell("About"), cell("Play"), SDLMenuCell(title: "Settings", subCells: [cell("Audio"), cell("Language")])])
            return "About moved first"
        }
        await steps.run("menu with artwork") {
            // Not on the head unit yet: the guide's text-only menu first, then the cell with its icon.
            let icon = SDLArtwork(bytes: SolidPNG.make(width: 48, height: 48, rgb: (0xF5, 0x7C, 0x00)), format: .png)
            try await screen.setMenu([
                cell("About"), SDLMenuCell(title: "Play", icon: icon) { _ in }, SDLMenuCell(title: "Settings", subCells: [cell("Audio"), cell("Language")]),
            ])
            return "Play shown at once without its icon, then with it once uploaded"
        }
    }

    /// A head unit with dynamic submenus (`sdl headunit --dynamic-menus`) got Settings empty; the
    /// driver opens it and the head unit asks for its cells (OnUpdateSubMenu), which the screen
    /// manager sends then.
    func dynamicSubmenu(_ manager: SDLManager, steps: Steps) async {
        guard await manager.systemCapabilities.defaultMainWindowCapability?.dynamicUpdateCapabilities?.supportsDynamicSubMenus == true else {
            steps.note("the head unit takes whole menus (no dynamic submenus): Settings went with its cells")
            return
        }
        guard place.driver.controlURL != nil else {
            steps.note("dynamic submenus: open Settings on the head unit to have its cells sent")
            return
        }
        await steps.run("dynamic submenu") {
            func settings() async -> (id: Int, children: Int)? {
                guard let data = await place.driver.fetch("/apps/\(place.appID)/screen"),
                    let screen = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let menu = screen["menu"] as? [String: Any],
                    let subMenus = menu["subMenus"] as? [[String: Any]], let commands = menu["commands"] as? [[String: Any]],
                    let id = subMenus.first(where: { $0["menuName"] as? String == "Settings" })?["menuID"] as? Int
                else { return nil }
                return (id, commands.filter { ($0["menuParams"] as? [String: Any])?["parentID"] as? Int == id }.count)
            }
            guard let before = await settings(), before.children == 0 else { throw TourError("Settings was not sent empty") }
            await place.driver.control("POST", "/apps/\(place.appID)/menu/open", steps: steps)
            await place.driver.control("POST", "/apps/\(place.appID)/menu/submenus/\(before.id)/open", steps: steps)
            var filled = 0
            for _ in 0..<50 {
                filled = await settings()?.children ?? 0
                if filled == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            await place.driver.control("POST", "/apps/\(place.appID)/menu/close", steps: steps)
            guard filled == 2 else { throw TourError("Settings has \(filled) cells after the driver opened it") }
            return "Settings went empty; its 2 cells were sent when the driver opened it (OnUpdateSubMenu)"
        }
    }

    private func popupAndKeyboard(_ screen: SDLScreenManager, steps: Steps) async {
        guard place.driver.controlURL != nil else {
            steps.note("no --control-url: not presenting a popup menu or a keyboard nobody would answer")
            return
        }
        let cells = ["Red", "Green", "Blue"].map { SDLChoiceCell(text: $0, voiceCommands: [$0]) }
        await steps.run("popup menu") {
            try await screen.preloadChoices(cells)
            guard let id = await screen.preloadedChoiceID(cells[1]) else { throw TourError("Green was not preloaded") }
            let set = SDLChoiceSet(title: "Colour", cells: cells, timeout: .seconds(30), helpList: ["Red", "Green", "Blue"])
            let presented = Task { try await screen.present(set) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/interaction", #"{"choiceID": \#(id)}"#, steps: steps)
            guard case .selected(let cell, _, let trigger) = try await presented.value else { throw TourError("nothing was chosen") }
            return "\(cell.text) chosen by \(trigger.rawValue)"
        }
        await steps.run("searchable popup menu") {
            let cities = ["Boston", "Bonn", "Denver"].map { SDLChoiceCell(text: $0) }
            let search = SDLKeyboard { entry in cities.map(\.text).filter { $0.hasPrefix(entry) } }
            let presented = Task { try await screen.presentSearchable(SDLChoiceSet(title: "City", cells: cities, timeout: .seconds(30)), keyboard: search) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/keyboard", #"{"type": "Bo"}"#, steps: steps)
            await place.driver.control("POST", "/apps/\(place.appID)/interaction", #"{"text": "Bos"}"#, steps: steps)
            guard case .searched(let text) = try await presented.value else { throw TourError("no search text came back") }
            return "search field with autocomplete; the driver searched for \(text) (the app runs the search)"
        }
        await steps.run("keyboard") {
            let keyboard = SDLKeyboard(initialText: "City", timeout: .seconds(30)) { entry in ["\(entry)ston", "\(entry)troit"] }
            let presented = Task { try await screen.presentKeyboard(keyboard) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/keyboard", #"{"type": "Bo"}"#, steps: steps)
            await place.driver.control("POST", "/apps/\(place.appID)/interaction", #"{"text": "Boston"}"#, steps: steps)
            guard case .entered(let text) = try await presented.value else { throw TourError("no entry") }
            return "entered \(text)"
        }
        await steps.run("keyboard the driver backs out of") {
            var keyboard = SDLKeyboard(initialText: "Code", timeout: .seconds(30))
            keyboard.characterSet = { entry in entry.count < 4 ? ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"] : [] }
            let presented = Task { try await screen.presentKeyboard(keyboard) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/keyboard", #"{"type": "12"}"#, steps: steps)
            await place.driver.control("POST", "/apps/\(place.appID)/interaction", #"{"cancel": true}"#, steps: steps)
            let outcome = try await presented.value
            guard outcome == .aborted else { throw TourError("\(outcome)") }
            return "digits only as the driver typed, then aborted by the driver (not the app)"
        }
    }
}

struct TourError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
