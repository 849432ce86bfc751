import Logging
import SDLConcurrency
import SDLProtocol
import SDLTransport
import Synchronization

/// A head unit's connection to a cloud app, as the server accepted it.
public struct SDLCloudConnection: Sendable, Hashable, CustomStringConvertible {
    /// The host's number for the session, from 1.
    public var id: Int
    /// Where it came from (the load balancer's address when there is one).
    public var remoteAddress: String?
    /// The path and query the head unit asked for.
    public var uri: String

    /// A connection's description; the host makes these.
    public init(id: Int, remoteAddress: String?, uri: String) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.uri = uri
    }

    /// "session 3 from 10.0.0.7:51486", for logs.
    public var description: String { "session \(id)" + (remoteAddress.map { " from \($0)" } ?? "") }
}

/// What happened to the host's sessions, for logs and metrics.
public enum SDLCloudSessionEvent: Sendable, CustomStringConvertible {
    /// A head unit connected; its manager is starting.
    case connected(SDLCloudConnection)
    /// The app is registered and Ready on that head unit.
    case ready(SDLCloudConnection, openSessions: Int)
    /// The session ended: the head unit left, the app stopped it, or the host shut down.
    case ended(SDLCloudConnection, reason: String, openSessions: Int)

    /// The event in words, for logs.
    public var description: String {
        switch self {
        case .connected(let connection): "\(connection) connected"
        case .ready(let connection, let open): "\(connection) ready (\(open) open)"
        case .ended(let connection, let reason, let open): "\(connection) ended: \(reason) (\(open) open)"
        }
    }
}

