import SDLRPC

/// Which RPCs the head unit allows right now, from OnHMIStatus and OnPermissionsChange: SDL
/// Core answers DISALLOWED until both say yes (HEADUNIT.md), so a tool or app that sends one RPC
/// right after registering waits here first.
///
/// Create it before registering (it subscribes at once, so nothing is missed) and run `run()`
/// alongside the client; it follows the notifications until the connection ends.
public actor SDLPermissionTracker {
    /// The main window's HMI level.
    public private(set) var hmiLevel: HMILevel = .none
    private var allowedLevels: [String: Set<HMILevel>] = [:]
    private var allowedParameters: [String: Set<String>] = [:]
    private var waiters: [Int: (rpc: String, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiterID = 0
    private var finished = false
    private let statuses: AsyncStream<OnHMIStatus>
    private let changes: AsyncStream<OnPermissionsChange>

    public init(client: SDLRPCClient) {
        statuses = client.notifications(OnHMIStatus.self)
        changes = client.notifications(OnPermissionsChange.self)
    }

    /// Follows the head unit's notifications until the connection ends; then every waiter gets
    /// `false`.
    public func run() async {
        let statuses = self.statuses
        let changes = self.changes
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await status in statuses where status.windowID == nil || status.windowID == 0 { await self.update(status) }
            }
            group.addTask {
                for await change in changes { await self.update(change) }
            }
        }
        finished = true
        for waiter in waiters.values { waiter.continuation.resume(returning: false) }
        waiters.removeAll()
    }

    /// Applies an OnHMIStatus (main window only).
    public func update(_ status: OnHMIStatus) {
        guard status.windowID == nil || status.windowID == 0 else { return }
        hmiLevel = status.hmiLevel
        wakeWaiters()
    }

    /// Applies an OnPermissionsChange: its items replace what was known for those RPCs.
    public func update(_ change: OnPermissionsChange) {
        for item in change.permissionItem {
            allowedLevels[item.rpcName] = Set(item.hmiPermissions.allowed)
            allowedParameters[item.rpcName] = Set(item.parameterPermissions.allowed)
        }
        wakeWaiters()
    }

    /// Whether `rpc` (its spec name) is allowed at the current HMI level.
    public func isAllowed(_ rpc: String) -> Bool {
        allowedLevels[rpc]?.contains(hmiLevel) ?? false
    }

    /// The HMI levels `rpc` is allowed in; nil when the head unit never mentioned it.
    public func levels(allowing rpc: String) -> Set<HMILevel>? {
        allowedLevels[rpc]
    }

    /// The parameters (vehicle-data items...) the head unit allows for `rpc`.
    public func parameters(allowedFor rpc: String) -> Set<String> {
        allowedParameters[rpc] ?? []
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
                waiters[id] = (rpc, continuation)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Like `waitUntilAllowed(_:)`, giving up (false) after `timeout`.
    public func waitUntilAllowed(_ rpc: String, timeout: Duration) async -> Bool {
        await firstOf(timeout: timeout) { await self.waitUntilAllowed(rpc) }
    }

    private func cancelWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }

    private func wakeWaiters() {
        for (id, waiter) in waiters where isAllowed(waiter.rpc) {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }
}

/// `operation`'s answer, or false when `timeout` passes first (the operation is cancelled).
func firstOf(timeout: Duration, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}
