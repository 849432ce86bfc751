import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// One SDL session over a transport, on the app's side: drives the app's end of
/// `SDLSessionStateMachine` (version negotiation, services, heartbeats, frames, the security
/// handshake) and hands RPC messages to its client.
///
/// A session has one run loop, `run(onRPC:onClose:)`, which owns the transport: it reads, keeps
/// the heartbeat and every control deadline on one timer, and returns when the session ends.
/// `SDLRPCClient.run()` runs it; most code never calls it directly. A session lives once:
/// `idle → starting → connected → closing → closed`, and misuse (running twice, sending before
/// `start()` or after the end) throws `SDLSessionError` instead of hanging.
public actor SDLProtocolSession {
    /// The settings the session was created with.
    public let configuration: Configuration
    private let transport: any SDLTransport
    private let logger: Logger
    /// The protocol's rules and state; every transition happens before its actions run.
    private var machine: SDLSessionStateMachine
    private typealias Exchange = SDLSessionStateMachine.Exchange

    private enum RunPhase { case notRun, running, finished }
    private var runPhase = RunPhase.notRun
    /// Set once, when the session ends.
    private var closeReason: SDLCloseReason?
    /// `close()` was called: the head unit hanging up in answer is part of that.
    private var closingByApp = false
    private var startWaiters: [CheckedContinuation<SDLNegotiatedSession, any Error>] = []
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Why the head unit is going (OnAppInterfaceUnregistered), so the close that follows
    /// carries that reason rather than "transport closed".
    private var announcedCloseReason: SDLCloseReason?
    private var onRPC: (@Sendable (SDLIncomingRPC) async -> Void)?
    private var onClose: (@Sendable (SDLCloseReason) async -> Void)?

    private let states: StreamFanOut<SDLConnectionState>
    private var mediaReaders: [SDLServiceType: StreamFanOut<SDLProtocolMessage>] = [:]
    private let endedServices = StreamFanOut<SDLServiceType>(bufferLimit: 8)

    /// The callers of `startService`/`endService` waiting for the head unit's answer.
    private var pendingControl: [Exchange: PendingReply<SDLSessionStateMachine.Answer>] = [:]
    private var timerWake: AsyncStream<Void>.Continuation?
    /// The timer loop runs only while a deadline is set, so an idle session keeps no task for it.
    private var timerLoopRunning = false
    /// The run's owner's scope, where the transport's `run()` and the timer loop go; nil outside the run.
    private var tasks: TaskScope?
    private var timerTarget: Duration?
    /// The session's TLS endpoint: the configuration's, or one set once the head unit's make is
    /// known (`setSecurity(_:)`).
    private var security: (any SDLSecurityProvider)?

    /// A session over `transport`, not started yet: `SDLRPCClient` starts and runs it.
    public init(transport: any SDLTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        self.logger = configuration.logger
        self.machine = SDLSessionStateMachine(role: .app, settings: configuration.machineSettings)
        self.states = StreamFanOut(bufferLimit: 16, replaysLatest: true, initial: .idle)
        self.security = configuration.security
    }

    /// Sets the security provider before any protected service starts: the manager picks the one
    /// for the head unit's make after registration. Ignored once a service is protected.
    public func setSecurity(_ provider: any SDLSecurityProvider) {
        if machine.protectedServices.isEmpty { security = provider }
    }

    /// Whether a security provider is set (protected services can be asked for).
    public var hasSecurity: Bool { security != nil }
    /// Services started with the encryption bit that the head unit acknowledged with it.
    public var protectedServices: Set<SDLServiceType> { machine.protectedServices }
    /// The negotiated session once started (also while closing).
    public var session: SDLNegotiatedSession? { machine.phase == .started || machine.phase == .closing ? machine.session : nil }
    /// The current state.
    public nonisolated var connectionState: SDLConnectionState { states.latest ?? .idle }

    /// Every state change from now on, starting with the current state; ends after `closed`.
    /// Keeps the latest 16 changes for a slow reader (it always sees the final `closed`).
    public nonisolated func connectionStates() -> AsyncStream<SDLConnectionState> { states.subscribe() }

    /// Messages the head unit sends on `service` (audio or video). A reader that falls behind
    /// loses the oldest beyond `mediaBufferLimit`; media for a service nobody reads is dropped.
    public func media(for service: SDLServiceType) -> AsyncStream<SDLProtocolMessage> {
        if let readers = mediaReaders[service] { return readers.subscribe() }
        let readers = StreamFanOut<SDLProtocolMessage>(bufferLimit: configuration.mediaBufferLimit)
        if isClosed { readers.finish() }
        mediaReaders[service] = readers
        return readers.subscribe()
    }

    /// Audio and video services the head unit ends (EndService from its side, acknowledged by
    /// the session), from now on; ends with the session.
    public nonisolated func servicesEndedByHeadUnit() -> AsyncStream<SDLServiceType> { endedServices.subscribe() }

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
        onRPC: @escaping @Sendable (SDLIncomingRPC) async -> Void, onClose: @escaping @Sendable (SDLCloseReason) async -> Void = { _ in }
    ) async throws {
        try await TaskScope.withScope { tasks in try await self.run(onRPC: onRPC, onClose: onClose, tasks: tasks) }
    }

    /// The run loop reading on the calling task, with the transport's `run()` and the timer loop
    /// (only while a timer is set) as work of `tasks`, the owner's scope: an idle session keeps
    /// no task of its own beyond the caller's (a server holds thousands of them).
    func run(
        onRPC: @escaping @Sendable (SDLIncomingRPC) async -> Void, onClose: @escaping @Sendable (SDLCloseReason) async -> Void, tasks: TaskScope
    ) async throws {
        guard case .notRun = runPhase else { throw SDLSessionError.alreadyRunning }
        runPhase = .running
        (self.onRPC, self.onClose) = (onRPC, onClose)
        if !isClosed {
            self.tasks = tasks
            let transport = self.transport
            tasks.spawn { await transport.run() }
            deadlinesChanged()  // deadlines of a `start()` that came first
            await readLoop()
            self.tasks = nil
        }
        runPhase = .finished
        try throwUnlessClosedByApp()
    }

    // Long-lived async functions (the run and read loops) keep their frame for the whole
    // session, and Swift puts a function's temporaries in its frame: matching, mapping errors
    // and logging go in synchronous helpers that are never inlined, so their temporaries stay
    // on the thread's stack.

    @inline(never)
    private func throwUnlessClosedByApp() throws {
        if let closeReason, closeReason != .closedByApp { throw SDLSessionError.closed(closeReason) }
    }

    private func readLoop() async {
        var failure: (any Error)?
        do {
            for try await chunk in transport.inbound {
                // On a task of its own, in order: handling a message goes deep, and a task keeps
                // the memory of its deepest call while this one lives as long as the session.
                try await onOwnTask { try await self.receive(chunk) }
                if isClosed { return }
            }
        } catch {
            failure = error
        }
        await shutDown(endReason(failure))
    }

    @inline(never)
    private func endReason(_ failure: (any Error)?) -> SDLCloseReason {
        guard let failure else { return Task.isCancelled ? .closedByApp : (announcedCloseReason ?? .transportClosed) }
        return SDLCloseReason(readFailure: failure, announced: announcedCloseReason)
    }

    private func receive(_ chunk: [UInt8]) async throws {
        machine.append(chunk, now: configuration.clock.now)
        while let inbound = try machine.nextFrame(now: configuration.clock.now) {
            switch inbound {
            case .frame(let frame):
                try await perform(machine.receive(frame))
            case .record(let frame):
                let plaintext = try await security?.decrypt(frame.payload) ?? frame.payload
                try await perform(machine.receive(SDLFrame(header: frame.header, payload: plaintext)))
            case .dropped(_, let actions):
                try await perform(actions)
            }
            if isClosed { return }
        }
    }

    /// Sleeps until the machine's next deadline and lets it act, until none is set; a new
    /// deadline starts it again or wakes it when earlier than the one it sleeps for.
    private func timerLoop() async {
        while !isClosed, !Task.isCancelled, let target = machine.nextDeadline {
            let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            (timerWake, timerTarget) = (wake, target)
            await configuration.clock.sleep(until: target, interruptedBy: signal)
            (timerWake, timerTarget) = (nil, nil)
            if !isClosed { try? await perform(machine.deadlinesPassed(now: configuration.clock.now)) }
        }
        timerLoopRunning = false
        // The owner's scope ended under a live session (the run's task was cancelled).
        if Task.isCancelled { await shutDown(.closedByApp) }
    }

    private func deadlinesChanged() {
        guard !isClosed, let next = machine.nextDeadline else { return }
        if !timerLoopRunning, let tasks {
            timerLoopRunning = tasks.spawn { await self.timerLoop() }
        } else if let wake = timerWake, timerTarget.map({ next < $0 }) ?? true {
            wake.yield()
        }
    }

    private var isClosed: Bool {
        @inline(never) get { closeReason != nil }
    }

    // MARK: Starting and ending

    /// Starts the RPC service and negotiates the version: the lower of the app's and the head
    /// unit's, which every later frame header carries. Concurrent calls share one negotiation;
    /// after success it returns the session at once. The run loop must be running (or start
    /// soon) for the head unit's answer to be read.
    @discardableResult
    public func start() async throws -> SDLNegotiatedSession {
        if case .idle = machine.phase {
            try Task.checkCancellation()
            let action = try refusalAsError { try machine.startSession(now: configuration.clock.now) }
            states.yield(.starting)
            try await perform([action])
        }
        switch machine.phase {
        case .started: if let session = machine.session { return session } else { fallthrough }
        case .idle, .starting: return try await withCheckedThrowingContinuation { startWaiters.append($0) }
        case .closing: throw SDLSessionError.closed(.closedByApp)
        case .closed: throw SDLSessionError(startEndedBy: closeReason ?? .closedByApp)
        }
    }

    /// Starts another service (audio, video) in plain text with its parameters; returns the
    /// ACK's payload. `startProtectedService(_:parameters:)` starts one encrypted.
    @discardableResult
    public func startService(_ service: SDLServiceType, parameters: SDLControlPayload = SDLControlPayload()) async throws -> SDLControlPayload {
        try Task.checkCancellation()
        let answer = try await exchange(.startService, service) { try $0.startService(service, parameters: parameters, encrypted: false, now: $1) }
        guard answer.accepted else {
            throw SDLSessionError.startRejected(service: service, rejectedParams: answer.parameters.rejectedParams ?? [], reason: answer.parameters.reason)
        }
        return answer.parameters
    }

    /// Starts `service` protected (StartService with the encryption bit): the head unit runs the
    /// TLS handshake through security queries, which the session answers with its security
    /// provider, then acknowledges. An ACK without the bit means the head unit fell back to plain
    /// text (`isEncrypted` false); a NAK throws `protectionFailed` with the head unit's reason and
    /// the security error it sent. The RPC service is upgraded this way after registration.
    public func startProtectedService(_ service: SDLServiceType, parameters: SDLControlPayload = SDLControlPayload()) async throws -> SDLServiceProtection {
        try requireStarted(encrypted: true)
        if machine.protectedServices.contains(service) { return SDLServiceProtection(parameters: SDLControlPayload(), isEncrypted: true) }
        // Until a handshake has completed, each protected start meets a new one: after a refusal
        // the head unit starts over with a ClientHello that old TLS state would not take.
        if machine.protectedServices.isEmpty { await security?.resetHandshake() }
        defer { machine.protectionSettled(service) }
        let answer = try await exchange(.startService, service) { try $0.startService(service, parameters: parameters, encrypted: true, now: $1) }
        guard answer.accepted else {
            throw SDLSessionError.protectionFailed(service: service, reason: answer.parameters.reason, security: machine.securityFailure)
        }
        guard answer.isEncrypted else {
            logger.warning(
                "the head unit started the service without encryption",
                metadata: ["service": "\(service)", "security": "\(machine.securityFailure.map(\.description) ?? "-")"])
            return SDLServiceProtection(parameters: answer.parameters, isEncrypted: false, securityFailure: machine.securityFailure)
        }
        return SDLServiceProtection(parameters: answer.parameters, isEncrypted: true)
    }

    /// Ends one service; ending the RPC service ends the whole session (use `close()`).
    public func endService(_ service: SDLServiceType) async throws {
        let answer = try await exchange(.endService, service) { try $0.endService(service, now: $1) }
        guard answer.accepted else { throw SDLSessionError.endRejected(service: service, reason: answer.parameters.reason) }
    }

    /// Ends the RPC service politely when the run loop is there to hear the answer, then closes
    /// the transport. Returns once the session is closed.
    public func close() async {
        if isClosed { return }
        if closingByApp { return await withCheckedContinuation { closeWaiters.append($0) } }
        closingByApp = true
        if machine.beginClosing() {
            states.yield(.closing)
            if case .running = runPhase {
                do {
                    try await endService(.rpc)
                } catch {
                    logger.debug("EndService was not acknowledged", metadata: ["error": "\(error)"])
                }
            }
        }
        await shutDown(.closedByApp)
    }

    /// Records why the head unit is about to end the session (OnAppInterfaceUnregistered), so
    /// the close that follows reports it.
    public func headUnitUnregistered(_ reason: AppInterfaceUnregisteredReason) {
        if announcedCloseReason == nil { announcedCloseReason = .unregistered(reason) }
    }

    /// A start or end of a service: the machine's frame written, its answer awaited within the
    /// control timeout.
    private func exchange(
        _ request: SDLControlFrameType, _ service: SDLServiceType,
        _ transition: (inout SDLSessionStateMachine, Duration) throws -> SDLSessionStateMachine.Action
    ) async throws -> SDLSessionStateMachine.Answer {
        let key = Exchange(service: service, request: request)
        let action = try refusalAsError { try transition(&machine, configuration.clock.now) }
        // Registered before writing, so an answer that beats the write's return is not lost.
        pendingControl[key] = PendingReply()
        try await perform([action])
        return try await withCheckedThrowingContinuation { continuation in
            if pendingControl[key] == nil {
                continuation.resume(throwing: SDLSessionError.closed(closeReason ?? .closedByApp))
            } else if pendingControl[key]!.wait(continuation) {
                pendingControl[key] = nil
            }
        }
    }

    /// A refused transition as the session's error.
    private func refusalAsError<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let refusal as SDLSessionStateMachine.Refusal { throw SDLSessionError(refusal: refusal, closeReason: closeReason) }
    }

    // MARK: Sending

    /// Sends an RPC message on the RPC service, or on the hybrid service when it carries bulk
    /// data. Messages from one task reach the wire in call order.
    public func send(_ rpc: SDLRPCPayload, encrypted: Bool = false) async throws {
        try requireStarted(encrypted: encrypted)
        do {
            try await perform([machine.sendRPC(rpc, encrypted: encrypted)])
        } catch let error as SDLProtocolError {
            throw SDLSessionError.protocolViolation(error)
        }
    }

    /// Raw media for a started audio or video service.
    public func sendMedia(_ bytes: [UInt8], service: SDLServiceType, encrypted: Bool = false) async throws {
        try requireStarted(encrypted: encrypted)
        try await perform([machine.send(bytes, service: service, encrypted: encrypted)])
    }

    /// Several media messages for a service this session started and neither side has ended,
    /// in order, in one write (a streaming manager that fell behind catches up without a round
    /// trip through the transport per frame). Throws `serviceNotRunning` otherwise, sending
    /// nothing: SDL Core unregisters an app that streams on a service that is not running.
    public func sendStreamedMedia(messages: [[UInt8]], service: SDLServiceType, encrypted: Bool = false) async throws {
        try requireStarted(encrypted: encrypted)
        try await perform(refusalAsError { try machine.sendStreamedMedia(messages, service: service, encrypted: encrypted) })
    }

    private func requireStarted(encrypted: Bool) throws {
        guard case .started = machine.phase else {
            throw SDLSessionError(refusal: machine.phase == .idle || machine.phase == .starting ? .notStarted : .closed, closeReason: closeReason)
        }
        if encrypted && security == nil { throw SDLSessionError.encryptionUnavailable }
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

    // MARK: Performing the machine's actions

    private func perform(_ actions: [SDLSessionStateMachine.Action]) async throws {
        deadlinesChanged()
        // The reason holds even if the head unit hangs up before our ACK is written.
        if announcedCloseReason == nil, actions.contains(.close(.endedByPeer)) { announcedCloseReason = .endedByHeadUnit }
        for action in actions {
            switch action {
            case .write(let bytes):
                try await write(bytes)
            case .writeEncrypted(let message):
                guard let security else { throw SDLSessionError.encryptionUnavailable }
                try await write(
                    try await SDLFramer.protectedBytes(
                        for: message, maxPayloadSize: machine.session?.mtu ?? SDLFramer.defaultMaxPayloadSize, security: security))
            case .deliverRPC(let rpc, let service, let encrypted):
                await onRPC?(SDLIncomingRPC(payload: rpc, serviceType: service, isEncrypted: encrypted))
            case .deliverMedia(let message):
                if let readers = mediaReaders[message.serviceType], readers.subscriberCount > 0, readers.yield(message) > 0 {
                    logger.debug("a media reader fell behind; dropped its oldest message", metadata: ["service": "\(message.serviceType)"])
                }
            case .sessionStarted(let negotiated):
                started(negotiated)
            case .sessionRefused(let details):
                await shutDown(.startRejected(reason: details.reason, rejectedParams: details.rejectedParams ?? []))
            case .answered(let exchange, let answer):
                if pendingControl[exchange]?.complete(.success(answer)) == true { pendingControl[exchange] = nil }
            case .serviceEndedByPeer(let service):
                endedServices.yield(service)
            case .continueHandshake(let bytes, let sequenceNumber):
                let step = await security.handshakeStep(bytes)
                if case .failure(let error) = step { logger.warning("the TLS handshake failed", metadata: ["error": "\(error)"]) }
                try await perform(machine.handshakeProgressed(step, sequenceNumber: sequenceNumber))
            case .peerSecurityError(let failure):
                logger.warning("the head unit reported a security error", metadata: ["error": "\(failure)"])
            case .exchangeTimedOut(let exchange):
                if pendingControl[exchange]?.complete(.failure(SDLSessionError.controlTimeout(exchange.request, service: exchange.service))) == true {
                    pendingControl[exchange] = nil
                }
            case .close(let cause):
                switch cause {
                case .heartbeatTimeout: await shutDown(.heartbeatTimeout)
                case .startTimedOut: await shutDown(.startTimedOut)
                case .endedByPeer, .malformedFrames: await shutDown(announcedCloseReason ?? .endedByHeadUnit)
                }
            case .ignored(let header, let reason):
                logger.warning("ignored a frame", metadata: ["reason": "\(reason)", "service": "\(header.serviceType)"])
            case .startHandshake, .checkProtection, .decideStreaming, .decideEndStreaming, .sessionEnded, .protectionRefused:
                break  // the head unit's end
            }
        }
    }

    private func started(_ negotiated: SDLNegotiatedSession) {
        // The session ID goes in this line only: a logger with metadata of its own would be
        // one more copy of the handler and its metadata for every session a server holds.
        logger.debug(
            "session started", metadata: ["sessionID": "\(negotiated.sessionID)", "protocol": "\(negotiated.protocolVersion)", "mtu": "\(negotiated.mtu)"])
        states.yield(.connected(negotiated))
        for waiter in startWaiters { waiter.resume(returning: negotiated) }
        startWaiters.removeAll()
    }

    private func shutDown(_ reason: SDLCloseReason) async {
        guard closeReason == nil else { return }
        let reason = closingByApp ? .closedByApp : reason
        closeReason = reason
        _ = machine.closed()
        logger.debug("session closed", metadata: ["reason": "\(reason)"])
        for waiter in startWaiters { waiter.resume(throwing: SDLSessionError(startEndedBy: reason)) }
        startWaiters.removeAll()
        let failure = SDLSessionError.closed(reason)
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
        (onRPC, onClose) = (nil, nil)
        await transport.close()
    }
}
