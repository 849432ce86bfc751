import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import Synchronization

/// Why an RPC exchange failed: the request was not sent, no response came, the connection
/// ended, or the response was unusable.
public enum SDLRPCError: Error, Sendable, CustomStringConvertible {
    /// The request breaks the spec; it was not sent.
    case invalidRequest(SDLValidationError)
    /// No response within the timeout.
    case timeout(function: String, correlationID: UInt32, after: Duration)
    /// The connection ended before the response came; the reason says why.
    case connectionClosed(SDLCloseReason)
    /// The calling task was cancelled. A request cancelled before it was sent is never sent.
    case cancelled(function: String)
    /// The head unit could not tell which RPC this was and answered GenericResponse.
    case genericResponse(resultCode: String, info: String?)
    /// The response was not even leniently decodable as the expected type.
    case invalidResponse(function: String, SDLDecodingError)
    /// `send` before `run()`: nothing would read the response.
    case notRunning
    /// `run()` was called a second time.
    case alreadyRunning
    /// The session refused: not started yet, encryption unavailable...
    case session(SDLSessionError)
    /// A handler for this head-unit request is registered already; remove it first.
    case handlerAlreadyRegistered(function: String)
    /// The type has no function ID (`SDLNoResponse`).
    case notAFunction(String)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .invalidRequest(let error): "request not sent, it breaks the RPC spec:\n\(error)"
        case .timeout(let function, let id, let after): "\(function) (correlation ID \(id)): no response after \(after)"
        case .connectionClosed(let reason): "connection closed before the response: \(reason)"
        case .cancelled(let function): "\(function) was cancelled"
        case .genericResponse(let code, let info): "the head unit did not recognise the request: \(code)" + (info.map { " (\($0))" } ?? "")
        case .invalidResponse(let function, let error): "\(function) response does not decode:\n\(error)"
        case .notRunning: "the RPC client is not running: call run() (or use withSDLSession) first"
        case .alreadyRunning: "run() was already called on this RPC client"
        case .session(let error): "\(error)"
        case .handlerAlreadyRegistered(let function): "a handler for \(function) requests is already registered"
        case .notAFunction(let name): "\(name) is not an RPC of the spec"
        }
    }
}

/// Why a request handler refused a head-unit request: the response carries this result code.
public struct SDLRequestRefusal: Error, Hashable, Sendable {
    /// The result code the response carries, such as REJECTED or DISALLOWED.
    public var resultCode: SDLResult
    /// Text for the response's `info`, explaining the refusal.
    public var info: String?

    /// A refusal answered with `resultCode` and, optionally, `info`.
    public init(_ resultCode: SDLResult, info: String? = nil) {
        self.resultCode = resultCode
        self.info = info
    }
}

/// A response to a head-unit request, as JSON (and bulk data), for handlers that know the RPC
/// only at run time.
public struct SDLRawResponse: Sendable, Hashable {
    /// The response's JSON: the RPC's parameters, with `success` and `resultCode`.
    public var json: [UInt8]
    /// Binary data sent with the response (a file's bytes, for example); empty for most RPCs.
    public var bulkData: [UInt8]

    /// A response made of `json` and, if any, `bulkData`.
    public init(json: [UInt8], bulkData: [UInt8] = []) {
        self.json = json
        self.bulkData = bulkData
    }
}

/// Removes a request handler; see `SDLRPCClient.removeRequestHandler(_:)`.
public struct SDLRequestHandlerToken: Hashable, Sendable {
    let functionID: UInt32
    let id: Int
}

