import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

/// Which RPCs the head unit allows right now, from OnHMIStatus and OnPermissionsChange: SDL
/// Core answers DISALLOWED until both say yes, so a tool or app that sends one RPC
/// right after registering waits here first.
///
/// Create it before registering (it subscribes at once, so nothing is missed) and run `run()`
/// alongside the client; it follows the notifications until the connection ends.
public actor SDLPermissionTracker {
    /// The main window's HMI level.
    public private(set) var hmiLevel: HMILevel = .none
    private var table = PermissionTable()
    private nonisolated let sharedValues: SDLSharedValues?
    /// Its own observers, which end with its connection.
    private nonisolated let observers = PermissionObservers(outlivesConnections: false)
    /// The manager's, which outlive this connection (`SDLManager.permissionChanges(of:_:)`).
    private nonisolated let managerObservers: PermissionObservers?
    /// Who waits for an RPC to be allowed. Behind a lock of its own, so a cancelled wait ends at
    /// once in its cancellation handler, whether or not `run()` is going.
    private struct Waiters {
        var byID: [Int: (rpc: String, continuation: CheckedContinuation<Bool, Never>)] = [:]
        /// Waits cancelled before their continuation was stored.
        var cancelled: Set<Int> = []
    }
    private nonisolated let waiters = Mutex(Waiters())
    private var nextWaiterID = 0
    private var finished = false
    /// OnHMIStatus and OnPermissionsChange in their order, from the tracker's creation; nil
    /// when its owner feeds it (`receive(_:)`, the manager's follower).
    private let notifications: AsyncStream<SDLIncomingRPC>?
    /// The connection's clock, for `waitUntilAllowed(_:timeout:)`.
    private let clock: SDLClock

    /// A tracker for the connection `client` runs; create it before registering so that no
    /// OnHMIStatus or OnPermissionsChange is missed.
    public init(client: SDLRPCClient, clock: SDLClock = .continuous) {
        self.init(client: client, clock: clock, managerObservers: nil)
    }

    /// A tracker that also tells `managerObservers` (the manager's, across connections). With
    /// `fedByOwner`, it reads no stream of its own: the owner hands it each OnHMIStatus and
    /// OnPermissionsChange in read order (`receive(_:)`) and calls `connectionEnded()`.
    init(client: SDLRPCClient, clock: SDLClock, managerObservers: PermissionObservers?, fedByOwner: Bool = false) {
        self.managerObservers = managerObservers
        self.clock = clock
        sharedValues = client.sharedValues
        notifications = fedByOwner ? nil : client.rawNotifications(functionIDs: Self.followedFunctionIDs, name: "permissions")
    }

    /// The notifications a tracker follows.
    static let followedFunctionIDs = Set([OnHMIStatus.wireFunctionID, OnPermissionsChange.wireFunctionID].compactMap { $0 })

    /// Follows the head unit's notifications until the connection ends; then every waiter gets
    /// `false`. A tracker its owner feeds returns at once.
    public func run() async {
        guard let notifications else { return }
        // One reader on this task, in read order (no child tasks: an idle connection keeps this).
        for await notification in notifications { receive(notification) }
        connectionEnded()
    }

    /// Applies one OnHMIStatus or OnPermissionsChange as it was read; ignores anything else.
    func receive(_ notification: SDLIncomingRPC) {
        let json = notification.payload.json
        switch notification.payload.functionID {
        case OnHMIStatus.wireFunctionID:
            if let status = try? SDLJSON.decode(OnHMIStatus.self, from: json, policy: .lenient).value { update(status) }
        case OnPermissionsChange.wireFunctionID:
            if let sharedValues, let previous = table.sharedID, json.count <= SDLSharedValues.maxSharedBytes {
                // The policy's grants, the same for every vehicle under it: one table for all
                // that got the same notifications in the same order (the previous table's id
                // and this notification's bytes name the next table).
                let key = withUnsafeBytes(of: previous.bigEndian, Array.init) + json
                let table = self.table
                guard
                    let next = try? sharedValues.value(
                        PermissionTable.self, from: key,
                        make: { () throws(SDLDecodingError) in
                            var next = table
                            next.apply(try SDLJSON.decode(OnPermissionsChange.self, from: json, policy: .lenient).value)
                            next.sharedID = sharedValues.newID()
                            return next
                        })
                else { return }
                self.table = next
                tableChanged()
            } else if let change = try? SDLJSON.decode(OnPermissionsChange.self, from: json, policy: .lenient).value {
                update(change)
            }
        default:
            break
        }
    }

    /// The connection ended: every waiter gets `false`, observers hear of it. Safe to repeat.
    func connectionEnded() {
        guard !finished else { return }
        finished = true
        let ending = waiters.withLock { waiters in
            defer { waiters.byID.removeAll() }
            return Array(waiters.byID.values)
        }
        for waiter in ending { waiter.continuation.resume(returning: false) }
        observers.connectionEnded()
        managerObservers?.connectionEnded()
    }

    /// Applies an OnHMIStatus (main window only).
    public func update(_ status: OnHMIStatus) {
        guard status.windowID == nil || status.windowID == 0 else { return }
        hmiLevel = status.hmiLevel
        wakeWaiters()
        notifyObservers()
    }

    /// Applies an OnPermissionsChange: its items replace what was known for those RPCs.
    public func update(_ change: OnPermissionsChange) {
        table.apply(change)
        // No longer made from notifications alone: never shared from here on.
        table.sharedID = nil
        tableChanged()
    }

    /// Waiters and observers hear of a new table.
    private func tableChanged() {
        wakeWaiters()
        notifyObservers()
    }

    /// Whether `rpc` (its spec name) is allowed at the current HMI level.
    public func isAllowed(_ rpc: String) -> Bool {
        table.allowedLevels[rpc]?.contains(hmiLevel) ?? false
    }

    /// The HMI levels `rpc` is allowed in; nil when the head unit never mentioned it.
    public func levels(allowing rpc: String) -> Set<HMILevel>? {
        table.allowedLevels[rpc]
    }

    /// The current HMI level with the levels `rpc` is allowed in, read together; nil when the
    /// head unit never mentioned `rpc`.
    func levelAndGrant(of rpc: String) -> (level: HMILevel, allowedIn: Set<HMILevel>)? {
        table.allowedLevels[rpc].map { (hmiLevel, $0) }
    }

    /// The parameters (vehicle-data items...) the head unit allows for `rpc`.
    public func parameters(allowedFor rpc: String) -> Set<String> {
        table.allowedParameters[rpc] ?? []
    }

    /// One RPC's permission now.
    public func permission(of rpc: String) -> SDLRPCPermission {
        SDLRPCPermission(
            rpc: rpc, isAllowed: isAllowed(rpc), allowedLevels: table.allowedLevels[rpc],
            allowedParameters: table.allowedParameters[rpc] ?? [], userDisallowedParameters: table.userDisallowedParameters[rpc] ?? [],
            requiresEncryption: table.encryptionRequired.contains(rpc))
    }

    /// A group's status now: all allowed, none, some, or unknown while the head unit has not
    /// mentioned one of them.
    public func status(of rpcs: [String]) -> SDLPermissionGroupStatus {
        guard rpcs.allSatisfy({ table.allowedLevels[$0] != nil }) else { return .unknown }
        let allowed = rpcs.filter(isAllowed).count
        return allowed == rpcs.count ? .allowed : allowed == 0 ? .disallowed : .mixed
    }

    /// The group's permissions each time they change (re-evaluated on every HMI level and
    /// permission change). `.anyChange` yields the current permissions at once and then every
    /// change; `.allAllowed` yields when every RPC of the group becomes allowed, and again when
    /// they stop being all allowed (the guide's `allAllowed` group type). A tracker's own
    /// observers end with its connection; `SDLManager.permissionChanges(of:_:)` outlives them.
    public func observe(_ rpcs: [String], _ kind: SDLPermissionObservation = .anyChange) -> AsyncStream<[String: SDLRPCPermission]> {
        let stream = observers.add(rpcs, kind)
        notifyObservers()
        return stream
    }

    /// Evaluates every observer now (a new observer of the manager's hears the current state).
    func notifyObservers() {
        observers.evaluate { permission(of: $0) }
        guard !finished else { return }
        managerObservers?.evaluate { permission(of: $0) }
    }

    /// Waits until `rpc` is allowed at the current level: true then, false when the connection
    /// ends or the task is cancelled first. Bound it with a timeout of your own.
    public func waitUntilAllowed(_ rpc: String) async -> Bool {
        if isAllowed(rpc) { return true }
        if finished || Task.isCancelled { return false }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = waiters.withLock { waiters in
                    if waiters.cancelled.remove(id) != nil { return true }
                    waiters.byID[id] = (rpc, continuation)
                    return false
                }
                if cancelled { continuation.resume(returning: false) }
            }
        } onCancel: {
            let waiter = waiters.withLock { waiters in
                let waiter = waiters.byID.removeValue(forKey: id)
                if waiter == nil { waiters.cancelled.insert(id) }
                return waiter
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Like `waitUntilAllowed(_:)`, giving up (false) after `timeout`.
    public func waitUntilAllowed(_ rpc: String, timeout: Duration) async -> Bool {
        await firstOf(timeout: timeout, on: clock) { await self.waitUntilAllowed(rpc) }
    }

    private func wakeWaiters() {
        let ready = waiters.withLock { waiters in
            let ready = waiters.byID.filter { isAllowed($0.value.rpc) }
            for id in ready.keys { waiters.byID[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }
}

/// `operation`'s answer, or false when `timeout` passes first on `clock` (the operation is
/// cancelled).
func firstOf(timeout: Duration, on clock: SDLClock, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
    let deadline = clock.now + timeout
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await clock.sleep(until: deadline)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// One RPC's permission at the current HMI level.
public struct SDLRPCPermission: Sendable, Hashable {
    /// The RPC's name, such as `Show` or `GetVehicleData`.
    public var rpc: String
    /// Whether the app may send it at the current HMI level.
    public var isAllowed: Bool
    /// nil while the head unit has not mentioned the RPC.
    public var allowedLevels: Set<HMILevel>?
    /// The parameters the head unit allows for it (vehicle-data items, for example).
    public var allowedParameters: Set<String>
    /// The parameters the user turned off for this app.
    public var userDisallowedParameters: Set<String>
    /// Whether the head unit accepts it only on an encrypted (protected) service.
    public var requiresEncryption: Bool
}

/// How a group of RPCs stands.
public enum SDLPermissionGroupStatus: Sendable, Hashable {
    /// Every RPC of the group is allowed at the current HMI level.
    case allowed
    /// Some RPCs of the group are allowed, others are not.
    case mixed
    /// No RPC of the group is allowed at the current HMI level.
    case disallowed
    /// The head unit has not yet said anything about at least one RPC of the group.
    case unknown
}

/// What a permission observer hears.
public enum SDLPermissionObservation: Sendable, Hashable {
    /// Every change of any RPC of the group, starting with the current state.
    case anyChange
    /// The moments the group becomes all allowed, and those it stops being all allowed.
    case allAllowed
}

/// What the head unit's OnPermissionsChange notifications said, by RPC name.
struct PermissionTable: Sendable {
    var allowedLevels: [String: Set<HMILevel>] = [:]
    var allowedParameters: [String: Set<String>] = [:]
    var userDisallowedParameters: [String: Set<String>] = [:]
    var encryptionRequired: Set<String> = []
    /// Which shared table this is (0: the empty one every session starts from), so that the
    /// next notification's table can be found by this id and its bytes; nil once changed
    /// otherwise (never shared from then on).
    var sharedID: UInt64? = 0

    /// A change's items replace what was known for those RPCs.
    mutating func apply(_ change: OnPermissionsChange) {
        for item in change.permissionItem {
            allowedLevels[item.rpcName] = Set(item.hmiPermissions.allowed)
            allowedParameters[item.rpcName] = Set(item.parameterPermissions.allowed)
            userDisallowedParameters[item.rpcName] = Set(item.parameterPermissions.userDisallowed)
            if item.requireEncryption == true { encryptionRequired.insert(item.rpcName) } else { encryptionRequired.remove(item.rpcName) }
        }
    }
}
