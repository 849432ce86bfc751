import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

/// Child tasks started from anywhere (an actor method, a stream's termination handler) but owned
/// by a structured parent: `run()` adds each to its task group, so they end when the scope's
/// owner ends (the manager's run, or one connection) and the owner waits for them. This is how
/// sub-managers' listeners, renewals and queue runners stay children of the run loop.
///
/// Work spawned into a scope must end when its task is cancelled (streams end, sleeps throw,
/// requests fail), or the owner waits for it.
final class TaskScope: Sendable {
    typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let sink: AsyncStream<Job>.Continuation
    private let cancelled = Atomic(false)

    init() {
        (jobs, sink) = AsyncStream.makeStream()
    }

    /// Runs `work` as a child of the scope. False, and `work` never runs, once the scope has ended.
    @discardableResult
    func spawn(_ work: @escaping Job) -> Bool {
        if case .enqueued = sink.yield(work) { return true }
        return false
    }

    /// Runs the spawned work until the calling task is cancelled or `finish()` is called, then
    /// waits for it (cancelled with the calling task). Later spawns are refused.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await job in jobs { group.addTask(operation: job) }
            if cancelled.load(ordering: .acquiring) { group.cancelAll() }
        }
        sink.finish()
    }

    /// `run()` with `body` as one more child, in the same task group (a session's long-lived
    /// task keeps one group fewer): when `body` ends the scope is cancelled, and when the scope
    /// is cancelled so is `body`. Rethrows `body`'s error once the work has ended.
    func run(beside body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                defer { self.cancel() }
                try await body()
            }
            for await job in jobs { group.addTask(operation: job) }
            if cancelled.load(ordering: .acquiring) { group.cancelAll() }
        }
        sink.finish()
    }

    /// Takes no more work; `run()` returns once the work under way has ended.
    func finish() {
        sink.finish()
    }

    /// Takes no more work and cancels the work under way; `run()` returns once it has ended.
    /// After `finish()` it cancels nothing: `run()` is already waiting for the work to end by itself.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        sink.finish()
    }

    /// Runs `body` with a new scope whose work runs beside it; when `body` returns, the work
    /// still under way is cancelled and awaited. For a loop run on its own, without an owner
    /// that gives it a scope (the session and client runs take their owner's).
    static func withScope<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ body: (TaskScope) async throws -> T
    ) async throws -> T {
        let scope = TaskScope()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await scope.run() }
            defer { group.cancelAll() }
            return try await body(scope)
        }
    }
}

/// What a sub-manager is given when a connection becomes Ready.
struct SDLConnectionContext: Sendable {
    /// Work for this connection only (renewing subscriptions...): cancelled when it ends.
    let tasks: TaskScope
    /// The head unit's RPC version on this connection.
    let rpcVersion: SDLSpecVersion
    /// The connection's permissions (SDL Core refuses subscriptions in NONE, for one).
    let permissions: SDLPermissionTracker?
    /// The connection's audio and video services (nil in unit tests that need none).
    var media: (any SDLMediaServices)? = nil
}

/// The session's audio and video services as the streaming managers use them, so they can be
/// driven by a fake.
protocol SDLMediaServices: Sendable {
    /// Starts a service with its parameters; returns the ACK's payload, throws
    /// `SDLSessionError.startRejected` with the NAK's `rejectedParams` and `reason`.
    func startService(_ service: SDLServiceType, parameters: SDLControlPayload) async throws -> SDLControlPayload
    /// Starts a service protected: the handshake if needed, then an ACK with or without the bit.
    func startProtectedService(_ service: SDLServiceType, parameters: SDLControlPayload) async throws -> SDLServiceProtection
    /// Whether a security provider is set, so a protected start can be asked for.
    var hasSecurity: Bool { get async }
    /// Ends a service.
    func endService(_ service: SDLServiceType) async throws
    /// Messages on a running service (each split into frames at the MTU), in one write;
    /// `SDLSessionError.serviceNotRunning` once either side ended it.
    func sendStreamedMedia(messages: [[UInt8]], service: SDLServiceType, encrypted: Bool) async throws
    /// Services the head unit ends from its side.
    func servicesEndedByHeadUnit() -> AsyncStream<SDLServiceType>
    /// The negotiated session (its MTU), once started.
    var session: SDLNegotiatedSession? { get async }
}

extension SDLProtocolSession: SDLMediaServices {}

/// A sub-manager as the manager's run loop drives it: one set of hooks for all of them, called
/// in order by the run loop, instead of one differently named hook per sub-manager. No default
/// implementations: a sub-manager's synchronous hook must not lose to a silent async default.
protocol SDLSubManager: Actor {
    /// A connection is Ready: renew what the app had on the head unit, on `connection.tasks`.
    func connectionReady(_ connection: SDLConnectionContext) async
    /// The connection ended (requests in flight fail with it).
    func connectionEnded() async
    /// The manager stopped: every stream of the sub-manager ends, its state goes.
    func managerStopped() async
    /// Ends every stream the sub-manager publishes, at once: for one made after the manager's
    /// run ended, this is all that stopping it takes (nothing else was ever started).
    nonisolated func endStreams()
}
