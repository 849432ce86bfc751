import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import ServiceLifecycle
import Synchronization

/// The one entry point of an SDL app: connects, registers, keeps the session alive (reconnecting
/// and re-registering with the latest resumption hash after a drop), and sends the app's requests
/// once it is Ready. One manager per connection to one head unit; its state is its own, so a
/// process can host many.
///
/// ```swift
/// var configuration = SDLManager.Configuration(appName: "Hello", appID: "8675309")
/// configuration.appTypes = [.media]
/// try await withSDLManager(configuration) { manager in
///     for await level in manager.hmiLevels() where level == .full { break }
///     _ = try await manager.send(Show(mainField1: "Hello"))
/// }
/// ```
///
/// `run()` owns the connection (it is a swift-service-lifecycle `Service`, so a `ServiceGroup`
/// can run it); `withSDLManager` runs it as a child task for the length of a closure, and
/// `stop()` ends it. The manager starts no task of its own: its listeners, timers and queues
/// are children of `run()`.
///
/// A manager is one-shot, like grpc-swift's `GRPCClient`: it runs once, and once stopped it stays
/// stopped (`run()` then throws an `SDLError` of code `alreadyRunning`; make a new manager to connect
/// again). A `stop()` that comes before `run()` is kept: `run()` then returns at once.
///
/// Like `GRPCClient`, it is a `final class` whose mutable state sits in one `Mutex`; its
/// long-lived work is `run()`'s children, so a manager never runs anything behind the caller's back.
public final class SDLManager: Service, Sendable {
    /// Where the manager is: `stopped → connecting → registered → settingUpManagers → ready`,
    /// `reconnecting` after a drop, `stopping` while it unregisters.
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Not running: before `run()`, and after it returned.
        case stopped
        /// Dialing the head unit and registering the app.
        case connecting
        /// The head unit accepted RegisterAppInterface; the manager checks the versions and the vehicle.
        case registered
        /// The sub-managers start on the new connection (capabilities, files, the app icon).
        case settingUpManagers
        /// The app's requests go out.
        case ready
        /// After a drop: waiting, then dialing and registering again with the resumption hash.
        case reconnecting
        /// `stop()` came: the app unregisters and the connection closes.
        case stopping

