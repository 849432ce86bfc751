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
        return (.success(), [hashChange(of: appID)])
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
        apps[appID]?.menu.subMenus[request.menuID] = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        apps[appID]?.menu.subMenuOrder.append(request.menuID)
        return (.success(), [hashChange(of: appID)])
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
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard app.menu.commands[cmdID] != nil else { throw .unknownCommand(cmdID) }
        var effects = [notification(OnCommand(cmdID: cmdID, triggerSource: .menu), to: appID)]
        if app.menuOpen { effects += setMenuOpen(false, appID: appID) }
        await perform(effects)
    }

    /// The driver opens (or closes) the app's menu from the head unit's menu button: system
    /// context MENU, then MAIN. Only an app in FULL with nothing else on top has a menu to open.
    public func setMenuOpen(appID: String, _ open: Bool) async throws(SDLHeadUnitControlError) {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        if open {
            guard app.hmiLevel == .full else { throw .invalidAnswer("the menu opens only in FULL") }
            if let onTop = app.interaction { throw .invalidAnswer("\(onTop.kind.rawValue) is on top") }
        }
        await perform(setMenuOpen(open, appID: appID))
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
        return (.success(), setMenuOpen(true, appID: appID))
    }

    /// Opens or closes the app's menu; the app hears the system context.
    func setMenuOpen(_ open: Bool, appID: String) -> [Effect] {
        guard apps[appID] != nil, apps[appID]?.menuOpen != open else { return [] }
        apps[appID]?.menuOpen = open
        apps[appID]?.systemContext = open ? .menu : .main
        emit(.systemContextChanged(appID: appID, open ? .menu : .main))
        return [hmiStatus(of: appID)]
    }
}
