import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

extension SDLScreenManager {
    // MARK: Public API

    /// Shows an alert and returns how it ended. It waits in the screen queue like every other
    /// operation, so a second alert waits for the first. Cancelling the calling task cancels
    /// it: still queued, it never shows; on screen, CancelInteraction closes it on RPC 6.0+,
    /// while older head units keep it until its duration ends (the guide's caveat).
    public func presentAlert(_ alert: SDLAlertView) async throws -> SDLAlertOutcome {
        do throws(SDLScreenError) {
            if alert.lines.isEmpty, alert.audio?.isEmpty ?? true { throw .invalid(.alertNeedsTextOrSpeech) }
            try Self.validate(alert.buttons, maximum: 4)
            try Self.validate(alert.duration)
            guard case .alert(let outcome) = try await presentInteraction(.alert(alert)) else { return .cancelled }
            return outcome
        } catch {
            throw SDLError(error)
        }
    }

    /// Shows a subtle alert (RPC 7.0+; refused before with code `unsupportedByHeadUnit`).
    /// The driver's tap on it comes back as ``SDLAlertOutcome/pressed`` (OnSubtleAlertPressed).
    public func presentSubtleAlert(_ alert: SDLSubtleAlertView) async throws -> SDLSubtleAlertOutcome {
        do throws(SDLScreenError) {
            if alert.lines.isEmpty, alert.audio?.isEmpty ?? true { throw .invalid(.alertNeedsTextOrSpeech) }
            try Self.validate(alert.buttons, maximum: 2)
            try Self.validate(alert.duration)
            guard let manager = current else { throw .stopped }
            let version = await manager.rpcVersion()
            if version < .version(7, 0) {
                throw .notSent(.unsupportedByHeadUnit(what: SubtleAlert.functionName, available: "since 7.0", headUnit: version))
            }
            guard case .alert(let outcome) = try await presentInteraction(.subtleAlert(alert)) else { return .cancelled }
            return outcome
        } catch {
            throw SDLError(error)
        }
    }

    /// Shows a slider and returns the driver's position, or how it ended without one.
    public func presentSlider(_ slider: SDLSliderView) async throws -> SDLSliderOutcome {
        do throws(SDLScreenError) {
            guard (2...26).contains(slider.ticks) else { throw .invalid(.sliderTicks(slider.ticks)) }
            guard (1...slider.ticks).contains(slider.position) else { throw .invalid(.sliderPosition(slider.position, ticks: slider.ticks)) }
            if case .perPosition(let footers) = slider.footer, footers.count != slider.ticks {
                throw .invalid(.sliderFooters(count: footers.count, ticks: slider.ticks))
            }
            try Self.validate(slider.timeout, allowed: .zero ... .milliseconds(65_535))
            guard case .slider(let outcome) = try await presentInteraction(.slider(slider)) else { return .cancelled }
            return outcome
        } catch {
            throw SDLError(error)
        }
    }

    /// Shows a scrollable message and returns how it ended.
    public func presentScrollableMessage(_ message: SDLScrollableMessage) async throws -> SDLScrollableMessageOutcome {
        do throws(SDLScreenError) {
            guard message.text.count <= 500 else { throw .invalid(.textTooLong(field: "scrollableMessageBody", length: message.text.count, maximum: 500)) }
            try Self.validate(message.buttons, maximum: 8)
            try Self.validate(message.timeout, allowed: .zero ... .milliseconds(65_535))
            guard case .scrollableMessage(let outcome) = try await presentInteraction(.scrollableMessage(message)) else { return .cancelled }
            return outcome
        } catch {
            throw SDLError(error)
        }
    }

    /// Every OnSubtleAlertPressed, across reconnections.
    public nonisolated func subtleAlertPresses() -> AsyncStream<OnSubtleAlertPressed> {
        context.notifications(OnSubtleAlertPressed.self)
    }

    // MARK: Rules

    static func validate(_ buttons: [SDLSoftButton], maximum: Int) throws(SDLScreenError) {
        guard buttons.count <= maximum else { throw .invalid(.tooManyButtons(count: buttons.count, maximum: maximum)) }
        var names: Set<String> = []
        for button in buttons {
            guard names.insert(button.name).inserted else { throw .invalid(.duplicateButtonName(button.name)) }
            let state = button.states.first { $0.name == button.initialState }
            if state?.text == nil, state?.artwork == nil { throw .invalid(.emptyButton(button.name)) }
        }
    }

    static func validate(_ duration: Duration?, allowed: ClosedRange<Duration> = .seconds(3) ... .seconds(10)) throws(SDLScreenError) {
        guard let duration, !allowed.contains(duration) else { return }
        throw .invalid(.durationOutOfRange(duration, allowed: allowed))
    }

    // MARK: Operations

    /// What alerts and subtle alerts prepare alike, in order: speech files uploaded, the icon,
    /// the buttons' images, the lines fitted to the display's `fields`.
    private struct AlertParts {
        let tts: [TTSChunk]?
        let icon: SDLImage?
        let softButtons: [SoftButton]?
        let lines: [String?]
        let presses: PopupPresses
    }