/// Sends requests and matches their responses by correlation ID, fans notifications out by
/// type, and answers the head unit's own requests (app services) through registered handlers.
///
/// `run()` is the one loop that owns the connection: it runs the session's read loop, one
/// deadline schedule for every pending request (on the session's clock, so tests drive time),
/// and the handlers of head-unit requests. Buffers are bounded: each notification stream keeps
/// at most `notificationBufferLimit` unread notifications (the oldest are dropped, with a log
/// warning), and at most `maxConcurrentHeadUnitRequests` head-unit requests are handled at once
/// (more are answered `TOO_MANY_PENDING_REQUESTS`).
public actor SDLRPCClient {
    /// The protocol session the client sends and reads RPCs on.
    public let session: SDLProtocolSession
    /// How long `send` waits for a response unless the call gives its own timeout.
    public var requestTimeout: Duration
    /// Unread notifications kept per stream; when a reader falls behind, the oldest are dropped.
    public let notificationBufferLimit: Int
    /// Head-unit requests handled at once; more are answered TOO_MANY_PENDING_REQUESTS.
    public let maxConcurrentHeadUnitRequests: Int
    /// Where responses that other sessions receive the same (the registration, display
    /// capabilities) are decoded once; nil: every response is decoded for this client alone.
    public nonisolated let sharedValues: SDLSharedValues?
    private let clock: SDLClock
    private let logger: Logger

    private enum Phase {
        case idle, running
        case finished(SDLCloseReason)
    }

    /// What a request's deadline needs; its answer is waited for in `replies`.
    private struct PendingRequest {
        var function: String
        var timeout: Duration
    }

    private var phase = Phase.idle
    private var nextCorrelationID: UInt32 = 1
    private var pending: [UInt32: PendingRequest] = [:]
    /// The answers callers wait for, resumed under their lock (also by a cancelled caller).
    private let replies = PendingReplies<UInt32, SDLIncomingRPC>()
    private var deadlines = SDLDeadlineSchedule<UInt32>()
    private var deadlineWake: AsyncStream<Void>.Continuation?
    private var deadlineTarget: Duration?
    /// Whether the deadline loop runs: only while deadlines are pending, so an idle connection
    /// holds no task for it.
    private var deadlineLoopRunning = false
    private let router: NotificationRouter

    private typealias RequestHandler = @Sendable (SDLIncomingRPC) async throws -> SDLRawResponse
    private var requestHandlers: [UInt32: (id: Int, function: String, handle: RequestHandler)] = [:]
    private var nextHandlerID = 0
    /// The run's scope: head-unit requests and the deadline loop run there; nil outside the run.
    private var runner: TaskScope?
    private var activeHeadUnitRequests = 0

    /// A client for `session`; call `run()` (or use `withSDLSession`) before sending.
    ///
    /// - Parameters:
    ///   - session: the protocol session the client sends and reads RPCs on.
    ///   - requestTimeout: how long `send` waits for a response unless told otherwise.
    ///   - notificationBufferLimit: unread notifications kept per stream before the oldest drop.
    ///   - maxConcurrentHeadUnitRequests: head-unit requests handled at once.
    ///   - sharedValues: where responses other sessions receive the same are decoded once.
    public init(
        session: SDLProtocolSession, requestTimeout: Duration = .seconds(10), notificationBufferLimit: Int = 256,
        maxConcurrentHeadUnitRequests: Int = 16, sharedValues: SDLSharedValues? = nil
    ) {
        self.session = session
        self.sharedValues = sharedValues
        self.requestTimeout = requestTimeout
        self.notificationBufferLimit = max(1, notificationBufferLimit)
        self.maxConcurrentHeadUnitRequests = max(1, maxConcurrentHeadUnitRequests)
        self.clock = session.configuration.clock
        // The session's logger as it is: metadata of the client's own would copy the handler
        // and its metadata for every session a server holds.
        let logger = session.configuration.logger
        self.logger = logger
        self.router = NotificationRouter(bufferLimit: max(1, notificationBufferLimit), logger: logger)
    }

    // MARK: Running

    /// Runs the connection until the session ends: reads through the session, expires request
    /// deadlines and handles head-unit requests. Returns when the app closed the session
    /// (`close()`); throws `SDLRPCError.connectionClosed(reason)` for any other end, and
    /// `.alreadyRunning` on a second call. Start the session (`session.start()`) while this runs.
    public func run() async throws {
        try await TaskScope.withScope { tasks in try await self.run(tasks: tasks) }
    }

    /// The run reading on the calling task; head-unit requests, the deadline loop (only while a
    /// request waits) and the session's own work go into `tasks`, the owner's scope (the
    /// manager's connection), so an idle connection keeps no task of the client's beyond this one.
    func run(tasks: TaskScope) async throws {
        guard case .idle = phase else { throw SDLRPCError.alreadyRunning }
        phase = .running
        runner = tasks
        if !deadlines.isEmpty { deadlineLoopRunning = tasks.spawn { await self.runDeadlines() } }
        do {
            try await session.run(onRPC: { await self.dispatch($0) }, onClose: { await self.finish($0) }, tasks: tasks)
        } catch let SDLSessionError.closed(reason) {
            finish(reason)
            throw SDLRPCError.connectionClosed(reason)
        } catch let error as SDLSessionError {
            finish(.closedByApp)
            throw SDLRPCError.session(error)
        } catch {
            finish(.closedByApp)
            throw error
        }
        finish(.closedByApp)
    }

    /// Ends the session (EndService, then the transport) and waits until it is closed.
    public func close() async {
        await session.close()
    }

    private func finish(_ reason: SDLCloseReason) {
        if case .finished = phase { return }
        phase = .finished(reason)
        let failure = SDLRPCError.connectionClosed(reason)
        replies.completeAll(.failure(failure))
        pending.removeAll()
        deadlineWake?.finish()
        router.finish()
        runner = nil
    }

    /// Expires request deadlines until none is pending (a new one starts the loop again).
    private func runDeadlines() async {
        defer { deadlineLoopRunning = false }
        while case .running = phase, !Task.isCancelled {
            let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            guard let target = deadlines.earliest() else { return }
            deadlineWake = wake
            deadlineTarget = target
            await clock.sleep(until: target, interruptedBy: signal)
            deadlineWake = nil
            deadlineTarget = nil
            for correlationID in deadlines.popExpired(now: clock.now) {
                guard let request = pending[correlationID] else { continue }
                let error = SDLRPCError.timeout(function: request.function, correlationID: correlationID, after: request.timeout)
                complete(correlationID, .failure(error))
            }
        }
    }

    // MARK: Requests

    /// Sends `request` and returns the head unit's response, whatever its result code.
    /// Responses are decoded leniently (a head unit may break the spec); `bulkData` goes on the
    /// hybrid service after the JSON (PutFile, SystemRequest). `encrypted` sends it on the
    /// protected RPC service (started with `SDLProtocolSession.startProtectedService(_:)`).
    public func send<R: SDLRequest>(
        _ request: R, bulkData: [UInt8] = [], timeout: Duration? = nil, options: SDLEncodingOptions = SDLEncodingOptions(), encrypted: Bool = false
    ) async throws -> R.Response {
        guard R.wireFunctionID != nil else { throw SDLRPCError.notAFunction(R.functionName) }
        let json: [UInt8]
        do {
            json = try SDLJSON.encode(request, options: options)
        } catch {
            throw SDLRPCError.invalidRequest(error)
        }
        return try await send(R.self, json: json, bulkData: bulkData, timeout: timeout, encrypted: encrypted)
    }

    /// Sends an `R` whose JSON is ready (checked by the caller) and decodes its response.
    func send<R: SDLRequest>(_ type: R.Type, json: [UInt8], bulkData: [UInt8] = [], timeout: Duration? = nil, encrypted: Bool = false) async throws
        -> R.Response
    {
        guard let functionID = R.wireFunctionID else { throw SDLRPCError.notAFunction(R.functionName) }
        let response = try await sendRaw(
            functionName: R.functionName, functionID: functionID, json: json, bulkData: bulkData, timeout: timeout, encrypted: encrypted)
        return try Self.decode(R.self, from: response, shared: sharedValues)
    }

    /// The responses worth sharing between sessions: large, kept for the connection, and the
    /// same from every head unit of one model.
    private static let sharedResponses: Set<ObjectIdentifier> = [
        ObjectIdentifier(RegisterAppInterfaceResponse.self), ObjectIdentifier(GetSystemCapabilityResponse.self),
    ]

    static func decode<R: SDLRequest>(_ type: R.Type, from response: SDLIncomingRPC, shared: SDLSharedValues? = nil) throws -> R.Response {
        if response.payload.functionID == GenericResponse.wireFunctionID, R.Response.self != GenericResponse.self {
            let generic = try? SDLJSON.decode(GenericResponse.self, from: response.payload.json, policy: .lenient).value
            throw SDLRPCError.genericResponse(resultCode: generic?.resultCode.rawValue ?? "?", info: generic?.info)
        }
        do {
            let json = response.payload.json
            if let shared, sharedResponses.contains(ObjectIdentifier(R.Response.self)) {
                return try shared.value(R.Response.self, from: json) { () throws(SDLDecodingError) in
                    try SDLJSON.decode(R.Response.self, from: json, policy: .lenient).value
                }
            }
            return try SDLJSON.decode(R.Response.self, from: json, policy: .lenient).value
        } catch {
            throw SDLRPCError.invalidResponse(function: R.functionName, error)
        }
    }

    /// Sends any request by function ID with ready JSON, for tools that know the RPC only at run
    /// time. Requests from one task reach the wire in call order; a request whose task is
    /// already cancelled is not sent.
    public func sendRaw(
        functionName: String, functionID: UInt32, json: [UInt8], bulkData: [UInt8] = [], timeout: Duration? = nil, encrypted: Bool = false
    ) async throws -> SDLIncomingRPC {
        let correlationID = try await write(
            functionName: functionName, functionID: functionID, json: json, bulkData: bulkData, timeout: timeout, encrypted: encrypted)
        return try await response(to: correlationID, functionName: functionName)
    }

    /// Writes a request and returns once it is on the wire, without waiting for its response:
    /// several in flight from one task reach the wire in order (PutFile chunks). Await each
    /// with ``SDLPendingResponse/value()``; its timeout runs from the write.
    package func pipeline<R: SDLRequest>(_ request: R, bulkData: [UInt8], timeout: Duration? = nil) async throws -> SDLPendingResponse<R> {
        guard let functionID = R.wireFunctionID else { throw SDLRPCError.notAFunction(R.functionName) }
        let json: [UInt8]
        do {
            json = try SDLJSON.encode(request)
        } catch {
            throw SDLRPCError.invalidRequest(error)
        }
        let correlationID = try await write(functionName: R.functionName, functionID: functionID, json: json, bulkData: bulkData, timeout: timeout)
        return SDLPendingResponse(client: self, correlationID: correlationID)
    }

    fileprivate func decodedResponse<R: SDLRequest>(_ type: R.Type, to correlationID: UInt32) async throws -> R.Response {
        try Self.decode(R.self, from: try await response(to: correlationID, functionName: R.functionName), shared: sharedValues)
    }

    /// Registers the request (before the write, so a response that beats the write's return is
    /// kept) and writes it; returns its correlation ID.
    private func write(
        functionName: String, functionID: UInt32, json: [UInt8], bulkData: [UInt8], timeout: Duration?, encrypted: Bool = false
    ) async throws -> UInt32 {
        switch phase {
        case .idle: throw SDLRPCError.notRunning
        case .finished(let reason): throw SDLRPCError.connectionClosed(reason)
        case .running: break
        }
        guard !Task.isCancelled else { throw SDLRPCError.cancelled(function: functionName) }
        let correlationID = takeCorrelationID()
        let payload = SDLRPCPayload(rpcType: .request, functionID: functionID, correlationID: correlationID, json: json, bulkData: bulkData)
        let limit = timeout ?? requestTimeout
        pending[correlationID] = PendingRequest(function: functionName, timeout: limit)
        replies.expect(correlationID)
        scheduleDeadline(correlationID, at: clock.now + limit)
        do {
            try await session.send(payload, encrypted: encrypted)
        } catch {
            let failure: SDLRPCError
            switch error {
            case SDLSessionError.closed(let reason): failure = .connectionClosed(reason)
            case let error as SDLSessionError: failure = .session(error)
            case is CancellationError: failure = .cancelled(function: functionName)
            default: failure = .connectionClosed(.transportFailed(.io("\(error)")))
            }
            replies.forget(correlationID)
            drop(correlationID)
            throw failure
        }
        return correlationID
    }

    /// Waits for the response to a written request; cancelling the waiting task fails it at once.
    private func response(to correlationID: UInt32, functionName: String) async throws -> SDLIncomingRPC {
        defer { drop(correlationID) }
        return try await replies.wait(
            for: correlationID, missing: SDLRPCError.connectionClosed(closeReason ?? .closedByApp), cancelled: SDLRPCError.cancelled(function: functionName))
    }

    /// Sends a notification to the head unit (an app service provider's OnAppServiceData,
    /// OnHMIStatus... ); notifications get no answer.
    public func sendNotification<N: SDLNotification>(_ notification: N, options: SDLEncodingOptions = SDLEncodingOptions()) async throws {
        guard let functionID = N.wireFunctionID else { throw SDLRPCError.notAFunction(N.functionName) }
        switch phase {
        case .idle: throw SDLRPCError.notRunning
        case .finished(let reason): throw SDLRPCError.connectionClosed(reason)
        case .running: break
        }
        let json: [UInt8]
        do {
            json = try SDLJSON.encode(notification, options: options)
        } catch {
            throw SDLRPCError.invalidRequest(error)
        }
        do {
            try await session.send(SDLRPCPayload(rpcType: .notification, functionID: functionID, correlationID: 0, json: json))
        } catch SDLSessionError.closed(let reason) {
            throw SDLRPCError.connectionClosed(reason)
        } catch let error as SDLSessionError {
            throw SDLRPCError.session(error)
        }
    }

    private var closeReason: SDLCloseReason? {
        if case .finished(let reason) = phase { return reason }
        return nil
    }

    private func takeCorrelationID() -> UInt32 {
        // Positive Int32 values only: SDL Core answers INVALID_ID to negative ones.
        defer { nextCorrelationID = nextCorrelationID >= UInt32(Int32.max) ? 1 : nextCorrelationID + 1 }
        return nextCorrelationID
    }

    private func scheduleDeadline(_ correlationID: UInt32, at deadline: Duration) {
        deadlines.schedule(correlationID, at: deadline)
        if !deadlineLoopRunning, let runner {
            deadlineLoopRunning = runner.spawn { await self.runDeadlines() }
        } else if let wake = deadlineWake, deadlineTarget.map({ deadline < $0 }) ?? true {
            wake.yield()
        }
    }

    private func complete(_ correlationID: UInt32, _ result: Result<SDLIncomingRPC, any Error>) {
        // Kept for a caller that has not started waiting yet; its deadline is over either way.
        if replies.complete(correlationID, result) { drop(correlationID) }
    }

    private func drop(_ correlationID: UInt32) {
        pending[correlationID] = nil
        // An idle connection (one of thousands on a server) keeps no table.
        if pending.isEmpty { pending = [:] }
        // The loop is not woken: it ends at this (now stale) deadline if nothing else is pending,
        // so a busy connection keeps one loop instead of starting one per request.
        deadlines.cancel(correlationID)
    }

    /// Requests awaiting a response.
    public var pendingCount: Int { pending.count }

    // MARK: Notifications

    /// Notifications of one type, decoded leniently, until the connection ends. Keeps at most
    /// `notificationBufferLimit` unread ones; a reader that falls further behind loses the oldest.
    public nonisolated func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        guard let functionID = N.wireFunctionID else { return AsyncStream { $0.finish() } }
        return router.subscribe(N.self, functionID: functionID)
    }

    /// Notifications of one type as they came (JSON and bulk data undecoded).
    public nonisolated func rawNotifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<SDLIncomingRPC> {
        guard let functionID = N.wireFunctionID else { return AsyncStream { $0.finish() } }
        return router.subscribeRaw(functionIDs: [functionID], name: N.functionName)
    }

    /// Notifications of several function IDs as they came, in their order, for one reader.
    nonisolated func rawNotifications(functionIDs: Set<UInt32>, name: String) -> AsyncStream<SDLIncomingRPC> {
        router.subscribeRaw(functionIDs: functionIDs, name: name)
    }

    /// Calls `handler` with each notification of `functionIDs` as it is read, until the
    /// connection ends or the observation is cancelled.
    @discardableResult
    nonisolated func observe(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        router.observe(functionIDs: functionIDs, handler)
    }

    /// Every notification, undecoded, with the same buffering as `notifications(_:)`.
    public nonisolated func allNotifications() -> AsyncStream<SDLIncomingRPC> {
        router.subscribeRaw(functionIDs: nil, name: "notification")
    }

    /// Calls `handler` with every notification as it is read, before any later message (a
    /// response included) is handled: code that must see the notifications preceding a
    /// response (soft-button presses before an Alert's answer, audio chunks before
    /// PerformAudioPassThru's) relies on this order. `handler` must not block.
    nonisolated func tapNotifications(_ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) {
        _ = router.observe(functionIDs: nil, handler)
    }

    // MARK: Requests from the head unit

    /// Answers every `R` request the head unit sends (app services: GetAppServiceData,
    /// PerformAppServiceInteraction, the RPCs a manifest handles) with what `handler` returns,
    /// echoing the request's correlation ID. A handler that throws `SDLRequestRefusal` answers
    /// with its result code; any other error answers `GENERIC_ERROR`. A request that does not
    /// decode is answered `INVALID_DATA`; one nobody handles, `UNSUPPORTED_REQUEST`.
    @discardableResult
    public func handleRequests<R: SDLRequest>(
        _ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response
    ) throws -> SDLRequestHandlerToken {
        guard let functionID = R.wireFunctionID else { throw SDLRPCError.notAFunction(R.functionName) }
        return try register(functionID: functionID, function: R.functionName) { message in
            let request: R
            do {
                request = try SDLJSON.decode(R.self, from: message.payload.json, policy: .lenient).value
            } catch {
                throw SDLRequestRefusal(.invalidData, info: "\(error)")
            }
            let response = try await handler(request)
            do {
                return SDLRawResponse(json: try SDLJSON.encode(response))
            } catch {
                throw SDLRequestRefusal(.genericError, info: "the app's \(R.functionName) response breaks the spec: \(error)")
            }
        }
    }

    /// The raw form: `handler` gets the message as it arrived and returns the response's JSON
    /// (with `success` and `resultCode`) and bulk data.
    @discardableResult
    public func handleRawRequests(
        functionID: UInt32, handler: @escaping @Sendable (SDLIncomingRPC) async throws -> SDLRawResponse
    ) throws -> SDLRequestHandlerToken {
        try register(functionID: functionID, function: mobileAPIFunctions.name(of: functionID) ?? "function \(functionID)", handler)
    }

    /// Removes the handler `token` names, so the head unit's requests of that RPC are no longer
    /// answered by it; does nothing if it was removed or replaced already.
    public func removeRequestHandler(_ token: SDLRequestHandlerToken) {
        if requestHandlers[token.functionID]?.id == token.id { requestHandlers[token.functionID] = nil }
    }

    private func register(functionID: UInt32, function: String, _ handle: @escaping RequestHandler) throws -> SDLRequestHandlerToken {
        guard requestHandlers[functionID] == nil else { throw SDLRPCError.handlerAlreadyRegistered(function: function) }
        nextHandlerID += 1
        requestHandlers[functionID] = (nextHandlerID, function, handle)
        return SDLRequestHandlerToken(functionID: functionID, id: nextHandlerID)
    }

    private func answerHeadUnitRequest(_ message: SDLIncomingRPC) async {
        let request = message.payload
        let name = mobileAPIFunctions.name(of: request.functionID) ?? "function \(request.functionID)"
        guard let handler = requestHandlers[request.functionID] else {
            logger.info("no handler for a head-unit request; answering UNSUPPORTED_REQUEST", metadata: ["function": "\(name)"])
            await respond(to: message, with: Self.failure(.unsupportedRequest, info: "the app does not handle \(name)"))
            return
        }
        guard activeHeadUnitRequests < maxConcurrentHeadUnitRequests, let runner else {
            await respond(to: message, with: Self.failure(.tooManyPendingRequests, info: nil))
            return
        }
        activeHeadUnitRequests += 1
        let handle = handler.handle
        let spawned = runner.spawn { [self] in
            let response: SDLRawResponse
            do {
                response = try await handle(message)
            } catch let refusal as SDLRequestRefusal {
                response = Self.failure(refusal.resultCode, info: refusal.info)
            } catch {
                response = Self.failure(.genericError, info: "\(error)")
            }
            await self.respond(to: message, with: response)
            await self.headUnitRequestDone()
        }
        if !spawned {
            // The connection's scope is over: the head unit still gets an answer.
            activeHeadUnitRequests -= 1
            await respond(to: message, with: Self.failure(.tooManyPendingRequests, info: nil))
        }
    }

    private func headUnitRequestDone() {
        activeHeadUnitRequests -= 1
    }

    private static func failure(_ code: SDLResult, info: String?) -> SDLRawResponse {
        var members: [SDLJSONValue.Member] = [.init(key: "success", value: .bool(false)), .init(key: "resultCode", value: .string(code.rawValue))]
        if let info { members.append(.init(key: "info", value: .string(info))) }
        return SDLRawResponse(json: SDLJSONValue.object(members).jsonBytes)
    }

    private func respond(to request: SDLIncomingRPC, with response: SDLRawResponse) async {
        let payload = SDLRPCPayload(
            rpcType: .response, functionID: request.payload.functionID, correlationID: request.payload.correlationID,
            json: response.json, bulkData: response.bulkData)
        do {
            try await session.send(payload)
        } catch {
            logger.debug("could not answer a head-unit request", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Incoming

    private func dispatch(_ message: SDLIncomingRPC) async {
        switch message.payload.rpcType {
        case .response, .erroneousResponse:
            complete(message.payload.correlationID, .success(message))
        case .notification:
            if message.payload.functionID == OnAppInterfaceUnregistered.wireFunctionID,
                let notification = try? SDLJSON.decode(OnAppInterfaceUnregistered.self, from: message.payload.json, policy: .lenient).value
            {
                await session.headUnitUnregistered(notification.reason)
            }
            router.deliver(message)
        case .request:
            await answerHeadUnitRequest(message)
        default:
            logger.warning("ignored an RPC of unknown type", metadata: ["rpcType": "\(message.payload.rpcType)"])
        }
    }
}

/// A request on the wire whose response is still to come (``SDLRPCClient/pipeline(_:bulkData:timeout:)``).
package struct SDLPendingResponse<R: SDLRequest>: Sendable {
    let client: SDLRPCClient
    package let correlationID: UInt32

    /// The response, whatever its result code; throws on timeout, drop or cancellation.
    package func value() async throws -> R.Response {
        try await client.decodedResponse(R.self, to: correlationID)
    }
}
