import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// One SDL session over a transport, on the app's side: negotiates the protocol version, starts
/// and ends services, answers and sends heartbeats, splits and joins frames, and hands RPC
/// messages to its client.
///
/// A session has one run loop, `run(onRPC:onClose:)`, which owns the transport: it reads, keeps
/// the heartbeat and every control deadline on one timer, and returns when the session ends.
/// `SDLRPCClient.run()` runs it; most code never calls it directly. A session lives once:
/// `idle → starting → connected → closing → closed`, and misuse (running twice, sending before
/// `start()` or after the end) throws `SDLSessionError` instead of hanging.
public actor SDLProtocolSession {
    /// Settings of a session: protocol version, heartbeat, timeouts, encryption and size limits.
    public struct Configuration: Sendable {
        /// The highest protocol version the app speaks; 5.x gets BSON control payloads.
        public var protocolVersion = SDLProtocolVersion.latest
        /// Send a heartbeat when nothing was received for this long (nil: only answer them).
        /// Heartbeats exist from protocol 3.
        public var heartbeatInterval: Duration?
        /// Give up when a heartbeat goes unanswered this long (SDL Core waits 7 s).
        public var heartbeatTimeout: Duration = .seconds(7)
        /// How long StartService, EndService and other control exchanges wait for the head unit's
        /// answer before failing.
        public var controlTimeout: Duration = .seconds(10)
        /// Encrypts and decrypts protected frames; without one, encrypted services and RPCs are
        /// unavailable.
        public var security: (any SDLSecurityProvider)?
        /// The largest frame payload accepted from the head unit (1 MiB by default); a frame
        /// claiming more is refused before it is buffered.
        public var maxFrameDataSize = SDLFrameDecoder.defaultMaxDataSize
        /// The largest message assembled from several frames (64 MiB by default).
        public var maxMessageSize = SDLReassembler.defaultMaxMessageSize
        /// Audio/video messages kept per `media(for:)` reader that falls behind; older ones are
        /// dropped. Media for a service nobody reads is dropped at once.
        public var mediaBufferLimit = 64
        /// Time for heartbeats and control deadlines; tests inject a clock they advance.
        public var clock = SDLClock.continuous
        /// Where the session logs (swift-log).
        public var logger = Logger(label: "SmartDeviceLink.session")

        /// The default settings: latest protocol version, SDL Core's 7 s heartbeat timeout, no
        /// encryption.
        public init() {}
    }

    /// The settings the session was created with.
    public let configuration: Configuration
    private let transport: any SDLTransport
    private let logger: Logger
    private var decoder: SDLFrameDecoder
    private var reassembler: SDLReassembler
    private var nextMessageID: UInt32 = 1

    // MARK: State

    private enum Lifecycle {
        case idle
        case starting
        case started(SDLNegotiatedSession)
        case closing(SDLNegotiatedSession)
        case closed(SDLCloseReason)
    }

    private enum RunPhase {
        case notRun, running, finished
    }

    private var lifecycle = Lifecycle.idle
    private var runPhase = RunPhase.notRun
    private var startWaiters: [CheckedContinuation<SDLNegotiatedSession, any Error>] = []
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Set when the head unit told the app why it is going (OnAppInterfaceUnregistered), so the
    /// close that follows carries that reason rather than "transport closed".
    private var announcedCloseReason: SDLCloseReason?
    private var onRPC: (@Sendable (SDLIncomingRPC) async -> Void)?
    private var onClose: (@Sendable (SDLCloseReason) async -> Void)?

    private let states: StreamFanOut<SDLConnectionState>
    private var mediaReaders: [SDLServiceType: StreamFanOut<SDLProtocolMessage>] = [:]
    private let endedServices = StreamFanOut<SDLServiceType>(bufferLimit: 8)
    /// Audio and video services started and not ended (by either side): what
    /// `sendStreamedMedia` may send on.
    private var runningMediaServices: Set<SDLServiceType> = []

    // MARK: Control exchanges and timers

    private struct ControlKey: Hashable, Sendable {
        var service: SDLServiceType
        var request: SDLControlFrameType
    }

    private enum TimerKey: Hashable, Sendable {
        case heartbeat
        case control(ControlKey)
    }

    private var pendingControl: [ControlKey: PendingReply<SDLProtocolMessage>] = [:]
    private var timers = SDLDeadlineSchedule<TimerKey>()
    private var timerWake: AsyncStream<Void>.Continuation?
    /// Whether the timer loop runs: only while a deadline is set, so an idle session keeps no
    /// task for it.
    private var timerLoopRunning = false
    /// The run's owner's scope, where the transport's `run()` and the timer loop go; nil outside the run.
    private var tasks: TaskScope?
    private var timerTarget: Duration?
    private var lastReceived: Duration = .zero
    /// When the unanswered heartbeat was sent.
    private var heartbeatSentAt: Duration?

    // MARK: Security

    /// The session's TLS endpoint: the configuration's, or one set once the head unit's make is
    /// known (`setSecurity(_:)`).
    private var security: (any SDLSecurityProvider)?
    /// Services started with the encryption bit that the head unit acknowledged with it.
    public private(set) var protectedServices: Set<SDLServiceType> = []
    /// The last security failure: an internal error from the head unit or our handshake's.
    private var securityFailure: SDLSecurityError?
    /// A protected start of the RPC service is waiting: an EndService(RPC) from the head unit
    /// then ends the protection attempt (SDL Core's answer to a refused certificate), not the session.
    private var protectingRPC = false

    /// A session over `transport`, not started yet: `SDLRPCClient` starts and runs it.
    public init(transport: any SDLTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        self.logger = configuration.logger
        self.decoder = SDLFrameDecoder(maxDataSize: configuration.maxFrameDataSize)
        self.reassembler = SDLReassembler(maxMessageSize: configuration.maxMessageSize)
        self.states = StreamFanOut(bufferLimit: 16, replaysLatest: true, initial: .idle)
        self.security = configuration.security
    }

    /// Sets the security provider before any protected service starts: the manager picks the one
    /// for the head unit's make after registration. Ignored once a service is protected.
    public func setSecurity(_ provider: any SDLSecurityProvider) {
        guard protectedServices.isEmpty else { return }
        security = provider
    }

    /// Whether a security provider is set (protected services can be asked for).
    public var hasSecurity: Bool { security != nil }

    /// The negotiated session once started (also while closing).
    public var session: SDLNegotiatedSession? {
        switch lifecycle {
        case .started(let session), .closing(let session): session
        default: nil
        }
    }

    /// The current state.
    public nonisolated var connectionState: SDLConnectionState { states.latest ?? .idle }

    /// Every state change from now on, starting with the current state; ends after `closed`.
    /// Keeps the latest 16 changes for a slow reader (it always sees the final `closed`).
    public nonisolated func connectionStates() -> AsyncStream<SDLConnectionState> {
        states.subscribe()
    }

    /// Messages the head unit sends on `service` (audio or video). A reader that falls behind
    /// loses the oldest beyond `mediaBufferLimit`; media for a service nobody reads is dropped.
    public func media(for service: SDLServiceType) -> AsyncStream<SDLProtocolMessage> {
        if let readers = mediaReaders[service] { return readers.subscribe() }
        let readers = StreamFanOut<SDLProtocolMessage>(bufferLimit: configuration.mediaBufferLimit)
        if case .closed = lifecycle { readers.finish() }
        mediaReaders[service] = readers
        return readers.subscribe()
    }

    /// Audio and video services the head unit ends (EndService from its side, acknowledged by
    /// the session), from now on; ends with the session.
    public nonisolated func servicesEndedByHeadUnit() -> AsyncStream<SDLServiceType> {
        endedServices.subscribe()
    }

    // MARK: The run loop

    /// Reads the transport, answers heartbeats, sends them when configured, and enforces control
    /// deadlines until the session ends. Returns when the app closed it; throws
    /// `SDLSessionError.closed(reason)` for any other end, `.alreadyRunning` on a second call.
    /// Cancelling the calling task closes the session (without EndService).
    ///
    /// - Parameters:
    ///   - onRPC: every RPC message from the head unit, in arrival order; reading waits while
    ///     it runs, so the head unit is slowed rather than messages buffered without bound.
    ///   - onClose: called once when the session ends, before the transport closes.
    public func run(
        onRPC: @escaping @Sendable (SDLIncomingRPC) async -> Void,
        onClose: @escaping @Sendable (SDLCloseReason) async -> Void = { _ in }
    ) async throws {
        try await TaskScope.withScope { tasks in try await self.run(onRPC: onRPC, onClose: onClose, tasks: tasks) }
    }

    /// The run loop reading on the calling task, with the transport's `run()` and the timer loop
    /// (only while a timer is set) as work of `tasks`, the owner's scope: an idle session keeps
    /// no task of its own beyond the caller's (a server holds thousands of them).
    func run(
        onRPC: @escaping @Sendable (SDLIncomingRPC) async -> Void,
        onClose: @escaping @Sendable (SDLCloseReason) async -> Void, tasks: TaskScope
    ) async throws {
        guard case .notRun = runPhase else { throw SDLSessionError.alreadyRunning }
        runPhase = .running
        self.onRPC = onRPC
        self.onClose = onClose
        if isClosed {
            runPhase = .finished
        } else {
            self.tasks = tasks
            let transport = self.transport
            tasks.spawn { await transport.run() }
            // Deadlines set before the run (a `start()` that came first).
            startTimerLoopIfNeeded()
            await readLoop()
            self.tasks = nil
            runPhase = .finished
        }
        try throwUnlessClosedByApp()
    }

    // Long-lived async functions (the run and read loops) keep their frame for the whole
    // session, and Swift puts a function's temporaries in its frame: matching the lifecycle,
    // mapping errors and logging go in synchronous helpers that are never inlined, so their
    // temporaries stay on the thread's stack (`run`'s frame: 1.7 KB → 0.2 KB).

    @inline(never)
    private func throwUnlessClosedByApp() throws {
        guard case .closed(let reason) = lifecycle else { return }
        if reason != .closedByApp { throw SDLSessionError.closed(reason) }
    }

    private func readLoop() async {
        let reason: SDLCloseReason
        do {
            for try await chunk in transport.inbound {
                // On a task of its own, in order: handling a message goes deep, and a task keeps
                // the memory of its deepest call while this one lives as long as the session.
                try await onOwnTask { try await self.receive(chunk) }
                if isClosed { return }
            }
            reason = inputEndedReason()
        } catch {
            reason = closeReason(for: error)
        }
        await shutDown(reason)
    }

    /// Why the session ends when the transport has nothing more to read.
    @inline(never)
    private func inputEndedReason() -> SDLCloseReason {
        Task.isCancelled ? .closedByApp : (announcedCloseReason ?? .transportClosed)
    }

    /// Why the session ends when reading failed with `error`.
    @inline(never)
    private func closeReason(for error: any Error) -> SDLCloseReason {
        switch error {
        case let error as SDLProtocolError: .protocolViolation(error)
        case let error as SDLTransportError: announcedCloseReason ?? .transportFailed(error)
        case is CancellationError: .closedByApp
        default: announcedCloseReason ?? .transportFailed(.io("\(error)"))
        }
    }

    /// Fires deadlines until none is set; `schedule` starts it again.
    private func timerLoop() async {
        while !isClosed, !Task.isCancelled, let target = timers.earliest() {
            let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            timerWake = wake
            timerTarget = target
            await configuration.clock.sleep(until: target, interruptedBy: signal)
            timerWake = nil
            timerTarget = nil
            guard !isClosed else { break }
            for key in timers.popExpired(now: configuration.clock.now) {
                switch key {
                case .heartbeat: await heartbeatDue()
                case .control(let control):
                    let timeout = SDLSessionError.controlTimeout(control.request, service: control.service)
                    if pendingControl[control]?.complete(.failure(timeout)) == true { pendingControl[control] = nil }
                }
            }
        }
        timerLoopRunning = false
        // The owner's scope ended under a live session (the run's task was cancelled).
        if Task.isCancelled { await shutDown(.closedByApp) }
    }

    private func startTimerLoopIfNeeded() {
        guard !timerLoopRunning, !isClosed, let tasks, !timers.isEmpty else { return }
        timerLoopRunning = tasks.spawn { await self.timerLoop() }
    }

    private func schedule(_ key: TimerKey, after delay: Duration) {
        let deadline = configuration.clock.now + delay
        timers.schedule(key, at: deadline)
        if !timerLoopRunning {
            startTimerLoopIfNeeded()
        } else if let wake = timerWake, timerTarget.map({ deadline < $0 }) ?? true {
            // Wake the timer loop only when it sleeps past the new deadline.
            wake.yield()
        }
    }

    /// Never inlined: matching the lifecycle would put a copy of it in the frames of the run
    /// and read loops, which last as long as the session.
    private var isClosed: Bool {
        @inline(never) get {
            if case .closed = lifecycle { return true }
            return false
        }
    }

    // MARK: Starting and ending

    /// Starts the RPC service and negotiates the version: the lower of the app's and the head
    /// unit's, which every later frame header carries. Concurrent calls share one negotiation;
    /// after success it returns the session at once. The run loop must be running (or start
    /// soon) for the head unit's answer to be read.
    @discardableResult
    public func start() async throws -> SDLNegotiatedSession {
        switch lifecycle {
        case .started(let session): return session
        case .starting: return try await withCheckedThrowingContinuation { startWaiters.append($0) }
        case .closing: throw SDLSessionError.closed(.closedByApp)
        case .closed(let reason): throw SDLSessionError.closed(reason)
        case .idle: break
        }
        try Task.checkCancellation()
        lifecycle = .starting
        states.yield(.starting)
        do {
            let negotiated = try await negotiate()
            guard case .starting = lifecycle else { throw SDLSessionError.closed(closeReason ?? .closedByApp) }
            lifecycle = .started(negotiated)
            // The session ID goes in this line only: a logger with metadata of its own would be
            // one more copy of the handler and its metadata for every session a server holds.
            logger.debug("session started", metadata: ["sessionID": "\(negotiated.sessionID)", "protocol": "\(negotiated.protocolVersion)", "mtu": "\(negotiated.mtu)"])
            states.yield(.connected(negotiated))
            for waiter in startWaiters { waiter.resume(returning: negotiated) }
            startWaiters.removeAll()
            if negotiated.majorVersion >= 3, let interval = configuration.heartbeatInterval {
                lastReceived = configuration.clock.now
                schedule(.heartbeat, after: interval)
            }
            return negotiated
        } catch {
            for waiter in startWaiters { waiter.resume(throwing: error) }
            startWaiters.removeAll()
            await shutDown(Self.closeReason(forStartFailure: error))
            throw error
        }
    }

    private static func closeReason(forStartFailure error: any Error) -> SDLCloseReason {
        switch error as? SDLSessionError {
        case .startRejected(_, let params, let reason)?: .startRejected(reason: reason, rejectedParams: params)
        case .protocolViolation(let violation)?: .protocolViolation(violation)
        case .controlTimeout?: .startTimedOut
        case .closed(let reason)?: reason
        default: .closedByApp
        }
    }

    private var closeReason: SDLCloseReason? {
        if case .closed(let reason) = lifecycle { return reason }
        return nil
    }

    private func negotiate() async throws -> SDLNegotiatedSession {
        let offered = configuration.protocolVersion
        var payload: [UInt8] = []
        if offered.hasControlPayloads {
            var request = SDLControlPayload()
            request.protocolVersion = offered.description
            payload = request.bytes
        }
        // The first frame always has a version-1 header and session 0.
        let reply = try await control(.startService, service: .rpc, version: 1, sessionID: 0, payload: payload)
        if reply.controlFrameType == .startServiceNAK {
            let details = try? SDLControlPayload(decoding: reply.payload)
            throw SDLSessionError.startRejected(service: .rpc, rejectedParams: details?.rejectedParams ?? [], reason: details?.reason)
        }
        guard (1...5).contains(reply.version) else { throw SDLSessionError.protocolViolation(.unsupportedVersion(reply.version)) }
        if reply.version >= 5 && offered.hasControlPayloads {
            let details = try decodeControl(reply.payload)
            var version = SDLProtocolVersion(reply.version)
            if let text = details.protocolVersion {
                if let parsed = SDLProtocolVersion(text) {
                    version = parsed
                } else {
                    logger.warning("StartServiceACK protocolVersion is not a version; using the header's", metadata: ["protocolVersion": "\(text)"])
                }
            }
            version = min(version, offered)
            var mtu = version.defaultMTU
            if let offeredMTU = details.mtu {
                guard SDLFramer.acceptedMTURange.contains(offeredMTU) else {
                    throw SDLSessionError.protocolViolation(.invalidMTU(offeredMTU))
                }
                mtu = Int(offeredMTU)
            }
            return SDLNegotiatedSession(
                protocolVersion: version, sessionID: reply.sessionID, hashID: details.hashID, mtu: mtu, details: details)
        }
        let version = SDLProtocolVersion(min(offered.major, reply.version))
        let hash = SDLControlPayload.legacyHash(from: reply.payload)
        return SDLNegotiatedSession(protocolVersion: version, sessionID: reply.sessionID, hashID: hash, mtu: version.defaultMTU, details: nil)
    }

    /// Starts another service (audio, video) in plain text with its parameters; returns the
    /// ACK's payload. `startProtectedService(_:parameters:)` starts one encrypted.
    @discardableResult
    public func startService(_ service: SDLServiceType, parameters: SDLControlPayload = SDLControlPayload()) async throws -> SDLControlPayload {
        let negotiated = try requireStarted()
        try Task.checkCancellation()
        let (reply, details) = try await requestStart(service, parameters: parameters, negotiated: negotiated, encrypted: false)
        guard reply.controlFrameType == .startServiceACK else {
            throw SDLSessionError.startRejected(service: service, rejectedParams: details.rejectedParams ?? [], reason: details.reason)
        }
        if service != .rpc { runningMediaServices.insert(service) }
        return details
    }

    /// Starts `service` protected (StartService with the encryption bit): the head unit runs the
    /// TLS handshake through security queries, which the session answers with its security
    /// provider, then acknowledges. An ACK without the bit means the head unit fell back to plain
    /// text (`isEncrypted` false); a NAK throws `protectionFailed` with the head unit's reason and
    /// the security error it sent. The RPC service is upgraded this way after registration.
    public func startProtectedService(_ service: SDLServiceType, parameters: SDLControlPayload = SDLControlPayload()) async throws -> SDLServiceProtection {
        let negotiated = try requireStarted()
        guard security != nil else { throw SDLSessionError.encryptionUnavailable }
        if protectedServices.contains(service) { return SDLServiceProtection(parameters: SDLControlPayload(), isEncrypted: true) }
        securityFailure = nil
        // Until a handshake has completed, each protected start meets a new one: after a refusal
        // the head unit starts over with a ClientHello that old TLS state would not take.
        if protectedServices.isEmpty { await security?.resetHandshake() }
        if service == .rpc { protectingRPC = true }
        defer { if service == .rpc { protectingRPC = false } }
        let (reply, details) = try await requestStart(service, parameters: parameters, negotiated: negotiated, encrypted: true)
        guard reply.controlFrameType == .startServiceACK else {
            throw SDLSessionError.protectionFailed(service: service, reason: details.reason, security: securityFailure)
        }
        if service != .rpc { runningMediaServices.insert(service) }
        guard reply.isEncrypted else {
            logger.warning(
                "the head unit started the service without encryption", metadata: ["service": "\(service)", "security": "\(securityFailure.map(\.description) ?? "-")"])
            return SDLServiceProtection(parameters: details, isEncrypted: false, securityFailure: securityFailure)
        }
        protectedServices.insert(service)
        return SDLServiceProtection(parameters: details, isEncrypted: true)
    }

    /// StartService and its answer (ACK or NAK) with the answer's control payload decoded.
    private func requestStart(
        _ service: SDLServiceType, parameters: SDLControlPayload, negotiated: SDLNegotiatedSession, encrypted: Bool
    ) async throws -> (reply: SDLProtocolMessage, details: SDLControlPayload) {
        let payload = negotiated.protocolVersion.hasControlPayloads && !parameters.document.isEmpty ? parameters.bytes : []
        let reply = try await control(.startService, service: service, payload: payload, encrypted: encrypted)
        let details = negotiated.protocolVersion.hasControlPayloads && !reply.payload.isEmpty ? try decodeControl(reply.payload) : SDLControlPayload()
        return (reply, details)
    }

    /// Ends one service; ending the RPC service ends the whole session (use `close()`).
    public func endService(_ service: SDLServiceType) async throws {
        let negotiated = try requireStarted(allowClosing: service == .rpc)
        // Nothing more goes out on it from now, whatever the head unit answers.
        runningMediaServices.remove(service)
        var payload: [UInt8] = []
        if service == .rpc, let hash = negotiated.hashID {
            if negotiated.protocolVersion.hasControlPayloads {
                var parameters = SDLControlPayload()
                parameters.hashID = hash
                payload = parameters.bytes
            } else {
                payload = SDLControlPayload.legacyHashBytes(hash)
            }
        }
        let reply = try await control(.endService, service: service, payload: payload)
        guard reply.controlFrameType == .endServiceACK else {
            let details = try? SDLControlPayload(decoding: reply.payload)
            throw SDLSessionError.endRejected(service: service, reason: details?.reason)
        }
    }

    /// Ends the RPC service politely when the run loop is there to hear the answer, then closes
    /// the transport. Returns once the session is closed.
    public func close() async {
        switch lifecycle {
        case .closed:
            return
        case .closing:
            await withCheckedContinuation { closeWaiters.append($0) }
            return
        case .started(let negotiated):
            lifecycle = .closing(negotiated)
            states.yield(.closing)
            if case .running = runPhase {
                do {
                    try await endService(.rpc)
                } catch {
                    logger.debug("EndService was not acknowledged", metadata: ["error": "\(error)"])
                }
            }
        case .idle, .starting:
            break
        }
        await shutDown(.closedByApp)
    }

    /// Records why the head unit is about to end the session (OnAppInterfaceUnregistered), so
    /// the close that follows reports it.
    public func headUnitUnregistered(_ reason: AppInterfaceUnregisteredReason) {
        if announcedCloseReason == nil { announcedCloseReason = .unregistered(reason) }
    }

    private func requireStarted(allowClosing: Bool = false) throws -> SDLNegotiatedSession {
        switch lifecycle {
        case .started(let negotiated): return negotiated
        case .closing(let negotiated) where allowClosing: return negotiated
        case .closing: throw SDLSessionError.closed(.closedByApp)
        case .closed(let reason): throw SDLSessionError.closed(reason)
        case .idle, .starting: throw SDLSessionError.notStarted
        }
    }

    // MARK: Sending

    /// Sends an RPC message on the RPC service, or on the hybrid service when it carries bulk
    /// data. Messages from one task reach the wire in call order.
    public func send(_ rpc: SDLRPCPayload, service: SDLServiceType? = nil, encrypted: Bool = false) async throws {
        let negotiated = try requireStarted()
        let serviceType = service ?? (rpc.bulkData.isEmpty ? .rpc : .hybrid)
        if negotiated.majorVersion >= 2, !encrypted, rpc.encodedSize <= negotiated.mtu {
            // One frame, built in one buffer: a PutFile chunk is copied once on its way out.
            let header = SDLFrameHeader(
                version: negotiated.majorVersion, frameType: .single, serviceType: serviceType, sessionID: negotiated.sessionID,
                dataSize: UInt32(truncatingIfNeeded: rpc.encodedSize), messageID: takeMessageID())
            var bytes: [UInt8] = []
            bytes.reserveCapacity(header.size + rpc.encodedSize)
            header.append(to: &bytes)
            rpc.append(to: &bytes)
            try await write(bytes)
            return
        }
        let payload: [UInt8]
        if negotiated.majorVersion == 1 {
            do {
                payload = try SDLProtocolOneEnvelope.encode(rpc, functions: mobileAPIFunctions)
            } catch {
                throw SDLSessionError.protocolViolation(error)
            }
        } else {
            payload = rpc.bytes
        }
        try await sendMessage(payload, negotiated: negotiated, service: serviceType, encrypted: encrypted)
    }

    /// Raw media for a started audio or video service.
    public func sendMedia(_ bytes: [UInt8], service: SDLServiceType, encrypted: Bool = false) async throws {
        let negotiated = try requireStarted()
        try await sendMessage(bytes, negotiated: negotiated, service: service, encrypted: encrypted)
    }

    /// Several media messages for a service this session started and neither side has ended,
    /// in order, in one write (a streaming manager that fell behind catches up without a round
    /// trip through the transport per frame). Throws `serviceNotRunning` otherwise, sending
    /// nothing: SDL Core unregisters an app that streams on a service that is not running.
    public func sendStreamedMedia(messages: [[UInt8]], service: SDLServiceType, encrypted: Bool = false) async throws {
        let negotiated = try requireStarted()
        guard runningMediaServices.contains(service) else { throw SDLSessionError.serviceNotRunning(service) }
        guard !encrypted else {
            for message in messages { try await sendMessage(message, negotiated: negotiated, service: service, encrypted: true) }
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(messages.reduce(0) { $0 + $1.count + 12 * (1 + $1.count / max(1, negotiated.mtu)) } + 12)
        for payload in messages {
            let message = SDLProtocolMessage(
                version: negotiated.majorVersion, serviceType: service, sessionID: negotiated.sessionID,
                messageID: takeMessageID(), isEncrypted: false, payload: payload)
            SDLFramer.encode(message, maxPayloadSize: negotiated.mtu, into: &bytes)
        }
        try await write(bytes)
    }

    private func sendMessage(_ payload: [UInt8], negotiated: SDLNegotiatedSession, service: SDLServiceType, encrypted: Bool) async throws {
        if encrypted && security == nil { throw SDLSessionError.encryptionUnavailable }
        let message = SDLProtocolMessage(
            version: negotiated.majorVersion, serviceType: service, sessionID: negotiated.sessionID,
            messageID: takeMessageID(), isEncrypted: encrypted, payload: payload)
        var bytes: [UInt8] = []
        if encrypted, let security {
            for frame in try await SDLFramer.protectedFrames(for: message, maxPayloadSize: negotiated.mtu, security: security) { frame.append(to: &bytes) }
        } else {
            SDLFramer.encode(message, maxPayloadSize: negotiated.mtu, into: &bytes)
        }
        try await write(bytes)
    }

    private func takeMessageID() -> UInt32 {
        defer { nextMessageID = nextMessageID == UInt32.max ? 1 : nextMessageID + 1 }
        return nextMessageID
    }

    private func write(_ bytes: [UInt8]) async throws {
        do {
            try await transport.send(bytes)
        } catch is CancellationError {
            // The caller gave up waiting for room; none of the bytes went out, the connection is fine.
            throw CancellationError()
        } catch {
            let reason = announcedCloseReason ?? .transportFailed(error as? SDLTransportError ?? .io("\(error)"))
            await shutDown(reason)
            throw SDLSessionError.closed(closeReason ?? reason)
        }
    }

    // MARK: Control exchanges

    private func control(
        _ opcode: SDLControlFrameType, service: SDLServiceType, version: UInt8? = nil, sessionID: UInt8? = nil,
        payload: [UInt8], encrypted: Bool = false
    ) async throws -> SDLProtocolMessage {
        if let closeReason { throw SDLSessionError.closed(closeReason) }
        let key = ControlKey(service: service, request: opcode)
        guard pendingControl[key] == nil else { throw SDLSessionError.serviceBusy(service) }
        let negotiated = session
        let frame = SDLFrame(
            header: SDLFrameHeader(
                version: version ?? negotiated?.majorVersion ?? 1, isEncrypted: encrypted, frameType: .control,
                serviceType: service, frameInfo: opcode.rawValue, sessionID: sessionID ?? negotiated?.sessionID ?? 0,
                messageID: takeMessageID()),
            payload: payload)
        // Registered before writing, so an answer that beats the write's return is not lost.
        pendingControl[key] = PendingReply()
        schedule(.control(key), after: configuration.controlTimeout)
        defer { timers.cancel(.control(key)) }
        try await write(frame.bytes)
        return try await withCheckedThrowingContinuation { continuation in
            if pendingControl[key] == nil {
                continuation.resume(throwing: SDLSessionError.closed(closeReason ?? .closedByApp))
            } else if pendingControl[key]!.wait(continuation) {
                pendingControl[key] = nil
            }
        }
    }

    private func answerControl(_ key: ControlKey, with message: SDLProtocolMessage) {
        guard var pending = pendingControl[key] else {
            logger.debug("unexpected control frame", metadata: ["opcode": "\(message.controlFrameType.map(\.description) ?? "?")", "service": "\(key.service)"])
            return
        }
        if pending.complete(.success(message)) {
            pendingControl[key] = nil
        } else {
            pendingControl[key] = pending
        }
    }

    private func decodeControl(_ bytes: [UInt8]) throws -> SDLControlPayload {
        do {
            return try SDLControlPayload(decoding: bytes)
        } catch {
            throw SDLSessionError.protocolViolation(error)
        }
    }

    // MARK: Receiving

    private func receive(_ chunk: [UInt8]) async throws {
        lastReceived = configuration.clock.now
        if heartbeatSentAt != nil, let interval = configuration.heartbeatInterval {
            heartbeatSentAt = nil
            schedule(.heartbeat, after: interval)
        }
        decoder.append(chunk)
        while var frame = try decoder.nextFrame() {
            if let negotiated = session, frame.header.sessionID != negotiated.sessionID {
                logger.warning(
                    "ignored a frame for another session",
                    metadata: ["frameSession": "\(frame.header.sessionID)", "service": "\(frame.header.serviceType)"])
                continue
            }
            // Control frames on service 0 are never encrypted; others are decrypted before joining.
            if frame.header.isEncrypted, !frame.payload.isEmpty, frame.header.serviceType != .control,
               frame.header.frameType != .first, let security = self.security
            {
                let header = frame.header
                frame = SDLFrame(header: header, payload: try await security.decrypt(frame.payload))
            }
            if let message = try reassembler.receive(frame) {
                try await handle(message)
            }
            if isClosed { return }
        }
    }

    private func handle(_ message: SDLProtocolMessage) async throws {
        if let opcode = message.controlFrameType {
            switch opcode {
            case .heartbeat:
                let ack = SDLFrame(header: SDLFrameHeader(
                    version: message.version, frameType: .control, serviceType: .control,
                    frameInfo: SDLControlFrameType.heartbeatACK.rawValue, sessionID: message.sessionID, messageID: message.messageID))
                try? await write(ack.bytes)
            case .startServiceACK, .startServiceNAK:
                answerControl(ControlKey(service: message.serviceType, request: .startService), with: message)
            case .endServiceACK, .endServiceNAK:
                answerControl(ControlKey(service: message.serviceType, request: .endService), with: message)
            case .endService where message.serviceType == .rpc && protectingRPC:
                // SDL Core ends the protected RPC service it refused (then NAKs the start): the
                // plain one goes on.
                let ack = SDLFrame(header: SDLFrameHeader(
                    version: message.version, frameType: .control, serviceType: .rpc,
                    frameInfo: SDLControlFrameType.endServiceACK.rawValue, sessionID: message.sessionID, messageID: message.messageID))
                try? await write(ack.bytes)
            case .endService where message.serviceType == .rpc:
                // The reason holds even if the head unit hangs up before our ACK is written.
                if announcedCloseReason == nil { announcedCloseReason = .endedByHeadUnit }
                let ack = SDLFrame(header: SDLFrameHeader(
                    version: message.version, frameType: .control, serviceType: .rpc,
                    frameInfo: SDLControlFrameType.endServiceACK.rawValue, sessionID: message.sessionID, messageID: message.messageID))
                try? await write(ack.bytes)
                await shutDown(announcedCloseReason ?? .endedByHeadUnit)
            case .endService:
                // The head unit stops a media service: acknowledge, the session goes on. The
                // service is closed to streamed media before the ACK is written, so no frame
                // the manager has not yet heard of follows it (SDL Core would unregister the app).
                runningMediaServices.remove(message.serviceType)
                protectedServices.remove(message.serviceType)
                let ack = SDLFrame(header: SDLFrameHeader(
                    version: message.version, frameType: .control, serviceType: message.serviceType,
                    frameInfo: SDLControlFrameType.endServiceACK.rawValue, sessionID: message.sessionID, messageID: message.messageID))
                try? await write(ack.bytes)
                endedServices.yield(message.serviceType)
            default:
                break  // HeartbeatACK (lastReceived already updated), TransportEventUpdate, legacy ServiceDataACK
            }
            return
        }
        switch message.serviceType {
        case .rpc, .hybrid:
            let rpc: SDLRPCPayload
            if message.version == 1 {
                rpc = try SDLProtocolOneEnvelope.decode(message.payload, functions: mobileAPIFunctions)
            } else {
                rpc = try SDLRPCPayload(decoding: message.payload)
            }
            await onRPC?(SDLIncomingRPC(payload: rpc, serviceType: message.serviceType, isEncrypted: message.isEncrypted))
        case .control:
            // A single frame on the control service is a security query (the TLS handshake).
            await receivedSecurityQuery(message.payload)
        default:
            if let readers = mediaReaders[message.serviceType], readers.subscriberCount > 0 {
                if readers.yield(message) > 0 {
                    logger.debug("a media reader fell behind; dropped its oldest message", metadata: ["service": "\(message.serviceType)"])
                }
            }
        }
    }

    // MARK: Security queries

    /// The head unit's handshake bytes go to the security provider, whose answer goes back with
    /// the same sequence number; an internal error is kept for the start it fails.
    private func receivedSecurityQuery(_ bytes: [UInt8]) async {
        let query: SDLSecurityQuery
        do {
            query = try SDLSecurityQuery(decoding: bytes)
        } catch {
            logger.warning("a malformed security query", metadata: ["error": "\(error)"])
            await sendSecurityQuery(.internalError(.invalidQuerySize, text: error.description))
            return
        }
        switch query.id {
        case .sendHandshakeData:
            guard let security = self.security else {
                await sendSecurityQuery(.internalError(.notSupported, text: "the app has no security provider", sequenceNumber: query.sequenceNumber))
                return
            }
            do {
                let step = try await security.continueHandshake(with: query.binary)
                if !step.outgoing.isEmpty {
                    await sendSecurityQuery(.handshake(step.outgoing, type: .response, sequenceNumber: query.sequenceNumber))
                }
            } catch {
                securityFailure = error
                logger.warning("the TLS handshake failed", metadata: ["error": "\(error)"])
                await sendSecurityQuery(.internalError(error.code, text: error.message, sequenceNumber: query.sequenceNumber))
            }
        case .sendInternalError:
            let text = (try? SDLJSONValue(parsing: query.json))?["text"].flatMap { if case .string(let text) = $0 { text } else { nil } }
            let failure = SDLSecurityError(query.errorCode ?? .internalError, text ?? "no text")
            securityFailure = failure
            logger.warning("the head unit reported a security error", metadata: ["error": "\(failure)"])
        default:
            await sendSecurityQuery(.internalError(.invalidQueryID, text: "unknown \(query.id)", sequenceNumber: query.sequenceNumber))
        }
    }

    private func sendSecurityQuery(_ query: SDLSecurityQuery) async {
        guard let negotiated = session else { return }
        do {
            try await sendMessage(query.encoded, negotiated: negotiated, service: .control, encrypted: false)
        } catch {
            logger.debug("a security query was not sent", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Heartbeat and shutdown

    /// Sends a heartbeat after `heartbeatInterval` without traffic; any traffic answers it, and
    /// `heartbeatTimeout` without any ends the session.
    private func heartbeatDue() async {
        guard let interval = configuration.heartbeatInterval, let negotiated = session else { return }
        let now = configuration.clock.now
        let timeout = configuration.heartbeatTimeout
        if let sentAt = heartbeatSentAt {
            if now - sentAt >= timeout {
                await shutDown(.heartbeatTimeout)
            } else {
                schedule(.heartbeat, after: sentAt + timeout - now)
            }
            return
        }
        guard now - lastReceived >= interval else {
            schedule(.heartbeat, after: lastReceived + interval - now)
            return
        }
        heartbeatSentAt = now
        schedule(.heartbeat, after: timeout)
        let frame = SDLFrame(header: SDLFrameHeader(
            version: negotiated.majorVersion, frameType: .control, serviceType: .control,
            frameInfo: SDLControlFrameType.heartbeat.rawValue, sessionID: negotiated.sessionID, messageID: takeMessageID()))
        try? await write(frame.bytes)
    }

    private func shutDown(_ reason: SDLCloseReason) async {
        var reason = reason
        switch lifecycle {
        case .closed: return
        // The app is closing: the head unit hanging up in answer is part of that.
        case .closing: reason = .closedByApp
        default: break
        }
        lifecycle = .closed(reason)
        logger.debug("session closed", metadata: ["reason": "\(reason)"])
        let failure = SDLSessionError.closed(reason)
        for waiter in startWaiters { waiter.resume(throwing: failure) }
        startWaiters.removeAll()
        for pending in pendingControl.values { pending.fail(failure) }
        pendingControl.removeAll()
        timerWake?.finish()
        for readers in mediaReaders.values { readers.finish() }
        endedServices.finish()
        states.finish(with: .closed(reason))
        for waiter in closeWaiters { waiter.resume() }
        closeWaiters.removeAll()
        await onClose?(reason)
        // Both hold the session's owner (the RPC client): kept, they would keep each other.
        onRPC = nil
        onClose = nil
        await transport.close()
    }
}