        /// The state in words, for logs.
        public var description: String {
            switch self {
            case .stopped: "stopped"
            case .connecting: "connecting"
            case .registered: "registered"
            case .settingUpManagers: "setting up managers"
            case .ready: "ready"
            case .reconnecting: "reconnecting"
            case .stopping: "stopping"
            }
        }
    }

    /// Who the app is and how it reaches the head unit, as given to `init`.
    public let configuration: Configuration
    let logger: Logger
    private let stateFanOut = StreamFanOut<State>(bufferLimit: 32, replaysLatest: true, initial: .stopped)
    private let statusBoard = HMIStatusBoard()
    /// Notifications for the manager's whole life, across connections.
    private let notificationHub: NotificationRouter
    private let hashFanOut = StreamFanOut<String>(bufferLimit: 8, replaysLatest: true)
    private let systemRequestFanOut = StreamFanOut<SDLSystemRequestOutcome>(bufferLimit: 32)
    /// Everything of the manager that changes, behind one lock (as grpc-swift's `GRPCClient`
    /// keeps its state machine): where the manager is with the connection it serves, the
    /// sub-managers made so far, what the head unit said. Every lifecycle change goes through
    /// `transition`, which publishes the public state in the same critical section. Never held
    /// across an `await`.
    let shared: Mutex<SharedState>

    struct SharedState {
        var lifecycle: ManagerLifecycle<SDLRPCClient>
        /// The sub-managers made on first use (see `OnDemandSubManagers`).
        var subManagers = OnDemandSubManagers()
        /// Held weakly, as delegates are.
        weak var delegate: (any SDLManagerDelegate)?
        /// Whether a delegate was ever set, so state changes queue delegate calls only for apps
        /// that have one.
        var delegateAttached = false
        /// What the app answers, by function ID; installed on every connection.
        var requestHandlers: [UInt32: RequestHandler] = [:]
        /// The current connection's tokens for `requestHandlers`.
        var installedHandlers: [UInt32: SDLRequestHandlerToken] = [:]
        /// Per request type and head-unit version: whether the version gate has anything to check.
        var gateNeeded: [String: Bool] = [:]
        /// The head unit's language after OnLanguageChange: the next registration asks for it.
        var switchedLanguage: Language?
        /// The latest OnHashChange: the next registration after a drop resumes with it.
        var resumeHash: String?
        var registerResponse: RegisterAppInterfaceResponse?
        var registrationWarning: SDLResult?
        var authToken: String?
        var languageChange: ChangeRegistrationResponse?
        var permissions: SDLPermissionTracker?
        /// How far the current connection's notifications are followed (see `checkPermission`).
        var followerProgress: FollowerProgress?
        /// Each service's encryption (see `SDLManager+Encryption`).
        var encryption: [SDLServiceType: SDLEncryptionState] = [:]
    }

    typealias RequestHandler = @Sendable (SDLIncomingRPC) async throws -> SDLRawResponse

    /// The run's child tasks that sub-managers start on demand (listeners, the screen queue's
    /// runner, clean-ups): they end with the run.
    let tasks = TaskScope()
    /// The latest OnHashChange: the next registration after a drop resumes with it.
    public var resumeHash: String? { shared.withLock { $0.resumeHash } }
    /// Called with every new resumption hash, to keep it across launches.
    private let hashStore: (@Sendable (String) async -> Void)?

    /// The head unit's answer to the latest registration (languages, vehicle type, legacy
    /// capabilities, `iconResumed`...).
    public var registerResponse: RegisterAppInterfaceResponse? { shared.withLock { $0.registerResponse } }
    /// A registration that succeeded with a warning (WRONG_LANGUAGE, RESUME_FAILED, WARNINGS).
    public var registrationWarning: SDLResult? { shared.withLock { $0.registrationWarning } }
    /// A cloud app's token for the user account tied to this vehicle, from the head unit's
    /// StartServiceACK (protocol 5.2+; the policy table's `auth_token` for the app on SDL Core).
    /// Check it with your account service before trusting the session; nil when not sent.
    public var authToken: String? { shared.withLock { $0.authToken } }
    /// Follows OnHMIStatus and OnPermissionsChange for the current connection.
    public var permissions: SDLPermissionTracker? { shared.withLock { $0.permissions } }
    private var followerProgress: FollowerProgress? { shared.withLock { $0.followerProgress } }
    /// Observers of `permissionChanges(of:_:)`, kept across connections.
    let permissionObservers = PermissionObservers(outlivesConnections: true)
    let encryptionFanOut = StreamFanOut<SDLServiceEncryption>(bufferLimit: 16)
    /// What the head unit can do: displays and windows, buttons, navigation, phone, app
    /// services..., cached and kept current across reconnections.
    public let systemCapabilities: SDLSystemCapabilityManager
    /// The app's files on the head unit: uploads, artworks, deletes.
    public let files: SDLFileManager
    /// The car's data: one-time readings, subscriptions, OnVehicleData, OEM custom items.
    public var vehicleData: SDLVehicleDataManager {
        onDemand(\.vehicleData) { _, _ in SDLVehicleDataManager(logger: logger, clock: configuration.session.clock) }
    }
    /// Subscription buttons: OK, presets, search, media and navigation keys.
    public var buttons: SDLButtonManager {
        onDemand(\.buttons) { connection, _ in SDLButtonManager(logger: logger, rpcVersion: connection?.rpcVersion) }
    }
    /// App services (RPC 5.1+): publish one, or use another app's.
    public var appServices: SDLAppServiceManager {
        onDemand(\.appServices) { _, _ in SDLAppServiceManager(logger: logger) }
    }
    /// The main window: text, images, template; one serial queue.
    public var screen: SDLScreenManager {
        onDemand(\.screen) { _, _ in SDLScreenManager(logger: logger) }
    }
    /// The car's navigation: destinations and waypoints.
    public var navigation: SDLNavigationManager {
        onDemand(\.navigation) { _, _ in SDLNavigationManager(logger: logger) }
    }
    /// Phone calls through the paired phone.
    public var phone: SDLPhoneManager {
        onDemand(\.phone) { _, _ in SDLPhoneManager(logger: logger) }
    }
    /// Remote control of climate, radio, seats, audio, lights and HMI settings.
    public var remoteControl: SDLRemoteControlManager {
        onDemand(\.remoteControl) { _, _ in SDLRemoteControlManager(logger: logger) }
    }
    /// A NAVIGATION or PROJECTION app's video stream: negotiation, frames, suspend and resume.
    public var videoStreaming: SDLVideoStreamingManager {
        onDemand(\.videoStreaming) { _, _ in
            SDLVideoStreamingManager(configuration: configuration.videoStreaming, protection: configuration.encryption.video, logger: logger)
        }
    }
    /// A NAVIGATION or PROJECTION app's spoken prompts, streamed as PCM and paced to real time.
    public var audioStreaming: SDLAudioStreamingManager {
        // One made after the run ended takes no prompts: nothing would ever play them.
        onDemand(\.audioStreaming) { _, runEnded in
            SDLAudioStreamingManager(protection: configuration.encryption.audio, acceptsPrompts: isStreamingApp && !runEnded, logger: logger)
        }
    }
    /// The driver's touches on the video as gestures (NAVIGATION and PROJECTION apps).
    public var touch: SDLTouchManager {
        onDemand(\.touch) { _, _ in SDLTouchManager(logger: logger) }
    }
    /// Whether the phone must show its lock screen, and the head unit's logo for it.
    public let lockScreen: SDLLockScreenManager
    /// The app's focusable areas for the head unit's haptic controller (SendHapticData).
    public var haptics: SDLHapticManager {
        onDemand(\.haptics) { _, _ in SDLHapticManager(logger: logger) }
    }

    /// - Parameters:
    ///   - configuration: who the app is and how it reaches the head unit.
    ///   - hashStore: called with each new resumption hash (persist it and pass it back as
    ///     `configuration.resumeHash` on the next launch).
    public init(configuration: Configuration, hashStore: (@Sendable (String) async -> Void)? = nil) {
        self.configuration = configuration
        self.logger = configuration.logger
        self.hashStore = hashStore
        self.shared = Mutex(
            SharedState(lifecycle: ManagerLifecycle(reconnectPolicy: configuration.reconnectPolicy), resumeHash: configuration.resumeHash))
        self.notificationHub = NotificationRouter(logger: configuration.logger)
        self.systemCapabilities = SDLSystemCapabilityManager(
            logger: configuration.logger, pollInterval: configuration.capabilityPollInterval, clock: configuration.session.clock)
        self.files = SDLFileManager(configuration: configuration.files, logger: configuration.logger)
        self.lockScreen = SDLLockScreenManager(configuration: configuration.lockScreen, logger: configuration.logger)
        delegateCalls = SerialRunner(on: tasks, keepsLateWork: true)
        // A NAVIGATION or PROJECTION app streams from its first Ready on, asked or not.
        if isStreamingApp {
            _ = videoStreaming
            _ = audioStreaming
            _ = haptics
        }
    }

    // MARK: Delegate

    /// The delegate's calls, one at a time and in order, on a child of the run (calls made
    /// after the run, its final state among them, are made by the run itself as it ends).
    private let delegateCalls: SerialRunner

    /// Callbacks for apps that prefer them to the streams; held weakly. Calls arrive in order,
    /// one at a time.
    public func setDelegate(_ delegate: (any SDLManagerDelegate)?) {
        shared.withLock {
            $0.delegate = delegate
            $0.delegateAttached = true
        }
    }

    private var delegate: (any SDLManagerDelegate)? { shared.withLock { $0.delegate } }

    /// Runs in the delegate's queue already (queued when the state changed), so it calls the
    /// delegate directly and keeps its place among the other calls.
    private func tellDelegateState(_ newState: State) async {
        guard let delegate else { return }
        await delegate.manager(self, didChangeState: newState)
    }

    private func tellDelegate(_ call: @escaping @Sendable (any SDLManagerDelegate, SDLManager) async -> Void) {
        guard let delegate else { return }
        delegateCalls.enqueue { await call(delegate, self) }
    }

    // MARK: State

    /// The app's types, for sub-managers' checks.
    var appTypes: [AppHMIType] { configuration.appTypes }

    /// A NAVIGATION or PROJECTION app: its streaming managers start with every connection.
    private var isStreamingApp: Bool {
        configuration.appTypes.contains(.navigation) || configuration.appTypes.contains(.projection)
    }

    /// The sub-manager at `key`, made and linked on first use; one made after the run ended is
    /// stopped like the others were (see `OnDemandSubManagers`).
    private func onDemand<M: SDLLinkedSubManager>(
        _ key: WritableKeyPath<OnDemandSubManagers, M?>, make: (_ readyConnection: SDLConnectionContext?, _ runEnded: Bool) -> M
    ) -> M {
        let (subManager, made, runEnded) = shared.withLock { shared -> (M, Bool, Bool) in
            if let existing = shared.subManagers[keyPath: key] { return (existing, false, false) }
            let made = make(shared.subManagers.readyConnection, shared.subManagers.runEnded)
            made.link.manager = self
            shared.subManagers[keyPath: key] = made
            return (made, true, shared.subManagers.runEnded)
        }
        if made, runEnded, let hooked = subManager as? any SDLSubManager {
            // Its streams end now and its calls fail as the others' do (the run is over); nothing
            // else of it ever started.
            hooked.endStreams()
        }
        return subManager
    }

    /// The sub-managers made so far, without making any.
    func madeSubManagers() -> OnDemandSubManagers {
        shared.withLock { $0.subManagers }
    }

    /// Where the manager is now; `stateChanges()` follows it.
    public var state: State { stateFanOut.latest ?? .stopped }

    /// State changes, starting with the current state.
    public func stateChanges() -> AsyncStream<State> { stateFanOut.subscribe() }

    /// The main window's HMI level; NONE until the first OnHMIStatus.
    public var hmiLevel: HMILevel { statusBoard.main.levels.latest ?? .none }

    /// HMI level changes of a window (the main window by default), starting with the current
    /// level once the head unit has reported one.
    public func hmiLevels(window: Int = 0) -> AsyncStream<HMILevel> { statusBoard.window(window).levels.subscribe() }

    /// Whether the app's audio is heard; NOT_AUDIBLE until the first OnHMIStatus.
    public var audioStreamingState: AudioStreamingState { statusBoard.main.audio.latest ?? .notAudible }

    /// Audio streaming state changes, starting with the current state.
    public func audioStreamingStates() -> AsyncStream<AudioStreamingState> { statusBoard.main.audio.subscribe() }

    /// Whether the app may stream video (STREAMABLE when the head unit, before RPC 5.0, does
    /// not say); NOT_STREAMABLE until the first OnHMIStatus.
    public var videoStreamingState: VideoStreamingState { statusBoard.main.video.latest ?? .notStreamable }

    /// Video streaming state changes, starting with the current state.
    public func videoStreamingStates() -> AsyncStream<VideoStreamingState> { statusBoard.main.video.subscribe() }

    /// What the main window shows over the app (a menu, a VR session, an alert); MAIN until
    /// the first OnHMIStatus.
    public var systemContext: SystemContext { systemContext(window: 0) ?? .main }

    /// A window's system context, nil until the head unit has reported on that window.
    public func systemContext(window: Int) -> SystemContext? { statusBoard.window(window).contexts.latest }

    /// System context changes of a window (the main window by default), starting with the
    /// current one.
    public func systemContexts(window: Int = 0) -> AsyncStream<SystemContext> { statusBoard.window(window).contexts.subscribe() }

    /// Waits until the main window reaches `level`: true then, false after `timeout`.
    public func waitForHMILevel(_ level: HMILevel, timeout: Duration) async -> Bool {
        let levels = hmiLevels()
        return await firstOf(timeout: timeout, on: configuration.session.clock) {
            for await current in levels where current == level { return true }
            return false
        }
    }

    /// A window's OnHMIStatus as it arrives (the main window by default), current first.
    public func hmiStatuses(window: Int = 0) -> AsyncStream<OnHMIStatus> { statusBoard.window(window).statuses.subscribe() }

    /// Applies one lifecycle event and publishes the resulting state in the same critical
    /// section, so readers see the changes in order whichever task made them. Never inlined:
    /// its temporaries (the logging's among them) would otherwise sit in the frames of the
    /// long-lived async functions that call it for as long as the session lasts.
    @discardableResult
    @inline(never)
    private func transition<Action: Sendable>(_ event: (inout ManagerLifecycle<SDLRPCClient>) -> Action) -> Action {
        shared.withLock { shared in
            let action = event(&shared.lifecycle)
            let newState = shared.lifecycle.publicState
            if stateFanOut.latest != newState {
                logger.debug("manager state", metadata: ["state": "\(newState)"])
                stateFanOut.yield(newState)
                if shared.delegateAttached {
                    delegateCalls.enqueue { [weak self] in await self?.tellDelegateState(newState) }
                }
            }
            return action
        }
    }

    /// The connection requests go through, once Ready.
    var client: SDLRPCClient? { shared.withLock { $0.lifecycle.readyConnection } }

    // MARK: Running

    /// Connects, registers and keeps the app connected until `stop()` (or graceful shutdown of
    /// the service group); reconnects after drops that allow it. Throws why it gave up.
    ///
    /// Runs once: a second call while running, or one after the manager stopped, throws an
    /// `SDLError` of code `alreadyRunning` (cause `SDLManagerError.alreadyRunning` or
    /// `.alreadyStopped`); after a `stop()` that came before
    /// it, it returns at once.
    public func run() async throws {
        do {
            switch transition({ $0.run() }) {
            case .start: try await runStarted()
            case .returnAtOnce: await stoppedBeforeRun()
            case .refuse(let error): throw error
            }
        } catch {
            throw SDLError(error)
        }
    }

    /// A stop came before `run()`: what sub-managers hold (queued screen operations, streams)
    /// ends as after a run. Safe to repeat.
    private func stoppedBeforeRun() async {
        for subManager in subManagersForStop() { await subManager.managerStopped() }
        await delegateCalls.drainHere()
    }

    /// `run()` once the lifecycle has moved to connecting.
    private func runStarted() async throws {
        await madeSubManagers().appServices?.managerStarting()
        do {
            try await withGracefulShutdownHandler {
                try await self.runUntilStopped()
            } onGracefulShutdown: {
                self.beginStopping()
            }
            await stopped(nil)
        } catch {
            await stopped(error)
            throw error
        }
    }

    /// The connection loop, beside the manager's task scope (sub-managers' work and a `stop()`
    /// being carried out), which the calling task runs. A stop while dialing or backing off
    /// ends the scope, which cancels the loop; any other stop closes the connection, and the
    /// loop then ends, cancelling the scope's work.
    private func runUntilStopped() async throws {
        do {
            // Whichever ends first: the loop (the run is over) or the scope (a stop that cancels
            // connecting); either way the other goes.
            try await tasks.run { try await self.connectLoop() }
        } catch  where isStopConsequence(error) {
            // A stop cancelled a dial or a back-off, or closed a connection being registered; a
            // failure of the manager's own (a refused registration, spent attempts) still throws.
        }
    }

    // Long-lived async functions (the run, the connection loop, serving a connection) keep
    // their frames for the whole session, and Swift puts a function's temporaries in its
    // frame: matching the lifecycle and logging go in synchronous helpers that are never
    // inlined, so their temporaries stay on the thread's stack (`runUntilStopped`'s frame
    // 1.5 → 0.9 KB, `connectLoop`'s 1.5 → 0.6 KB).

    /// Whether `error` ended the run only because a stop came (logged), not a failure of the
    /// manager's own.
    @inline(never)
    private func isStopConsequence(_ error: any Error) -> Bool {
        guard !(error is SDLManagerError), isStopping() else { return false }
        logger.debug("stopped while connecting", metadata: ["error": "\(error)"])
        return true
    }

    @inline(never)
    private func isStopping() -> Bool {
        shared.withLock { if case .stopping = $0.lifecycle.state { true } else { false } }
    }

    @inline(never)
    private func logReconnecting(after reason: SDLCloseReason, attempt: Int, delay: Duration) {
        logger.info("connection lost; reconnecting", metadata: ["reason": "\(reason)", "attempt": "\(attempt)", "delay": "\(delay)"])
    }

    /// However the run ended (stop, a lost connection, a refusal), the sub-managers let go and
    /// every stream of this run ends.
    private func stopped(_ error: (any Error)?) async {
        tasks.finish()
        for subManager in subManagersForStop() { await subManager.managerStopped() }
        await lockScreen.stopped()
        permissionObservers.finish()
        notificationHub.finish()
        systemRequestFanOut.finish()
        transition { $0.runEnded(error) }
        await delegateCalls.drainHere()
    }

    private func connectLoop() async throws {
        let clock = configuration.session.clock
        while true {
            let reason: SDLCloseReason
            do {
                reason = try await runConnection()
            } catch SDLTransportError.connectFailed(let host, let port, let attempts, let why) {
                reason = .transportFailed(.connectFailed(host: host, port: port, attempts: attempts, reason: why))
            }
            // Read before the state says `reconnecting`, so a test clock advanced on seeing it
            // always moves past the deadline.
            let now = clock.now
            switch transition({ $0.connectionEnded(reason) }) {
            case .finish:
                return
            case .fail(let error):
                throw error
            case .reconnect(let delay, let attempt):
                logReconnecting(after: reason, attempt: attempt, delay: delay)
                try await clock.sleep(until: now + delay)
                guard transition({ $0.backOffEnded() }) else { return }
            }
        }
    }

    /// What one connection is made of, once dialed and wired up.
    private struct ConnectionParts: Sendable {
        let session: SDLProtocolSession
        let client: SDLRPCClient
        /// What the manager and its permission tracker follow, in read order, and how far they got.
        let followed: FollowerProgress
        let tracker: SDLPermissionTracker
        /// Work for this connection only; the manager's own scope when it never reconnects.
        let tasks: TaskScope
        let ownScope: Bool
    }

    /// One connection: negotiate, register, set up, serve until it ends; returns why it ended.
    private func runConnection() async throws -> SDLCloseReason {
        // Dialing and wiring up on a task of their own: a task keeps the memory of its deepest
        // call, and this one lives as long as the connection (a server holds thousands).
        guard let parts = try await onOwnTask({ try await self.openConnection() }) else { return .closedByApp }
        return try await serve(parts)
    }

    /// Dials and wires up a connection; nil when a stop came while dialing.
    private func openConnection() async throws -> ConnectionParts? {
        let transport = try await configuration.transport.connect()
        var sessionConfiguration = configuration.session
        sessionConfiguration.logger = logger
        let session = SDLProtocolSession(transport: transport, configuration: sessionConfiguration)
        let client = SDLRPCClient(session: session, requestTimeout: configuration.requestTimeout, sharedValues: configuration.sharedValues)
        // What the manager and its permission tracker follow, in one stream in read order (one
        // reader, not two or five), numbered as read.
        let followed = FollowerProgress()
        _ = client.observe(
            functionIDs: Set(
                [
                    OnHMIStatus.wireFunctionID, OnHashChange.wireFunctionID, OnLanguageChange.wireFunctionID,
                    OnSystemCapabilityUpdated.wireFunctionID, OnDriverDistraction.wireFunctionID, OnPermissionsChange.wireFunctionID,
                ].compactMap { $0 })
        ) { followed.read($0) }
        let hub = notificationHub
        // In read order, before the responses that follow them (see `tapNotifications`).
        client.tapNotifications { hub.deliver($0) }
        let (http, logger) = (configuration.httpClient, logger)
        let tracker = SDLPermissionTracker(client: client, clock: configuration.session.clock, managerObservers: permissionObservers, fedByOwner: true)
        // The previous connection's handler tokens are gone with it.
        shared.withLock { $0.installedHandlers = [:] }
        guard transition({ $0.transportConnected(client) }) else {
            // A stop came while dialing.
            await client.close()
            return nil
        }
        // This connection's child tasks that sub-managers start (renewals, polling). A manager
        // that never reconnects (a cloud session) has one connection: the manager's own scope
        // serves, so an idle session runs one scope loop, not two.
        let ownScope = configuration.reconnectPolicy.maxAttempts > 1
        let connectionTasks = ownScope ? TaskScope() : tasks
        // The head unit's system requests (policy updates) one at a time, so one is not overtaken
        // by the next; the runner's task exists only while one is being answered.
        let systemRequests = SerialRunner(on: connectionTasks)
        let outcomes = systemRequestFanOut
        let lockScreen = self.lockScreen
        await lockScreen.connectionStarted()
        _ = client.observe(functionIDs: Set([OnSystemRequest.wireFunctionID].compactMap { $0 })) { request in
            systemRequests.enqueue {
                let outcome = await SystemRequests.answer(request, client: client, http: http, logger: logger) { url in
                    // Beside the queue: a slow logo server must not hold up a policy update.
                    _ = connectionTasks.spawn { await lockScreen.iconURL(url, http: http) }
                }
                if let outcome { outcomes.yield(outcome) }
            }
        }
        return ConnectionParts(session: session, client: client, followed: followed, tracker: tracker, tasks: connectionTasks, ownScope: ownScope)
    }

    /// Serves a connection until it ends: the client's run (and the connection's own scope,
    /// when it has one) beside this task, which registers, sets the sub-managers up and then
    /// follows the head unit's notifications. Returns why the connection ended.
    @inline(never)
    private func serve(_ parts: ConnectionParts) async throws -> SDLCloseReason {
        let (session, client, tracker, connectionTasks) = (parts.session, parts.client, parts.tracker, parts.tasks)
        let ownScope = parts.ownScope
        return try await withThrowingTaskGroup(of: SDLCloseReason?.self) { group in
            group.addTask {
                // Nothing more to follow once the client's run is over.
                defer { parts.followed.end() }
                do {
                    // The client's requests from the head unit, its deadline loop and the
                    // session's timers run in the connection's scope, not in tasks of their own.
                    try await client.run(tasks: connectionTasks)
                    return .closedByApp
                } catch SDLRPCError.connectionClosed(let reason) {
                    return reason
                }
            }
            if ownScope {
                group.addTask {
                    await connectionTasks.run()
                    return nil
                }
            }
            do {
                // On a task of its own: the deep frames of decoding the registration are freed
                // when it ends instead of staying with this long-lived task.
                try await onOwnTask { try await self.register(session: session, client: client) }
            } catch {
                await client.close()
                await connectionEnded(registered: false)
                // The connection's task scope ends only when cancelled.
                group.cancelAll()
                while (try? await group.next()) != nil {}
                if isStopping() { return .closedByApp }
                throw error
            }
            shared.withLock { $0.permissions = tracker }
            transition { $0.settingUp() }
            await onOwnTask { await self.setUpManagers(client: client, session: session, tasks: connectionTasks) }
            let readying = await followNotifications(parts)
            // Their start is over before they hear that the connection ended.
            if let readying { for await _ in readying {} }
            var reason = SDLCloseReason.closedByApp
            while let result = try await group.next() {
                if let ended = result {
                    reason = ended
                    await connectionEnded()
                    group.cancelAll()
                }
            }
            return reason
        }
    }

    /// Follows the head unit's notifications until the connection ends, on the connection's
    /// task (no task of its own for that). Ready once the sub-managers run and this
    /// connection's first OnHMIStatus is in, with what was read along with it (the app then
    /// sees the permissions that follow it at once); the sub-managers' start then runs in the
    /// connection's scope, so following goes on meanwhile (a start may wait for a level or a
    /// grant). Returns what ends when their start is over (nil if never Ready). Apart from
    /// `serve`, whose frame the connection's task would otherwise keep larger while it waits.
    @inline(never)
    private func followNotifications(_ parts: ConnectionParts) async -> AsyncStream<Void>? {
        let (tracker, capabilities) = (parts.tracker, systemCapabilities)
        var readying: AsyncStream<Void>?
        // Notifications followed since the first OnHMIStatus, while Ready waits for the rest of
        // what was read with it (the permissions SDL Core sends right after it): at most a few.
        var sinceFirstStatus: Int?
        shared.withLock { $0.followerProgress = parts.followed }
        var last: UInt64 = 0
        for await item in parts.followed.items {
            if item.number > last + 1 { logDropped(item.number - last - 1) }
            last = item.number
            // Each on a task of its own: decoding and applying it goes deep, and this task
            // stays for the connection.
            let notification = item.notification
            let status = await FollowerProgress.$onFollower.withValue(true) {
                await onOwnTask { await self.follow(notification, capabilities: capabilities, tracker: tracker) }
            }
            parts.followed.followed(item.number)
            guard readying == nil else { continue }
            if let status, (status.windowID ?? 0) == 0, sinceFirstStatus == nil { sinceFirstStatus = 0 }
            guard let count = sinceFirstStatus else { continue }
            sinceFirstStatus = count + 1
            if parts.followed.isCaughtUp || count >= 16 { readying = becomeReady(parts) }
        }
        shared.withLock { $0.followerProgress = nil }
        await tracker.connectionEnded()
        return readying
    }

    @inline(never)
    private func logDropped(_ count: UInt64) {
        logger.warning("the manager fell behind the head unit's notifications; the oldest were dropped", metadata: ["dropped": "\(count)"])
    }

    /// Ready: the sub-managers' start goes into the connection's scope; the stream ends when it is over.
    private func becomeReady(_ parts: ConnectionParts) -> AsyncStream<Void> {
        let (done, finished) = AsyncStream<Void>.makeStream()
        guard transition({ $0.ready() }) else {
            finished.finish()
            return done
        }
        let context = SDLConnectionContext(tasks: parts.tasks, rpcVersion: negotiatedRPCVersion, permissions: parts.tracker, media: parts.session)
        let subManagers = shared.withLock { shared in
            shared.subManagers.readyConnection = context
            return eagerSubManagers + shared.subManagers.hooked
        }
        if !parts.tasks.spawn({
            for subManager in subManagers { await subManager.connectionReady(context) }
            finished.finish()
        }) {
            finished.finish()
        }
        return done
    }

    /// The connection ended: nothing more can be fetched, requests in flight fail with it, and
    /// work for it (a policy server's slow answer) stops now, not at its timeout.
    @inline(never)
    private func connectionEnded(registered: Bool = true) async {
        let subManagers = shared.withLock { shared in
            shared.subManagers.readyConnection = nil
            return eagerSubManagers + shared.subManagers.hooked
        }
        if registered {
            for subManager in subManagers { await subManager.connectionEnded() }
        }
        await lockScreen.connectionEnded()
    }

    /// The sub-managers every manager has, first in the order the run loop calls the hooks.
    private var eagerSubManagers: [any SDLSubManager] { [systemCapabilities, files] }

    /// The sub-managers to stop; one made from now on is stopped when it is made.
    private func subManagersForStop() -> [any SDLSubManager] {
        shared.withLock { shared in
            shared.subManagers.readyConnection = nil
            shared.subManagers.runEnded = true
            return eagerSubManagers + shared.subManagers.hooked
        }
    }

    /// The sub-managers' start on a new connection, before Ready.
    private func setUpManagers(client: SDLRPCClient, session: SDLProtocolSession, tasks: TaskScope) async {
        await installRequestHandlers(on: client)
        if configuration.encryption.rpcProtection == .always, await session.hasSecurity {
            try? await protectRPCService(client: client)
        }
        if let response = registerResponse {
            await systemCapabilities.connected(client: client, registration: response, rpcVersion: negotiatedRPCVersion, tasks: tasks)
        }
        await files.connected(client: client, mtu: await session.session?.mtu ?? SDLProtocolVersion.latest.defaultMTU, rpcVersion: negotiatedRPCVersion)
        await setAppIcon(client: client)
    }

    private func register(session: SDLProtocolSession, client: SDLRPCClient) async throws {
        let negotiated = try await session.start()
        shared.withLock { $0.authToken = negotiated.details?.authToken }
        guard negotiated.protocolVersion >= configuration.minimumProtocolVersion else {
            throw SDLManagerError.protocolVersionTooLow(headUnit: negotiated.protocolVersion, minimum: configuration.minimumProtocolVersion)
        }
        var registration = configuration.registration
        registration.hashID = resumeHash
        // After a language switch the app registers in the head unit's new language.
        if let language = shared.withLock({ $0.switchedLanguage }) {
            registration.languageDesired = language
            registration.hmiDisplayLanguageDesired = language
        }
        let response = try await client.send(registration)
        guard response.success else {
            throw SDLManagerError.registrationFailed(response.resultCode, info: response.info)
        }
        let warning = response.resultCode == .success ? nil : response.resultCode
        shared.withLock {
            $0.registerResponse = response
            $0.registrationWarning = warning
        }
        if let warning {
            logger.notice("registered with a warning", metadata: ["resultCode": "\(warning.rawValue)", "info": "\(response.info ?? "")"])
        }
        transition { $0.registered() }
        let rpcVersion = response.syncMsgVersion.map { SDLSpecVersion.version($0.majorVersion, $0.minorVersion, $0.patchVersion ?? 0) }
        if let rpcVersion, rpcVersion < configuration.minimumRPCVersion {
            _ = try? await client.send(UnregisterAppInterface())
            throw SDLManagerError.rpcVersionTooLow(headUnit: rpcVersion, minimum: configuration.minimumRPCVersion)
        }
        try await adaptLanguage(response, client: client)
        await chooseSecurity(make: negotiated.details?.make ?? response.vehicleType?.make, session: session)
        if let veto = configuration.vehicleTypeVeto {
            let details = negotiated.details
            let vehicle =
                details?.make != nil
                ? VehicleType(make: details?.make, model: details?.model, modelYear: details?.modelYear, trim: details?.trim)
                : response.vehicleType ?? VehicleType()
            if !veto(vehicle) {
                _ = try? await client.send(UnregisterAppInterface())
                throw SDLManagerError.vehicleRejected(vehicle)
            }
        }
    }

    /// The guide's language handling: when the head unit's VR or display language differs from
    /// the app's and is one it supports, the app is asked for its names in that language.
    private func adaptLanguage(_ response: RegisterAppInterfaceResponse, client: SDLRPCClient) async throws {
        guard let language = response.language, let display = response.hmiDisplayLanguage,
            language != configuration.language || display != configuration.language,
            configuration.languagesSupported.contains(language) || configuration.languagesSupported.contains(display),
            let update = configuration.languageUpdate?(language, display)
        else { return }
        let change = try await client.send(
            ChangeRegistration(
                language: language, hmiDisplayLanguage: display, appName: update.appName, ttsName: update.ttsName,
                ngnMediaScreenAppName: update.shortAppName, vrSynonyms: update.vrSynonyms))
        if !change.success {
            logger.warning("ChangeRegistration was refused", metadata: ["resultCode": "\(change.resultCode.rawValue)"])
        }
        shared.withLock { $0.languageChange = change }
    }

    /// The answer to the last ChangeRegistration the language handling sent.
    public var languageChange: ChangeRegistrationResponse? { shared.withLock { $0.languageChange } }

    /// The configured icon, uploaded and set unless the head unit resumed it or cannot show it.
    /// A failure is logged: the app works without its icon.
    private func setAppIcon(client: SDLRPCClient) async {
        guard let icon = configuration.appIcon, !icon.isStaticIcon else { return }
        if registerResponse?.iconResumed == true {
            logger.debug("the head unit resumed the app icon")
            return
        }
        let window = await systemCapabilities.defaultMainWindowCapability
        let dynamicImages = window?.imageTypeSupported.map { $0.contains(.dynamic) } ?? (registerResponse?.displayCapabilities?.graphicSupported ?? false)
        guard dynamicImages else {
            logger.info("the display shows no dynamic images; the app icon is not uploaded")
            return
        }
        do {
            try await files.upload(icon)
            let answer = try await client.send(SetAppIcon(syncFileName: icon.name))
            if !answer.success {
                logger.warning("SetAppIcon was refused", metadata: ["resultCode": "\(answer.resultCode.rawValue)", "info": "\(answer.info ?? "")"])
            }
        } catch {
            logger.warning("the app icon could not be set", metadata: ["error": "\(error)"])
        }
    }

    /// One notification the manager follows (HMI status, resumption hash, language, capability
    /// update), decoded leniently like every typed stream; the status when it was one.
    private func follow(_ notification: SDLIncomingRPC, capabilities: SDLSystemCapabilityManager, tracker: SDLPermissionTracker) async -> OnHMIStatus? {
        let json = notification.payload.json
        switch notification.payload.functionID {
        case OnPermissionsChange.wireFunctionID:
            await tracker.receive(notification)
        case OnHMIStatus.wireFunctionID:
            guard let status = try? SDLJSON.decode(OnHMIStatus.self, from: json, policy: .lenient).value else { break }
            // The tracker first: whoever sees the new level may send at once, checked against it.
            await tracker.update(status)
            // The lock screen first: whoever sees the new level sees its lock screen too.
            if (status.windowID ?? 0) == 0 { await lockScreen.hmiLevelChanged(status.hmiLevel) }
            received(status)
            return status
        case OnDriverDistraction.wireFunctionID:
            if let distraction = try? SDLJSON.decode(OnDriverDistraction.self, from: json, policy: .lenient).value {
                await lockScreen.driverDistraction(distraction)
            }
        case OnHashChange.wireFunctionID:
            if let hash = try? SDLJSON.decode(OnHashChange.self, from: json, policy: .lenient).value { await hashChanged(hash.hashID) }
        case OnLanguageChange.wireFunctionID:
            if let change = try? SDLJSON.decode(OnLanguageChange.self, from: json, policy: .lenient).value { languageChanged(change) }
        case OnSystemCapabilityUpdated.wireFunctionID:
            if let update = try? SDLJSON.decode(OnSystemCapabilityUpdated.self, from: json, policy: .lenient).value { await capabilities.received(update) }
        default:
            break
        }
        return nil
    }

    private func languageChanged(_ change: OnLanguageChange) {
        shared.withLock { $0.switchedLanguage = change.language }
    }

    private func received(_ status: OnHMIStatus) {
        let window = status.windowID ?? 0
        let changes = statusBoard.window(window).receive(status)
        if let (old, new) = changes.level {
            logger.debug("HMI level", metadata: ["level": "\(new.rawValue)", "window": "\(window)"])
            tellDelegate { await $0.manager($1, hmiLevelChangedFrom: old, to: new, window: window) }
        }
        if let (old, new) = changes.context {
            tellDelegate { await $0.manager($1, systemContextChangedFrom: old, to: new, window: window) }
        }
        guard window == 0 else { return }
        if let (old, new) = changes.audio {
            tellDelegate { await $0.manager($1, audioStreamingStateChangedFrom: old, to: new) }
        }
        if let (old, new) = changes.video {
            tellDelegate { await $0.manager($1, videoStreamingStateChangedFrom: old, to: new) }
        }
    }

    private func hashChanged(_ hash: String) async {
        shared.withLock { $0.resumeHash = hash }
        hashFanOut.yield(hash)
        await hashStore?(hash)
    }

    /// Each new resumption hash once the manager holds it (the latest first), for apps that
    /// keep it themselves.
    public func resumeHashes() -> AsyncStream<String> { hashFanOut.subscribe() }

    /// What became of each of the head unit's HTTP and PROPRIETARY system requests (policy
    /// table updates): forwarded through `configuration.httpClient` and answered, or why not.
    public func systemRequestOutcomes() -> AsyncStream<SDLSystemRequestOutcome> { systemRequestFanOut.subscribe() }

    /// Returns when the manager is Ready; throws when it stopped instead.
    public func waitUntilReady() async throws {
        for await state in stateChanges() {
            switch state {
            case .ready: return
            case .stopped:
                let (stopped, failure) = shared.withLock { ($0.lifecycle.isStopped, $0.lifecycle.failure) }
                if stopped { throw SDLError(failure ?? SDLManagerError.notReady(.stopped)) }
            default: continue
            }
        }
        throw SDLError(shared.withLock { $0.lifecycle.failure } ?? SDLManagerError.notReady(state))
    }

    /// Unregisters (if registered), ends the session and waits until `run()` has returned. Before
    /// `run()`, the manager just stops (`run()` will return at once).
    ///
    /// From code the run loop waits for (the `hashStore` callback, a head-unit request handler),
    /// call `beginStopping()` instead: waiting there for the run to end would wait for itself.
    public func stop() async {
        beginStopping()
        if case .stopped(.beforeRun) = shared.withLock({ $0.lifecycle.state }) { await stoppedBeforeRun() }
        for await state in stateChanges() where state == .stopped {
            if shared.withLock({ $0.lifecycle.isStopped }) { return }
        }
    }

    /// Begins stopping and returns at once, from any context (the graceful-shutdown path): like
    /// `stop()` without waiting for `run()` to return.
    public func beginStopping() {
        let (action, stoppedBeforeRun) = transition { machine in
            let action = machine.stop()
            if case .stopped(.beforeRun) = machine.state { return (action, true) }
            return (action, false)
        }
        if stoppedBeforeRun {
            // `run()` will return at once: streams opened before it end now.
            notificationHub.finish()
            permissionObservers.finish()
            systemRequestFanOut.finish()
            tasks.finish()
        }
        switch action {
        case .none:
            break
        case .cancelConnecting:
            // The scope's end cancels the dial or the back-off (see `runUntilStopped`), and the
            // work under way in it (listeners that would otherwise outlive the run).
            tasks.cancel()
        case .close(let client):
            // On a child of the run, not the caller's task: the caller may be the run loop itself.
            tasks.spawn { await client.close() }
        case .unregisterAndClose(let client):
            let made = madeSubManagers()
            tasks.spawn { [videoStreaming = made.videoStreaming, audioStreaming = made.audioStreaming, haptics = made.haptics] in
                await haptics?.clearBeforeStopping(client)
                await videoStreaming?.endBeforeStopping()
                await audioStreaming?.endBeforeStopping()
                _ = try? await client.send(UnregisterAppInterface())
                await client.close()
            }
        }
    }

    // MARK: Requests

    /// Sends a request once Ready; before that it fails at once (`SDLError` code `notReady`).
    /// An RPC the head unit's permissions forbid at the current HMI level is refused before
    /// sending (code `disallowed`; the cause names the levels that would allow it); pass
    /// `checkingPermissions: false` to send it anyway and let the head unit answer.
    public func send<R: SDLRequest>(
        _ request: R, bulkData: [UInt8] = [], timeout: Duration? = nil, checkingPermissions: Bool = true, protected: Bool? = nil
    ) async throws -> R.Response {
        // On a task of its own: the caller's task (a cloud session's handler lives as long as its
        // session) does not keep the deep frames of a request.
        try await onOwnTask {
            try await self.adaptAndSend(request, bulkData: bulkData, timeout: timeout, checkingPermissions: checkingPermissions, protected: protected)
        }
    }

    /// Refuses `rpc` when the head unit's permissions do not allow it at the current level, as
    /// of every notification read before this call: a refusal waits for the follower to catch
    /// up first, so a level or a grant already on its way in is not missed.
    private func checkPermission(_ rpc: String) async throws {
        guard let permissions, let grant = await permissions.levelAndGrant(of: rpc) else { return }
        do {
            try checkLevel(rpc, grant)
        } catch {
            guard let progress = followerProgress, await progress.catchUp() else { throw error }
            guard let current = await permissions.levelAndGrant(of: rpc) else { return }
            try checkLevel(rpc, current)
        }
    }

    /// Refuses `rpc` when neither the manager's HMI level nor the permission tracker's allows it.
    /// Both, because the follower updates one after the other: an app that saw FULL must not be
    /// refused for the other's older level.
    private func checkLevel(_ rpc: String, _ grant: (level: HMILevel, allowedIn: Set<HMILevel>)) throws {
        let level = hmiLevel
        guard grant.allowedIn.contains(level) || grant.allowedIn.contains(grant.level) else {
            throw SDLManagerError.disallowed(rpc: rpc, level: level, allowedIn: grant.allowedIn.map(\.rawValue).sorted())
        }
    }

    /// `send(_:)`'s work, adapted to the head unit's version as it is when the request goes.
    private func adaptAndSend<R: SDLRequest>(
        _ request: R, bulkData: [UInt8], timeout: Duration?, checkingPermissions: Bool, protected: Bool?
    ) async throws -> R.Response {
        guard client != nil else { throw SDLError(SDLManagerError.notReady(state)) }
        let json: [UInt8]
        do {
            json = try SDLJSON.encode(adaptedToHeadUnit(request))
        } catch {
            throw SDLError(SDLManagerError.invalidRequest("\(error)"))
        }
        do {
            return try await send(R.self, json: json, bulkData: bulkData, timeout: timeout, checkingPermissions: checkingPermissions, protected: protected)
                .response
        } catch {
            throw SDLError(error)
        }
    }

    /// Sends an `R` whose JSON is ready (it may hold keys the spec lacks, such as OEM custom
    /// vehicle data) with the same checks as `send(_:)`; returns the typed response and the raw
    /// one.
    func send<R: SDLRequest>(
        _ type: R.Type, json: [UInt8], bulkData: [UInt8] = [], timeout: Duration? = nil, checkingPermissions: Bool = true, protected: Bool? = nil
    ) async throws -> (response: R.Response, raw: SDLIncomingRPC) {
        guard let client else { throw SDLManagerError.notReady(state) }
        if checkingPermissions { try await checkPermission(R.functionName) }
        let gate = versionGate
        let cacheKey = "\(R.functionName)@\(gate.headUnit)"
        let needsGate = shared.withLock { shared in
            if let known = shared.gateNeeded[cacheKey] { return known }
            let needed = gate.mayRefuse(R.structInfo)
            shared.gateNeeded[cacheKey] = needed
            return needed
        }
        let wire = needsGate ? try gated(json, function: R.structInfo, gate: gate) : json
        guard let functionID = R.wireFunctionID else { throw SDLRPCError.notAFunction(R.functionName) }
        // Encrypted when asked, or when the permissions say the RPC needs it (then, as the guide
        // says, it is not sent at all when the RPC service cannot be protected).
        var encrypted = protected ?? false
        if protected == nil, let permissions { encrypted = await permissions.permission(of: R.functionName).requiresEncryption }
        if encrypted { try await ensureRPCProtection(for: R.functionName, client: client) }
        let raw = try await client.sendRaw(
            functionName: R.functionName, functionID: functionID, json: wire, bulkData: bulkData, timeout: timeout, encrypted: encrypted)
        let response = try SDLRPCClient.decode(R.self, from: raw, shared: client.sharedValues)
        if R.Response.self == SetDisplayLayoutResponse.self { await layoutChanged(response) }
        return (response, raw)
    }

    // Apart from `send`, never inlined: what they hold (a SetDisplayLayoutResponse of several
    // KB, the gate's result, the logging) would otherwise sit in the frame of every request.

    @inline(never)
    private func layoutChanged<Response>(_ response: Response) async {
        if let layout = response as? SetDisplayLayoutResponse { await systemCapabilities.received(layout) }
    }

    /// `json` without the parameters the head unit's version lacks (logged).
    @inline(never)
    private func gated(_ json: [UInt8], function: SDLStructInfo, gate: VersionGate) throws -> [UInt8] {
        let gated = try gate.gate(json, function: function)
        if !gated.dropped.isEmpty {
            logger.notice("left out parameters the head unit does not have", metadata: ["parameters": "\(gated.dropped)", "rpcVersion": "\(gate.headUnit)"])
        }
        return gated.json
    }

    /// Sends a notification (an app-service provider's OnAppServiceData...) once Ready, with the
    /// same checks as `send(_:)`; notifications get no answer.
    public func sendNotification<N: SDLNotification>(_ notification: N, checkingPermissions: Bool = true) async throws {
        do {
            try await sendNotificationChecked(notification, checkingPermissions: checkingPermissions)
        } catch {
            throw SDLError(error)
        }
    }

    private func sendNotificationChecked<N: SDLNotification>(_ notification: N, checkingPermissions: Bool) async throws {
        guard let client else { throw SDLManagerError.notReady(state) }
        if checkingPermissions { try await checkPermission(N.functionName) }
        let availability = N.structInfo.availability
        if !availability.isAvailable(in: negotiatedRPCVersion) {
            throw SDLManagerError.unsupportedByHeadUnit(
                what: N.functionName, available: availability.since.map { "since RPC \($0)" } ?? "in other versions", headUnit: negotiatedRPCVersion)
        }
        try await client.sendNotification(notification)
    }

    /// PLAY_PAUSE exists from RPC 5.0; older head units have OK in its place.
    private func adaptedToHeadUnit<R: SDLRequest>(_ request: R) -> R {
        guard negotiatedRPCVersion < .version(5, 0) else { return request }
        if var subscribe = request as? SubscribeButton, subscribe.buttonName == .playPause {
            subscribe.buttonName = .ok
            return subscribe as? R ?? request
        }
        if var unsubscribe = request as? UnsubscribeButton, unsubscribe.buttonName == .playPause {
            unsubscribe.buttonName = .ok
            return unsubscribe as? R ?? request
        }
        return request
    }

    /// The head unit's RPC version, from the registration (the library's own before that).
    public var negotiatedRPCVersion: SDLSpecVersion {
        registerResponse?.syncMsgVersion.map { SDLSpecVersion.version($0.majorVersion, $0.minorVersion, $0.patchVersion ?? 0) } ?? MobileAPI.version
    }

    private var versionGate: VersionGate {
        VersionGate(headUnit: negotiatedRPCVersion, policy: configuration.newerParameterPolicy)
    }

    // MARK: From the head unit

    /// Notifications of one type, from every connection the manager makes (the stream goes on
    /// across reconnections and ends when the manager stops). Each reader keeps the newest 256
    /// it has not read.
    public func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        guard let functionID = N.wireFunctionID else { return AsyncStream { $0.finish() } }
        return notificationHub.subscribe(type, functionID: functionID)
    }

    /// Notifications of several types as they came, in their order, across reconnections.
    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> {
        notificationHub.subscribeRaw(functionIDs: functionIDs, name: "notifications \(functionIDs.sorted())")
    }

    /// Calls `handler` with each notification of `functionIDs` as it is read, before the
    /// response that follows it completes its request; until the observation is cancelled.
    func observeNotifications(
        functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void
    ) -> SDLNotificationObservation {
        notificationHub.observe(functionIDs: functionIDs, handler)
    }

    /// Notifications of one type as they came, for keys the spec lacks.
    func rawNotifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<SDLIncomingRPC> {
        guard let functionID = N.wireFunctionID else { return AsyncStream { $0.finish() } }
        return notificationHub.subscribeRaw(functionIDs: [functionID], name: N.functionName)
    }

    /// Requests of one type from the head unit (app services: GetAppServiceData,
    /// PerformAppServiceInteraction, the RPCs a published manifest handles), on this connection
    /// and every later one, each to be answered with `respond` or `refuse`. While nobody reads
    /// the stream, up to 16 wait; more are answered TOO_MANY_PENDING_REQUESTS. When the stream
    /// ends, the head unit's requests of that type are answered UNSUPPORTED_REQUEST again.
    public func requests<R: SDLRequest>(_ type: R.Type) async throws -> AsyncStream<SDLHeadUnitRequest<R>> {
        let (stream, sink) = AsyncStream<SDLHeadUnitRequest<R>>.makeStream(bufferingPolicy: .bufferingOldest(16))
        let functionID: UInt32
        do {
            functionID = try await installRequestHandler(R.self) { request, correlationID in
                try await withCheckedThrowingContinuation { continuation in
                    let pending = SDLHeadUnitRequest(request: request, correlationID: correlationID, reply: ReplyBox(continuation))
                    switch sink.yield(pending) {
                    case .terminated: pending.refuse(.unsupportedRequest, info: "the app no longer handles \(R.functionName)")
                    case .dropped: pending.refuse(.tooManyPendingRequests, info: "the app has 16 \(R.functionName) requests unanswered")
                    default: break
                    }
                }
            }
        } catch {
            throw SDLError(error)
        }
        sink.onTermination = { _ in self.tasks.spawn { await self.removeRequestHandler(functionID: functionID) } }
        return stream
    }

    /// The closure form of `requests(_:)`: `handler`'s answer goes back with the request's
    /// correlation ID; throwing `SDLRequestRefusal` answers with its result code, any other
    /// error GENERIC_ERROR. Stays in place across reconnections until `removeRequestHandler`.
    public func handleRequests<R: SDLRequest>(
        _ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response
    ) async throws {
        do {
            try await installRequestHandler(R.self) { request, _ in try await handler(request) }
        } catch {
            throw SDLError(error)
        }
    }

    /// Stops answering requests of this type (the head unit gets UNSUPPORTED_REQUEST again).
    public func removeRequestHandler<R: SDLRequest>(_ type: R.Type) async {
        if let functionID = R.wireFunctionID { await removeRequestHandler(functionID: functionID) }
    }

    @discardableResult
    private func installRequestHandler<R: SDLRequest>(
        _ type: R.Type, _ answer: @escaping @Sendable (R, UInt32) async throws -> R.Response
    ) async throws -> UInt32 {
        guard let functionID = R.wireFunctionID else { throw SDLRPCError.notAFunction(R.functionName) }
        let handler: RequestHandler = { message in
            let request: R
            do {
                request = try SDLJSON.decode(R.self, from: message.payload.json, policy: .lenient).value
            } catch {
                throw SDLRequestRefusal(.invalidData, info: "\(error)")
            }
            let response = try await answer(request, message.payload.correlationID)
            do {
                return SDLRawResponse(json: try SDLJSON.encode(response))
            } catch {
                throw SDLRequestRefusal(.genericError, info: "the app's \(R.functionName) response breaks the spec: \(error)")
            }
        }
        let client = try shared.withLock { shared throws(SDLRPCError) in
            guard shared.requestHandlers[functionID] == nil else { throw .handlerAlreadyRegistered(function: R.functionName) }
            shared.requestHandlers[functionID] = handler
            return shared.lifecycle.registeredConnection
        }
        if let client { await install(handler, functionID: functionID, on: client) }
        return functionID
    }

    private func removeRequestHandler(functionID: UInt32) async {
        let (token, client) = shared.withLock { shared in
            shared.requestHandlers[functionID] = nil
            return (shared.installedHandlers.removeValue(forKey: functionID), shared.lifecycle.registeredConnection)
        }
        if let token { await client?.removeRequestHandler(token) }
    }

    /// A new connection answers what the app handles before it is Ready.
    private func installRequestHandlers(on client: SDLRPCClient) async {
        // Handlers installed while this connection registered are in place already.
        let missing = shared.withLock { shared in shared.requestHandlers.filter { shared.installedHandlers[$0.key] == nil } }
        for (functionID, handler) in missing { await install(handler, functionID: functionID, on: client) }
    }

    /// Installs one handler on `client` and keeps its token, unless the app removed the handler
    /// meanwhile (then it comes off again).
    private func install(_ handler: @escaping RequestHandler, functionID: UInt32, on client: SDLRPCClient) async {
        guard let token = try? await client.handleRawRequests(functionID: functionID, handler: handler) else { return }
        let kept = shared.withLock { shared in
            guard shared.requestHandlers[functionID] != nil, shared.installedHandlers[functionID] == nil else { return false }
            shared.installedHandlers[functionID] = token
            return true
        }
        if !kept { await client.removeRequestHandler(token) }
    }
}

