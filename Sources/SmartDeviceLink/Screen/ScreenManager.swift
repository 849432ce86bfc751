import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime

/// Everything the app puts on the main window, through one serial queue.
///
/// Ordering and cancellation rules:
/// - Operations run one at a time in the order they were asked for; each sees the screen the
///   previous one left, so concurrent calls never interleave into an inconsistent screen.
/// - A text-and-graphics update waiting in the queue is replaced by a newer one: the newer
///   carries every change (the content is cumulative) and the older caller gets
///   ``SDLScreenUpdateResult/superseded``, which is not a failure.
/// - An operation waits while the HMI level is NONE, while the head unit's permissions do not
///   allow Show at the current level, and while the main window's capability is unknown; it
///   runs as soon as they allow.
/// - What is on the screen (``shownContent``) changes only with successful answers.
/// - When the manager reconnects, the head unit's screen is blank: the app's content is sent again.
///
/// ```swift
/// try await manager.screen.update {
///     $0.textField1 = "Song title"
///     $0.textField2 = "Artist"
///     $0.primaryGraphic = albumArt
/// }
/// ```
public actor SDLScreenManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    let context: any SDLScreenContext
    /// The context while a manager is behind it.
    var current: (any SDLScreenContext)? { context.isAttached ? context : nil }
    let logger: Logger

    /// What the app asked for, including updates still queued.
    public private(set) var content = SDLScreenContent()
    /// What the head unit confirmed.
    public private(set) var shownContent = SDLScreenContent()
    /// The keyboard presentations use unless they bring their own (`setKeyboardConfiguration(_:)`).
    public internal(set) var keyboardConfiguration = SDLScreenManager.defaultKeyboardConfiguration
    /// What happens to speech the head unit cannot say (a chunk type its `speechCapabilities`
    /// lack, a prerecorded sound it does not list): left out with a warning by default, as the
    /// iOS library does with alert audio; see ``setUnsupportedSpeechPolicy(_:)``.
    public internal(set) var unsupportedSpeechPolicy = SDLUnsupportedSpeechPolicy.leaveOut

    enum Work {
        case textAndGraphics
        case softButtons
        case menu
        /// The head unit asked for a submenu's cells (OnUpdateSubMenu).
        case fillSubmenu(Int)
        case voiceCommands
        case menuConfiguration
        case openMenu(submenuID: Int?)
        case preloadChoices([SDLChoiceCell])
        case deleteChoices([SDLChoiceCell])
        case presentChoices(ChoicePresentation)
        case presentKeyboard(KeyboardPresentation)
        case menuTitle(String?, SDLArtwork?)
        case alert(SDLAlertView)
        case subtleAlert(SDLSubtleAlertView)
        case slider(SDLSliderView)
        case scrollableMessage(SDLScrollableMessage)
        case mediaClock(SDLMediaClock)
        case speak(SDLSpeech)
        case help(SDLHelp)
        case resetHelp([GlobalProperty])
        case audioPassThru(AudioPassThruJob)

        var isTextAndGraphics: Bool {
            if case .textAndGraphics = self { true } else { false }
        }

        var isSoftButtons: Bool {
            if case .softButtons = self { true } else { false }
        }

        /// Whether a queued operation of the same kind is superseded by this one.
        func supersedes(_ other: Work) -> Bool {
            switch (self, other) {
            case (.textAndGraphics, .textAndGraphics), (.softButtons, .softButtons), (.menu, .menu), (.voiceCommands, .voiceCommands),
                (.menuConfiguration, .menuConfiguration):
                true
            default: false
            }
        }
    }

    /// What a finished operation hands its caller.
    enum Outcome: Sendable {
        case applied
        case superseded
        case choice(SDLChoiceSetOutcome)
        case keyboard(SDLKeyboardOutcome)
        case alert(SDLAlertOutcome)
        case slider(SDLSliderOutcome)
        case scrollableMessage(SDLScrollableMessageOutcome)
        case speech(SDLSpeakOutcome)
        case audioPassThru(SDLAudioPassThruEnd)
    }

    struct Pending {
        let id: Int
        let work: Work
        /// Who waits for the outcome; nil for the manager's own re-sends after a reconnection.
        let continuation: CheckedContinuation<Outcome, any Error>?

        var isTextAndGraphics: Bool { work.isTextAndGraphics }
        var isSoftButtons: Bool { work.isSoftButtons }
        /// What the caller gets when its operation is cancelled before it ran.
        var cancelledOutcome: Outcome {
            switch work {
            case .presentKeyboard: .keyboard(.cancelled)
            case .presentChoices: .choice(.cancelled)
            case .alert, .subtleAlert: .alert(.cancelled)
            case .slider: .slider(.cancelled)
            case .scrollableMessage: .scrollableMessage(.cancelled)
            case .speak: .speech(.cancelled)
            case .audioPassThru: .audioPassThru(.cancelled)
            default: .superseded
            }
        }
    }

    var queue: [Pending] = []
    /// The operation running now, by its ID (for cancelling an interaction).
    var runningID: Int?
    var runningWork: Work?
    private var softButtonBoard = SoftButtonBoard()
    /// The soft buttons the head unit confirmed.
    private var shownSoftButtons: [SoftButton]?
    /// Popup soft-button IDs: 2000 up, apart from the main screen's.
    var nextPopupButtonID = 2_000
    private var pressReaders: [String: [Int: AsyncStream<OnButtonPress>.Continuation]] = [:]
    /// Whether the soft-button press listener runs (a child of the manager's run).
    private var listeningForPresses = false
    // Menu state, used by ScreenManager+Menu.swift.
    var menuCells: [SDLMenuCell] = []
    var sentMenu: [SentMenuCell] = []
    var voiceCommandList: [SDLVoiceCommand] = []
    var sentVoiceCommands: [(command: SDLVoiceCommand, id: Int)] = []
    var menuConfigurationValue = SDLMenuConfiguration()
    var nextCommandID = 1
    /// Whether the OnCommand listener runs (a child of the manager's run).
    var listeningForCommands = false
    /// Menu icons the head unit fetches when it shows them (OnUpdateFile), by file name.
    var onDemandArtworks: [String: SDLArtwork] = [:]
    /// On-demand icons being uploaded now.
    var onDemandUploads: Set<String> = []
    // Choice-set state, used by ScreenManager+Choices.swift.
    var preloadedChoices: [SDLChoiceCell: Int] = [:]
    var nextChoiceID = 1
    /// The interaction on screen that CancelInteraction can close (RPC 6.0+).
    var presented: (cancelID: Int, functionID: UInt32)?
    var nextCancelID = 0
    var nextID = 0
    /// Whether the queue's runner runs (a child of the manager's run, while there is work).
    private var runnerActive = false
    private var generation = 0

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// A screen manager on `context` alone, for tests without a manager.
    init(context: any SDLScreenContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    // MARK: Text, images, template

    /// Changes the content: everything set inside one call goes out together (one Show for the
    /// text, then one for the images that needed uploading). Setting a field to nil clears it.
    @discardableResult
    public func update(_ changes: @Sendable (inout SDLScreenContent) -> Void) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            var next = content
            changes(&next)
            if next.template?.name == content.template?.name, next.template != content.template {
                throw .colorsNeedTemplateChange
            }
            content = next
            return try await enqueue(.textAndGraphics)
        } catch {
            throw SDLError(error)
        }
    }

    /// Changes the template (Show `templateConfiguration` on RPC 6.0+, SetDisplayLayout before).
    /// Colours apply only with a template change.
    @discardableResult
    public func changeLayout(_ template: SDLTemplate) async throws -> SDLScreenUpdateResult {
        try await update { $0.template = template }
    }

    // MARK: Soft buttons

    /// Shows these soft buttons (replacing the previous ones). Names must be unique, and so must
    /// each button's state names; IDs are assigned by the manager. Images are uploaded, sent
    /// after the text, and left out where the soft-button capabilities take none.
    @discardableResult
    public func setSoftButtons(_ buttons: [SDLSoftButton]) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            do { try softButtonBoard.set(buttons) } catch { throw .softButtons(error) }
            if let manager = current { startPressListener(manager) }
            return try await enqueue(.softButtons)
        } catch {
            throw SDLError(error)
        }
    }

    /// Shows another state of a soft button.
    @discardableResult
    public func transition(_ button: String, to state: String) async throws -> SDLScreenUpdateResult {
        do throws(SDLScreenError) {
            do { try softButtonBoard.transition(button, to: state) } catch { throw .softButtons(error) }
            return try await enqueue(.softButtons)
        } catch {
            throw SDLError(error)
        }
    }

    /// The soft buttons as set, with the state each shows.
    public var softButtons: [(button: SDLSoftButton, state: String)] {
        softButtonBoard.buttons.map { ($0, softButtonBoard.current[$0.name] ?? $0.initialState) }
    }

    /// The ID the manager gave a soft button (what OnButtonPress carries as `customButtonID`).
    public func softButtonID(_ name: String) -> Int? { softButtonBoard.id(of: name) }

    /// Presses of one soft button, for as long as the stream is read.
    public func softButtonPresses(_ name: String) -> AsyncStream<OnButtonPress> {
        let (stream, continuation) = AsyncStream<OnButtonPress>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = nextOperationID()
        pressReaders[name, default: [:]][id] = continuation
        let context = self.context
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            context.spawn { await self.removePressReader(name, id) }
        }
        return stream
    }

    private func removePressReader(_ name: String, _ id: Int) {
        pressReaders[name]?[id] = nil
    }

    private func startPressListener(_ manager: any SDLScreenContext) {
        guard !listeningForPresses, let pressID = OnButtonPress.wireFunctionID else { return }
        let presses = manager.rawNotifications(functionIDs: [pressID])
        listeningForPresses = context.spawn { [weak self] in
            for await message in presses {
                guard let press = try? SDLJSON.decode(OnButtonPress.self, from: message.payload.json, policy: .lenient).value,
                    press.buttonName == .customButton, let id = press.customButtonID
                else { continue }
                await self?.pressed(press, id: id)
            }
        }
    }

    private func pressed(_ press: OnButtonPress, id: Int) {
        guard let button = softButtonBoard.button(withID: id) else { return }
        button.handler?(press)
        for reader in (pressReaders[button.name] ?? [:]).values { reader.yield(press) }
    }

    /// Text first; images uploaded, then the buttons again with them.
    private func showSoftButtons() async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        let window = await manager.mainWindowCapability()
        let imageSupported = window?.softButtonCapabilities?.first?.imageSupported ?? true
        var onHeadUnit: Set<String> = []
        for (_, state) in softButtonBoard.shownStates {
            guard let artwork = state.artwork else { continue }
            let there = artwork.isStaticIcon ? true : await manager.hasFile(named: artwork.name)
            if there { onHeadUnit.insert(artwork.name) }
        }
        let withImagesThere = softButtonBoard.softButtons(imageSupported: imageSupported) { onHeadUnit.contains($0.name) }
        if withImagesThere != shownSoftButtons {
            try await send(Show(softButtons: withImagesThere), manager: manager)
            shownSoftButtons = withImagesThere
        }
        guard imageSupported else {
            if softButtonBoard.shownStates.contains(where: { $0.state.artwork != nil }) {
                logger.info("the head unit's soft buttons take no images; text only, image-only buttons withheld")
            }
            return
        }
        let missing = softButtonBoard.shownStates.compactMap(\.state.artwork).filter { !onHeadUnit.contains($0.name) }
        guard !missing.isEmpty else { return }
        for artwork in Set(missing) {
            try await upload(artwork, manager: manager)
        }
        let complete = softButtonBoard.softButtons(imageSupported: true) { _ in true }
        if complete != shownSoftButtons {
            try await send(Show(softButtons: complete), manager: manager)
            shownSoftButtons = complete
        }
    }

    // MARK: The queue

    func enqueue(_ work: Work) async throws(SDLScreenError) -> SDLScreenUpdateResult {
        switch try await enqueue(work, id: nextOperationID()) {
        case .superseded: return .superseded
        default: return .applied
        }
    }

    /// A fresh ID for an operation (or a press reader).
    func nextOperationID() -> Int {
        nextID += 1
        return nextID
    }

    /// Queues `work` under `id` (at the front with `first`) and waits for its outcome.
    func enqueue(_ work: Work, id: Int, first: Bool = false) async throws(SDLScreenError) -> Outcome {
        guard context.isAttached else { throw .stopped }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                // A queued operation of the same kind is superseded: this one carries its changes.
                for (index, pending) in queue.enumerated().reversed() where work.supersedes(pending.work) {
                    queue.remove(at: index).continuation?.resume(returning: .superseded)
                }
                let pending = Pending(id: id, work: work, continuation: continuation)
                if first { queue.insert(pending, at: 0) } else { queue.append(pending) }
                startRunner()
            }
        } catch let error as SDLScreenError {
            throw error
        } catch {
            throw .stopped
        }
    }

    /// Queues the manager's own re-send of `work` (after a reconnection): nobody waits for it.
    private func enqueueResend(_ work: Work) {
        for (index, pending) in queue.enumerated().reversed() where work.supersedes(pending.work) {
            queue.remove(at: index).continuation?.resume(returning: .superseded)
        }
        queue.append(Pending(id: nextOperationID(), work: work, continuation: nil))
    }

    private func startRunner() {
        guard !runnerActive else { return }
        let run = generation
        runnerActive = context.spawn { await self.runQueue(run) }
        if !runnerActive {
            // The manager's run is over: nothing will perform the queue.
            for pending in queue { pending.continuation?.resume(throwing: SDLScreenError.stopped) }
            queue = []
        }
    }

    /// Performs the queued operations one at a time until the queue is empty or the run ends.
    private func runQueue(_ run: Int) async {
        while run == generation, !queue.isEmpty {
            guard await waitUntilShowable(), run == generation, !queue.isEmpty else { break }
            let pending = queue.removeFirst()
            runningID = pending.id
            runningWork = pending.work
            do {
                let outcome = try await perform(pending.work)
                pending.continuation?.resume(returning: outcome)
            } catch {
                pending.continuation?.resume(throwing: error)
            }
            runningID = nil
            runningWork = nil
        }
        if run == generation { runnerActive = false }
    }

    /// Waits until the app may change its screen: not NONE, Show allowed, the window known.
    /// False when the manager stopped meanwhile.
    private func waitUntilShowable() async -> Bool {
        await context.waitUntilShowable()
    }

    private func perform(_ work: Work) async throws(SDLScreenError) -> Outcome {
        switch work {
        case .textAndGraphics: try await showContent()
        case .softButtons: try await showSoftButtons()
        case .menu: try await updateMenu()
        case .fillSubmenu(let menuID): try await fillSubmenu(menuID)
        case .voiceCommands: try await updateVoiceCommands()
        case .menuConfiguration: try await applyMenuConfiguration()
        case .openMenu(let submenuID): try await showAppMenu(submenuID)
        case .preloadChoices(let cells): try await preload(cells)
        case .deleteChoices(let cells): try await deletePreloaded(cells)
        case .presentChoices(let presentation): return .choice(try await present(presentation))
        case .presentKeyboard(let presentation): return .keyboard(try await present(presentation))
        case .menuTitle(let title, let icon): try await applyMenuTitle(title, icon: icon)
        case .alert(let alert): return .alert(try await show(alert))
        case .subtleAlert(let alert): return .alert(try await show(alert))
        case .slider(let slider): return .slider(try await show(slider))
        case .scrollableMessage(let message): return .scrollableMessage(try await show(message))
        case .mediaClock(let clock): try await apply(clock)
        case .speak(let speech): return .speech(try await say(speech))
        case .help(let help): try await apply(help)
        case .resetHelp(let properties): try await reset(properties)
        case .audioPassThru(let job): return .audioPassThru(try await record(job))
        }
        return .applied
    }

    // MARK: Text and graphics

    /// Text first (with the template), then the images that needed uploading in an image-only
    /// Show. Fields and images the template lacks are dropped with a log line.
    private func showContent() async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        let target = content
        let rpcVersion = await manager.rpcVersion()
        var window = await manager.mainWindowCapability()

        // The template: SetDisplayLayout before RPC 6.0, inside the Show from 6.0.
        var templateInShow: TemplateConfiguration?
        if let template = target.template, template != shownContent.template {
            if rpcVersion < .version(6, 0) {
                let response = try await SDLScreenError.sending(SetDisplayLayout.functionName) {
                    try await manager.send(
                        SetDisplayLayout(displayLayout: template.name, dayColorScheme: template.dayColors, nightColorScheme: template.nightColors))
                }
                guard response.success else { throw .refused(SetDisplayLayout.functionName, response.resultCode, info: response.info) }
                shownContent.template = template
                window = await manager.mainWindowCapability()
            } else {
                templateInShow = template.configuration
            }
        }

        // Text, and graphics that need no upload (static icons, clears).
        var show = Show()
        var sendsShow = target.textPart != shownContent.textPart || templateInShow != nil
        if sendsShow {
            fillText(&show, target, window: window, isMedia: (await manager.appTypes).contains(.media))
        }
        show.templateConfiguration = templateInShow
        var pendingImages: [(ImageFieldName, SDLArtwork)] = []
        for (field, wanted, current) in [
            (ImageFieldName.graphic, target.primaryGraphic, shownContent.primaryGraphic),
            (.secondaryGraphic, target.secondaryGraphic, shownContent.secondaryGraphic),
        ] where wanted != current {
            guard TextFitting.has(field, window) else {
                if wanted != nil { logger.info("the template shows no \(field.rawValue); the image is not sent") }
                continue
            }
            if let wanted, !wanted.isStaticIcon, await manager.hasFile(named: wanted.name) == false {
                pendingImages.append((field, wanted))
            } else {
                set(&show, field, wanted)
                sendsShow = true
            }
        }
        if sendsShow {
            try await send(show, manager: manager)
            shownContent.lines = target.lines
            shownContent.lineTypes = target.lineTypes
            shownContent.mediaTrack = target.mediaTrack
            shownContent.title = target.title
            shownContent.alignment = target.alignment
            if templateInShow != nil { shownContent.template = target.template }
            // `set` always fills the field, a clear included.
            if show.graphic != nil { shownContent.primaryGraphic = target.primaryGraphic }
            if show.secondaryGraphic != nil { shownContent.secondaryGraphic = target.secondaryGraphic }
        }

        // Images: uploaded, then shown together.
        guard !pendingImages.isEmpty else { return }
        var imageShow = Show()
        for (field, artwork) in pendingImages {
            try await upload(artwork, manager: manager)
            set(&imageShow, field, artwork)
        }
        try await send(imageShow, manager: manager)
        for (field, artwork) in pendingImages {
            if field == .graphic { shownContent.primaryGraphic = artwork } else { shownContent.secondaryGraphic = artwork }
        }
    }

    private func fillText(_ show: inout Show, _ target: SDLScreenContent, window: WindowCapability?, isMedia: Bool) {
        let count = TextFitting.lineCount(window)
        if count == 0, target.lines.contains(where: { !($0 ?? "").isEmpty }) {
            logger.info("the template shows no main fields; the text is not sent")
        }
        let (fields, tags) = TextFitting.fit(lines: target.lines, types: target.lineTypes, count: count)
        let names: [TextFieldName] = [.mainField1, .mainField2, .mainField3, .mainField4]
        for (index, text) in fields.enumerated() {
            let fitted = TextFitting.cut(text, to: TextFitting.width(names[index], window))
            switch index {
            case 0: show.mainField1 = fitted
            case 1: show.mainField2 = fitted
            case 2: show.mainField3 = fitted
            default: show.mainField4 = fitted
            }
        }
        if tags.contains(where: { !$0.isEmpty }) {
            show.metadataTags = MetadataTags(
                mainField1: tags.count > 0 && !tags[0].isEmpty ? tags[0] : nil, mainField2: tags.count > 1 && !tags[1].isEmpty ? tags[1] : nil,
                mainField3: tags.count > 2 && !tags[2].isEmpty ? tags[2] : nil, mainField4: tags.count > 3 && !tags[3].isEmpty ? tags[3] : nil)
        }
        if target.mediaTrack != nil || shownContent.mediaTrack != nil {
            if isMedia, TextFitting.has(.mediaTrack, window) {
                show.mediaTrack = TextFitting.cut(target.mediaTrack ?? "", to: TextFitting.width(.mediaTrack, window))
            } else if target.mediaTrack != nil {
                logger.info("the media track is for media apps on templates that have it; not sent")
            }
        }
        if target.title != nil || shownContent.title != nil {
            if TextFitting.has(.templateTitle, window) {
                show.templateTitle = TextFitting.cut(target.title ?? "", to: TextFitting.width(.templateTitle, window))
            } else if target.title != nil {
                logger.info("the template has no title field; the title is not sent")
            }
        }
        show.alignment = target.alignment
    }

    private func set(_ show: inout Show, _ field: ImageFieldName, _ artwork: SDLArtwork?) {
        // An empty name clears the image.
        let image = artwork?.image ?? SDLImage(value: "", imageType: .dynamic)
        if field == .graphic { show.graphic = image } else { show.secondaryGraphic = image }
    }

    private func send(_ show: Show, manager: any SDLScreenContext) async throws(SDLScreenError) {
        _ = try await request(show, manager: manager)
    }

    /// Uploads an image the screen needs; the file manager skips static icons and images the
    /// head unit has already.
    func upload(_ artwork: SDLArtwork, manager: any SDLScreenContext) async throws(SDLScreenError) {
        do throws(SDLFileError) { _ = try await manager.uploadArtwork(artwork) } catch { throw .upload(artwork, error) }
    }

    /// Sends a request; an unsuccessful answer (other than WARNINGS) throws `refused`.
    func request<R: SDLRequest>(
        _ request: R, manager: any SDLScreenContext, timeout: Duration? = nil
    ) async throws(SDLScreenError) -> R.Response where R.Response: SDLResultCarrying {
        let response = try await SDLScreenError.sending(R.functionName) { try await manager.send(request, timeout: timeout) }
        guard response.success || response.resultCode == .warnings else { throw .refused(R.functionName, response.resultCode, info: response.info) }
        return response
    }

    // MARK: Connections

    /// A new connection's screen is blank: send the app's content again (unless a queued update
    /// will), and let waiting operations run.
    func connectionReady(_ connection: SDLConnectionContext) {
        shownContent = SDLScreenContent()
        shownSoftButtons = nil
        if content != SDLScreenContent(), !queue.contains(where: \.isTextAndGraphics) {
            enqueueResend(.textAndGraphics)
        }
        if !softButtonBoard.buttons.isEmpty, !queue.contains(where: \.isSoftButtons) {
            enqueueResend(.softButtons)
        }
        if !menuCells.isEmpty { enqueueResend(.menu) }
        if !voiceCommandList.isEmpty { enqueueResend(.voiceCommands) }
        if menuConfigurationValue != SDLMenuConfiguration() { enqueueResend(.menuConfiguration) }
        menuConnectionReady()
        preloadedChoices = [:]
        startRunner()
    }

    func managerStopped() {
        generation += 1
        runnerActive = false
        for pending in queue { pending.continuation?.resume(throwing: SDLScreenError.stopped) }
        choicesStopped()
        queue = []
        content = SDLScreenContent()
        shownContent = SDLScreenContent()
        softButtonBoard = SoftButtonBoard()
        shownSoftButtons = nil
        listeningForPresses = false
        for reader in pressReaders.values.flatMap(\.values) { reader.finish() }
        pressReaders = [:]
        menuStopped()
    }
}

