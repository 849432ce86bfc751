import DequeModule
import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// A head unit for apps to develop against, behaving like SDL Core 8.2 (the “Head unit rules”
/// article lists the behaviours): it negotiates the protocol, keeps per-app state (HMI level,
/// screen, menu, choice sets, button subscriptions, what is on top), enforces SDL Core's rules,
/// and lets a test or a developer play the driver through its control methods (activate an app,
/// press a button, choose a command, answer an interaction, change the car's remote-control
/// modules or the route). Several apps connect at once; one app's state never leaks into
/// another's, while what belongs to the car (vehicle data, remote-control modules, the route) is
/// shared.
public actor SDLHeadUnitEmulator {
    /// The configuration the emulator was created with. What changes while it runs (the policy,
    /// the language, the vehicle's values, the driver's consent) changes through the emulator's
    /// own methods, not here.
    public let configuration: Configuration
    var defaults: DefaultValues { .shared }

    private struct ConnectionEntry {
        let connection: EmulatedConnection
        var appID: String?
    }

    private var connections: [Int: ConnectionEntry] = [:]
    private var nextConnectionID = 0
    private var records: [String: Deque<SDLRecordedRPC>] = [:]
    private let eventFanOut = StreamFanOut<SDLHeadUnitEvent>(bufferLimit: 1_000)
    /// What the apps stream, for watchers such as the web page (none: nothing is copied).
    let streamFanOut = StreamFanOut<SDLStreamChunk>(bufferLimit: 256)
    /// Effects of state changes made where nothing can be sent (an app went away); the next
    /// `perform` sends them.
    var pendingEffects: [Effect] = []

    // MARK: State

    var apps: [String: EmulatedApp] = [:]
    /// What a dropped app had, by app ID, for its next registration with the same hash.
    var resumption: [String: ResumptionData] = [:]
    var language: Language
    /// Tells apart the interactions, Speaks and registrations timers are set for.
    var interactionSerial = 0
    /// Interaction, speech, audio, activation and forwarding timers, on one schedule.
    var timers = HeadUnitTimers()
    var policy: SDLHeadUnitPolicy
    // What apps share, one struct per area; per-app screen, menu, button and interaction
    // state lives in `EmulatedApp`.
    var fileState: FileState
    var vehicleState: VehicleDataState
    var navigation: NavigationState
    var appServices = AppServiceState()
    /// Cloud app entries of the policy table that apps set (SetCloudAppProperties), by app ID.
    var cloudAppProperties: [String: CloudAppProperties] = [:]
    /// Dialers of `runCloudApp` waiting for the HMI to activate the cloud app again, by wait,
    /// and an activation that came between a drop and the wait.
    var cloudAppActivationWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextCloudAppWait = 0
    var cloudAppActivationPending = false
    /// A cloud app's connection is up (activations then change nothing).
    var cloudAppConnected = false
    /// The car's remote-control modules, shared by every app: state, allocation, subscriptions.
    var remoteControl = RemoteControlState()
    /// The car moves: OnDriverDistraction DD_ON (new apps hear it at registration).
    var driverDistracted = false
    /// The HMIs connected over the HMI API, what they registered and what waits for their answers.
    var hmi = HMIBridge()
    /// Where the driver's methods act when not on the built-in HMI (`setHMIDriver`).
    var hmiDriver: (any SDLHMIDriver)?
    /// Whether an HMI is ready (see `untilHMIReady`).
    let hmiReadiness = StreamFanOut<Bool>(bufferLimit: 1, replaysLatest: true, initial: false)
    /// The HMI's system time reached the security manager (`Configuration.systemTimeReady`).
    public private(set) var systemTimeReady: Bool

    /// A head unit with no app connected yet: hand it each app's transport with
    /// `serve(_:authToken:)`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.systemTimeReady = configuration.systemTimeReady
        self.language = configuration.language
        self.policy = configuration.policy
        self.fileState = FileState(quota: configuration.fileQuota)
        self.vehicleState = VehicleDataState(vehicle: configuration.vehicle)
        self.navigation = NavigationState(route: configuration.vehicle.wayPoints)
        remoteControl.consent = configuration.remoteControlConsent
    }

    // MARK: Connections

    /// Serves one app until it disconnects or ends its session. `authToken` is a cloud app's
    /// token, sent in the RPC StartServiceACK as SDL Core does.
    public func serve(_ transport: any SDLTransport, authToken: String? = nil) async {
        nextConnectionID += 1
        let id = nextConnectionID
        // SDL Core gives each connection's first session the lowest free ID, 1, and a hash of
        // its connection handle and session ID (65537 for the first connection, then counting up).
        let connection = EmulatedConnection(
            id: id, sessionID: 1, hashID: configuration.hashID &+ Int32(truncatingIfNeeded: id - 1), transport: transport,
            configuration: configuration, headUnit: self, authToken: authToken)
        let (duty, assign) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        connections[id] = ConnectionEntry(connection: connection)
        takeTimerDuty(id: id, assign)
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in duty { await self.runTimers() } }
            await connection.run()
            group.cancelAll()
        }
        connectionEnded(id)
        await perform([])
    }

    /// Events for tests and tools to synchronise on: an app registered, an RPC arrived... A reader
    /// keeps the newest 1,000 unread events.
    public nonisolated func events() -> AsyncStream<SDLHeadUnitEvent> {
        eventFanOut.subscribe()
    }

    /// Every app's streams as they arrive (video as H.264/H.265 Annex-B, RTP already
    /// depacketised; audio as sent), for a viewer such as the web page. A watcher that falls 256
    /// chunks behind loses the oldest, so a video decoder should wait for the next key frame
    /// after a gap; the head unit itself is never slowed down by a watcher.
    public nonisolated func streamChunks() -> AsyncStream<SDLStreamChunk> {
        streamFanOut.subscribe()
    }

    func emit(_ event: SDLHeadUnitEvent) {
        eventFanOut.yield(event)
    }

    /// A served connection (an app's, or an HMI's under a negative ID) offers to run the timer
    /// loop; the first one does.
    func takeTimerDuty(id: Int, _ duty: AsyncStream<Void>.Continuation) {
        timers.duties[id] = duty
        if timers.owner == nil {
            timers.owner = id
            duty.yield()
        }
    }

    /// The served connection `id` ended: the timer loop moves to another one's serve, if any is left.
    func timerDutyEnded(id: Int) {
        timers.duties.removeValue(forKey: id)?.finish()
        if timers.owner == id {
            timers.owner = timers.duties.keys.filter { $0 > 0 }.min() ?? timers.duties.keys.max()
            if let owner = timers.owner { timers.duties[owner]?.yield() }
        }
    }

    private func connectionEnded(_ id: Int) {
        timerDutyEnded(id: id)
        guard let entry = connections.removeValue(forKey: id) else { return }
        if let appID = entry.appID, apps[appID]?.connectionID == id {
            appGone(appID, unregistered: false)
        }
    }

    /// The app ended its session (EndService of the RPC service, with its hash): SDL Core
    /// unregisters the app as after a drop, resumption data kept, and the transport stays open
    /// for a new session.
    func sessionEnded(on connection: EmulatedConnection) async {
        if let appID = appID(on: connection) { appGone(appID, unregistered: false) }
        await perform([])
    }

    /// The app's connection is over or it unregistered: its state goes, as in SDL Core. After a
    /// drop (no UnregisterAppInterface) what resumption restores is kept under its last hash.
    func appGone(_ appID: String, unregistered: Bool) {
        guard let app = apps.removeValue(forKey: appID) else { return }
        connections[app.connectionID]?.appID = nil
        cancelTimers(of: app)
        hmiRequestsDropped(of: appID)
        for service in app.streamingServices.sorted(by: { $0.rawValue < $1.rawValue }) { pendingEffects += hmiStreamEnded(service, appID: appID) }
        for (id, service) in appServices.services where service.providerAppID == appID { pendingEffects += removeService(id) }
        for type in appServices.subscribers.keys { appServices.subscribers[type]?.remove(appID) }
        // A provider's late answer must not reach (or subscribe) a new registration of the app.
        appServices.forwarded = appServices.forwarded.filter { $0.value.consumerAppID != appID }
        fileState.stores[appID]?.appGone()
        let vehicleData = vehicleState.subscriptions.removeValue(forKey: appID) ?? []
        pendingEffects += remoteControlAppGone(appID)
        if unregistered {
            resumption[appID] = nil
        } else if let hash = app.hashID {
            resumption[appID] = ResumptionData(hashID: hash, app: app, vehicleData: vehicleData)
        }
        pendingEffects += hmiAppUnregistered(appID, unexpected: !unregistered)
        emit(.appUnregistered(appID: appID))
    }

    func connection(of appID: String) -> EmulatedConnection? {
        apps[appID].flatMap { connections[$0.connectionID]?.connection }
    }

    /// The app registered on `connection`, if any.
    func appID(on connection: EmulatedConnection) -> String? {
        connections[connection.id]?.appID
    }

    func registered(_ appID: String, on connection: EmulatedConnection) {
        connections[connection.id]?.appID = appID
    }

    // MARK: Messages

    /// SDL Core refused to protect the app's RPC service (its certificate failed the check):
    /// the app stays registered, in NONE.
    /// The HMI gives the security manager its system time (BasicCommunication.OnSystemTimeReady),
    /// or, with false, takes it back: protected services are then refused, as on SDL Core
    /// before the HMI is up.
    public func setSystemTimeReady(_ ready: Bool) {
        systemTimeReady = ready
    }

    func protectionRefused(on connection: EmulatedConnection) async {
        guard let appID = appID(on: connection), apps[appID]?.hmiLevel != HMILevel.none else { return }
        await perform(setLevel(.none, of: appID))
    }

    func received(_ rpc: SDLRPCPayload, encrypted: Bool = false, on connection: EmulatedConnection) async {
        let appID = appID(on: connection)
        record(appID, direction: "in", rpc)
        switch rpc.rpcType {
        case .request:
            guard let route = Self.requestRoutes[rpc.functionID] else {
                // SDL Core answers a function it does not know under the request's own function ID.
                let reply = Reply.failure(.unsupportedRequest, "Module does not recognize this function id")
                await send(reply.payload(functionID: rpc.functionID, correlationID: rpc.correlationID), on: connection, appID: appID)
                return
            }
            await route.answer(rpc, encrypted: encrypted, on: connection, by: self)
        case .response:
            await perform(providerAnswered(rpc))
        case .notification:
            if let appID, rpc.functionID == OnAppServiceData.wireFunctionID { await perform(providerPublishedData(rpc, from: appID)) }
        default:
            break
        }
    }

    func send(_ rpc: SDLRPCPayload, on connection: EmulatedConnection, appID: String?) async {
        record(appID, direction: "out", rpc)
        await connection.send(rpc)
    }

    func record(_ appID: String?, direction: String, _ rpc: SDLRPCPayload) {
        guard let appID else { return }
        // In place: copying the record per message would make every request O(records).
        // Without its bulk data (the size is kept): a record of every chunk of an upload would
        // hold the whole file again, up to `recordLimit` chunks of it.
        var kept = rpc
        kept.bulkData = []
        records[appID, default: []].append(SDLRecordedRPC(direction: direction, payload: kept, bulkDataSize: rpc.bulkData.count))
        if records[appID]!.count > configuration.recordLimit { records[appID]!.removeFirst() }
    }

    // MARK: Reading the state

    /// The apps registered now.
    public func registeredApps() -> [SDLEmulatedAppInfo] {
        apps.values.sorted { $0.connectionID < $1.connectionID }.map {
            SDLEmulatedAppInfo(
                appID: $0.appID, name: $0.name, hmiLevel: $0.hmiLevel, systemContext: $0.systemContext, connection: $0.connectionID,
                appTypes: $0.appTypes, isMedia: $0.isMedia)
        }
    }

    /// The requests the app sent, by function name, in order: what a test asserts.
    public func requestsReceived(from appID: String) -> [String] {
        recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.payload.rpcType == .request }.map(\.functionName)
    }

    /// Every RPC the app sent and received, oldest first (the last `recordLimit`).
    public func recordedRPCs(appID: String) -> [SDLRecordedRPC] {
        Array(records[appID] ?? [])
    }
}
