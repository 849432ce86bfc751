import DequeModule
import Logging
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
    /// How the emulated head unit behaves: what it announces, its policy, car and limits, and how
    /// fast it and its driver act. The defaults behave like SDL Core 8.2 with a stand-in HMI that
    /// accepts everything, so most tests need none of them.
    public struct Configuration: Sendable {
        /// The highest protocol version the head unit speaks (SDL Core 8.2: 5.4.0).
        public var protocolVersion = SDLProtocolVersion.latest
        /// Payload bytes per frame, sent as `mtu`.
        public var mtu = 131_072
        /// The session's hash ID, sent as `hashId` in the RPC StartServiceACK (SDL Core 8.2 sent 65537,
        /// 0x00010001); a protocol-4 app gets it as the ACK's 4-byte payload.
        public var hashID: Int32 = 65_537
        /// The RegisterAppInterface response (`success` and `resultCode` are set by the emulator).
        public var capabilities: SDLJSONValue
        /// How long after registering an app is activated (OnHMIStatus FULL); nil: it stays in
        /// NONE until `activate(appID:)`.
        public var activationDelay: Duration? = .zero
        /// The head unit's language (VR and display).
        public var language: Language = .enUs
        /// Time for activation delays and interaction timeouts; tests inject a clock they advance.
        public var clock = SDLClock.continuous
        /// Called with one JSON object per frame and per message, both directions.
        public var log: (@Sendable (SDLJSONValue) -> Void)?
        /// RPCs kept per app for `recordedRPCs(appID:)` and the control API; older ones drop.
        public var recordLimit = 10_000
        /// Bytes each app may store with PutFile (`spaceAvailable` counts down from it).
        public var fileQuota = 100 * 1024 * 1024
        /// Sent in OnSystemRequest(LOCK_SCREEN_ICON_URL) after registration, as SDL Core does.
        public var lockScreenIconURL = "https://raw.githubusercontent.com/smartdevicelink/sdl_ios/master/SmartDeviceLink/Assets/sdl_logo_black.png"
        /// Which RPCs and vehicle-data items apps may use at each HMI level.
        public var policy = SDLHeadUnitPolicy.sdlCoreDefault
        /// The simulated vehicle's values.
        public var vehicle = SDLSimulatedVehicle()
        /// A policy server: when set, the policy update at an app's first activation goes
        /// through the app (OnSystemRequest PROPRIETARY to this URL) as on SDL Core, and vehicle
        /// data is granted only once the app brings the server's answer back. When nil the
        /// emulator grants the update itself.
        public var policyServerURL: String?
        /// How long the head unit takes to speak a Speak request before answering it, on `clock`.
        /// `.zero`: answered at once, as SDL Core with a stand-in HMI does.
        public var speakingTime: Duration = .zero
        /// Emulated time between two OnAudioPassThru chunks of a PerformAudioPassThru; each chunk
        /// carries exactly this interval's samples.
        public var audioPassThruChunkInterval: Duration = .milliseconds(100)
        /// Whether a phone is paired over Bluetooth; without one DialNumber is REJECTED.
        public var phoneConnected = true
        /// The driver's answer to GetInteriorVehicleDataConsent, until `setRemoteControlConsent(_:)`.
        public var remoteControlConsent = true

        /// SDL Core 8.2's defaults; `capabilities` replaces the RegisterAppInterface response (nil:
        /// `defaultCapabilities`), to emulate another display, other buttons or other languages.
        public init(capabilities: SDLJSONValue? = nil) {
            self.capabilities = capabilities ?? Self.defaultCapabilities
        }

        /// The RegisterAppInterface response SDL Core 8.2.0 sent in a recorded session: a generic
        /// 800×350 display with 19 templates, presets, media buttons, speech, two audio pass-thru
        /// formats and every HMI capability. Core left `imageTypeSupported` out of most `imageFields`
        /// against the spec; here it is filled in so the response is valid.
        public static var defaultCapabilities: SDLJSONValue {
            (try? SDLJSONValue(parsing: DefaultCapabilities.registerAppInterfaceResponse)) ?? .object([])
        }
    }

    /// The configuration the emulator was created with. What changes while it runs (the policy,
    /// the language, the vehicle's values, the driver's consent) changes through the emulator's
    /// own methods, not here.
    public let configuration: Configuration
    let defaults = DefaultValues()
    private let requestTypes: [UInt32: any SDLRequest.Type]

    private struct ConnectionEntry {
        let connection: EmulatedConnection
        var appID: String?
    }

    private var connections: [Int: ConnectionEntry] = [:]
    private var nextConnectionID = 0
    private var nextSessionID: UInt8 = 1
    var apps: [String: EmulatedApp] = [:]
    /// What a dropped app had, by app ID, for its next registration with the same hash.
    var resumption: [String: ResumptionData] = [:]
    var language: Language
    private var records: [String: Deque<SDLRecordedRPC>] = [:]
    private let eventFanOut = StreamFanOut<SDLHeadUnitEvent>(bufferLimit: 1_000)
    var interactionSerial = 0
    var services: [String: PublishedService] = [:]
    var serviceCounter = 0
    var serviceSubscribers: [String: Set<String>] = [:]
    var forwarded: [UInt32: ForwardedRequest] = [:]
    var forwardCounter: UInt32 = 0
    /// Effects of state changes made where nothing can be sent (an app went away); the next
    /// `perform` sends them.
    var pendingEffects: [Effect] = []
    /// Files by app ID; persistent ones outlive the app's registration, as in SDL Core.
    var fileStores: [String: FileStore] = [:]
    var policy: SDLHeadUnitPolicy
    var vehicle: SDLSimulatedVehicle
    /// Icons apps set with SetAppIcon, by app ID: SDL Core keeps them across registrations.
    var appIcons: [String: [UInt8]] = [:]
    /// PutFile faults an operator asked for, by app ID.
    var fileFaults: [String: FileFaultPlan] = [:]
    /// Vehicle-data items each app subscribed to.
    var vehicleSubscriptions: [String: Set<String>] = [:]
    /// The car's remote-control modules, shared by every app: state, allocation, subscriptions.
    var remoteControl = RemoteControlState()
    /// What the driver answers to GetInteriorVehicleDataConsent now.
    var remoteControlConsent: Bool

    /// A head unit with no app connected yet: hand it each app's transport with
    /// `serve(_:authToken:)`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.remoteControlConsent = configuration.remoteControlConsent
        self.language = configuration.language
        self.policy = configuration.policy
        self.vehicle = configuration.vehicle
        var requestTypes: [UInt32: any SDLRequest.Type] = [:]
        for type in MobileAPI.requests {
            if let functionID = type.wireFunctionID { requestTypes[functionID] = type }
        }
        self.requestTypes = requestTypes
    }

    // MARK: Connections

    /// Serves one app until it disconnects or ends its session. `authToken` is a cloud app's
    /// token, sent in the RPC StartServiceACK as SDL Core does.
    public func serve(_ transport: any SDLTransport, authToken: String? = nil) async {
        nextConnectionID += 1
        let id = nextConnectionID
        let sessionID = nextSessionID
        nextSessionID = nextSessionID == 255 ? 1 : nextSessionID + 1
        let connection = EmulatedConnection(
            id: id, sessionID: sessionID, transport: transport, configuration: configuration, headUnit: self, authToken: authToken)
        connections[id] = ConnectionEntry(connection: connection)
        await connection.run()
        connectionEnded(id)
        await perform([])
    }

    /// Events for tests and tools to synchronise on: an app registered, an RPC arrived... A reader
    /// keeps the newest 1,000 unread events.
    public nonisolated func events() -> AsyncStream<SDLHeadUnitEvent> {
        eventFanOut.subscribe()
    }

    func emit(_ event: SDLHeadUnitEvent) {
        eventFanOut.yield(event)
    }

    private func connectionEnded(_ id: Int) {
        guard let entry = connections.removeValue(forKey: id) else { return }
        if let appID = entry.appID, apps[appID]?.connectionID == id {
            appGone(appID, unregistered: false)
        }
    }

    /// The app's connection is over or it unregistered: its state goes, as in SDL Core. After a
    /// drop (no UnregisterAppInterface) what resumption restores is kept under its last hash.
    func appGone(_ appID: String, unregistered: Bool) {
        guard let app = apps.removeValue(forKey: appID) else { return }
        connections[app.connectionID]?.appID = nil
        for (id, service) in services where service.providerAppID == appID { pendingEffects += removeService(id) }
        for type in serviceSubscribers.keys { serviceSubscribers[type]?.remove(appID) }
        fileStores[appID]?.appGone()
        vehicleSubscriptions[appID] = nil
        pendingEffects += remoteControlAppGone(appID)
        if unregistered {
            resumption[appID] = nil
        } else if let hash = app.hashID {
            resumption[appID] = ResumptionData(hashID: hash, app: app)
        }
        emit(.appUnregistered(appID: appID))
    }

    func connection(of appID: String) -> EmulatedConnection? {
        apps[appID].flatMap { connections[$0.connectionID]?.connection }
    }

    // MARK: Incoming

    func received(_ rpc: SDLRPCPayload, on connection: EmulatedConnection) async {
        let appID = connections[connection.id]?.appID
        record(appID, direction: "in", rpc)
        switch rpc.rpcType {
        case .request:
            await handleRequest(rpc, on: connection)
        case .response:
            await perform(providerAnswered(rpc))
        case .notification:
            if let appID, rpc.functionID == OnAppServiceData.wireFunctionID { await perform(providerPublishedData(rpc, from: appID)) }
        default:
            break
        }
    }

    private func handleRequest(_ rpc: SDLRPCPayload, on connection: EmulatedConnection) async {
        guard let type = requestTypes[rpc.functionID] else {
            // SDL Core answers a function it does not know with GenericResponse INVALID_ID.
            await send(SDLRPCPayload(
                rpcType: .response, functionID: GenericResponse.wireFunctionID ?? 31, correlationID: rpc.correlationID,
                json: Reply.failure(.invalidId, "unknown function ID \(rpc.functionID)").json), on: connection, appID: connections[connection.id]?.appID)
            return
        }
        await answer(type, rpc, on: connection)
    }

    private func answer<R: SDLRequest>(_ type: R.Type, _ rpc: SDLRPCPayload, on connection: EmulatedConnection) async {
        guard let responseID = R.Response.wireFunctionID else { return }
        let appID = connections[connection.id]?.appID
        let reply: Reply
        var effects: [Effect] = []
        // Like SDL Core: a request that breaks the spec is answered INVALID_DATA.
        switch SDLJSONDecoding.decode(R.self, from: rpc.json) {
        case .failure(let error):
            reply = .failure(.invalidData, Self.invalidDataInfo(error))
            if R.self == RegisterAppInterface.self && appID == nil {
                // SDL Core answers a registration it cannot read, then ends the RPC service.
                await send(SDLRPCPayload(rpcType: .response, functionID: responseID, correlationID: rpc.correlationID, json: reply.json), on: connection, appID: nil)
                await connection.close(endService: true)
                return
            }
        case .success(let request):
            if let registration = request as? RegisterAppInterface {
                (reply, effects) = register(registration, on: connection.id)
                if reply.isSuccess {
                    connections[connection.id]?.appID = registration.appID
                    record(registration.appID, direction: "in", rpc)
                }
            } else if let appID, apps[appID] != nil {
                emit(.requestReceived(appID: appID, function: R.functionName))
                if let refusal = refusal(of: R.functionName, rpc: rpc, appID: appID) {
                    reply = refusal
                } else if let provider = handlingProvider(of: rpc.functionID, for: appID) {
                    (reply, effects) = forward(rpc, from: appID, to: provider)
                } else {
                    (reply, effects) = handle(request, rpc: rpc, appID: appID)
                }
            } else {
                reply = .failure(.applicationNotRegistered, nil)
            }
        }
        let recordAs = connections[connection.id]?.appID ?? appID
        if !reply.isDeferred {
            await send(SDLRPCPayload(rpcType: .response, functionID: responseID, correlationID: rpc.correlationID, json: reply.json), on: connection, appID: recordAs)
        }
        await perform(effects)
    }

    /// The policy's and the limits' answer to a request, nil when it may go on.
    private func refusal(of function: String, rpc: SDLRPCPayload, appID: String) -> Reply? {
        guard let app = apps[appID] else { return .failure(.applicationNotRegistered, nil) }
        switch policy.decide(function, level: app.hmiLevel, appID: appID, updated: app.policyUpdated, parameters: requestedParameters(rpc)) {
        case .allowed: break
        case .disallowed(let info): return .failure(.disallowed, info)
        }
        if let info = apps[appID]?.limits.check(function, level: app.hmiLevel, now: configuration.clock.now) {
            return .failure(.rejected, info)
        }
        return nil
    }

    /// The parameter names of a request, for the policy's parameter permissions.
    private func requestedParameters(_ rpc: SDLRPCPayload) -> [String] {
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return [] }
        return members.map(\.key)
    }

    /// SDL Core's words for a request it cannot read: a missing mandatory parameter by name,
    /// anything else with its path.
    static func invalidDataInfo(_ error: SDLDecodingError) -> String {
        guard let first = error.errors.first else { return "RPC.msg_params: invalid" }
        if case .missingMandatory = first.kind, first.path.components.count == 1, case .key(let name)? = first.path.components.first {
            return "RPC.msg_params: Missing mandatory parameter: \(name)"
        }
        return "RPC.msg_params: \(first)"
    }

    /// Routes a decoded request of a registered app to the rule that answers it.
    private func handle(_ request: some SDLRequest, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        switch request {
        case let request as UnregisterAppInterface: return unregister(request, appID: appID)
        case let request as ChangeRegistration: return changeRegistration(request, appID: appID)
        case let request as Show: return show(request, rpc: rpc, appID: appID)
        case let request as SetDisplayLayout: return setDisplayLayout(request, rpc: rpc, appID: appID)
        case let request as SetMediaClockTimer: return setMediaClockTimer(request, rpc: rpc, appID: appID)
        case let request as SetGlobalProperties: return setGlobalProperties(request, rpc: rpc, appID: appID)
        case let request as ResetGlobalProperties: return resetGlobalProperties(request, appID: appID)
        case let request as AddCommand: return addCommand(request, rpc: rpc, appID: appID)
        case let request as DeleteCommand: return deleteCommand(request, appID: appID)
        case let request as AddSubMenu: return addSubMenu(request, rpc: rpc, appID: appID)
        case let request as DeleteSubMenu: return deleteSubMenu(request, appID: appID)
        case let request as CreateInteractionChoiceSet: return createChoiceSet(request, rpc: rpc, appID: appID)
        case let request as DeleteInteractionChoiceSet: return deleteChoiceSet(request, appID: appID)
        case let request as SubscribeButton: return subscribeButton(request, appID: appID)
        case let request as UnsubscribeButton: return unsubscribeButton(request, appID: appID)
        case let request as Alert: return startInteraction(.alert, rpc: rpc, appID: appID, cancelID: request.cancelID, timeout: .milliseconds(request.duration ?? 5_000))
        case let request as SubtleAlert: return startInteraction(.subtleAlert, rpc: rpc, appID: appID, cancelID: request.cancelID, timeout: .milliseconds(request.duration ?? 5_000))
        case let request as PerformInteraction: return performInteraction(request, rpc: rpc, appID: appID)
        case let request as Slider: return startInteraction(.slider, rpc: rpc, appID: appID, cancelID: request.cancelID, timeout: .milliseconds(request.timeout ?? 10_000))
        case let request as ScrollableMessage: return startInteraction(.scrollableMessage, rpc: rpc, appID: appID, cancelID: request.cancelID, timeout: .milliseconds(request.timeout ?? 30_000))
        case let request as CancelInteraction: return cancelInteraction(request, appID: appID)
        case let request as Speak: return speak(request, rpc: rpc, appID: appID)
        case let request as PerformAudioPassThru: return performAudioPassThru(request, rpc: rpc, appID: appID)
        case is EndAudioPassThru: return endAudioPassThru(rpc: rpc, appID: appID)
        case let request as DialNumber: return dialNumber(request, appID: appID)
        case let request as SendLocation: return sendLocation(request, rpc: rpc, appID: appID)
        case let request as GetWayPoints: return getWayPoints(request)
        case is SubscribeWayPoints: return subscribeWayPoints(appID: appID, subscribe: true)
        case is UnsubscribeWayPoints: return subscribeWayPoints(appID: appID, subscribe: false)
        case is CloseApplication: return closeApplication(appID: appID)
        case let request as GetInteriorVehicleData: return getInteriorVehicleData(request, appID: appID)
        case let request as SetInteriorVehicleData: return setInteriorVehicleData(request, rpc: rpc, appID: appID)
        case let request as GetInteriorVehicleDataConsent: return getInteriorVehicleDataConsent(request, appID: appID)
        case let request as ReleaseInteriorVehicleDataModule: return releaseInteriorVehicleDataModule(request, appID: appID)
        case let request as ButtonPress: return buttonPress(request, appID: appID)
        case let request as ShowAppMenu: return showAppMenu(request, appID: appID)
        case let request as CreateWindow: return createWindow(request, appID: appID)
        case let request as DeleteWindow: return deleteWindow(request, appID: appID)
        case let request as GetSystemCapability: return getSystemCapability(request, appID: appID)
        case let request as PutFile: return putFile(request, rpc: rpc, appID: appID)
        case is ListFiles: return listFiles(appID: appID)
        case is GetVehicleData: return getVehicleData(rpc: rpc, appID: appID)
        case is SubscribeVehicleData: return subscribeVehicleData(rpc: rpc, appID: appID, subscribe: true)
        case is UnsubscribeVehicleData: return subscribeVehicleData(rpc: rpc, appID: appID, subscribe: false)
        case let request as DeleteFile: return deleteFile(request, appID: appID)
        case let request as SetAppIcon: return setAppIcon(request, appID: appID)
        case let request as SystemRequest: return systemRequest(request, rpc: rpc, appID: appID)
        case let request as PublishAppService: return publishAppService(request, appID: appID)
        case let request as UnpublishAppService: return unpublishAppService(request, appID: appID)
        case let request as GetAppServiceData: return getAppServiceData(request, rpc: rpc, appID: appID)
        case let request as PerformAppServiceInteraction: return performAppServiceInteraction(request, rpc: rpc, appID: appID)
        default: return (Reply(json: defaults.successResponse(type(of: request).Response.structInfo).jsonBytes), [])
        }
    }

    // MARK: Outgoing

    /// What a request causes besides its response, in order.
    enum Effect: Sendable {
        case notify(appID: String, SDLRPCPayload)
        /// Ends the app's connection; `unregistered` says whether its resumption data goes too.
        case disconnect(appID: String, endService: Bool, unregistered: Bool)
    }

    func notification<N: SDLNotification>(_ notification: N, to appID: String) -> Effect {
        let json = (try? SDLJSON.encode(notification)) ?? Array("{}".utf8)
        return .notify(appID: appID, SDLRPCPayload(rpcType: .notification, functionID: N.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID, json: json))
    }

    /// What SDL Core puts in notifications' correlation ID.
    static let notificationCorrelationID: UInt32 = 0xFFFF_FFFF

    func perform(_ effects: [Effect]) async {
        var queue = effects
        var index = 0
        while index < queue.count || !pendingEffects.isEmpty {
            if index == queue.count {
                queue += pendingEffects
                pendingEffects.removeAll()
            }
            let effect = queue[index]
            index += 1
            switch effect {
            case .notify(let appID, let rpc):
                guard let connection = connection(of: appID) else { continue }
                await send(rpc, on: connection, appID: appID)
            case .disconnect(let appID, let endService, let unregistered):
                guard let connection = connection(of: appID) else { continue }
                appGone(appID, unregistered: unregistered)
                await connection.close(endService: endService)
            }
        }
    }

    func send(_ rpc: SDLRPCPayload, on connection: EmulatedConnection, appID: String?) async {
        record(appID, direction: "out", rpc)
        await connection.send(rpc)
    }

    private func record(_ appID: String?, direction: String, _ rpc: SDLRPCPayload) {
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
            SDLEmulatedAppInfo(appID: $0.appID, name: $0.name, hmiLevel: $0.hmiLevel, systemContext: $0.systemContext, connection: $0.connectionID)
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

/// An app as the head unit lists it.
public struct SDLEmulatedAppInfo: Sendable, Hashable {
    /// The app's `appID` from RegisterAppInterface: the key every control method takes.
    public var appID: String
    /// The app's `appName`, or the one its latest ChangeRegistration gave.
    public var name: String
    /// The HMI level of the app's main window now.
    public var hmiLevel: HMILevel
    /// What covers the app's main window now: MAIN, MENU (its menu is open), ALERT (an alert or
    /// subtle alert) or HMI_OBSCURED (another popup).
    public var systemContext: SystemContext
    /// The connection (one per transport) the app registered on.
    public var connection: Int
}

/// Something that happened on the head unit, for tests and tools to wait for.
public enum SDLHeadUnitEvent: Sendable, Hashable {
    /// An app registered: RegisterAppInterface was answered with `success=true`.
    case appRegistered(appID: String)
    /// An app is gone: it unregistered, its connection ended, or the head unit ended it (a
    /// language change).
    case appUnregistered(appID: String)
    /// A request of a registered app arrived (before its answer).
    case requestReceived(appID: String, function: String)
    /// The app's HMI level changed; the app hears it in an OnHMIStatus.
    case hmiLevelChanged(appID: String, HMILevel)
    /// Something now waits for the user on the app's screen.
    case interactionStarted(appID: String, kind: String)
}

/// One RPC as it crossed the wire, in the `--log` vocabulary.
public struct SDLRecordedRPC: Sendable, Hashable {
    /// `in` (app → head unit) or `out`.
    public var direction: String
    /// The message as it crossed the wire (type, function ID, correlation ID, JSON), without its
    /// bulk data.
    public var payload: SDLRPCPayload

    /// Bytes of bulk data the message carried (the record does not keep them).
    public var bulkDataSize: Int

    /// The function's name in the spec (`Show`, `OnHMIStatus`...), or `function N` for an ID the
    /// spec does not have.
    public var functionName: String { EmulatedConnection.functions.name(of: payload.functionID) ?? "function \(payload.functionID)" }

    /// The parameters, parsed; nil when they are not JSON.
    public var parameters: SDLJSONValue? { try? SDLJSONValue(parsing: payload.json) }

    /// `{"direction":…,"rpcType":…,"functionId":…,"name":…,"correlationId":…,"params":{…}}`.
    public var json: SDLJSONValue {
        .object([.init(key: "direction", value: .string(direction))] + Self.logMembers(payload, bulkDataSize: bulkDataSize))
    }

    static func logMembers(_ rpc: SDLRPCPayload, bulkDataSize: Int? = nil) -> [SDLJSONValue.Member] {
        var members: [SDLJSONValue.Member] = [
            .init(key: "rpcType", value: .string(rpc.rpcType.description)),
            .init(key: "functionId", value: .integer(Int(rpc.functionID))),
        ]
        if let name = EmulatedConnection.functions.name(of: rpc.functionID) { members.append(.init(key: "name", value: .string(name))) }
        members.append(.init(key: "correlationId", value: .integer(Int(rpc.correlationID))))
        if let json = try? SDLJSONValue(parsing: rpc.json) { members.append(.init(key: "params", value: json)) }
        let size = bulkDataSize ?? rpc.bulkData.count
        if size > 0 { members.append(.init(key: "bulkDataSize", value: .integer(size))) }
        return members
    }
}

/// A response's parameters.
struct Reply: Sendable {
    var json: [UInt8]
    /// The answer comes later (the user or a timeout decides), under the request's correlation ID.
    var isDeferred = false

    static let deferred = Reply(json: [], isDeferred: true)

    static func success(_ code: SDLResult = .success, info: String? = nil, extra: [SDLJSONValue.Member] = []) -> Reply {
        make(success: true, code: code, info: info, extra: extra)
    }

    static func failure(_ code: SDLResult, _ info: String?, extra: [SDLJSONValue.Member] = []) -> Reply {
        make(success: false, code: code, info: info, extra: extra)
    }

    static func typed<R: SDLResponse>(_ response: R) -> Reply {
        Reply(json: (try? SDLJSON.encode(response)) ?? failure(.genericError, "the emulator built an invalid \(R.functionName)").json)
    }

    private static func make(success: Bool, code: SDLResult, info: String?, extra: [SDLJSONValue.Member]) -> Reply {
        var members: [SDLJSONValue.Member] = [.init(key: "success", value: .bool(success)), .init(key: "resultCode", value: .string(code.rawValue))]
        if let info { members.append(.init(key: "info", value: .string(info))) }
        members.append(contentsOf: extra)
        return Reply(json: SDLJSONValue.object(members).jsonBytes)
    }

    var isSuccess: Bool {
        guard case .bool(true)? = (try? SDLJSONValue(parsing: json))?["success"] else { return false }
        return true
    }

    /// The `resultCode` of the reply (nil when deferred).
    var resultCode: SDLResult? {
        guard case .string(let code)? = (try? SDLJSONValue(parsing: json))?["resultCode"] else { return nil }
        return SDLResult(rawValue: code)
    }

    /// The same reply, still successful, with another result code and info (SUCCESS → WARNINGS).
    func with(_ code: SDLResult, info: String) -> Reply {
        guard case .object(var members)? = try? SDLJSONValue(parsing: json) else { return self }
        members.removeAll { $0.key == "info" }
        for index in members.indices where members[index].key == "resultCode" { members[index].value = .string(code.rawValue) }
        if let position = members.firstIndex(where: { $0.key == "resultCode" }) {
            members.insert(.init(key: "info", value: .string(info)), at: position + 1)
        }
        return Reply(json: SDLJSONValue.object(members).jsonBytes, isDeferred: isDeferred)
    }
}

/// Strict decoding as a `Result`, so a switch can take both ways.
enum SDLJSONDecoding {
    static func decode<T: SDLCodable>(_ type: T.Type, from json: [UInt8]) -> Result<T, SDLDecodingError> {
        do {
            return .success(try SDLJSON.decode(T.self, from: json).value)
        } catch {
            return .failure(error)
        }
    }
}
