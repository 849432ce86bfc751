import SDLProtocol
import SDLRPC
import SDLRuntime

/// The menu and choice sets with SDL Core's ID and name rules: an ID in use or unknown is
/// INVALID_ID, a voice command another command has is DUPLICATE_NAME (the “Screen, menus and
/// windows” article lists them).
extension SDLHeadUnitEmulator {
    func addCommand(_ request: AddCommand, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let menu = apps[appID]?.menu else { return (.failure(.applicationNotRegistered, nil), []) }
        if menu.commands[request.cmdID] != nil { return (.failure(.invalidId, "cmdID \(request.cmdID) is in use"), []) }
        if let parent = request.menuParams?.parentID, parent != 0, menu.subMenus[parent] == nil {
            return (.failure(.invalidId, "parentID \(parent) is not a sub-menu"), [])
        }
        if let commands = request.vrCommands, !commands.isEmpty {
            let taken = Set(menu.commands.values.flatMap { Self.strings($0["vrCommands"]) }.map { $0.lowercased() })
            if let clash = commands.first(where: { taken.contains($0.lowercased()) }) {
                return (.failure(.duplicateName, "vrCommand \(clash) is used by another command"), [])
            }
        }
        let json = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        apps[appID]?.menu.commands[request.cmdID] = json
        apps[appID]?.menu.commandOrder.append(request.cmdID)
        return (.success(), [hashChange(of: appID)] + fileRequests(for: [json], appID: appID, level: request.menuParams?.parentID ?? 0))
    }

    func deleteCommand(_ request: DeleteCommand, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.menu.commands.removeValue(forKey: request.cmdID) != nil else {
            return (.failure(.invalidId, "no command \(request.cmdID)"), [])
        }
        apps[appID]?.menu.commandOrder.removeAll { $0 == request.cmdID }
        return (.success(), [hashChange(of: appID)])
    }

    func addSubMenu(_ request: AddSubMenu, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let menu = apps[appID]?.menu else { return (.failure(.applicationNotRegistered, nil), []) }
        if menu.subMenus[request.menuID] != nil || menu.commands[request.menuID] != nil {
            return (.failure(.invalidId, "menuID \(request.menuID) is in use"), [])
        }
        if let parent = request.parentID, parent != 0, menu.subMenus[parent] == nil {
            return (.failure(.invalidId, "parentID \(parent) is not a sub-menu"), [])
        }
        let json = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        apps[appID]?.menu.subMenus[request.menuID] = json
        apps[appID]?.menu.subMenuOrder.append(request.menuID)
        return (.success(), [hashChange(of: appID)] + fileRequests(for: [json], appID: appID, level: request.parentID ?? 0))
    }

    func deleteSubMenu(_ request: DeleteSubMenu, appID: String) -> (Reply, [Effect]) {
        guard var menu = apps[appID]?.menu, menu.subMenus[request.menuID] != nil else {
            return (.failure(.invalidId, "no sub-menu \(request.menuID)"), [])
        }
        // The sub-menu goes with everything under it.
        var doomed: Set<Int> = [request.menuID]
        var grew = true
        while grew {
            grew = false
            for (id, subMenu) in menu.subMenus where !doomed.contains(id) {
                if case .integer(let parent)? = subMenu["parentID"], doomed.contains(parent) {
                    doomed.insert(id)
                    grew = true
                }
            }
        }
        for id in doomed { menu.subMenus[id] = nil }
        menu.subMenuOrder.removeAll { doomed.contains($0) }
        let children = menu.commands.filter { if case .integer(let parent)? = $0.value["menuParams"]?["parentID"] { doomed.contains(parent) } else { false } }
        for id in children.keys { menu.commands[id] = nil }
        menu.commandOrder.removeAll { children.keys.contains($0) }
        apps[appID]?.menu = menu
        // The driver was inside what went: the menu shows its top level again.
        if let open = apps[appID]?.openSubmenuID, doomed.contains(open) {
            return (.success(), [hashChange(of: appID)] + showMenuLevel(nil, appID: appID))
        }
        return (.success(), [hashChange(of: appID)])
    }

    func createChoiceSet(_ request: CreateInteractionChoiceSet, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.choiceSets[request.interactionChoiceSetID] == nil else {
            return (.failure(.invalidId, "interactionChoiceSetID \(request.interactionChoiceSetID) is in use"), [])
        }
        apps[appID]?.choiceSets[request.interactionChoiceSetID] = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        return (.success(), [hashChange(of: appID)])
    }

    func deleteChoiceSet(_ request: DeleteInteractionChoiceSet, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.choiceSets.removeValue(forKey: request.interactionChoiceSetID) != nil else {
            return (.failure(.invalidId, "no choice set \(request.interactionChoiceSetID)"), [])
        }
        return (.success(), [hashChange(of: appID)])
    }

