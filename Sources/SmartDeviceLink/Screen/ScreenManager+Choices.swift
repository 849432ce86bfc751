import SDLRPC
import SDLRuntime

/// One entry of a popup menu (choice set).
public struct SDLChoiceCell: Sendable, Hashable {
    /// Unique within a choice set.
    public var text: String
    /// A second line of text.
    public var secondaryText: String?
    /// A third line of text.
    public var tertiaryText: String?
    /// Spoken forms; either every cell of a set has them or none (the guide's rule).
    public var voiceCommands: [String]?
    /// The entry's image; uploaded before the choice set is sent.
    public var artwork: SDLArtwork?
    /// A second image.
    public var secondaryArtwork: SDLArtwork?

    /// A choice cell with `text` and, optionally, more lines, voice commands and images.
    ///
    /// - Parameters:
    ///   - text: the entry's text, unique within a set.
    ///   - secondaryText: a second line.
    ///   - tertiaryText: a third line.
    ///   - voiceCommands: spoken forms (all cells of a set or none).
    ///   - artwork: the entry's image.
    ///   - secondaryArtwork: a second image.
    public init(
        text: String, secondaryText: String? = nil, tertiaryText: String? = nil, voiceCommands: [String]? = nil,
        artwork: SDLArtwork? = nil, secondaryArtwork: SDLArtwork? = nil
    ) {
        self.text = text
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.voiceCommands = voiceCommands
        self.artwork = artwork
        self.secondaryArtwork = secondaryArtwork
    }
}

/// A popup menu: cells shown as a list or tiles, searchable or not, with a timeout and prompts.
public struct SDLChoiceSet: Sendable, Hashable {
    /// How the cells are shown: `list` or `tiles` (icons).
    public enum Layout: Sendable, Hashable { case list, tiles }

    /// Shown above the cells.
    public var title: String
    /// The entries; their texts must be unique within the set.
    public var cells: [SDLChoiceCell]
    /// List or tiles.
    public var layout: Layout
    /// Adds the head unit's search (keyboard) to the list or tiles.
    public var searchable: Bool
    /// How long the head unit waits for the driver (its default, 10 s, when nil).
    public var timeout: Duration?
    /// Spoken when the menu opens.
    public var initialPrompt: String?
    /// Spoken when the menu times out.
    public var timeoutPrompt: String?
    /// Spoken when the driver asks for help.
    public var helpPrompt: String?
    /// What the head unit lists when the driver asks for voice help (PerformInteraction
    /// `vrHelp`): the phrases it understands here, in this order.
    public var helpList: [String]?

    /// A choice set of `cells`, shown as a list unless told otherwise.
    ///
    /// - Parameters:
    ///   - title: shown above the cells.
    ///   - cells: the entries.
    ///   - layout: list or tiles.
    ///   - searchable: adds the head unit's search.
    ///   - timeout: how long the head unit waits for the driver.
    ///   - initialPrompt: spoken when the menu opens.
    ///   - timeoutPrompt: spoken when it times out.
    ///   - helpPrompt: spoken when the driver asks for help.
    ///   - helpList: the phrases listed as voice help.
    public init(
        title: String, cells: [SDLChoiceCell], layout: Layout = .list, searchable: Bool = false, timeout: Duration? = nil,
        initialPrompt: String? = nil, timeoutPrompt: String? = nil, helpPrompt: String? = nil, helpList: [String]? = nil
    ) {
        self.title = title
        self.cells = cells
        self.layout = layout
        self.searchable = searchable
        self.timeout = timeout
        self.initialPrompt = initialPrompt
        self.timeoutPrompt = timeoutPrompt
        self.helpPrompt = helpPrompt
        self.helpList = helpList
    }

    var interactionLayout: LayoutMode {
        switch (layout, searchable) {
        case (.list, false): .listOnly
        case (.list, true): .listWithSearch
        case (.tiles, false): .iconOnly
        case (.tiles, true): .iconWithSearch
        }
    }
}

