import SDLProtocol
import SDLRPC
import Synchronization

/// What a sub-manager uses of the manager that owns it: a narrow view (its app types, the head
/// unit's version and main window, sending, notifications, child tasks), so a sub-manager can be
/// tested against a fake without an emulator or a socket.
protocol SDLSubManagerContext: Sendable {
    /// The app's types, from the configuration (media and navigation buttons depend on them).
    var appTypes: Set<AppHMIType> { get async }
    /// The head unit's RPC version on the current connection.
    func rpcVersion() async -> SDLSpecVersion
    /// The main window's capability on the current connection, when known.
    func mainWindowCapability() async -> WindowCapability?
    /// Sends with the manager's checks (Ready, HMI level, RPC version).
    func send<R: SDLRequest>(_ request: R) async throws -> R.Response
    /// Notifications of these function IDs in read order, across reconnections, until the
    /// manager stops.
    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC>
    /// Runs `work` as a child of the manager's run; false when it is not running.
    @discardableResult
    func spawn(_ work: @escaping @Sendable () async -> Void) -> Bool
}

/// How a sub-manager reaches the manager that owns it without keeping it alive: the manager
/// sets itself here once it is initialised. It is the sub-managers' `SDLSubManagerContext`.
final class ManagerLink: SDLSubManagerContext {
    private struct Box { weak var manager: SDLManager? }
    private let box = Mutex(Box())

    var manager: SDLManager? {
        get { box.withLock { $0.manager } }
        set { box.withLock { $0.manager = newValue } }
    }

    /// The manager, or `notReady(.stopped)` once it is gone.
    func require() throws(SDLManagerError) -> SDLManager {
        guard let manager else { throw .notReady(.stopped) }
        return manager
    }

    var appTypes: Set<AppHMIType> {
        get async { Set(await manager?.appTypes ?? []) }
    }

    func rpcVersion() async -> SDLSpecVersion {
        await manager?.negotiatedRPCVersion ?? MobileAPI.version
    }

    func mainWindowCapability() async -> WindowCapability? {
        await manager?.systemCapabilities.defaultMainWindowCapability
    }

    func send<R: SDLRequest>(_ request: R) async throws -> R.Response {
        try await require().send(request)
    }

    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> {
        manager?.rawNotifications(functionIDs: functionIDs) ?? AsyncStream { $0.finish() }
    }

    @discardableResult
    func spawn(_ work: @escaping @Sendable () async -> Void) -> Bool {
        manager?.tasks.spawn(work) ?? false
    }
}
