import SDLProtocol
import SDLRPC
import SDLRuntime

/// Alerts, subtle alerts, choices, sliders, scrollable messages and audio pass-thru: they wait on
/// top of the app's screen for the driver (the control methods), their timeout or the app, then
/// answer as SDL Core does.
extension SDLHeadUnitEmulator {
    /// SDL Core's own checks of an interaction before its HMI shows it: an alert needs
    /// something to show or say, and a prompt's FILE chunks must be uploaded.
    func checkInteraction(_ kind: PendingInteraction.Kind, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard apps[appID] != nil else { return (.failure(.applicationNotRegistered, nil), []) }
        let request = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        if kind == .alert || kind == .subtleAlert, case .object(let members) = request,
            !members.contains(where: { ["alertText1", "alertText2", "alertText3", "ttsChunks", "softButtons", "alertIcon"].contains($0.key) })
        {
            return (.failure(.invalidData, "RPC.msg_params: an alert needs text, speech or soft buttons"), [])
        }
        let speech = checkSpeech(request[kind == .audioPassThru ? "initialPrompt" : "ttsChunks"], appID: appID)
        if case .missingFile = speech { return (speech.reply, []) }
        return (.deferred, [])
    }

    /// The Core half's checks, then the built-in HMI shows it at once (an audio pass-thru, whose
    /// recording is the Core half's).
    func startInteraction(
        _ kind: PendingInteraction.Kind, rpc: SDLRPCPayload, appID: String, cancelID: Int?, timeout: Duration?
    ) -> (Reply, [Effect]) {
        let checked = checkInteraction(kind, rpc: rpc, appID: appID)
        guard checked.0.isDeferred else { return checked }
        let request = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        let (refusal, effects) = showInteraction(
            kind, request: request, correlationID: rpc.correlationID, functionID: rpc.functionID, appID: appID, cancelID: cancelID, timeout: timeout)
        return (refusal ?? .deferred, effects)
    }

