import SDLProtocol
import SDLRPC
import SDLRuntime

public enum SDLRPCError: Error, Sendable, CustomStringConvertible {
    /// The request breaks the spec; it was not sent.
    case invalidRequest(SDLValidationError)
    /// No response within the timeout.
    case timeout(function: String, correlationID: UInt32, after: Duration)
    /// The connection ended before the response came.
    case connectionClosed(String)
    case cancelled(function: String)
    /// The head unit could not tell which RPC this was and answered GenericResponse.
    case genericResponse(resultCode: String, info: String?)
    /// The response was not even leniently decodable as the expected type.
    case invalidResponse(function: String, SDLDecodingError)

    public var description: String {
        switch self {
        case .invalidRequest(let error): "request not sent, it breaks the RPC spec:\n\(error)"
        case .timeout(let function, let id, let after): "\(function) (correlation ID \(id)): no response after \(after)"
        case .connectionClosed(let reason): "connection closed before the response: \(reason)"
        case .cancelled(let function): "\(function) was cancelled"
        case .genericResponse(let code, let info): "the head unit did not recognise the request: \(code)" + (info.map { " (\($0))" } ?? "")
        case .invalidResponse(let function, let error): "\(function) response does not decode:\n\(error)"
        }
    }
}

/// Sends requests and matches their responses by correlation ID (notifications come in
/// between), and fans notifications out by type.
public actor SDLRPCClient {
    public let session: SDLProtocolSession
    public var requestTimeout: Duration

    private var nextCorrelationID: UInt32 = 1
    private var pending: [UInt32: CheckedContinuation<SDLIncomingRPC, any Error>] = [:]
    private var subscribers: [UInt32: [Int: AsyncStream<SDLIncomingRPC>.Continuation]] = [:]
    private var allSubscribers: [Int: AsyncStream<SDLIncomingRPC>.Continuation] = [:]
    private var nextSubscriberID = 0
    private var closedReason: String?
    private var pump: Task<Void, Never>?

    public init(session: SDLProtocolSession, requestTimeout: Duration = .seconds(10)) {
        self.session = session
        self.requestTimeout = requestTimeout
    }

    /// Starts delivering what the session receives. Call once the session has started.
    public func run() {
        guard pump == nil else { return }
        let incoming = session.incoming
        pump = Task { [weak self] in
            do {
                for try await message in incoming {
                    await self?.dispatch(message)
                }
                await self?.finish("the session ended")
            } catch {
                await self?.finish("\(error)")
            }
        }
    }

    // MARK: Requests

    /// Sends `request` and returns the head unit's response, whatever its result code.
    /// Responses are decoded leniently (a head unit may break the spec); `bulkData` goes on the
    /// hybrid service after the JSON (PutFile, SystemRequest).
    public func send<R: SDLRequest>(
        _ request: R, bulkData: [UInt8] = [], timeout: Duration? = nil, options: SDLEncodingOptions = SDLEncodingOptions()
    ) async throws -> R.Response {
        let json: [UInt8]
        do {
            json = try SDLJSON.encode(request, options: options)
        } catch {
            throw SDLRPCError.invalidRequest(error)
        }
        let response = try await sendRaw(
            functionName: R.functionName, functionID: UInt32(R.functionIDValue), json: json, bulkData: bulkData, timeout: timeout)
        if response.payload.functionID == UInt32(GenericResponse.functionIDValue), R.Response.self != GenericResponse.self {
            let generic = try? SDLJSON.decode(GenericResponse.self, from: response.payload.json, policy: .lenient).value
            throw SDLRPCError.genericResponse(resultCode: generic?.resultCode.rawValue ?? "?", info: generic?.info)
        }
        do {
            return try SDLJSON.decode(R.Response.self, from: response.payload.json, policy: .lenient).value
        } catch {
            throw SDLRPCError.invalidResponse(function: R.functionName, error)
        }
    }

    /// Sends any request by function ID with ready JSON, for tools that know the RPC only at run time.
    public func sendRaw(
        functionName: String, functionID: UInt32, json: [UInt8], bulkData: [UInt8] = [], timeout: Duration? = nil
    ) async throws -> SDLIncomingRPC {
        if let closedReason { throw SDLRPCError.connectionClosed(closedReason) }
        let correlationID = takeCorrelationID()
        let payload = SDLRPCPayload(rpcType: .request, functionID: functionID, correlationID: correlationID, json: json, bulkData: bulkData)
        let limit = timeout ?? requestTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled else { return }
            await self?.fail(correlationID, SDLRPCError.timeout(function: functionName, correlationID: correlationID, after: limit))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SDLIncomingRPC, any Error>) in
                pending[correlationID] = continuation
                let session = self.session
                Task { [weak self] in
                    do {
                        try await session.send(payload, service: bulkData.isEmpty ? .rpc : .hybrid)
                    } catch {
                        await self?.fail(correlationID, SDLRPCError.connectionClosed("\(error)"))
                    }
                }
            }
        } onCancel: {
            Task { await self.fail(correlationID, SDLRPCError.cancelled(function: functionName)) }
        }
    }

    private func takeCorrelationID() -> UInt32 {
        defer { nextCorrelationID = nextCorrelationID >= UInt32(Int32.max) ? 1 : nextCorrelationID + 1 }
        return nextCorrelationID
    }

    private func fail(_ correlationID: UInt32, _ error: any Error) {
        pending.removeValue(forKey: correlationID)?.resume(throwing: error)
    }

    /// Requests awaiting a response.
    public var pendingCount: Int { pending.count }

    // MARK: Notifications

    /// Notifications of one type, decoded leniently, until the connection ends.
    public func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        let raw = subscribe(functionID: UInt32(N.functionIDValue))
        return AsyncStream { continuation in
            let task = Task {
                for await message in raw {
                    if let decoded = try? SDLJSON.decode(N.self, from: message.payload.json, policy: .lenient) {
                        continuation.yield(decoded.value)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Every notification, undecoded.
    public func allNotifications() -> AsyncStream<SDLIncomingRPC> {
        subscribe(functionID: nil)
    }

    private func subscribe(functionID: UInt32?) -> AsyncStream<SDLIncomingRPC> {
        let (stream, continuation) = AsyncStream<SDLIncomingRPC>.makeStream()
        if closedReason != nil {
            continuation.finish()
            return stream
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        if let functionID {
            subscribers[functionID, default: [:]][id] = continuation
        } else {
            allSubscribers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id, functionID: functionID) }
        }
        return stream
    }

    private func unsubscribe(_ id: Int, functionID: UInt32?) {
        if let functionID {
            subscribers[functionID]?[id] = nil
        } else {
            allSubscribers[id] = nil
        }
    }

    // MARK: Incoming

    private func dispatch(_ message: SDLIncomingRPC) {
        switch message.payload.rpcType {
        case .response, .erroneousResponse:
            pending.removeValue(forKey: message.payload.correlationID)?.resume(returning: message)
        case .notification:
            for continuation in subscribers[message.payload.functionID, default: [:]].values { continuation.yield(message) }
            for continuation in allSubscribers.values { continuation.yield(message) }
        default:
            break  // the head unit does not send requests to apps
        }
    }

    /// Fails every pending request at once when the connection goes.
    private func finish(_ reason: String) {
        guard closedReason == nil else { return }
        closedReason = reason
        for continuation in pending.values { continuation.resume(throwing: SDLRPCError.connectionClosed(reason)) }
        pending.removeAll()
        for continuations in subscribers.values { for continuation in continuations.values { continuation.finish() } }
        for continuation in allSubscribers.values { continuation.finish() }
        subscribers.removeAll()
        allSubscribers.removeAll()
    }
}
