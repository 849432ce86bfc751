import SDLRPC

/// A main-menu entry: a command, or a submenu when it has sub-cells (one level deep, as the
/// guide says head units support).
public struct SDLMenuCell: Sendable {
    /// The menu text; unique among its siblings.
    public var title: String
    /// A second line of text (RPC 7.1+).
    public var secondaryText: String?
    /// A third line of text (RPC 7.1+).
    public var tertiaryText: String?
    /// The image beside the title; uploaded before the menu is sent.
    public var icon: SDLArtwork?
    /// A second image (RPC 7.1+).
    public var secondaryArtwork: SDLArtwork?
    /// Spoken forms that select the cell; unique across the whole menu and the voice commands.
    public var voiceCommands: [String]?
    /// Non-nil: a submenu with these cells.
    public var subCells: [SDLMenuCell]?
    /// The submenu's layout (RPC 6.0+); the menu configuration's default when nil.
    public var submenuLayout: MenuLayout?
    /// Runs when the driver selects the command, by touch or voice.
    public var handler: (@Sendable (TriggerSource) -> Void)?

    /// A command.
    ///
    /// - Parameters:
    ///   - title: the menu text; unique among its siblings.
    ///   - secondaryText: a second line (RPC 7.1+).
    ///   - tertiaryText: a third line (RPC 7.1+).
    ///   - icon: the image beside the title.
    ///   - secondaryArtwork: a second image (RPC 7.1+).
    ///   - voiceCommands: spoken forms that select it.
    ///   - handler: runs when it is selected.
    public init(
        title: String, secondaryText: String? = nil, tertiaryText: String? = nil, icon: SDLArtwork? = nil, secondaryArtwork: SDLArtwork? = nil,
        voiceCommands: [String]? = nil, handler: (@Sendable (TriggerSource) -> Void)? = nil
    ) {
        self.title = title
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.icon = icon
        self.secondaryArtwork = secondaryArtwork
        self.voiceCommands = voiceCommands
        self.handler = handler
    }

    /// A submenu.
    ///
    /// - Parameters:
    ///   - title: the menu text; unique among its siblings.
    ///   - icon: the image beside the title.
    ///   - submenuLayout: tiles or list (RPC 6.0+).
    ///   - subCells: its entries.
    public init(title: String, icon: SDLArtwork? = nil, submenuLayout: MenuLayout? = nil, subCells: [SDLMenuCell]) {
        self.title = title
        self.icon = icon
        self.submenuLayout = submenuLayout
        self.subCells = subCells
    }

    /// What the head unit shows of the cell, without its sub-cells: two cells that look the
    /// same are the same cell for the minimal update.
    struct Look: Hashable {
        var title: String
        var secondaryText: String?
        var tertiaryText: String?
        var icon: String?
        var secondaryArtwork: String?
        var voiceCommands: [String]?
        var isSubmenu: Bool
        var submenuLayout: MenuLayout?
    }

    var look: Look {
        Look(
            title: title, secondaryText: secondaryText, tertiaryText: tertiaryText, icon: icon?.name, secondaryArtwork: secondaryArtwork?.name,
            voiceCommands: voiceCommands, isSubmenu: subCells != nil, submenuLayout: submenuLayout)
    }
}

/// A voice-only command (AddCommand without menu parameters).
public struct SDLVoiceCommand: Sendable {
    /// The spoken forms; unique across the menu and the other voice commands.
    public var voiceCommands: [String]
    /// Runs when the driver speaks one of them.
    public var handler: (@Sendable () -> Void)?

    /// A voice command that runs `handler` when the driver speaks one of `voiceCommands`.
    ///
    /// - Parameters:
    ///   - voiceCommands: the spoken forms; unique across the menu and the other commands.
    ///   - handler: runs when one is spoken.
    public init(voiceCommands: [String], handler: (@Sendable () -> Void)? = nil) {
        self.voiceCommands = voiceCommands
        self.handler = handler
    }
}

/// How the menu is laid out (RPC 6.0+), and whether it is updated with minimal changes.
public struct SDLMenuConfiguration: Sendable, Hashable {
    /// List or tiles for the main menu (RPC 6.0+).
    public var mainMenuLayout: MenuLayout
    /// The layout of submenus that name none (RPC 6.0+).
    public var defaultSubmenuLayout: MenuLayout
    /// Whether menu changes send only the changed cells or rewrite the whole menu.
    public var dynamicUpdates: DynamicUpdates

