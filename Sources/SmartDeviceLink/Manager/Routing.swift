import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

/// The one notification router, used by a connection's `SDLRPCClient` and, for the manager's
/// whole life, by `SDLManager` (each connection pours its notifications into it, so an app's
/// streams go on across reconnections). Built on `StreamFanOut`:
///
/// - typed readers share one fan-out per type, so a notification is decoded once however many
///   read it, and only when someone does;
/// - raw readers take the notifications of a set of function IDs (or all) in their order (button
///   events before their press, OEM keys the spec lacks);
/// - synchronous observers are called as each notification is read, before the response that
///   follows it completes its request.
///
/// Buffering: every reader keeps the newest `bufferLimit` unread notifications; when it falls
/// further behind its oldest are dropped, never the producer stalled. Drops are counted
/// (`droppedCount`) and logged with the stream's name.
final class NotificationRouter: Sendable {
    private struct Raw {
        let functionIDs: Set<UInt32>?
        let fanOut: StreamFanOut<SDLIncomingRPC>
        let name: String
    }

    private struct Observer {
        let functionIDs: Set<UInt32>?
        let handler: @Sendable (SDLIncomingRPC) -> Void
    }

    private struct State {
        /// Keyed by function ID and type: two types for one function ID keep their own readers.
        var typed: [TypedKey: any TypedOutlet] = [:]
        var raw: [Raw] = []
        var observers: [Int: Observer] = [:]
        var nextID = 0
        var finished = false
        var dropped = 0
    }

    private struct TypedKey: Hashable {
        let functionID: UInt32
        let type: ObjectIdentifier
    }

    private let state = Mutex(State())
    private let bufferLimit: Int
    private let logger: Logger

    init(bufferLimit: Int = 256, logger: Logger) {
        self.bufferLimit = max(1, bufferLimit)
        self.logger = logger
    }

    /// Notifications dropped so far because a reader fell `bufferLimit` behind.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Notifications of one type, decoded leniently.
    func subscribe<N: SDLNotification>(_ type: N.Type, functionID: UInt32) -> AsyncStream<N> {
        let outlet = state.withLock { state -> TypedFanOut<N>? in
            guard !state.finished else { return nil }
            let key = TypedKey(functionID: functionID, type: ObjectIdentifier(N.self))
            if let existing = state.typed[key] as? TypedFanOut<N> { return existing }
            let created = TypedFanOut<N>(bufferLimit: bufferLimit)
            state.typed[key] = created
            return created
        }
        return outlet?.fanOut.subscribe() ?? AsyncStream { $0.finish() }
    }

    /// Undecoded notifications of `functionIDs` (nil: all) in their order; `name` is for logs.
    func subscribeRaw(functionIDs: Set<UInt32>?, name: String) -> AsyncStream<SDLIncomingRPC> {
        let fanOut = StreamFanOut<SDLIncomingRPC>(bufferLimit: bufferLimit)
        // Subscribed before it is listed, so `deliver` never sees it without its reader.
        let stream = fanOut.subscribe()
        let open = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.raw.append(Raw(functionIDs: functionIDs, fanOut: fanOut, name: name))
            return true
        }
        if !open { fanOut.finish() }
        return stream
    }

    /// Calls `handler` with each notification of `functionIDs` (nil: all) as it is read, until
    /// the observation is cancelled; `handler` must not block.
    func observe(functionIDs: Set<UInt32>?, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        let id = state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = Observer(functionIDs: functionIDs, handler: handler)
            return state.nextID
        }
        return SDLNotificationObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    /// Hands a notification to its observers and readers.
    func deliver(_ message: SDLIncomingRPC) {
        let functionID = message.payload.functionID
        let (handlers, readers, outlet) = state.withLock { state in
            state.raw.removeAll { $0.fanOut.subscriberCount == 0 }
            return (
                state.observers.values.filter { $0.functionIDs?.contains(functionID) ?? true }.map(\.handler),
                state.raw.filter { $0.functionIDs?.contains(functionID) ?? true },
                state.typed.filter { $0.key.functionID == functionID }.map(\.value)
            )
        }
        for handler in handlers { handler(message) }
        var drops: [(name: String, count: Int)] = []
        for reader in readers {
            let dropped = reader.fanOut.yield(message)
            if dropped > 0 { drops.append((reader.name, dropped)) }
        }
        for outlet in outlet {
            let dropped = outlet.deliver(message)
            if dropped > 0 { drops.append((outlet.name, dropped)) }
        }
        guard !drops.isEmpty else { return }
        state.withLock { $0.dropped += drops.reduce(0) { $0 + $1.count } }
        for (name, _) in drops {
            logger.warning("a notification reader fell behind; dropped its oldest notification", metadata: ["stream": "\(name)"])
        }
    }

    /// Every stream ends; later subscribers get an ended stream.
    func finish() {
        let (typed, raw) = state.withLock { state in
            state.finished = true
            state.observers = [:]
            defer {
                state.typed = [:]
                state.raw = []
            }
            return (Array(state.typed.values), state.raw)
        }
        for outlet in typed { outlet.finish() }
        for reader in raw { reader.fanOut.finish() }
    }
}

/// A synchronous notification observer; it lasts until `cancel()`.
struct SDLNotificationObservation: Sendable {
    let cancel: @Sendable () -> Void
}

private protocol TypedOutlet: Sendable {
    var name: String { get }
    /// Returns how many readers dropped their oldest notification.
    func deliver(_ message: SDLIncomingRPC) -> Int
    func finish()
}

private final class TypedFanOut<N: SDLNotification>: TypedOutlet {
    let fanOut: StreamFanOut<N>
    var name: String { N.functionName }

    init(bufferLimit: Int) {
        fanOut = StreamFanOut<N>(bufferLimit: bufferLimit)
    }

    func deliver(_ message: SDLIncomingRPC) -> Int {
        guard fanOut.subscriberCount > 0,
            let notification = try? SDLJSON.decode(N.self, from: message.payload.json, policy: .lenient).value
        else { return 0 }
        return fanOut.yield(notification)
    }

    func finish() { fanOut.finish() }
}

/// A request from the head unit (app services: GetAppServiceData, PerformAppServiceInteraction,
/// the RPCs a published manifest handles) waiting for the app's answer. Answer it once with
/// `respond(_:)` or `refuse(_:info:)`; one dropped unanswered is answered GENERIC_ERROR, so the
/// head unit never waits in vain.
public struct SDLHeadUnitRequest<R: SDLRequest>: Sendable {
    /// The request the head unit sent.
    public let request: R
    /// The head unit's correlation ID, which the response echoes.
    public let correlationID: UInt32
    private let reply: ReplyBox<R.Response>

    init(request: R, correlationID: UInt32, reply: ReplyBox<R.Response>) {
        self.request = request
        self.correlationID = correlationID
        self.reply = reply
    }

    /// Sends `response` (with its `success` and `resultCode`) to the head unit.
    public func respond(_ response: R.Response) {
        reply.complete(.success(response))
    }

    /// Answers with `resultCode` (`success=false`) and an optional explanation.
    public func refuse(_ resultCode: SDLResult, info: String? = nil) {
        reply.complete(.failure(SDLRequestRefusal(resultCode, info: info)))
    }
}

/// The one answer to a head-unit request; dropped unanswered, it answers for the app.
final class ReplyBox<Response: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Response, any Error>?>(nil)

    init(_ continuation: CheckedContinuation<Response, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func complete(_ result: Result<Response, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }

    deinit {
        complete(.failure(SDLRequestRefusal(.genericError, info: "the app did not answer")))
    }
}