/// The answer fields every response has, for code that handles several RPCs alike.
protocol SDLResultCarrying {
    var success: Bool { get }
    var resultCode: SDLResult { get }
    var info: String? { get }
}

extension ShowResponse: SDLResultCarrying {}
extension SetDisplayLayoutResponse: SDLResultCarrying {}
extension AddCommandResponse: SDLResultCarrying {}
extension AddSubMenuResponse: SDLResultCarrying {}
extension DeleteCommandResponse: SDLResultCarrying {}
extension DeleteSubMenuResponse: SDLResultCarrying {}
extension ShowAppMenuResponse: SDLResultCarrying {}
extension SetGlobalPropertiesResponse: SDLResultCarrying {}
extension CreateInteractionChoiceSetResponse: SDLResultCarrying {}
extension DeleteInteractionChoiceSetResponse: SDLResultCarrying {}
extension CancelInteractionResponse: SDLResultCarrying {}
extension AlertResponse: SDLResultCarrying {}
extension SubtleAlertResponse: SDLResultCarrying {}
extension SliderResponse: SDLResultCarrying {}
extension ScrollableMessageResponse: SDLResultCarrying {}
extension SetMediaClockTimerResponse: SDLResultCarrying {}
extension SpeakResponse: SDLResultCarrying {}
extension ResetGlobalPropertiesResponse: SDLResultCarrying {}
extension PerformAudioPassThruResponse: SDLResultCarrying {}
extension PerformInteractionResponse: SDLResultCarrying {}