    private func alertParts(
        lines: [String], fields: [TextFieldName], audio: SDLSpeech?, icon: SDLArtwork?, iconField: ImageFieldName,
        buttons: [SDLSoftButton], watchesSubtleAlert: Bool, manager: any SDLScreenContext
    ) async throws(SDLScreenError) -> AlertParts {
        let window = await manager.mainWindowCapability()
        // An alert with text still shows when the head unit can say none of its audio.
        let tts = try await prepare(audio, optional: lines.contains { !$0.isEmpty }, manager: manager)
        let image = try await popupIcon(icon, field: iconField, manager: manager, window: window)
        let softButtons = try await popupButtons(buttons, manager: manager, window: window)
        return AlertParts(
            tts: tts, icon: image, softButtons: softButtons.softButtons.nilIfEmpty, lines: TextFitting.fit(lines, into: fields, window),
            presses: PopupPresses(softButtons.handlers, watchesSubtleAlert: watchesSubtleAlert))
    }

    func show(_ alert: SDLAlertView) async throws(SDLScreenError) -> SDLAlertOutcome {
        guard let manager = current else { throw .stopped }
        let parts = try await alertParts(
            lines: alert.lines, fields: [.alertText1, .alertText2, .alertText3], audio: alert.audio, icon: alert.icon, iconField: .alertIcon,
            buttons: alert.buttons, watchesSubtleAlert: false, manager: manager)
        let observation = parts.presses.observe(manager)
        defer { observation.cancel() }
        let response = try await runModal(manager, headUnitTimeout: { .milliseconds($0.duration ?? 5_000) }) { cancelID in
            SDLAlert(
                alertText1: parts.lines[0], alertText2: parts.lines[1], alertText3: parts.lines[2], ttsChunks: parts.tts,
                duration: alert.duration.map(Self.milliseconds), playTone: alert.playTone ? true : nil,
                progressIndicator: alert.showWaitIndicator ? true : nil, softButtons: parts.softButtons, alertIcon: parts.icon, cancelID: cancelID)
        }
        return try alertOutcome(SDLAlert.functionName, response.resultCode, response.success, response.info, parts.presses)
    }

    func show(_ alert: SDLSubtleAlertView) async throws(SDLScreenError) -> SDLAlertOutcome {
        guard let manager = current else { throw .stopped }
        let parts = try await alertParts(
            lines: alert.lines, fields: [.subtleAlertText1, .subtleAlertText2], audio: alert.audio, icon: alert.icon,
            iconField: .subtleAlertIcon, buttons: alert.buttons, watchesSubtleAlert: true, manager: manager)
        let observation = parts.presses.observe(manager)
        defer { observation.cancel() }
        let response = try await runModal(manager, headUnitTimeout: { .milliseconds($0.duration ?? 5_000) }) { cancelID in
            SubtleAlert(
                alertText1: parts.lines[0], alertText2: parts.lines[1], alertIcon: parts.icon, ttsChunks: parts.tts,
                duration: alert.duration.map(Self.milliseconds), softButtons: parts.softButtons, cancelID: cancelID)
        }
        return try alertOutcome(SubtleAlert.functionName, response.resultCode, response.success, response.info, parts.presses)
    }

    private func alertOutcome(
        _ function: String, _ code: SDLResult, _ success: Bool, _ info: String?, _ presses: PopupPresses
    ) throws(SDLScreenError) -> SDLAlertOutcome {
        if code == .aborted { return .cancelled }
        guard success || code == .warnings else { throw .refused(function, code, info: info) }
        if let button = presses.pressedButton { return .buttonPressed(button) }
        return presses.subtleAlertPressed ? .pressed : .dismissed
    }

    func show(_ slider: SDLSliderView) async throws(SDLScreenError) -> SDLSliderOutcome {
        guard let manager = current else { throw .stopped }
        let footers: [String]? =
            switch slider.footer {
            case .none: nil
            case .single(let text): [text]
            case .perPosition(let texts): texts
            }
        let response = try await runModal(manager, headUnitTimeout: { .milliseconds($0.timeout ?? 10_000) }) { cancelID in
            SDLSlider(
                numTicks: slider.ticks, position: slider.position, sliderHeader: slider.header, sliderFooter: footers,
                timeout: slider.timeout.map(Self.milliseconds), cancelID: cancelID)
        }
        switch response.resultCode {
        case .timedOut: return .timedOut
        case .aborted: return .cancelled
        default: break
        }
        guard response.success, let position = response.sliderPosition else {
            throw .refused(SDLSlider.functionName, response.resultCode, info: response.info)
        }
        return .selected(position)
    }