/// Runs one `SDLManager` per head unit that connects to a cloud app: each with the app's
/// configuration, over the connection the head unit opened, sharing no state with the others (so
/// any number of server processes can run behind a load balancer); only values the head units
/// sent byte for byte the same are decoded once and shared (``SDLSharedValues``). A session lasts as long as
/// its connection; the head unit, not the app, reconnects. Transport-agnostic: the WebSocket
/// server (`SDLCloudServer`) feeds it connections.
public actor SDLCloudAppHost {
    /// Handles one session, beside its manager's start-up: wait for Ready, then serve the vehicle.
    /// Returning leaves the session open; throwing stops it. Cancelled when the session ends.
    public typealias SessionHandler = @Sendable (SDLManager) async throws -> Void

    /// The app every session registers; its transport and reconnect policy are the host's, and
    /// its ``SDLManager/Configuration/sharedValues`` the host's own unless `init` was given one.
    public let app: SDLManager.Configuration
    private let logger: Logger
    private var sessions: [Int: SDLManager] = [:]
    private var nextID = 0
    private var accepting = true
    /// Whether a session started or ended since the server's memory release last looked.
    private var sessionsChanged = false
    private let eventFanOut = StreamFanOut<SDLCloudSessionEvent>(bufferLimit: 4096)

    /// A host registering `app` on every head unit that connects, logging to `logger`.
    /// Unless `app` names its own ``SDLManager/Configuration/sharedValues``, the host's sessions
    /// share one of the host's.
    public init(app: SDLManager.Configuration, logger: Logger = Logger(label: "SmartDeviceLink.cloud")) {
        var app = app
        if app.sharedValues == nil { app.sharedValues = SDLSharedValues() }
        self.app = app
        self.logger = logger
    }

    /// Sessions open now.
    public var openSessions: Int { sessions.count }

    /// The managers of the open sessions.
    public var managers: [SDLManager] { Array(sessions.values) }

    /// Sessions connecting, becoming Ready and ending, as they happen. A reader keeps the newest
    /// 4,096 it has not read.
    public nonisolated func events() -> AsyncStream<SDLCloudSessionEvent> { eventFanOut.subscribe() }

    /// Serves one head unit's connection until it ends: a manager registers the app over
    /// `transport` while `handler` runs beside it. After `shutdown()` the connection is closed at once.
    public func serve(
        _ transport: any SDLTransport, remoteAddress: String? = nil, uri: String = "/", handler: @escaping SessionHandler
    ) async {
        guard accepting else {
            await transport.close()
            return
        }
        let (connection, manager) = sessionStarted(over: transport, remoteAddress: remoteAddress, uri: uri)
        // The manager runs on the connection's own task (an idle session keeps no task for it),
        // the handler and the Ready watch beside it. The first end is the reason: a failing
        // handler's error, not the "stopped" of the manager it then stops.
        let firstEnd = FirstEnd()
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in manager.stateChanges() where state == .ready {
                    await self.becameReady(connection)
                    break
                }
            }
            group.addTask {
                do {
                    try await handler(manager)
                } catch {
                    if Self.handlerFailed(error, session: connection.id, firstEnd: firstEnd, logger: logger) { await manager.stop() }
                }
            }
            do {
                try await manager.run()
                firstEnd.claim("stopped")
            } catch {
                firstEnd.claim(failure: error)
            }
            group.cancelAll()
        }
        sessionEnded(connection, reason: firstEnd.reason ?? "stopped")
    }

    // `serve` and its handler's task last as long as the session, and Swift puts a function's
    // temporaries in its frame: the bookkeeping, logging and error matching go in synchronous
    // helpers that are never inlined, so their temporaries stay on the thread's stack.

    @inline(never)
    private func sessionStarted(over transport: any SDLTransport, remoteAddress: String?, uri: String) -> (SDLCloudConnection, SDLManager) {
        nextID += 1
        let connection = SDLCloudConnection(id: nextID, remoteAddress: remoteAddress, uri: uri)
        let manager = makeManager(for: connection, over: transport)
        sessions[connection.id] = manager
        sessionsChanged = true
        eventFanOut.yield(.connected(connection))
        return (connection, manager)
    }

    @inline(never)
    private func sessionEnded(_ connection: SDLCloudConnection, reason: String) {
        sessionEnded(connection.id)
        sessionsChanged = true
        logger.info("session ended", metadata: ["session": "\(connection.id)", "reason": "\(reason)"])
        eventFanOut.yield(.ended(connection, reason: reason, openSessions: sessions.count))
    }

    /// Whether the handler's `error` stops the session (logged): not a cancellation, and the
    /// first end of the session.
    @inline(never)
    private static func handlerFailed(_ error: any Error, session: Int, firstEnd: FirstEnd, logger: Logger) -> Bool {
        if error is CancellationError { return false }
        // A cancellation that came back through the manager's API.
        if let error = error as? SDLError, error.code == .cancelled { return false }
        guard firstEnd.claim("the session handler failed: \(error)") else { return false }
        logger.warning("the session handler failed; the session stops", metadata: ["session": "\(session)", "error": "\(error)"])
        return true
    }

    /// A session's manager. Not async: the configuration it copies stays off the frame of
    /// `serve`, which lives as long as the session.
    private func makeManager(for connection: SDLCloudConnection, over transport: any SDLTransport) -> SDLManager {
        var configuration = app
        configuration.transport = .accepted(transport)
        // Only the head unit dials (again, after a drop); this side never reconnects.
        configuration.reconnectPolicy = .never
        configuration.logger[metadataKey: "session"] = "\(connection.id)"
        return SDLManager(configuration: configuration)
    }

    private func becameReady(_ connection: SDLCloudConnection) {
        eventFanOut.yield(.ready(connection, openSessions: sessions.count))
    }

    /// Whether a session started or ended since the last call: the server's memory release
    /// (SDLCloudServer) looks, so that it runs only after sessions came or went.
    package func takeSessionsChanged() -> Bool {
        defer { sessionsChanged = false }
        return sessionsChanged
    }

    package nonisolated func logReleased(took: Duration) {
        logger.debug("freed memory handed back to the system", metadata: ["took": "\(took)"])
    }

    /// Takes no more sessions, then stops every open one (each unregisters its app and closes
    /// its connection) and returns when they have ended.
    public func shutdown() async {
        accepting = false
        let open = Array(sessions.values)
        logger.info("shutting down", metadata: ["sessions": "\(open.count)"])
        // A manager stopped before its run began keeps the stop: its run returns at once.
        await withTaskGroup(of: Void.self) { group in
            for manager in open { group.addTask { await manager.stop() } }
        }
        // `stop()` returns when a manager's run has; its session's bookkeeping follows on this actor.
        if !sessions.isEmpty { await withCheckedContinuation { drainWaiters.append($0) } }
    }

    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    private func sessionEnded(_ id: Int) {
        sessions[id] = nil
        if !accepting && sessions.isEmpty {
            for waiter in drainWaiters { waiter.resume() }
            drainWaiters = []
        }
    }
}

/// Why a session ended: the first of its manager's and its handler's ends to claim it.
private final class FirstEnd: Sendable {
    private let first = Mutex<String?>(nil)

    /// Records `reason` unless another came first; true when this one is the reason.
    @discardableResult
    func claim(_ reason: String) -> Bool {
        first.withLock { first in
            guard first == nil else { return false }
            first = reason
            return true
        }
    }

    /// `claim` with `error` described; never inlined, so the description's temporaries stay
    /// off the frame of `serve`, which lasts as long as the session.
    @inline(never)
    func claim(failure error: any Error) {
        claim("\(error)")
    }

    var reason: String? { first.withLock { $0 } }
}
