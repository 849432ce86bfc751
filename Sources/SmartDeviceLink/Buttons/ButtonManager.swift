import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime

/// Subscription buttons: OK, presets, search, media keys and navigation map keys, on the
/// template or on the steering wheel and console.
///
/// Each button is subscribed on the head unit once, however many observers it has, and
/// unsubscribed when the last one leaves. The guide's rules are checked before anything is
/// sent: media buttons need a MEDIA app, navigation buttons a NAVIGATION app, a button must
/// exist in the head unit's RPC version (PLAY_PAUSE 5.0, navigation buttons 6.0; on older head
/// units PLAY_PAUSE is sent as OK and OK presses reach PLAY_PAUSE observers), and a preset must
/// be within `numCustomPresetsAvailable`. Subscriptions are renewed after a reconnection.
///
/// ```swift
/// for await press in try await manager.buttons.subscribe(.ok).presses {
///     print("OK", press.buttonPressMode)
/// }
/// ```
public actor SDLButtonManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLSubManagerContext
    private let logger: Logger
    private struct Observer {
        let handler: @Sendable (SDLButtonInput) -> Void
        /// Ends the observer's sequence (nil for closures).
        let finish: (@Sendable () -> Void)?
    }

    private var observers: [ButtonName: [Int: Observer]] = [:]
    private var nextObserverID = 0
    /// The head unit's RPC version, from the latest connection.
    private var headUnitVersion = MobileAPI.version
    /// Counts manager runs: work begun before a stop does not touch the next run's state.
    private var generation = 0
    /// Buttons subscribed on the head unit of the current connection.
    private var subscribed: Set<ButtonName> = []
    /// Whether the press listener runs (a child of the manager's run, started on first use).
    private var listening = false

    /// Buttons only media apps may subscribe to.
    public static let mediaButtons: Set<ButtonName> = [.playPause, .seekleft, .seekright, .tuneup, .tunedown, .shuffle, .repeat]

    /// Buttons only navigation apps may subscribe to: the map keys (RPC 6.0+).
    public static var navigationButtons: Set<ButtonName> {
        Set(ButtonName.allCases.filter { $0.rawValue.hasPrefix("NAV_") })
    }

    /// - Parameter rpcVersion: the head unit's version when the manager is made while a
    ///   connection is Ready (it gets no `connectionReady` for that one).
    init(logger: Logger, rpcVersion: SDLSpecVersion? = nil) {
        self.logger = logger
        self.context = link
        if let rpcVersion { headUnitVersion = rpcVersion }
    }

    /// A button manager on `context` alone, for tests without a manager.
    init(context: any SDLSubManagerContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    // MARK: Subscribing

    /// Subscribes to `button`; the returned sequence yields its presses and events until it is
    /// dropped, its task is cancelled or `unsubscribe` is called. Throws, without sending
    /// anything, when the guide's rules forbid the button for this app or head unit.
    public func subscribe(_ button: ButtonName) async throws -> SDLButtonSubscription {
        do throws(SDLButtonError) {
            let (stream, continuation) = AsyncStream<SDLButtonInput>.makeStream(bufferingPolicy: .bufferingNewest(64))
            let observer = try await addObserver(button, Observer(handler: { continuation.yield($0) }, finish: { continuation.finish() }))
            let context = self.context
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                context.spawn { await self.remove(observer) }
            }
            return SDLButtonSubscription(button: button, observer: observer, stream: stream)
        } catch {
            throw SDLError(error)
        }
    }

    /// The closure form: `handler` runs for every press and event of `button` until
    /// `unsubscribe(_:)` with the returned observer.
    @discardableResult
    public func subscribe(
        _ button: ButtonName, handler: @escaping @Sendable (SDLButtonInput) -> Void
    ) async throws -> SDLButtonObserver {
        do throws(SDLButtonError) {
            return try await addObserver(button, Observer(handler: handler, finish: nil))
        } catch {
            throw SDLError(error)
        }
    }

    /// Removes one observer; the button is unsubscribed on the head unit when it was the last.
    public func unsubscribe(_ observer: SDLButtonObserver) async {
        await remove(observer)
    }

    /// Removes every observer of `button` and unsubscribes it on the head unit.
    public func unsubscribe(_ button: ButtonName) async {
        guard let removed = observers.removeValue(forKey: button) else { return }
        for observer in removed.values { observer.finish?() }
        await unsubscribeOnHeadUnit(button)
    }

    /// Buttons with at least one observer.
    public var subscribedButtons: Set<ButtonName> { Set(observers.keys) }

    private func addObserver(_ button: ButtonName, _ observer: Observer) async throws(SDLButtonError) -> SDLButtonObserver {
        let run = generation
        try await check(button)
        startListening()
        if !subscribed.contains(button) {
            try await subscribeOnHeadUnit(button)
        }
        guard run == generation else { throw .notSent(.notReady(.stopped)) }
        nextObserverID += 1
        observers[button, default: [:]][nextObserverID] = observer
        return SDLButtonObserver(button: button, id: nextObserverID)
    }

    private func remove(_ observer: SDLButtonObserver) async {
        guard let removed = observers[observer.button]?.removeValue(forKey: observer.id) else { return }
        removed.finish?()
        if observers[observer.button]?.isEmpty == true {
            observers[observer.button] = nil
            await unsubscribeOnHeadUnit(observer.button)
        }
    }

    /// The guide's rules, before anything is sent.
    private func check(_ button: ButtonName) async throws(SDLButtonError) {
        guard button.isRecognized, button != .customButton else { throw .notSubscribable(button) }
        let types = await context.appTypes
        if Self.mediaButtons.contains(button), !types.contains(.media) { throw .wrongAppType(button, needs: .media) }
        if Self.navigationButtons.contains(button), !types.contains(.navigation) { throw .wrongAppType(button, needs: .navigation) }
        let version = await context.rpcVersion()
        // PLAY_PAUSE is sent as OK before 5.0, so only other buttons are held to the spec's version.
        if button != .playPause, let availability = ButtonName.enumInfo.element(named: button.rawValue)?.availability,
            !availability.isAvailable(in: version)
        {
            throw .notSent(
                .unsupportedByHeadUnit(
                    what: "button \(button.rawValue)", available: availability.since.map { "since RPC \($0)" } ?? "in other versions", headUnit: version))
        }
        if let index = Self.presetIndex(button), let available = await context.mainWindowCapability()?.numCustomPresetsAvailable,
            index >= available
        {
            throw .presetUnavailable(button, available: available)
        }
    }

    static func presetIndex(_ button: ButtonName) -> Int? {
        guard button.rawValue.hasPrefix("PRESET_") else { return nil }
        return Int(button.rawValue.dropFirst("PRESET_".count))
    }

    private func subscribeOnHeadUnit(_ button: ButtonName) async throws(SDLButtonError) {
        let response = try await SDLButtonError.sending(SubscribeButton.functionName) {
            try await context.send(SubscribeButton(buttonName: button))
        }
        // IGNORED: already subscribed (resumption, or another path): as good as SUCCESS.
        guard response.success || response.resultCode == .ignored || response.resultCode == .warnings else {
            throw .refused(button, response.resultCode, info: response.info)
        }
        subscribed.insert(button)
    }

    private func unsubscribeOnHeadUnit(_ button: ButtonName) async {
        // Before RPC 5.0, PLAY_PAUSE is OK on the head unit: keep it while the other has observers.
        if headUnitVersion < .version(5, 0), let twin = [ButtonName.ok: ButtonName.playPause, .playPause: .ok][button],
            observers[twin]?.isEmpty == false
        {
            subscribed.remove(button)
            return
        }
        guard subscribed.remove(button) != nil else { return }
        do {
            let response = try await context.send(UnsubscribeButton(buttonName: button))
            if !response.success && response.resultCode != .ignored {
                logger.warning("UnsubscribeButton \(button.rawValue): \(response.resultCode.rawValue) \(response.info ?? "")")
            }
        } catch {
            logger.warning("UnsubscribeButton \(button.rawValue) not sent: \(error)")
        }
    }

    // MARK: Presses

    /// One reader for both notification types, so a press comes after its down and up events.
    private func startListening() {
        guard !listening, let pressID = OnButtonPress.wireFunctionID, let eventID = OnButtonEvent.wireFunctionID else { return }
        let notifications = context.rawNotifications(functionIDs: [pressID, eventID])
        listening = context.spawn { [weak self] in
            for await message in notifications {
                let json = message.payload.json
                if message.payload.functionID == pressID {
                    if let press = try? SDLJSON.decode(OnButtonPress.self, from: json, policy: .lenient).value {
                        await self?.deliver(.press(press), button: press.buttonName)
                    }
                } else if let event = try? SDLJSON.decode(OnButtonEvent.self, from: json, policy: .lenient).value {
                    await self?.deliver(.event(event), button: event.buttonName)
                }
            }
            await self?.listenerEnded()
        }
    }

    private func listenerEnded() {
        listening = false
    }

    private func deliver(_ input: SDLButtonInput, button: ButtonName) {
        var targets = (observers[button] ?? [:]).sorted { $0.key < $1.key }.map(\.value.handler)
        // Before RPC 5.0 the head unit has OK where PLAY_PAUSE would be.
        if button == .ok, headUnitVersion < .version(5, 0) {
            targets += (observers[.playPause] ?? [:]).sorted { $0.key < $1.key }.map(\.value.handler)
        }
        for handler in targets { handler(input) }
    }

    // MARK: Connections

    /// A new connection is Ready: renew every observed button once SubscribeButton is allowed
    /// (SDL Core refuses it in NONE); with resumption the head unit answers IGNORED, which counts.
    func connectionReady(_ connection: SDLConnectionContext) async {
        subscribed = []
        headUnitVersion = connection.rpcVersion
        guard !observers.isEmpty else { return }
        // On the connection's scope: a drop ends the renewal with the connection.
        connection.tasks.spawn {
            if let permissions = connection.permissions, await !permissions.waitUntilAllowed("SubscribeButton") { return }
            // The buttons observed now: some may have gone while waiting.
            for button in await self.observedButtons() where !Task.isCancelled {
                do {
                    try await self.subscribeOnHeadUnit(button)
                } catch {
                    self.logger.warning("button \(button.rawValue) not renewed after reconnection: \(error)")
                }
            }
        }
    }

    /// The buttons observed now and not subscribed on this connection yet, in a stable order.
    private func observedButtons() -> [ButtonName] {
        observers.keys.filter { !subscribed.contains($0) }.sorted { $0.rawValue < $1.rawValue }
    }

    func managerStopped() {
        generation += 1
        listening = false
        for observer in observers.values.flatMap(\.values) { observer.finish?() }
        observers = [:]
        subscribed = []
    }
}