    /// The built-in HMI puts an interaction on top of the app's screen, answered later by the
    /// driver, by `timeout` (nil: no timer, the interaction ends itself) or by the app; nil
    /// refusal when shown. An Alert aborts whatever else is on top ("an alert will abort any SDL
    /// operation that is in-progress, except an already-in-progress alert"); anything else
    /// finding the screen taken is REJECTED.
    func showInteraction(
        _ kind: PendingInteraction.Kind, request: SDLJSONValue, correlationID: UInt32, functionID: UInt32, appID: String, cancelID: Int?,
        timeout: Duration?
    ) -> (refusal: Reply?, effects: [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        let isAlert = kind == .alert || kind == .subtleAlert
        var effects: [Effect] = []
        if let onTop = app.interaction {
            let onTopIsAlert = onTop.kind == .alert || onTop.kind == .subtleAlert
            guard kind == .alert, !onTopIsAlert else {
                return (.failure(.rejected, "\(onTop.kind.rawValue) is already on top"), [])
            }
            effects += finishInteraction(appID, with: .failure(.aborted, "aborted by an Alert"))
        }
        interactionSerial += 1
        var interaction = PendingInteraction(
            kind: kind, correlationID: correlationID, functionID: functionID, cancelID: cancelID, request: request, serial: interactionSerial)
        // What the head unit cannot say is said as far as it can, and answered WARNINGS.
        if case .unsupportedType(let info) = checkSpeech(request[kind == .audioPassThru ? "initialPrompt" : "ttsChunks"], appID: appID) {
            interaction.speechWarning = info
        }
        apps[appID]?.interaction = interaction
        apps[appID]?.systemContext = isAlert ? .alert : .hmiObscured
        if let timeout { schedule(.interaction(appID: appID, serial: interaction.serial), after: timeout) }
        emit(.interactionStarted(appID: appID, kind: kind.rawValue))
        emit(.systemContextChanged(appID: appID, isAlert ? .alert : .hmiObscured))
        return (nil, effects + [hmiStatus(of: appID)])
    }

    func performInteraction(_ request: PerformInteraction, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        if let missing = request.interactionChoiceSetIDList.first(where: { app.choiceSets[$0] == nil }) {
            return (.failure(.invalidId, "no choice set \(missing)"), [])
        }
        return checkInteraction(.performInteraction, rpc: rpc, appID: appID)
    }

    /// CancelInteraction for Alert, SubtleAlert, PerformInteraction, Slider and
    /// ScrollableMessage: the interaction answers ABORTED, CancelInteraction SUCCESS. Nothing
    /// matching on top (or an audio pass-thru, which only the app's EndAudioPassThru or the
    /// driver ends): IGNORED.
    func cancelInteraction(_ request: CancelInteraction, appID: String) -> (Reply, [Effect]) {
        guard let interaction = apps[appID]?.interaction, interaction.kind != .audioPassThru,
            interaction.functionID == UInt32(clamping: request.functionID),
            request.cancelID == nil || request.cancelID == interaction.cancelID
        else {
            return (.failure(.ignored, "nothing to cancel"), [])
        }
        return (.success(), finishInteraction(appID, with: .failure(.aborted, "cancelled by the app")))
    }

    /// The interaction's timer (`TimerKey.interaction`) went off.
    func interactionTimedOut(appID: String, serial: Int) async {
        guard let interaction = apps[appID]?.interaction, interaction.serial == serial else { return }
        let reply: Reply
        switch interaction.kind {
        case .alert, .subtleAlert, .scrollableMessage, .audioPassThru: reply = .success()
        case .performInteraction, .slider: reply = .failure(.timedOut, nil)
        }
        await perform(finishInteraction(appID, with: reply))
    }

    /// Answers the interaction on top and gives the screen back (system context MAIN).
    func finishInteraction(_ appID: String, with reply: Reply) -> [Effect] {
        guard let interaction = apps[appID]?.interaction else { return [] }
        cancelTimer(.interaction(appID: appID, serial: interaction.serial))
        cancelTimer(.audioChunk(appID: appID, serial: interaction.serial))
        apps[appID]?.interaction = nil
        apps[appID]?.keyboardEntry = nil
        apps[appID]?.audioCapture = nil
        guard !interaction.answeredByHMI else { return [] }
        apps[appID]?.systemContext = .main
        emit(.systemContextChanged(appID: appID, .main))
        var reply = reply
        if let warning = interaction.speechWarning, reply.resultCode == .success {
            // SDL Core's answer when the HMI could not speak part of the prompt.
            reply = reply.with(.warnings, info: warning)
        }
        // Answered through the HMI requests the built-in HMI holds for it, if it holds any (an
        // audio pass-thru it runs alone).
        let answer: [Effect] =
            interaction.hmiRequests.isEmpty
            ? [.respond(appID: appID, functionID: interaction.functionID, correlationID: interaction.correlationID, reply)]
            : builtInInteractionAnswered(interaction, reply)
        return answer + [hmiStatus(of: appID)]
    }

    /// The driver answers what is on top of the app's screen.
    public func answerInteraction(appID: String, _ answer: SDLUserAnswer) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.answerInteraction(appID: appID, answer) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        if app.interaction == nil, app.menuOpen, answer == .dismiss || answer == .cancel {
            await perform(setMenuOpen(false, appID: appID))
            return
        }
        guard let interaction = app.interaction else { throw .nothingToAnswer(appID: appID) }
        let reply: Reply
        switch (answer, interaction.kind) {
        case (.cancel, _):
            reply = .failure(.aborted, "cancelled by the driver")
            // The HMI's keyboard reports the driver's Cancel before the interaction's answer.
            if interaction.hasKeyboard {
                await perform([notification(OnKeyboardInput(event: .entryCancelled), to: appID)])
            }
        case (.dismiss, .alert), (.dismiss, .subtleAlert), (.dismiss, .scrollableMessage), (.dismiss, .audioPassThru):
            // An audio pass-thru's Done button: the recording ends with SUCCESS.
            reply = .success()
        case (.choice(let choiceID), .performInteraction), (.voiceChoice(let choiceID), .performInteraction):
            guard choices(of: interaction, in: app).contains(choiceID) else { throw .invalidAnswer("choice \(choiceID) is not offered") }
            let source: TriggerSource = if case .voiceChoice = answer { .vr } else { .menu }
            reply = .success(extra: [.init(key: "choiceID", value: .integer(choiceID)), .init(key: "triggerSource", value: .string(source.rawValue))])
        case (.text(let text), .performInteraction):
            guard interaction.hasKeyboard else { throw .invalidAnswer("no keyboard is shown") }
            // A searchable list's search text comes back the same way, without a choiceID.
            reply = .success(extra: [
                .init(key: "manualTextEntry", value: .string(text)), .init(key: "triggerSource", value: .string(TriggerSource.keyboard.rawValue)),
            ])
            // The HMI reports the submitted entry before the interaction's answer, as SDL Core passes it on.
            await perform([notification(OnKeyboardInput(event: .entrySubmitted, data: text), to: appID)])
        case (.sliderPosition(let position), .slider):
            guard case .integer(let ticks)? = interaction.request["numTicks"], (1...ticks).contains(position) else {
                throw .invalidAnswer("slider position \(position) is outside 1...numTicks")
            }
            reply = .success(extra: [.init(key: "sliderPosition", value: .integer(position))])
        default:
            throw .invalidAnswer("\(answer) does not answer a \(interaction.kind.rawValue)")
        }
        await perform(finishInteraction(appID, with: reply))
    }