/// Why the manager refused or gave up.
package enum SDLManagerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A request before Ready (or after stop): nothing is sent.
    case notReady(SDLManager.State)
    /// `run()` while the manager runs.
    case alreadyRunning
    /// `run()` after the manager stopped: a manager runs once.
    case alreadyStopped
    /// The head unit refused the registration (`success=false`).
    case registrationFailed(SDLResult, info: String?)
    /// The head unit's protocol version is below `configuration.minimumProtocolVersion`.
    case protocolVersionTooLow(headUnit: SDLProtocolVersion, minimum: SDLProtocolVersion)
    /// The head unit's RPC version is below `configuration.minimumRPCVersion`; the app unregistered.
    case rpcVersionTooLow(headUnit: SDLSpecVersion, minimum: SDLSpecVersion)
    /// The configuration's vehicle-type veto refused this vehicle.
    case vehicleRejected(VehicleType)
    /// The connection ended and reconnecting is not allowed or did not work.
    case connectionLost(SDLCloseReason)
    /// The head unit's permissions forbid `rpc` at `level`; nothing was sent.
    case disallowed(rpc: String, level: HMILevel, allowedIn: [String])
    /// The head unit's RPC version lacks this RPC, parameter or enum value; nothing was sent.
    case unsupportedByHeadUnit(what: String, available: String, headUnit: SDLSpecVersion)
    /// The request breaks the spec; nothing was sent.
    case invalidRequest(String)
    /// The RPC must be encrypted and the RPC service cannot be protected (no security manager
    /// serves this head unit, or the handshake failed): it was not sent.
    case encryptionNeeded(rpc: String, reason: String)

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .notReady(let state): "the manager is not ready (it is \(state)); wait for Ready before sending"
        case .alreadyRunning: "the manager is already running"
        case .alreadyStopped: "the manager has stopped; a manager runs once, make a new one to connect again"
        case .registrationFailed(let code, let info): "the head unit refused the registration: \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .protocolVersionTooLow(let headUnit, let minimum): "the head unit speaks protocol \(headUnit), the app needs at least \(minimum)"
        case .rpcVersionTooLow(let headUnit, let minimum): "the head unit speaks RPC \(headUnit), the app needs at least \(minimum)"
        case .vehicleRejected(let vehicle): "the app does not run on this vehicle (\(vehicle.make ?? "?") \(vehicle.model ?? "?"))"
        case .connectionLost(let reason): "the connection is lost: \(reason)"
        case .disallowed(let rpc, let level, let allowed):
            "\(rpc) is not allowed in HMI level \(level.rawValue)"
                + (allowed.isEmpty ? " (nor in any other)" : "; it is allowed in \(allowed.joined(separator: ", "))")
        case .unsupportedByHeadUnit(let what, let available, let headUnit):
            "\(what) is not sent: it exists \(available), the head unit speaks RPC \(headUnit)"
        case .invalidRequest(let reason): "request not sent, it breaks the RPC spec: \(reason)"
        case .encryptionNeeded(let rpc, let reason): "\(rpc) must be encrypted and was not sent: \(reason)"
        }
    }
}

/// Runs a manager for the duration of `body`: starts it, waits until Ready, runs `body`, then
/// unregisters and disconnects. The manager's failures are `SDLError`s; what `body` throws
/// comes out as it is.
public func withSDLManager<Result>(
    _ configuration: SDLManager.Configuration, _ body: (SDLManager) async throws -> Result
) async throws -> Result {
    try await withSDLManager(SDLManager(configuration: configuration), body)
}

/// Runs `manager` (made with a `hashStore`, or given a delegate before it runs) for the duration
/// of `body`, as `withSDLManager(_:_:)` with a configuration does: `run()` is a child task of
/// this call, `body` starts once the manager is Ready, and the manager is stopped when `body`
/// returns or throws. A manager runs once: pass a new one each time.
public func withSDLManager<Result>(
    _ manager: SDLManager, _ body: (SDLManager) async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await manager.run() }
        let result: Result
        do {
            try await manager.waitUntilReady()
            result = try await body(manager)
        } catch {
            await manager.stop()
            group.cancelAll()
            while (try? await group.next()) != nil {}
            throw error
        }
        await manager.stop()
        try await group.waitForAll()
        return result
    }
}