/// How a presented choice set ended.
public enum SDLChoiceSetOutcome: Sendable, Hashable {
    /// The driver chose `cell` (at `index` of the set) by touch, voice or keyboard.
    case selected(cell: SDLChoiceCell, index: Int, trigger: TriggerSource)
    /// In a searchable set, the driver submitted this search text instead of choosing a cell
    /// (PerformInteraction `manualTextEntry`): the app searches with it.
    case searched(String)
    /// Nobody chose within the timeout.
    case timedOut
    /// Cancelled by the app (or the driver backed out).
    case cancelled
}

/// Why a choice set was refused before anything was sent.
package enum SDLChoiceSetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two cells of the set have this text; texts must be unique.
    case duplicateText(String)
    /// Some cells have voice commands and some do not.
    case partialVoiceCommands
    /// Voice interaction needs voice commands on every cell.
    case noVoiceCommands
    /// The set has no cells.
    case empty

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .duplicateText(let text): "two choice cells read \(text); texts must be unique in a set"
        case .partialVoiceCommands: "some choice cells have voice commands and some do not: all or none"
        case .noVoiceCommands: "a voice interaction needs voice commands on every cell"
        case .empty: "a choice set needs at least one cell"
        }
    }
}

/// A presentation waiting in the screen queue.
struct ChoicePresentation: Sendable {
    let set: SDLChoiceSet
    let mode: InteractionMode
    /// The search keyboard of a searchable set, followed as the driver types.
    var keyboard: SDLKeyboard?
}

extension SDLScreenManager {
    // MARK: Public API

    /// Creates the cells on the head unit ahead of time (one CreateInteractionChoiceSet per
    /// cell, as both official SDKs do); cells already there are not created again.
    public func preloadChoices(_ cells: [SDLChoiceCell]) async throws {
        do throws(SDLScreenError) {
            _ = try await enqueue(.preloadChoices(cells))
        } catch {
            throw SDLError(error)
        }
    }

    /// Deletes preloaded cells from the head unit.
    public func deleteChoices(_ cells: [SDLChoiceCell]) async throws {
        do throws(SDLScreenError) {
            _ = try await enqueue(.deleteChoices(cells))
        } catch {
            throw SDLError(error)
        }
    }

    /// The cells on the head unit now.
    public var preloadedCells: Set<SDLChoiceCell> { Set(preloadedChoices.keys) }

    /// The choice ID a preloaded cell has on the head unit (what the driver's answer names).
    public func preloadedChoiceID(_ cell: SDLChoiceCell) -> Int? { preloadedChoices[cell] }

    /// Presents a popup menu and returns the driver's choice. Cells not yet preloaded are
    /// created first. Cancelling the calling task cancels it: still queued, it never shows; on
    /// screen, CancelInteraction closes it on RPC 6.0+, while older head units keep it until
    /// the driver or its timeout ends it (the guide's caveat), and the outcome says which.
    public func present(_ set: SDLChoiceSet, mode: InteractionMode = .manualOnly) async throws -> SDLChoiceSetOutcome {
        do throws(SDLScreenError) {
            do { try Self.validate(set, mode: mode) } catch { throw .choiceSet(error) }
            guard case .choice(let choice) = try await presentInteraction(.presentChoices(ChoicePresentation(set: set, mode: mode))) else {
                return .cancelled
            }
            return choice
        } catch {
            throw SDLError(error)
        }
    }

    /// Presents a choice set with the head unit's search (LIST_WITH_SEARCH, or ICON_WITH_SEARCH
    /// for tiles) and follows the driver's typing with `keyboard`, the guide's keyboard delegate:
    /// its properties (or the manager's ``keyboardConfiguration``) go first with
    /// SetGlobalProperties, and each key press is answered with its autocomplete list and
    /// character set. The driver either picks a cell (`.selected`) or submits the search text
    /// (`.searched`). The set's title and timeout are used, not the keyboard's `initialText` and
    /// `timeout`. Cancelling the calling task cancels it as ``present(_:mode:)`` does.
    public func presentSearchable(_ set: SDLChoiceSet, keyboard: SDLKeyboard = SDLKeyboard(), mode: InteractionMode = .manualOnly) async throws
        -> SDLChoiceSetOutcome
    {
        do throws(SDLScreenError) {
            var set = set
            set.searchable = true
            do { try Self.validate(set, mode: mode) } catch { throw .choiceSet(error) }
            let presentation = ChoicePresentation(set: set, mode: mode, keyboard: keyboard)
            guard case .choice(let choice) = try await presentInteraction(.presentChoices(presentation)) else {
                return .cancelled
            }
            return choice
        } catch {
            throw SDLError(error)
        }
    }

