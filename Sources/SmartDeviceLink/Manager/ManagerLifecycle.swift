import SDLTransport

/// `SDLManager`'s lifecycle as a value: each state carries its data (the connection being set up
/// or served, the reconnection attempt, why it stopped), and each event returns what the manager
/// must do. No I/O and no clock here, so every transition is tested without a head unit.
///
/// A manager is one-shot, like grpc-swift's `GRPCClient`: `run()` once; once it has stopped it
/// stays stopped (make a new manager to connect again). A stop that comes before `run()` is kept:
/// `run()` then returns at once.
///
/// `Connection` is what a connection's requests go through (`SDLRPCClient` in the manager).
struct ManagerLifecycle<Connection: Sendable>: Sendable {
    enum State: Sendable {
        /// Made, not run yet.
        case idle
        /// Dialing or negotiating; `connection` once the transport is up. `attempt` is 0 for
        /// the first connection, then counts the tries since the last connection that worked.
        case connecting(attempt: Int, connection: Connection?)
        /// The head unit accepted RegisterAppInterface.
        case registered(Connection)
        /// Sub-managers start on the new connection.
        case settingUp(Connection)
        /// The app's requests go out.
        case ready(Connection)
        /// Waiting before the next try; `after` is why the last connection ended.
        case reconnecting(attempt: Int, after: SDLCloseReason)
        /// `stop()` came while running; the connection, if any, is being unregistered and closed.
        case stopping(Connection?)
        /// Terminal.
        case stopped(Ending)
    }

    /// Why a manager stopped.
    enum Ending: Sendable {
        /// `stop()` (or graceful shutdown) came before `run()`.
        case beforeRun
        /// `run()` returned: stopped by the app, or the connection closed by it.
        case finished
        /// `run()` threw this.
        case failed(any Error)
    }

    /// What `run()` does.
    enum RunAction: Equatable, Sendable {
        /// Connect.
        case start
        /// Stopped before it ran: return without connecting.
        case returnAtOnce
        /// Running already, or stopped after running: throw this.
        case refuse(SDLManagerError)
    }

    /// What `stop()` does, beyond waiting for `run()` to return.
    enum StopAction: Sendable {
        /// Nothing runs, or a stop is already under way.
        case none
        /// Dialing or waiting to reconnect: cancel it.
        case cancelConnecting
        /// The transport is up but the app is not registered: close it.
        case close(Connection)
        /// Registered: send UnregisterAppInterface, then close.
        case unregisterAndClose(Connection)
    }

    /// What to do when a connection ended.
    enum EndAction: Sendable {
        /// Stop running: `stop()` asked, or the app closed the session.
        case finish
        /// Wait `delay` (on the manager's clock), then connect again.
        case reconnect(after: Duration, attempt: Int)
        /// Give up: the reason does not allow reconnecting, or the attempts are spent.
        case fail(SDLManagerError)
    }

    private(set) var state: State = .idle
    let reconnectPolicy: SDLReconnectPolicy

    init(reconnectPolicy: SDLReconnectPolicy) {
        self.reconnectPolicy = reconnectPolicy
    }

    /// The manager's public state for this one.
    var publicState: SDLManager.State {
        switch state {
        case .idle, .stopped: .stopped
        case .connecting(let attempt, _): attempt == 0 ? .connecting : .reconnecting
        case .registered: .registered
        case .settingUp: .settingUpManagers
        case .ready: .ready
        case .reconnecting: .reconnecting
        case .stopping: .stopping
        }
    }

    /// The connection requests may use: only while Ready.
    var readyConnection: Connection? {
        if case .ready(let connection) = state { return connection }
        return nil
    }

    /// The registered connection (set-up and Ready), for what the app answers the head unit.
    var registeredConnection: Connection? {
        switch state {
        case .registered(let connection), .settingUp(let connection), .ready(let connection): connection
        default: nil
        }
    }

