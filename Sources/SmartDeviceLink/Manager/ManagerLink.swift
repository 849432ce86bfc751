import SDLProtocol
import SDLRPC
import SDLRuntime
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
    /// Whether a manager is behind the context (false once it is gone: operations fail).
    var isAttached: Bool { get }
    /// Sends with the manager's checks (Ready, HMI level, RPC version).
    func send<R: SDLRequest>(_ request: R) async throws -> R.Response
    /// Sends with the manager's checks, waiting up to `timeout` (the session's default when nil).
    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response
    /// Notifications of these function IDs in read order, across reconnections, until the
    /// manager stops.
    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC>
    /// Notifications of one type across reconnections, until the manager stops.
    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N>
    /// Whether the head unit says it has `type` (its registration, or the capability itself).
    func isSupported(_ type: SystemCapabilityType) async -> Bool
    /// A system capability from the cache, asked for when missing (RPC 4.5+); nil when the
    /// head unit has none or cannot tell.
    func capability(_ type: SystemCapabilityType) async -> SystemCapability?
    /// Uploads an artwork unless the head unit has it (or it is a static icon).
    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome
    /// Sends an `R` whose JSON is ready (keys the spec lacks, such as OEM custom vehicle data)
    /// with the manager's checks; the typed response and the raw one.
    func send<R: SDLRequest>(_ type: R.Type, json: [UInt8]) async throws -> (response: R.Response, raw: SDLIncomingRPC)
    /// The connection's permission tracker, once registered.
    func permissions() async -> SDLPermissionTracker?
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
        get async { Set(manager?.appTypes ?? []) }
    }

    func rpcVersion() async -> SDLSpecVersion {
        manager?.negotiatedRPCVersion ?? MobileAPI.version
    }

    func mainWindowCapability() async -> WindowCapability? {
        await manager?.systemCapabilities.defaultMainWindowCapability
    }

    var isAttached: Bool { manager != nil }

    func send<R: SDLRequest>(_ request: R) async throws -> R.Response {
        try await require().send(request)
    }

    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response {
        try await require().send(request, timeout: timeout)
    }

    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        manager?.notifications(type) ?? AsyncStream { $0.finish() }
    }

    func isSupported(_ type: SystemCapabilityType) async -> Bool {
        await manager?.systemCapabilities.isSupported(type) ?? false
    }

    func capability(_ type: SystemCapabilityType) async -> SystemCapability? {
        await manager?.capability(type)
    }

    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome {
        guard let manager else { throw .notConnected(name: artwork.name) }
        return try await manager.files.uploadArtwork(artwork)
    }

    func send<R: SDLRequest>(_ type: R.Type, json: [UInt8]) async throws -> (response: R.Response, raw: SDLIncomingRPC) {
        try await require().send(R.self, json: json)
    }

    func permissions() async -> SDLPermissionTracker? {
        manager?.permissions
    }

    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> {
        manager?.rawNotifications(functionIDs: functionIDs) ?? AsyncStream { $0.finish() }
    }

    @discardableResult
    func spawn(_ work: @escaping @Sendable () async -> Void) -> Bool {
        manager?.tasks.spawn(work) ?? false
    }
}

extension SDLSubManagerContext {
    /// Sends `request` with the manager's checks; an unsuccessful answer (other than WARNINGS)
    /// throws `refused`.
    func feature<R: SDLRequest>(_ request: R, timeout: Duration? = nil) async throws(SDLFeatureError) -> R.Response
    where R.Response: SDLResultCarrying {
        let response = try await SDLFeatureError.sending(R.functionName) { try await self.send(request, timeout: timeout) }
        guard response.success || response.resultCode == .warnings else { throw .refused(R.functionName, response.resultCode, info: response.info) }
        return response
    }
}