    /// Queues an interaction; cancelling the calling task cancels it (see `cancelInteraction`).
    func presentInteraction(_ work: Work) async throws(SDLScreenError) -> Outcome {
        let id = nextOperationID()
        do {
            return try await withTaskCancellationHandler {
                try await enqueue(work, id: id)
            } onCancel: {
                // Not resumed under a lock like the library's other waits: ending the interaction
                // means sending CancelInteraction, which the cancelled task itself could not send
                // (its requests fail as cancelled); a child of the manager's run sends it, and the
                // head unit's answer ends the wait.
                self.context.spawn { await self.cancelInteraction(id) }
            }
        } catch let error as SDLScreenError {
            throw error
        } catch {
            throw .stopped
        }
    }

    static func validate(_ set: SDLChoiceSet, mode: InteractionMode) throws(SDLChoiceSetError) {
        guard !set.cells.isEmpty else { throw .empty }
        var texts: Set<String> = []
        for cell in set.cells {
            guard texts.insert(cell.text).inserted else { throw .duplicateText(cell.text) }
        }
        let withVoice = set.cells.filter { !($0.voiceCommands ?? []).isEmpty }.count
        guard withVoice == 0 || withVoice == set.cells.count else { throw .partialVoiceCommands }
        if mode != .manualOnly, withVoice == 0 { throw .noVoiceCommands }
    }

    // MARK: Operations