    static func strings(_ value: SDLJSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// The driver picks a menu command: OnCommand to its app, and an open menu closes.
    public func selectCommand(appID: String, cmdID: Int) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.selectCommand(appID: appID, cmdID: cmdID) }
        try await commandSelected(appID: appID, cmdID: cmdID)
    }

    /// A command chosen on the HMI (UI.OnCommand), relayed as SDL Core does.
    func commandSelected(appID: String, cmdID: Int) async throws(SDLHeadUnitControlError) {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard app.menu.commands[cmdID] != nil else { throw .unknownCommand(cmdID) }
        var effects = [notification(OnCommand(cmdID: cmdID, triggerSource: .menu), to: appID)]
        if app.menuOpen { effects += setMenuOpen(false, appID: appID) }
        await perform(effects)
    }

    /// The driver opens (or closes) the app's menu from the head unit's menu button: system
    /// context MENU, then MAIN. Only an app in FULL with nothing else on top has a menu to open.
    public func setMenuOpen(appID: String, _ open: Bool) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.setMenuOpen(appID: appID, open) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        if open {
            guard app.hmiLevel == .full else { throw .invalidAnswer("the menu opens only in FULL") }
            if let onTop = app.interaction { throw .invalidAnswer("\(onTop.kind.rawValue) is on top") }
        }
        await perform(setMenuOpen(open, appID: appID) + (open ? showMenuLevel(nil, appID: appID) : []))
    }

    /// ShowAppMenu opens the app's menu (or one of its sub-menus) on top: system context MENU
    /// until the driver picks a command or closes it.
    func showAppMenu(_ request: ShowAppMenu, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        guard app.hmiLevel == .full else { return (.failure(.rejected, "the menu opens only in FULL"), []) }
        if let menuID = request.menuID, app.menu.subMenus[menuID] == nil {
            return (.failure(.invalidId, "no sub-menu \(menuID)"), [])
        }
        guard app.interaction == nil else { return (.failure(.rejected, "\(app.interaction!.kind.rawValue) is on top"), []) }
        return (.success(), setMenuOpen(true, appID: appID) + showMenuLevel(request.menuID, appID: appID))
    }

    /// The driver opens a submenu of the open menu (or goes back to its top level with nil).
    /// With dynamic menu updates the head unit asks for what it lacks: OnUpdateSubMenu for a
    /// submenu with nothing in it, OnUpdateFile for the level's missing icons.
    public func openSubmenu(appID: String, menuID: Int?) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.openSubmenu(appID: appID, menuID: menuID) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard app.menuOpen else { throw .invalidAnswer("the menu is not open") }
        if let menuID, app.menu.subMenus[menuID] == nil { throw .invalidAnswer("no sub-menu \(menuID)") }
        await perform(showMenuLevel(menuID, appID: appID))
    }

    /// Shows one level of the open menu; what the head unit asks the app for to show it.
    private func showMenuLevel(_ menuID: Int?, appID: String) -> [Effect] {
        guard let app = apps[appID] else { return [] }
        apps[appID]?.openSubmenuID = menuID
        guard configuration.dynamicMenuUpdates else { return [] }
        let level = menuID ?? 0
        let items = Self.items(of: app.menu, at: level)
        var effects: [Effect] = []
        if let menuID, items.isEmpty {
            effects.append(notification(OnUpdateSubMenu(menuID: menuID, updateSubCells: true), to: appID))
        }
        return effects + fileRequests(for: items, appID: appID, level: level)
    }

    /// OnUpdateFile for each DYNAMIC menu icon of `items` the app has not uploaded, when the
    /// driver sees `level` now (dynamic menu updates only).
    private func fileRequests(for items: [SDLJSONValue], appID: String, level: Int) -> [Effect] {
        guard configuration.dynamicMenuUpdates, let app = apps[appID], app.menuOpen, (app.openSubmenuID ?? 0) == level else { return [] }
        let store = fileStore(of: appID)
        var asked: Set<String> = []
        var effects: [Effect] = []
        for item in items {
            for key in ["cmdIcon", "menuIcon"] {
                guard case .string(let name)? = item[key]?["value"], item[key]?["imageType"] == .string("DYNAMIC"),
                    !name.isEmpty, !store.exists(name), asked.insert(name).inserted
                else { continue }
                effects.append(notification(OnUpdateFile(fileName: name), to: appID))
            }
        }
        return effects
    }

    /// The submenus and commands directly under `level` (0: the top), in the order they came.
    static func items(of menu: MenuState, at level: Int) -> [SDLJSONValue] {
        func parent(_ value: SDLJSONValue?) -> Int { if case .integer(let id)? = value { id } else { 0 } }
        let subMenus = menu.subMenuOrder.compactMap { menu.subMenus[$0] }.filter { parent($0["parentID"]) == level }
        let commands = menu.commandOrder.compactMap { menu.commands[$0] }.filter { $0["menuParams"] != nil && parent($0["menuParams"]?["parentID"]) == level }
        return subMenus + commands
    }

    /// Opens or closes the app's menu; the app hears the system context.
    func setMenuOpen(_ open: Bool, appID: String) -> [Effect] {
        guard apps[appID] != nil, apps[appID]?.menuOpen != open else { return [] }
        apps[appID]?.menuOpen = open
        apps[appID]?.openSubmenuID = nil
        apps[appID]?.systemContext = open ? .menu : .main
        emit(.systemContextChanged(appID: appID, open ? .menu : .main))
        return [hmiStatus(of: appID)]
    }
}
