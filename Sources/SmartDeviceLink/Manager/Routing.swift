import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

/// Notifications by type for the manager's whole life: each connection's notifications are
/// poured into per-type fan-outs, so an app's stream goes on across reconnections.
final class NotificationHub: Sendable {
    private let outlets = Mutex<[UInt32: any NotificationOutlet]>([:])

    func subscribe<N: SDLNotification>(_ type: N.Type, functionID: UInt32) -> AsyncStream<N> {
        let outlet = outlets.withLock { outlets -> TypedOutlet<N> in
            if let existing = outlets[functionID] as? TypedOutlet<N> { return existing }
            let created = TypedOutlet<N>()
            outlets[functionID] = created
            return created
        }
        return outlet.fanOut.subscribe()
    }

    /// Undecoded readers, each with the function IDs it wants: for keys the spec lacks (OEM
    /// custom vehicle data) and for several types whose order matters (button events before
    /// their press).
    private let mixed = Mutex<[(functionIDs: Set<UInt32>, fanOut: StreamFanOut<SDLIncomingRPC>)]>([])

    func subscribeRaw(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> {
        let fanOut = StreamFanOut<SDLIncomingRPC>(bufferLimit: 256)
        mixed.withLock { $0.append((functionIDs, fanOut)) }
        return fanOut.subscribe()
    }

    /// Synchronous observers, called as each notification is read.
    private let observers = Mutex<(next: Int, byID: [Int: (functionIDs: Set<UInt32>, handler: @Sendable (SDLIncomingRPC) -> Void)])>((0, [:]))

    func observe(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        let id = observers.withLock { observers in
            observers.next += 1
            observers.byID[observers.next] = (functionIDs, handler)
            return observers.next
        }
        return SDLNotificationObservation { [weak self] in
            _ = self?.observers.withLock { $0.byID.removeValue(forKey: id) }
        }
    }

    /// Hands a notification to the subscribers of its type; nobody subscribed, nothing decoded.
    func deliver(_ message: SDLIncomingRPC) {
        let handlers = observers.withLock { observers in
            observers.byID.values.filter { $0.functionIDs.contains(message.payload.functionID) }.map(\.handler)
        }
        for handler in handlers { handler(message) }
        let readers = mixed.withLock { readers in
            readers.removeAll { $0.fanOut.subscriberCount == 0 }
            return readers.filter { $0.functionIDs.contains(message.payload.functionID) }
        }
        for reader in readers { reader.fanOut.yield(message) }
        guard let outlet = outlets.withLock({ $0[message.payload.functionID] }) else { return }
        outlet.deliver(message)
    }

    /// The manager stopped: every stream ends.
    func finish() {
        let all = outlets.withLock { outlets in
            defer { outlets = [:] }
            return Array(outlets.values)
        }
        for outlet in all { outlet.finish() }
        let readers = mixed.withLock { readers in
            defer { readers = [] }
            return readers
        }
        for reader in readers { reader.fanOut.finish() }
    }
}

/// A synchronous notification observer; it lasts until `cancel()`.
struct SDLNotificationObservation: Sendable {
    let cancel: @Sendable () -> Void
}

private protocol NotificationOutlet: Sendable {
    func deliver(_ message: SDLIncomingRPC)
    func finish()
}

private final class TypedOutlet<N: SDLNotification>: NotificationOutlet {
    let fanOut = StreamFanOut<N>(bufferLimit: 256)

    func deliver(_ message: SDLIncomingRPC) {
        guard fanOut.subscriberCount > 0,
              let notification = try? SDLJSON.decode(N.self, from: message.payload.json, policy: .lenient).value
        else { return }
        fanOut.yield(notification)
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