    /// Why `run()` threw, once it has.
    var failure: (any Error)? {
        if case .stopped(.failed(let error)) = state { return error }
        return nil
    }

    var isStopped: Bool {
        if case .stopped = state { return true }
        return false
    }

    // MARK: Events

    mutating func run() -> RunAction {
        switch state {
        case .idle:
            state = .connecting(attempt: 0, connection: nil)
            return .start
        case .stopped(.beforeRun):
            return .returnAtOnce
        case .stopped:
            return .refuse(.alreadyStopped)
        case .connecting, .registered, .settingUp, .ready, .reconnecting, .stopping:
            return .refuse(.alreadyRunning)
        }
    }

    /// The transport is up and the session object exists. False: a stop came meanwhile, and
    /// the caller closes `connection` instead of registering.
    mutating func transportConnected(_ connection: Connection) -> Bool {
        switch state {
        case .connecting(let attempt, nil):
            state = .connecting(attempt: attempt, connection: connection)
            return true
        case .stopping(nil):
            state = .stopping(connection)
            return false
        default:
            return false
        }
    }

    /// RegisterAppInterface succeeded. False when stopping.
    mutating func registered() -> Bool {
        guard case .connecting(_, let connection?) = state else { return false }
        state = .registered(connection)
        return true
    }

    /// The registration checks passed; sub-managers start. False when stopping.
    mutating func settingUp() -> Bool {
        guard case .registered(let connection) = state else { return false }
        state = .settingUp(connection)
        return true
    }

    /// The sub-managers run and the first OnHMIStatus is in. False when stopping.
    mutating func ready() -> Bool {
        guard case .settingUp(let connection) = state else { return false }
        state = .ready(connection)
        return true
    }

    /// A connection (or the attempt to make one) ended for `reason`.
    mutating func connectionEnded(_ reason: SDLCloseReason) -> EndAction {
        let attempt: Int
        switch state {
        case .stopping, .stopped, .idle:
            return .finish
        case .connecting(let previous, nil), .reconnecting(let previous, _):
            // The transport never came up: one more failed try.
            attempt = previous + 1
        case .connecting(_, _?), .registered, .settingUp, .ready:
            // A connection ran: the count starts again.
            attempt = 1
        }
        if reason == .closedByApp { return .finish }
        guard reason.allowsReconnection, attempt < reconnectPolicy.maxAttempts else {
            return .fail(.connectionLost(reason))
        }
        state = .reconnecting(attempt: attempt, after: reason)
        return .reconnect(after: Self.backOff(reconnectPolicy, beforeAttempt: attempt + 1), attempt: attempt)
    }

    /// The back-off before a reconnection attempt: the policy's, at least half a second so a
    /// head unit that drops every new connection is not hammered.
    static func backOff(_ policy: SDLReconnectPolicy, beforeAttempt attempt: Int) -> Duration {
        max(.milliseconds(500), policy.delay(beforeAttempt: attempt))
    }

    /// The back-off is over. False when a stop came meanwhile.
    mutating func backOffEnded() -> Bool {
        guard case .reconnecting(let attempt, _) = state else { return false }
        state = .connecting(attempt: attempt, connection: nil)
        return true
    }

    /// `stop()`, or the service group's graceful shutdown.
    mutating func stop() -> StopAction {
        switch state {
        case .idle:
            state = .stopped(.beforeRun)
            return .none
        case .connecting(_, nil), .reconnecting:
            state = .stopping(nil)
            return .cancelConnecting
        case .connecting(_, let connection?):
            state = .stopping(connection)
            return .close(connection)
        case .registered(let connection), .settingUp(let connection), .ready(let connection):
            state = .stopping(connection)
            return .unregisterAndClose(connection)
        case .stopping, .stopped:
            return .none
        }
    }

    /// `run()` returned (nil) or threw.
    mutating func runEnded(_ error: (any Error)?) {
        state = .stopped(error.map { .failed($0) } ?? .finished)
    }
}
