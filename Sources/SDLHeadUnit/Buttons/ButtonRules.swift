import SDLProtocol
import SDLRPC
import SDLRuntime

/// Button subscriptions and presses, with SDL Core's rules.
extension SDLHeadUnitEmulator {
    /// Buttons only a media app may subscribe to (SDL Core answers REJECTED to others).
    static let mediaButtons: Set<ButtonName> = [.playPause, .seekleft, .seekright, .tuneup, .tunedown]

    /// What SDL Core subscribes every app to at registration: CUSTOM_BUTTON (its soft
    /// buttons' presses), when the head unit has it.
    var buttonsSubscribedAtRegistration: Set<ButtonName> {
        availableButtons.contains(.customButton) ? [.customButton] : []
    }

    var availableButtons: Set<ButtonName> {
        guard case .array(let items)? = configuration.capabilities["buttonCapabilities"] else { return [] }
        return Set(items.compactMap { if case .string(let name)? = $0["name"] { ButtonName(rawValue: name) } else { nil } })
    }

    func subscribeButton(_ request: SubscribeButton, appID: String) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        if Self.mediaButtons.contains(request.buttonName) && !app.isMedia {
            return (.failure(.rejected, "\(request.buttonName.rawValue) is for media apps"), [])
        }
        var request = request
        // SDL Core: a media app of RPC 4.5 or older means PLAY_PAUSE when it asks for OK (the
        // OK button played and paused before 5.0), if the head unit has PLAY_PAUSE.
        let old = (app.rpcVersion.majorVersion, app.rpcVersion.minorVersion) <= (4, 5)
        if request.buttonName == .ok, app.isMedia, old, availableButtons.contains(.playPause) { request.buttonName = .playPause }
        guard availableButtons.contains(request.buttonName) else {
            return (.failure(.unsupportedResource, "the head unit has no \(request.buttonName.rawValue) button"), [])
        }
        guard !app.buttonSubscriptions.contains(request.buttonName) else {
            return (.failure(.ignored, "already subscribed to \(request.buttonName.rawValue)"), [])
        }
        apps[appID]?.buttonSubscriptions.insert(request.buttonName)
        return (.success(), [hashChange(of: appID)])
    }

    func unsubscribeButton(_ request: UnsubscribeButton, appID: String) -> (Reply, [Effect]) {
        guard apps[appID]?.buttonSubscriptions.remove(request.buttonName) != nil else {
            return (.failure(.ignored, "not subscribed to \(request.buttonName.rawValue)"), [])
        }
        return (.success(), [hashChange(of: appID)])
    }

    /// The driver presses a hardware button: OnButtonEvent (down, up) and OnButtonPress go to
    /// the subscribed app in FULL, or in LIMITED for media buttons.
    public func press(_ button: ButtonName, mode: ButtonPressMode = .short) async {
        if let hmiDriver { return await hmiDriver.press(button, mode: mode) }
        await buttonPressed(button, mode: mode)
    }

    /// A hardware button pressed on the HMI (Buttons.OnButtonPress), relayed as SDL Core does.
    func buttonPressed(_ button: ButtonName, mode: ButtonPressMode) async {
        await perform(buttonRecipients(button).flatMap { buttonNotifications(button, mode: mode, customButtonID: nil, to: $0) })
    }

    /// The apps a hardware button's notifications go to: subscribed to it and in FULL, or in
    /// LIMITED for a media button.
    func buttonRecipients(_ button: ButtonName) -> [String] {
        apps.values.sorted { $0.connectionID < $1.connectionID }.filter { app in
            app.buttonSubscriptions.contains(button) && (app.hmiLevel == .full || (app.hmiLevel == .limited && Self.mediaButtons.contains(button)))
        }.map(\.appID)
    }

    /// The driver taps a soft button of the app (on its screen or on what is on top): the app
    /// gets OnButtonEvent (down, up) and OnButtonPress with the button's ID. A button of an
    /// alert, subtle alert or scrollable message then closes it with SUCCESS, unless its
    /// `systemAction` is KEEP_CONTEXT; STEAL_FOCUS also brings the app to FULL.
    public func pressSoftButton(appID: String, id: Int, mode: ButtonPressMode = .short) async throws(SDLHeadUnitControlError) {
        if let hmiDriver { return try await hmiDriver.pressSoftButton(appID: appID, id: id, mode: mode) }
        try await softButtonPressed(appID: appID, id: id, mode: mode)
    }

    /// A soft button pressed on the HMI, relayed as SDL Core does; the built-in HMI's alert
    /// closes with it.
    func softButtonPressed(appID: String, id: Int, mode: ButtonPressMode) async throws(SDLHeadUnitControlError) {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        let onTop = app.interaction.map { Self.softButtonIDs($0.request["softButtons"]) } ?? []
        let onScreen = Self.softButtonIDs(app.screen.show["softButtons"])
        guard onTop.contains(id) || onScreen.contains(id) else { throw .unknownSoftButton(id) }
        var effects = buttonNotifications(.customButton, mode: mode, customButtonID: id, to: appID)
        let closable: Set<PendingInteraction.Kind> = [.alert, .subtleAlert, .scrollableMessage]
        if onTop.contains(id), let interaction = app.interaction, closable.contains(interaction.kind) {
            let action = Self.systemAction(of: id, in: interaction.request["softButtons"])
            if action != .keepContext {
                // The app learns which button through OnButtonPress, before the answer.
                effects += finishInteraction(appID, with: .success())
                if action == .stealFocus, app.hmiLevel != .full { effects += activationEffects(appID) }
            }
        }
        await perform(effects)
    }

    /// The `systemAction` of soft button `id` (DEFAULT_ACTION when it has none).
    static func systemAction(of id: Int, in buttons: SDLJSONValue?) -> SystemAction {
        guard case .array(let items)? = buttons,
            let button = items.first(where: { $0["softButtonID"] == .integer(id) }),
            case .string(let action)? = button["systemAction"]
        else { return .defaultAction }
        return SystemAction(rawValue: action)
    }

    func buttonNotifications(_ button: ButtonName, mode: ButtonPressMode, customButtonID: Int?, to appID: String) -> [Effect] {
        [
            notification(OnButtonEvent(buttonName: button, buttonEventMode: .buttondown, customButtonID: customButtonID), to: appID),
            notification(OnButtonEvent(buttonName: button, buttonEventMode: .buttonup, customButtonID: customButtonID), to: appID),
            notification(OnButtonPress(buttonName: button, buttonPressMode: mode, customButtonID: customButtonID), to: appID),
        ]
    }

    static func softButtonIDs(_ value: SDLJSONValue?) -> Set<Int> {
        guard case .array(let buttons)? = value else { return [] }
        return Set(buttons.compactMap { if case .integer(let id)? = $0["softButtonID"] { id } else { nil } })
    }
}