    /// Minimal updates (only the changed cells deleted and added), or every cell deleted and
    /// added again.
    public enum DynamicUpdates: Sendable, Hashable {
        /// Minimal, except on head units that mishandle them: the iOS SDK's list, SYNC 3's
        /// 8-inch display (`displayName` "GEN3_8-INCH"), gets full rewrites.
        case onWithCompatibility
        /// Always minimal updates, whatever the display.
        case forceOn
        /// Always full rewrites: every cell deleted and added again.
        case forceOff
    }

    /// A menu configuration; the defaults are list layouts with minimal updates where the
    /// display handles them.
    ///
    /// - Parameters:
    ///   - mainMenuLayout: list or tiles for the main menu.
    ///   - defaultSubmenuLayout: for submenus that name none.
    ///   - dynamicUpdates: minimal updates or full rewrites.
    public init(mainMenuLayout: MenuLayout = .list, defaultSubmenuLayout: MenuLayout = .list, dynamicUpdates: DynamicUpdates = .onWithCompatibility) {
        self.mainMenuLayout = mainMenuLayout
        self.defaultSubmenuLayout = defaultSubmenuLayout
        self.dynamicUpdates = dynamicUpdates
    }

    /// Displays the iOS SDK found to mishandle dynamic menu updates.
    static let fullRewriteDisplays: Set<String> = ["GEN3_8-INCH"]
}

/// Why a menu was refused before anything was sent.
package enum SDLMenuError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two cells of one level have the same title.
    case duplicateTitle(String)
    /// A voice command is used twice (the head unit would answer DUPLICATE_NAME).
    case duplicateVoiceCommand(String)
    /// Head units show one level of submenus.
    case tooDeep(String)
    /// No submenu with this title is in the menu on the head unit (`openSubmenu`).
    case unknownSubmenu(String)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .duplicateTitle(let title): "two menu cells of one level are titled \(title); titles must be unique among siblings"
        case .duplicateVoiceCommand(let command): "the voice command \(command) is used twice"
        case .tooDeep(let title): "\(title) nests a submenu in a submenu; head units show one level"
        case .unknownSubmenu(let title): "no submenu is titled \(title)"
        }
    }
}

/// A cell as sent: its ID on the head unit and its sub-cells'.
struct SentMenuCell: Sendable {
    var cell: SDLMenuCell
    var id: Int
    var children: [SentMenuCell]
    /// A submenu whose cells wait for the head unit's OnUpdateSubMenu (dynamic submenus).
    var awaitingContents = false
}

/// The minimal change from one level of cells to another: a longest common subsequence of
/// cells that look the same is kept, the rest of the old level deleted and of the new added.
enum MenuDiff {
    /// For each new cell, the index of the old cell it keeps (nil: added); and the old indices
    /// to delete.
    static func diff(old: [SDLMenuCell.Look], new: [SDLMenuCell.Look]) -> (kept: [Int?], deleted: [Int]) {
        let n = old.count
        let m = new.count
        var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var kept = [Int?](repeating: nil, count: m)
        var keptOld = Set<Int>()
        var i = 0
        var j = 0
        while i < n && j < m {
            if old[i] == new[j] {
                kept[j] = i
                keptOld.insert(i)
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return (kept, (0..<n).filter { !keptOld.contains($0) })
    }

    /// Checks the guide's rules: unique titles among siblings, unique voice commands, one
    /// level of submenus.
    static func validate(_ cells: [SDLMenuCell], voiceCommands: [SDLVoiceCommand]) throws(SDLMenuError) {
        var spoken: Set<String> = []
        func check(_ level: [SDLMenuCell], depth: Int) throws(SDLMenuError) {
            var titles: Set<String> = []
            for cell in level {
                guard titles.insert(cell.title).inserted else { throw .duplicateTitle(cell.title) }
                for command in cell.voiceCommands ?? [] {
                    guard spoken.insert(command.lowercased()).inserted else { throw .duplicateVoiceCommand(command) }
                }
                if let children = cell.subCells {
                    guard depth == 0 else { throw .tooDeep(cell.title) }
                    try check(children, depth: depth + 1)
                }
            }
        }
        try check(cells, depth: 0)
        for command in voiceCommands.flatMap(\.voiceCommands) {
            guard spoken.insert(command.lowercased()).inserted else { throw .duplicateVoiceCommand(command) }
        }
    }
}
