import SDLHMIRPC
import SDLHeadUnit
import SDLRPC
import SDLRuntime

/// The driver's actions as HMI messages: what the stand-in HMI shows is what the driver can
/// answer, and what it does not show is refused as the emulator's control API refuses it.
extension SDLStandInHMI: SDLHMIDriver {
    /// The app's HMI ID. The driver acts on apps Core has registered; Core's OnAppRegistered may
    /// still be on its way, so an app not known yet is waited for (at most 5 s).
    private func app(_ policyAppID: String) async throws(SDLHeadUnitControlError) -> Int {
        if let id = knownID(of: policyAppID) { return id }
        nextWait += 1
        let wait = nextWait
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.registration(of: policyAppID, wait: wait)
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            // Time ran out: the registration's wait (long since begun) ends now.
            if await group.next() == false { registrationWaiters.removeValue(forKey: wait)?.waiter.resume() }
            group.cancelAll()
        }
        guard let id = knownID(of: policyAppID) else { throw .unknownApp(policyAppID) }
        return id
    }

    private func knownID(of policyAppID: String) -> Int? {
        apps.first { $0.value.policyAppID == policyAppID }?.key
    }

    /// Returns when Core has told the HMI of the app.
    private func registration(of policyAppID: String, wait: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            if knownID(of: policyAppID) != nil { return waiter.resume() }
            registrationWaiters[wait] = (policyAppID, waiter)
        }
    }

    public func activate(appID: String) async throws(SDLHeadUnitControlError) {
        let id = try await app(appID)
        _ = await ask("SDL.ActivateApp", [.init(key: "appID", value: .integer(id))])
    }

    public func press(_ button: ButtonName, mode: ButtonPressMode) async {
        await pressed([.init(key: "name", value: .string(button.rawValue))], mode: mode)
    }

    /// As SDL's HMIs press a button: OnButtonEvent down and up, then OnButtonPress.
    private func pressed(_ button: [SDLJSONValue.Member], mode: ButtonPressMode) async {
        await notify("Buttons.OnButtonEvent", button + [.init(key: "mode", value: .string("BUTTONDOWN"))])
        await notify("Buttons.OnButtonEvent", button + [.init(key: "mode", value: .string("BUTTONUP"))])
        await notify("Buttons.OnButtonPress", button + [.init(key: "mode", value: .string(mode.rawValue))])
    }

    public func pressSoftButton(appID: String, id: Int, mode: ButtonPressMode) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        let app = apps[hmiAppID]!
        let closable = app.held.first { ["UI.Alert", "UI.SubtleAlert", "UI.ScrollableMessage"].contains($0.method) }
        let onTop = Self.list(closable?.params["softButtons"])
        let button = (onTop + app.softButtons).first { $0["softButtonID"] == .integer(id) }
        guard let button else { throw .unknownSoftButton(id) }
        await pressed(
            [
                .init(key: "name", value: .string("CUSTOM_BUTTON")), .init(key: "customButtonID", value: .integer(id)),
                .init(key: "appID", value: .integer(hmiAppID)),
            ], mode: mode)
        // A button of an alert or message closes it, unless it keeps the context.
        guard let closable, onTop.contains(where: { $0["softButtonID"] == .integer(id) }) else { return }
        let action: String = if case .string(let name)? = button["systemAction"] { name } else { "DEFAULT_ACTION" }
        guard action != "KEEP_CONTEXT" else { return }
        await close(hmiAppID, [closable.id: (.success, [])])
        if action == "STEAL_FOCUS" { _ = await ask("SDL.ActivateApp", [.init(key: "appID", value: .integer(hmiAppID))]) }
    }

    public func selectCommand(appID: String, cmdID: Int) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        guard apps[hmiAppID]?.commands[cmdID] != nil else { throw .unknownCommand(cmdID) }
        await notify("UI.OnCommand", [.init(key: "cmdID", value: .integer(cmdID)), .init(key: "appID", value: .integer(hmiAppID))])
        if apps[hmiAppID]?.menuOpen == true { try await setMenuOpen(appID: appID, false) }
    }

    public func setMenuOpen(appID: String, _ open: Bool) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        if open, let onTop = apps[hmiAppID]?.held.first { throw .invalidAnswer("\(onTop.method) is on top") }
        apps[hmiAppID]?.menuOpen = open
        await notify(
            "UI.OnSystemContext", [.init(key: "systemContext", value: .string(open ? "MENU" : "MAIN")), .init(key: "appID", value: .integer(hmiAppID))])
    }

    public func openSubmenu(appID: String, menuID: Int?) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        guard let app = apps[hmiAppID], app.menuOpen else { throw .invalidAnswer("the menu is not open") }
        guard let menuID else { return }
        guard app.subMenus.contains(menuID) else { throw .invalidAnswer("no sub-menu \(menuID)") }
        // An empty sub-menu: the app is asked for its cells (dynamic menus).
        if !app.commands.values.contains(where: { $0 == menuID }) {
            await notify(
                "UI.OnUpdateSubMenu",
                [
                    .init(key: "menuID", value: .integer(menuID)), .init(key: "updateSubCells", value: .bool(true)),
                    .init(key: "appID", value: .integer(hmiAppID)),
                ])
        }
    }

    public func answerInteraction(appID: String, _ answer: SDLUserAnswer) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        let app = apps[hmiAppID]!
        guard let first = app.held.first else {
            if app.menuOpen, answer == .dismiss || answer == .cancel { return try await setMenuOpen(appID: appID, false) }
            throw .nothingToAnswer(appID: appID)
        }
        let ui = app.held.first { $0.method.hasPrefix("UI.") }
        let vr = app.held.first { $0.method == "VR.PerformInteraction" }
        let all = app.held.map(\.id)
        func closeAll(_ code: Common.Result, chosen: Int? = nil, _ result: [SDLJSONValue.Member] = []) async {
            var answers: [Int: (Common.Result, [SDLJSONValue.Member])] = [:]
            for id in all { answers[id] = id == chosen ? (code, result) : (chosen == nil ? code : .aborted, []) }
            await close(hmiAppID, answers)
        }
        let hasKeyboard = ["KEYBOARD", "LIST_WITH_SEARCH", "ICON_WITH_SEARCH"].contains { ui?.params["interactionLayout"] == .string($0) }
        switch answer {
        case .cancel:
            if hasKeyboard { await notify("UI.OnKeyboardInput", [.init(key: "event", value: .string("ENTRY_CANCELLED"))]) }
            await closeAll(.aborted)
        case .dismiss:
            // Closes an alert or a message; Done on a recording.
            guard ["UI.Alert", "UI.SubtleAlert", "UI.ScrollableMessage", "UI.PerformAudioPassThru"].contains(first.method) else {
                throw .invalidAnswer("dismiss does not answer \(first.method)")
            }
            await closeAll(.success)
        case .choice(let choiceID), .voiceChoice(let choiceID):
            guard let part = (answer == .choice(choiceID) ? ui ?? vr : vr ?? ui), part.method.hasSuffix("PerformInteraction") else {
                throw .invalidAnswer("no choice is shown")
            }
            let offered = Self.list(ui?.params["choiceSet"]).compactMap { Self.integer($0["choiceID"]) }
            guard ui == nil || offered.contains(choiceID) else { throw .invalidAnswer("choice \(choiceID) is not offered") }
            await closeAll(.success, chosen: part.id, [.init(key: "choiceID", value: .integer(choiceID))])
        case .text(let text):
            guard let ui, hasKeyboard else { throw .invalidAnswer("no keyboard is shown") }
            await notify("UI.OnKeyboardInput", [.init(key: "event", value: .string("ENTRY_SUBMITTED")), .init(key: "data", value: .string(text))])
            await closeAll(.success, chosen: ui.id, [.init(key: "manualTextEntry", value: .string(text))])
        case .sliderPosition(let position):
            guard let ui, ui.method == "UI.Slider" else { throw .invalidAnswer("no slider is shown") }
            guard let ticks = Self.integer(ui.params["numTicks"]), (1...ticks).contains(position) else {
                throw .invalidAnswer("slider position \(position) is outside 1...numTicks")
            }
            await closeAll(.success, chosen: ui.id, [.init(key: "sliderPosition", value: .integer(position))])
        }
    }

    public func pressSubtleAlert(appID: String) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        guard let alert = apps[hmiAppID]?.held.first else { throw .nothingToAnswer(appID: appID) }
        guard alert.method == "UI.SubtleAlert" else { throw .invalidAnswer("\(alert.method) is on top, not a subtle alert") }
        // As SDL's HMIs: the app is opened, told, and its SubtleAlert answered.
        _ = await ask("SDL.ActivateApp", [.init(key: "appID", value: .integer(hmiAppID))])
        await notify("UI.OnSubtleAlertPressed", [.init(key: "appID", value: .integer(hmiAppID))])
        await close(hmiAppID, [alert.id: (.success, [])])
    }

    public func typeOnKeyboard(appID: String, _ text: String) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        guard let app = apps[hmiAppID], let ui = app.held.first(where: { $0.method == "UI.PerformInteraction" }),
            ["KEYBOARD", "LIST_WITH_SEARCH", "ICON_WITH_SEARCH"].contains(where: { ui.params["interactionLayout"] == .string($0) })
        else { throw .invalidAnswer("no keyboard is shown") }
        var entry = ""
        for character in text {
            entry.append(character)
            let data = app.keypressMode == "SINGLE_KEYPRESS" ? String(character) : entry
            await notify("UI.OnKeyboardInput", [.init(key: "event", value: .string("KEYPRESS")), .init(key: "data", value: .string(data))])
        }
    }

    public func setKeyboardMasked(appID: String, _ masked: Bool) async throws(SDLHeadUnitControlError) {
        let hmiAppID = try await app(appID)
        guard apps[hmiAppID]?.held.contains(where: { $0.method == "UI.PerformInteraction" }) == true else { throw .invalidAnswer("no keyboard is shown") }
        await notify("UI.OnKeyboardInput", [.init(key: "event", value: .string(masked ? "INPUT_KEY_MASK_ENABLED" : "INPUT_KEY_MASK_DISABLED"))])
    }

    public func touch(appID: String, _ type: TouchType, _ points: [SDLHeadUnitEmulator.TouchPoint]) async throws(SDLHeadUnitControlError) -> Bool {
        let hmiAppID = try await app(appID)
        guard let app = apps[hmiAppID], app.appTypes.contains("NAVIGATION") || app.appTypes.contains("PROJECTION") else { return false }
        let milliseconds = Int(started.duration(to: .now) / .milliseconds(1)) % 2_000_000_000
        let events: [SDLJSONValue] = points.map { point in
            .object([
                .init(key: "id", value: .integer(point.id)), .init(key: "ts", value: .array([.integer(milliseconds)])),
                .init(key: "c", value: .array([.object([.init(key: "x", value: .integer(point.x)), .init(key: "y", value: .integer(point.y))])])),
            ])
        }
        await notify("UI.OnTouchEvent", [.init(key: "type", value: .string(type.rawValue)), .init(key: "event", value: .array(events))])
        return true
    }

    public func setDriverDistraction(_ on: Bool) async {
        await notify("UI.OnDriverDistraction", [.init(key: "state", value: .string(on ? "DD_ON" : "DD_OFF"))])
    }

    public func setVehicleData(_ values: SDLJSONValue) async {
        try? vehicle.set(values)
        guard case .object(let members) = values else { return }
        await notify("VehicleInfo.OnVehicleData", members)
    }

}
