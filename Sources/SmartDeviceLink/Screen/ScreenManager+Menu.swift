import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The main menu, voice commands and the menu configuration, through the screen queue.
extension SDLScreenManager {
    // MARK: Public API

    /// Replaces the main menu. Only the difference goes to the head unit: cells that look the
    /// same keep their place and ID, the others are deleted (DeleteCommand, DeleteSubMenu) and
    /// added (AddSubMenu, AddCommand) at their positions; submenus kept are updated the same
    /// way inside. With `dynamicUpdates` off (or on SYNC 3's 8-inch display) every cell is
    /// deleted and added again. Titles must be unique among siblings and voice commands
    /// across the menu and the voice commands. Artwork the head unit does not hold yet goes as
    /// the guide says: the menu without artwork first, then, once uploaded, the cells with it.
    ///
    /// Where the window allows dynamic updates (RPC 7.0 `dynamicUpdateCapabilities`), a
    /// submenu's cells wait until the head unit asks for them (OnUpdateSubMenu, when the driver
    /// opens it), and menu icons of the fields it lists are named at once but uploaded only when
    /// it asks for each (OnUpdateFile).
    @discardableResult
    public func setMenu(_ cells: [SDLMenuCell]) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            do { try MenuDiff.validate(cells, voiceCommands: voiceCommandList) } catch { throw .menu(error) }
            menuCells = cells
            if let manager = current { startCommandListener(manager) }
            return try await enqueue(.menu)
        } catch {
            throw SDLError(error)
        }
    }

    /// Replaces the voice-only commands (AddCommand without menu parameters).
    @discardableResult
    public func setVoiceCommands(_ commands: [SDLVoiceCommand]) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            do { try MenuDiff.validate(menuCells, voiceCommands: commands) } catch { throw .menu(error) }
            voiceCommandList = commands
            if let manager = current { startCommandListener(manager) }
            return try await enqueue(.voiceCommands)
        } catch {
            throw SDLError(error)
        }
    }

    /// The menu layouts (SetGlobalProperties, RPC 6.0+) and the update mode.
    @discardableResult
    public func setMenuConfiguration(_ configuration: SDLMenuConfiguration) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            menuConfigurationValue = configuration
            return try await enqueue(.menuConfiguration)
        } catch {
            throw SDLError(error)
        }
    }

    /// The title and icon of the app's menu (SetGlobalProperties); the icon is uploaded first.
    @discardableResult
    public func setMenuTitle(_ title: String?, icon: SDLArtwork? = nil) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            return try await enqueue(.menuTitle(title, icon))
        } catch {
            throw SDLError(error)
        }
    }

    /// The menu cells as last set with `setMenu`, whether or not they are on the head unit yet.
    public var menu: [SDLMenuCell] { menuCells }
    /// The menu layouts and update mode as last set.
    public var menuConfiguration: SDLMenuConfiguration { menuConfigurationValue }

    /// Opens the app's menu on the head unit (ShowAppMenu, RPC 6.0+).
    public func openMenu() async throws {
        do throws(SDLScreenError) {
            _ = try await enqueue(.openMenu(submenuID: nil))
        } catch {
            throw SDLError(error)
        }
    }

    /// Opens a submenu of the current menu by its title (ShowAppMenu with its ID).
    public func openSubmenu(_ title: String) async throws {
        do throws(SDLScreenError) {
            guard let sent = sentMenu.first(where: { $0.cell.title == title && $0.cell.subCells != nil }) else {
                throw .menu(.unknownSubmenu(title))
            }
            _ = try await enqueue(.openMenu(submenuID: sent.id))
        } catch {
            throw SDLError(error)
        }
    }

    // MARK: Operations

    func updateMenu() async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        let target = menuCells
        let window = await manager.mainWindowCapability()
        let display = await manager.displayName()
        let minimal =
            switch menuConfigurationValue.dynamicUpdates {
            case .forceOn: true
            case .forceOff: false
            case .onWithCompatibility: !SDLMenuConfiguration.fullRewriteDisplays.contains(display ?? "")
            }
        let version = await manager.rpcVersion()
        let context = MenuContext(manager: manager, version: version, window: window, defaultSubmenuLayout: menuConfigurationValue.defaultSubmenuLayout)
        // Kept with the earlier menu's: cells still on the head unit may ask for theirs.
        onDemandArtworks.merge(context.onDemandFields.isEmpty ? [:] : Self.artworks(of: target, in: context.onDemandFields)) { _, new in new }
        let missing = await artworksToUpload(of: target, context: context, sent: sentMenu)
        if !missing.isEmpty {
            // The guide: the menu without artwork first, so the driver has it at once; then,
            // with the artworks on the head unit, the menu with them (the cells with artwork
            // replaced).
            let names = Set(missing.map(\.name))
            sentMenu = try await update(level: sentMenu, to: Self.without(names, in: target), parentID: nil, minimal: minimal, context: context)
            for artwork in missing { try await upload(artwork, manager: manager) }
        }
        sentMenu = try await update(level: sentMenu, to: target, parentID: nil, minimal: minimal, context: context)
    }

    /// The cells without the artwork named in `names` (not on the head unit yet), at every level;
    /// artwork already there stays.
    static func without(_ names: Set<String>, in cells: [SDLMenuCell]) -> [SDLMenuCell] {
        cells.map { cell in
            var plain = cell
            if let icon = cell.icon, names.contains(icon.name) { plain.icon = nil }
            if let artwork = cell.secondaryArtwork, names.contains(artwork.name) { plain.secondaryArtwork = nil }
            plain.subCells = cell.subCells.map { without(names, in: $0) }
            return plain
        }
    }

    struct MenuContext {
        let manager: any SDLScreenContext
        let version: SDLSpecVersion
        let window: WindowCapability?
        let defaultSubmenuLayout: MenuLayout

        /// Submenus filled when the head unit asks (RPC 7.0+, `supportsDynamicSubMenus`).
        var dynamicSubmenus: Bool {
            version >= .version(7, 0) && window?.dynamicUpdateCapabilities?.supportsDynamicSubMenus == true
        }

        /// Menu image fields whose files the head unit asks for when it shows them (RPC 7.0+).
        var onDemandFields: Set<ImageFieldName> {
            guard version >= .version(7, 0) else { return [] }
            return Set(window?.dynamicUpdateCapabilities?.supportedDynamicImageFieldNames ?? []).intersection([.cmdIcon, .subMenuIcon])
        }
    }

    /// The icons of `cells` (at every level) shown in `fields`, by name.
    static func artworks(of cells: [SDLMenuCell], in fields: Set<ImageFieldName>) -> [String: SDLArtwork] {
        var found: [String: SDLArtwork] = [:]
        for cell in cells {
            if let icon = cell.icon, !icon.isStaticIcon, fields.contains(cell.subCells != nil ? .subMenuIcon : .cmdIcon) { found[icon.name] = icon }
            found.merge(artworks(of: cell.subCells ?? [], in: fields)) { first, _ in first }
        }
        return found
    }

    /// Brings one level from `old` to `new`: deletes first, then adds in order at their
    /// positions; returns the level as the head unit now has it.
    private func update(
        level old: [SentMenuCell], to new: [SDLMenuCell], parentID: Int?, minimal: Bool, context: MenuContext
    ) async throws(SDLScreenError) -> [SentMenuCell] {
        let (kept, deleted) =
            minimal
            ? MenuDiff.diff(old: old.map(\.cell.look), new: new.map(\.look))
            : ([Int?](repeating: nil, count: new.count), Array(old.indices))
        var current = old
        for index in deleted.sorted(by: >) {
            try await delete(old[index], manager: context.manager)
            current.remove(at: index)
        }
        var result: [SentMenuCell] = []
        for (position, cell) in new.enumerated() {
            if let oldIndex = kept[position] {
                var sent = old[oldIndex]
                sent.cell = cell  // same look; the new handler (and, if awaiting, the cells to send when asked)
                if let children = cell.subCells {
                    if !sent.awaitingContents {
                        sent.children = try await update(level: sent.children, to: children, parentID: sent.id, minimal: minimal, context: context)
                    } else if !context.dynamicSubmenus {
                        // The window no longer fills submenus on demand: no request will come.
                        sent.awaitingContents = false
                        sent.children = try await add(children, parentID: sent.id, context: context)
                    }
                }
                result.append(sent)
            } else {
                result.append(try await add(cell, position: position, parentID: parentID, context: context))
            }
        }
        return result
    }

    private func delete(_ sent: SentMenuCell, manager: any SDLScreenContext) async throws(SDLScreenError) {
        if sent.cell.subCells != nil {
            _ = try await request(DeleteSubMenu(menuID: sent.id), manager: manager)
        } else {
            _ = try await request(DeleteCommand(cmdID: sent.id), manager: manager)
        }
    }

    /// A submenu's cells, added under it in order; as the head unit now has them.
    private func add(_ children: [SDLMenuCell], parentID: Int, context: MenuContext) async throws(SDLScreenError) -> [SentMenuCell] {
        var added: [SentMenuCell] = []
        for (position, child) in children.enumerated() {
            added.append(try await add(child, position: position, parentID: parentID, context: context))
        }
        return added
    }

    private func add(_ cell: SDLMenuCell, position: Int, parentID: Int?, context: MenuContext) async throws(SDLScreenError) -> SentMenuCell {
        let id = nextCommandID
        nextCommandID += 1
        let lines = context.version >= .version(7, 1)
        let icon = cell.icon.flatMap { TextFitting.has(cell.subCells != nil ? .subMenuIcon : .cmdIcon, context.window) ? $0.image : nil }
        let secondaryImage = lines ? cell.secondaryArtwork?.image : nil
        if let children = cell.subCells {
            var layout: MenuLayout?
            if context.version >= .version(6, 0) {
                let wanted = cell.submenuLayout ?? context.defaultSubmenuLayout
                if context.window?.menuLayoutsAvailable?.contains(wanted) ?? true { layout = wanted }
            }
            _ = try await request(
                AddSubMenu(
                    menuID: id, position: position, menuName: cell.title, menuIcon: icon, menuLayout: layout, parentID: parentID,
                    secondaryText: lines ? cell.secondaryText : nil, tertiaryText: lines ? cell.tertiaryText : nil, secondaryImage: secondaryImage),
                manager: context.manager)
            var sent = SentMenuCell(cell: cell, id: id, children: [])
            // Dynamic submenus: the cells go when the head unit asks (OnUpdateSubMenu).
            guard !context.dynamicSubmenus else {
                sent.awaitingContents = true
                return sent
            }
            sent.children = try await add(children, parentID: id, context: context)
            return sent
        }
        _ = try await request(
            AddCommand(
                cmdID: id,
                menuParams: MenuParams(
                    parentID: parentID, position: position, menuName: cell.title,
                    secondaryText: lines ? cell.secondaryText : nil, tertiaryText: lines ? cell.tertiaryText : nil),
                vrCommands: cell.voiceCommands, cmdIcon: icon, secondaryImage: secondaryImage),
            manager: context.manager)
        return SentMenuCell(cell: cell, id: id, children: [])
    }

    /// The artworks of the cells about to be sent that the window shows and the head unit does
    /// not hold yet (static icons are always there), once each. Icons the head unit fetches on
    /// demand are left out, and so are the cells of submenus that wait for OnUpdateSubMenu (those
    /// `sent` has not filled, matched by title).
    private func artworksToUpload(of cells: [SDLMenuCell], context: MenuContext, sent: [SentMenuCell]) async -> [SDLArtwork] {
        var artworks: [SDLArtwork] = []
        let onDemand = context.onDemandFields
        func collect(_ level: [SDLMenuCell], sent: [SentMenuCell]?) {
            for cell in level {
                let field: ImageFieldName = cell.subCells != nil ? .subMenuIcon : .cmdIcon
                if let icon = cell.icon, TextFitting.has(field, context.window), !onDemand.contains(field) { artworks.append(icon) }
                if let artwork = cell.secondaryArtwork { artworks.append(artwork) }
                guard let children = cell.subCells else { continue }
                let filled = sent?.first { $0.cell.title == cell.title && $0.cell.subCells != nil && !$0.awaitingContents }
                if context.dynamicSubmenus, filled == nil { continue }
                collect(children, sent: filled?.children)
            }
        }
        collect(cells, sent: sent)
        var seen: Set<String> = []
        var missing: [SDLArtwork] = []
        for artwork in artworks where seen.insert(artwork.name).inserted && !artwork.isStaticIcon {
            if await !context.manager.hasFile(named: artwork.name) { missing.append(artwork) }
        }
        return missing
    }

    /// The head unit asks for a submenu's cells (OnUpdateSubMenu): they go now, their missing
    /// artwork first; a submenu no longer in the menu, or already filled, is left alone.
    func fillSubmenu(_ menuID: Int) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        guard let path = Self.path(to: menuID, in: sentMenu), let sent = Self.cell(at: path, in: sentMenu), sent.awaitingContents,
            let children = sent.cell.subCells
        else { return }
        // Taken now: a second request while these go out finds nothing to fill.
        Self.update(path, in: &sentMenu) { $0.awaitingContents = false }
        let window = await manager.mainWindowCapability()
        let context = MenuContext(
            manager: manager, version: await manager.rpcVersion(), window: window, defaultSubmenuLayout: menuConfigurationValue.defaultSubmenuLayout)
        for artwork in await artworksToUpload(of: children, context: context, sent: []) { try await upload(artwork, manager: manager) }
        for (position, child) in children.enumerated() {
            let added = try await add(child, position: position, parentID: menuID, context: context)
            // Recorded one by one, looked up again after each await: a failure halfway leaves
            // what the head unit holds known (its commands work), and a stopped manager's new
            // menu is never written into.
            guard let now = Self.path(to: menuID, in: sentMenu) else { return }
            Self.update(now, in: &sentMenu) { $0.children.append(added) }
        }
    }

    /// The head unit asks for a menu icon it shows on demand (OnUpdateFile): uploaded now, once
    /// however many times it asks while the upload runs.
    func uploadOnDemand(_ fileName: String) async {
        guard let artwork = onDemandArtworks[fileName], let manager = current, onDemandUploads.insert(fileName).inserted else { return }
        defer { onDemandUploads.remove(fileName) }
        do throws(SDLScreenError) {
            try await upload(artwork, manager: manager)
        } catch {
            logger.warning("the head unit asked for \(fileName); the upload failed", metadata: ["error": "\(error)"])
        }
    }

    /// The icon of the submenu `menuID` when the head unit fetches it on demand.
    func onDemandIcon(ofSubmenu menuID: Int) -> String? {
        guard let path = Self.path(to: menuID, in: sentMenu), let icon = Self.cell(at: path, in: sentMenu)?.cell.icon?.name else { return nil }
        return onDemandArtworks[icon] == nil ? nil : icon
    }

    /// Indices from the top level down to the cell with `id`.
    static func path(to id: Int, in level: [SentMenuCell]) -> [Int]? {
        for (index, sent) in level.enumerated() {
            if sent.id == id { return [index] }
            if let rest = path(to: id, in: sent.children) { return [index] + rest }
        }
        return nil
    }

    static func cell(at path: [Int], in level: [SentMenuCell]) -> SentMenuCell? {
        guard let first = path.first, level.indices.contains(first) else { return nil }
        return path.count == 1 ? level[first] : cell(at: Array(path.dropFirst()), in: level[first].children)
    }

    static func update(_ path: [Int], in level: inout [SentMenuCell], _ change: (inout SentMenuCell) -> Void) {
        guard let first = path.first, level.indices.contains(first) else { return }
        if path.count == 1 { change(&level[first]) } else { update(Array(path.dropFirst()), in: &level[first].children, change) }
    }

    func updateVoiceCommands() async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        for (_, id) in sentVoiceCommands {
            _ = try await request(DeleteCommand(cmdID: id), manager: manager)
        }
        sentVoiceCommands = []
        for command in voiceCommandList {
            let id = nextCommandID
            nextCommandID += 1
            _ = try await request(AddCommand(cmdID: id, vrCommands: command.voiceCommands), manager: manager)
            sentVoiceCommands.append((command, id))
        }
    }

    func applyMenuConfiguration() async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        guard await manager.rpcVersion() >= .version(6, 0) else { return }
        let available = await manager.mainWindowCapability()?.menuLayoutsAvailable
        guard available?.contains(menuConfigurationValue.mainMenuLayout) ?? true else { return }
        _ = try await request(SetGlobalProperties(menuLayout: menuConfigurationValue.mainMenuLayout), manager: manager)
    }

    func applyMenuTitle(_ title: String?, icon: SDLArtwork?) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        if let icon { try await upload(icon, manager: manager) }
        _ = try await request(SetGlobalProperties(menuTitle: title, menuIcon: icon?.image), manager: manager)
    }

    func showAppMenu(_ submenuID: Int?) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        _ = try await request(ShowAppMenu(menuID: submenuID), manager: manager)
    }

    // MARK: Selections

    /// Listens for the driver's commands and the head unit's requests for submenu cells and
    /// menu icons (dynamic updates).
    private func startCommandListener(_ manager: any SDLScreenContext) {
        guard !listeningForCommands, let commandID = OnCommand.wireFunctionID, let submenuID = OnUpdateSubMenu.wireFunctionID,
            let fileID = OnUpdateFile.wireFunctionID
        else { return }
        let messages = manager.rawNotifications(functionIDs: [commandID, submenuID, fileID])
        listeningForCommands = context.spawn { [weak self] in
            for await message in messages {
                let json = message.payload.json
                switch message.payload.functionID {
                case commandID:
                    guard let command = try? SDLJSON.decode(OnCommand.self, from: json, policy: .lenient).value else { continue }
                    await self?.selected(command)
                case submenuID:
                    guard let update = try? SDLJSON.decode(OnUpdateSubMenu.self, from: json, policy: .lenient).value, let self else { continue }
                    if update.updateSubCells == true {
                        await self.enqueueFill(update.menuID)
                    } else if let icon = await self.onDemandIcon(ofSubmenu: update.menuID) {
                        // The submenu itself: all it can lack is its icon.
                        self.context.spawn { await self.uploadOnDemand(icon) }
                    }
                default:
                    guard let update = try? SDLJSON.decode(OnUpdateFile.self, from: json, policy: .lenient).value, let self else { continue }
                    // Beside the queue: an icon the menu on screen waits for never waits behind a popup.
                    self.context.spawn { await self.uploadOnDemand(update.fileName) }
                }
            }
        }
    }

    /// Fills go first in the queue: the driver is looking at the empty submenu.
    private func enqueueFill(_ menuID: Int) {
        context.spawn { [weak self] in
            guard let self else { return }
            do throws(SDLScreenError) {
                _ = try await self.enqueue(.fillSubmenu(menuID), id: await self.nextOperationID(), first: true)
            } catch {
                self.logger.warning("the head unit asked for submenu \(menuID)'s cells; sending them failed", metadata: ["error": "\(error)"])
            }
        }
    }

    private func selected(_ command: OnCommand) {
        if let path = Self.path(to: command.cmdID, in: sentMenu), let cell = Self.cell(at: path, in: sentMenu)?.cell {
            cell.handler?(command.triggerSource)
        } else if let voice = sentVoiceCommands.first(where: { $0.id == command.cmdID }) {
            voice.command.handler?()
        }
    }

    // MARK: Connections

    func menuConnectionReady() {
        sentMenu = []
        sentVoiceCommands = []
        onDemandArtworks = [:]
        onDemandUploads = []
    }

    func menuStopped() {
        listeningForCommands = false
        menuCells = []
        sentMenu = []
        voiceCommandList = []
        sentVoiceCommands = []
        menuConfigurationValue = SDLMenuConfiguration()
        onDemandArtworks = [:]
    }
}