    /// The driver taps the subtle alert (not one of its soft buttons): as the spec asks, the app
    /// is opened (FULL), then gets OnSubtleAlertPressed, and the SubtleAlert is answered SUCCESS.
    public func pressSubtleAlert(appID: String) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.pressSubtleAlert(appID: appID) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard let interaction = app.interaction else { throw .nothingToAnswer(appID: appID) }
        guard interaction.kind == .subtleAlert else { throw .invalidAnswer("a \(interaction.kind.rawValue) is on top, not a subtle alert") }
        var effects = app.hmiLevel == .full ? [] : activationEffects(appID)
        effects.append(notification(OnSubtleAlertPressed(), to: appID))
        effects += finishInteraction(appID, with: .success())
        await perform(effects)
    }

    /// The driver types on the keyboard of a KEYBOARD interaction, one key at a time: each key
    /// is an OnKeyboardInput KEYPRESS carrying the key (SINGLE_KEYPRESS) or the whole entry so far
    /// (RESEND_CURRENT_ENTRY, the spec's default), as the app's keyboard properties ask.
    public func typeOnKeyboard(appID: String, _ text: String) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.typeOnKeyboard(appID: appID, text) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard let interaction = app.interaction, interaction.hasKeyboard else {
            throw .invalidAnswer("no keyboard is shown")
        }
        var mode = "RESEND_CURRENT_ENTRY"
        if case .string(let asked)? = app.screen.globalProperties["keyboardProperties"]?["keypressMode"] { mode = asked }
        var entry = apps[appID]?.keyboardEntry ?? ""
        for character in text {
            entry.append(character)
            apps[appID]?.keyboardEntry = entry
            let data = mode == "SINGLE_KEYPRESS" ? String(character) : entry
            await perform([notification(OnKeyboardInput(event: .keypress, data: data), to: appID)])
        }
    }

    /// The driver shows or hides the characters typed on the keyboard on top: OnKeyboardInput
    /// INPUT_KEY_MASK_ENABLED or INPUT_KEY_MASK_DISABLED (RPC 7.0+).
    public func setKeyboardMasked(appID: String, _ masked: Bool) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.setKeyboardMasked(appID: appID, masked) }
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard let interaction = app.interaction, interaction.hasKeyboard else {
            throw .invalidAnswer("no keyboard is shown")
        }
        await perform([notification(OnKeyboardInput(event: masked ? .inputKeyMaskEnabled : .inputKeyMaskDisabled), to: appID)])
    }

    /// An app that goes away takes its timers with it.
    func cancelTimers(of app: EmulatedApp) {
        if let interaction = app.interaction {
            cancelTimer(.interaction(appID: app.appID, serial: interaction.serial))
            cancelTimer(.audioChunk(appID: app.appID, serial: interaction.serial))
        }
        if let speech = app.speech { cancelTimer(.speech(appID: app.appID, serial: speech.serial)) }
    }

    private func choices(of interaction: PendingInteraction, in app: EmulatedApp) -> Set<Int> {
        guard case .array(let setIDs)? = interaction.request["interactionChoiceSetIDList"] else { return [] }
        var ids: Set<Int> = []
        for case .integer(let setID) in setIDs {
            guard case .array(let choices)? = app.choiceSets[setID]?["choiceSet"] else { continue }
            for choice in choices { if case .integer(let id)? = choice["choiceID"] { ids.insert(id) } }
        }
        return ids
    }
}

/// What the driver does with what is on top of an app's screen.
public enum SDLUserAnswer: Sendable, Hashable {
    /// Picks a choice of a PerformInteraction on the screen (`triggerSource` MENU).
    case choice(Int)
    /// Picks a choice of a PerformInteraction by voice (`triggerSource` VR).
    case voiceChoice(Int)
    /// Sets a slider.
    case sliderPosition(Int)
    /// Types on the keyboard of a PerformInteraction with layout KEYBOARD.
    case text(String)
    /// Closes an alert or scrollable message; Done on an audio pass-thru.
    case dismiss
    /// Backs out: the request is answered ABORTED.
    case cancel
}