    func preload(_ cells: [SDLChoiceCell]) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        // What the window cannot show is left out, and its artwork not uploaded (the iOS
        // library's rule; an unknown capability counts as shown).
        let window = await manager.mainWindowCapability()
        let showsImage = TextFitting.has(.choiceImage, window)
        let showsSecondaryImage = TextFitting.has(.choiceSecondaryImage, window)
        let showsSecondary = TextFitting.has(.secondaryText, window)
        let showsTertiary = TextFitting.has(.tertiaryText, window)
        for cell in cells where preloadedChoices[cell] == nil {
            let artwork = showsImage ? cell.artwork : nil
            let secondaryArtwork = showsSecondaryImage ? cell.secondaryArtwork : nil
            for artwork in [artwork, secondaryArtwork].compactMap({ $0 }) {
                try await upload(artwork, manager: manager)
            }
            let id = nextChoiceID
            nextChoiceID += 1
            let choice = Choice(
                choiceID: id, menuName: cell.text, vrCommands: cell.voiceCommands, image: artwork?.image,
                secondaryText: showsSecondary ? cell.secondaryText : nil, tertiaryText: showsTertiary ? cell.tertiaryText : nil,
                secondaryImage: secondaryArtwork?.image)
            _ = try await request(CreateInteractionChoiceSet(interactionChoiceSetID: id, choiceSet: [choice]), manager: manager)
            preloadedChoices[cell] = id
        }
    }

    func deletePreloaded(_ cells: [SDLChoiceCell]) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        for cell in cells {
            guard let id = preloadedChoices[cell] else { continue }
            _ = try await request(DeleteInteractionChoiceSet(interactionChoiceSetID: id), manager: manager)
            preloadedChoices[cell] = nil
        }
    }

    func present(_ presentation: ChoicePresentation) async throws(SDLScreenError) -> SDLChoiceSetOutcome {
        guard let manager = current else { throw .stopped }
        try await preload(presentation.set.cells)
        let set = presentation.set
        let ids = set.cells.compactMap { preloadedChoices[$0] }
        func speech(_ text: String?) -> [TTSChunk]? { text.map { [TTSChunk(text: $0, type: .text)] } }
        let make = { (cancelID: Int?) in
            PerformInteraction(
                initialText: set.title, initialPrompt: speech(set.initialPrompt), interactionMode: presentation.mode, interactionChoiceSetIDList: ids,
                helpPrompt: speech(set.helpPrompt), timeoutPrompt: speech(set.timeoutPrompt), timeout: set.timeout.map(Self.milliseconds),
                vrHelp: set.helpList.map { $0.enumerated().map { VrHelpItem(text: $1, position: $0 + 1) } }, interactionLayout: set.interactionLayout,
                cancelID: cancelID)
        }
        let answer =
            if let keyboard = presentation.keyboard {
                try await following(keyboard, manager: manager, make)
            } else {
                try await runInteraction(manager, make)
            }
        let response: PerformInteractionResponse
        switch answer {
        case .timedOut: return .timedOut
        case .cancelled: return .cancelled
        case .answered(let answered): response = answered
        }
        if response.choiceID == nil, set.searchable, let text = response.manualTextEntry { return .searched(text) }
        guard let choiceID = response.choiceID, let index = set.cells.firstIndex(where: { preloadedChoices[$0] == choiceID }) else {
            throw .refused(PerformInteraction.functionName, response.resultCode, info: response.info)
        }
        return .selected(cell: set.cells[index], index: index, trigger: response.triggerSource ?? .menu)
    }

    /// How the driver ended an interaction.
    enum InteractionAnswer {
        case answered(PerformInteractionResponse)
        case timedOut
        case cancelled
    }

    /// Shows the interaction `make` builds with its cancel ID (RPC 6.0+; older head units
    /// cannot cancel) and waits for the driver, past the interaction's own timeout. An answer
    /// other than SUCCESS, TIMED_OUT or ABORTED throws `refused`.
    func runInteraction(_ manager: any SDLScreenContext, _ make: (Int?) -> PerformInteraction) async throws(SDLScreenError) -> InteractionAnswer {
        let response = try await runModal(manager, headUnitTimeout: { $0.timeout.map { .milliseconds($0) } ?? .seconds(10) }, make)
        switch response.resultCode {
        case .timedOut: return .timedOut
        case .aborted: return .cancelled
        default: break
        }
        guard response.success else { throw .refused(PerformInteraction.functionName, response.resultCode, info: response.info) }
        return .answered(response)
    }

    /// Shows the modal request `make` builds with a cancel ID (RPC 6.0+; older head units cannot
    /// cancel) and waits for its answer, past the head unit's own timeout for it.
    func runModal<R: SDLRequest>(
        _ manager: any SDLScreenContext, headUnitTimeout: (R) -> Duration, _ make: (Int?) -> R
    ) async throws(SDLScreenError) -> R.Response {
        var cancelID: Int?
        if await manager.rpcVersion() >= .version(6, 0), let functionID = R.wireFunctionID {
            nextCancelID += 1
            cancelID = nextCancelID
            presented = (nextCancelID, functionID)
        }
        defer { presented = nil }
        let request = make(cancelID)
        let waitFor = headUnitTimeout(request)
        return try await SDLScreenError.sending(R.functionName) {
            try await manager.send(request, timeout: waitFor + .seconds(30))
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// The caller's task was cancelled: drop the interaction if queued, close it if shown.
    func cancelInteraction(_ id: Int) async {
        if let index = queue.firstIndex(where: { $0.id == id }) {
            let pending = queue.remove(at: index)
            pending.continuation?.resume(returning: pending.cancelledOutcome)
            return
        }
        guard runningID == id, let manager = current else { return }
        if let presented {
            _ = try? await manager.send(CancelInteraction(cancelID: presented.cancelID, functionID: Int(presented.functionID)))
        } else if case .audioPassThru? = runningWork {
            _ = try? await manager.send(EndAudioPassThru())
        }
    }

    func choicesStopped() {
        preloadedChoices = [:]
        presented = nil
    }
}