    func show(_ message: SDLScrollableMessage) async throws(SDLScreenError) -> SDLScrollableMessageOutcome {
        guard let manager = current else { throw .stopped }
        let window = await manager.mainWindowCapability()
        let buttons = try await popupButtons(message.buttons, manager: manager, window: window)
        let presses = PopupPresses(buttons.handlers)
        let observation = presses.observe(manager)
        defer { observation.cancel() }
        let response = try await runModal(manager, headUnitTimeout: { .milliseconds($0.timeout ?? 30_000) }) { cancelID in
            ScrollableMessage(
                scrollableMessageBody: message.text, timeout: message.timeout.map(Self.milliseconds),
                softButtons: buttons.softButtons.nilIfEmpty, cancelID: cancelID)
        }
        switch response.resultCode {
        case .timedOut: return .timedOut
        case .aborted: return .cancelled
        default: break
        }
        guard response.success || response.resultCode == .warnings else {
            throw .refused(ScrollableMessage.functionName, response.resultCode, info: response.info)
        }
        return presses.pressedButton.map { .buttonPressed($0) } ?? .dismissed
    }

    // MARK: Popup parts

    /// The icon, uploaded, when the head unit shows one (RPC 6.0+ and an `alertIcon` image
    /// field); otherwise nil with a log line.
    private func popupIcon(
        _ artwork: SDLArtwork?, field: ImageFieldName, manager: any SDLScreenContext, window: WindowCapability?
    ) async throws(SDLScreenError) -> SDLImage? {
        guard let artwork else { return nil }
        guard await manager.rpcVersion() >= .version(6, 0), TextFitting.has(field, window) else {
            logger.info("the head unit shows no alert icon; sent without it")
            return nil
        }
        try await upload(artwork, manager: manager)
        return artwork.image
    }

    /// The buttons' first states as SoftButtons with fresh IDs, their images uploaded where
    /// soft buttons take images (text and image fall back to text, image-only is withheld).
    private func popupButtons(
        _ buttons: [SDLSoftButton], manager: any SDLScreenContext, window: WindowCapability?
    ) async throws(SDLScreenError) -> (softButtons: [SoftButton], handlers: [Int: (name: String, handler: (@Sendable (OnButtonPress) -> Void)?)]) {
        let imageSupported = window?.softButtonCapabilities?.first?.imageSupported ?? true
        var softButtons: [SoftButton] = []
        var handlers: [Int: (name: String, handler: (@Sendable (OnButtonPress) -> Void)?)] = [:]
        for button in buttons {
            guard let state = button.states.first(where: { $0.name == button.initialState }) else { continue }
            var image: SDLImage?
            if let artwork = state.artwork, imageSupported {
                try await upload(artwork, manager: manager)
                image = artwork.image
            }
            let id = nextPopupButtonID
            nextPopupButtonID = nextPopupButtonID == 65_535 ? 2_000 : nextPopupButtonID + 1
            let type: SoftButtonType
            switch (state.text, image) {
            case (_?, _?): type = .both
            case (_?, nil): type = .text
            case (nil, _?): type = .image
            case (nil, nil):
                logger.info("soft button \(button.name) is image-only and the head unit's soft buttons take no images; withheld")
                continue
            }
            softButtons.append(
                SoftButton(
                    type: type, text: state.text, image: image, isHighlighted: state.isHighlighted, softButtonID: id,
                    systemAction: state.systemAction ?? .defaultAction))
            handlers[id] = (button.name, button.handler)
        }
        return (softButtons, handlers)
    }
}

/// The driver's presses while a popup is up, seen in wire order (before the popup's answer):
/// each press runs its button's handler at once.
final class PopupPresses: Sendable {
    private let handlers: [Int: (name: String, handler: (@Sendable (OnButtonPress) -> Void)?)]
    private let watchesSubtleAlert: Bool
    private let state = Mutex<(button: String?, subtleAlertPressed: Bool)>((nil, false))

    init(_ handlers: [Int: (name: String, handler: (@Sendable (OnButtonPress) -> Void)?)], watchesSubtleAlert: Bool = false) {
        self.handlers = handlers
        self.watchesSubtleAlert = watchesSubtleAlert
    }

    var pressedButton: String? { state.withLock { $0.button } }
    var subtleAlertPressed: Bool { state.withLock { $0.subtleAlertPressed } }

    func observe(_ manager: any SDLScreenContext) -> SDLNotificationObservation {
        var ids: Set<UInt32> = []
        if !handlers.isEmpty, let press = OnButtonPress.wireFunctionID { ids.insert(press) }
        if watchesSubtleAlert, let tap = OnSubtleAlertPressed.wireFunctionID { ids.insert(tap) }
        guard !ids.isEmpty else { return SDLNotificationObservation {} }
        return manager.observeNotifications(functionIDs: ids) { [self] message in
            if message.payload.functionID == OnSubtleAlertPressed.wireFunctionID {
                state.withLock { $0.subtleAlertPressed = true }
                return
            }
            guard let press = try? SDLJSON.decode(OnButtonPress.self, from: message.payload.json, policy: .lenient).value,
                press.buttonName == .customButton, let id = press.customButtonID, let button = handlers[id]
            else { return }
            state.withLock { $0.button = button.name }
            button.handler?(press)
        }
    }
}

extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