/// A press (short or long) or a down/up event of a subscribed button.
public enum SDLButtonInput: Sendable, Hashable {
    /// A short or long press (OnButtonPress).
    case press(OnButtonPress)
    /// The button went down or up (OnButtonEvent).
    case event(OnButtonEvent)
}

/// Names one observer of a button, to remove it.
public struct SDLButtonObserver: Sendable, Hashable {
    /// The button this observer watches.
    public let button: ButtonName
    let id: Int
}

/// The presses and events of one button for one observer; ends when it is unsubscribed or the
/// manager stops.
public struct SDLButtonSubscription: AsyncSequence, Sendable {
    /// Each element is a press or a down/up event of the button.
    public typealias Element = SDLButtonInput
    /// The subscribed button.
    public let button: ButtonName
    /// Pass to `unsubscribe(_:)` to end it from elsewhere.
    public let observer: SDLButtonObserver
    let stream: AsyncStream<SDLButtonInput>

    /// Iterates the button's presses and events as they arrive.
    public func makeAsyncIterator() -> AsyncStream<SDLButtonInput>.Iterator { stream.makeAsyncIterator() }

    /// Only the presses (short or long), not the down/up events.
    public var presses: AsyncCompactMapSequence<AsyncStream<SDLButtonInput>, OnButtonPress> {
        stream.compactMap { input in
            if case .press(let press) = input { return press }
            return nil
        }
    }
}

/// Why a button subscription was not made.
package enum SDLButtonError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, HMI level, RPC version...).
    case notSent(SDLManagerError)
    /// Media buttons need a MEDIA app, navigation buttons a NAVIGATION app; nothing was sent.
    case wrongAppType(ButtonName, needs: AppHMIType)
    /// The display offers fewer presets; nothing was sent.
    case presetUnavailable(ButtonName, available: Int)
    /// Not a button apps subscribe to (soft buttons come with the screen manager).
    case notSubscribable(ButtonName)
    /// The head unit refused the subscription.
    case refused(ButtonName, SDLResult, info: String?)
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .wrongAppType(let button, let type): "\(button.rawValue) is only for \(type.rawValue) apps; nothing was sent"
        case .presetUnavailable(let button, let available): "\(button.rawValue) is beyond the \(available) presets the display offers; nothing was sent"
        case .notSubscribable(let button): "\(button.rawValue) is not a subscription button"
        case .refused(let button, let code, let info): "the head unit refused \(button.rawValue): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        }
    }
}
