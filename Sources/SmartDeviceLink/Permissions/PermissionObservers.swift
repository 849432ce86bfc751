import Synchronization

/// Permission observers, apart from a connection's tracker: the manager keeps one set for all
/// its connections, so an observer outlives a reconnection; a tracker made on its own keeps
/// its own, which ends with its connection. Behind a lock, so a reader that leaves is removed
/// at once by its stream's termination handler, without a task.
final class PermissionObservers: Sendable {
    private struct Observer {
        let rpcs: [String]
        let kind: SDLPermissionObservation
        let continuation: AsyncStream<[String: SDLRPCPermission]>.Continuation
        /// What this observer last saw, to yield changes only.
        var last: [String: SDLRPCPermission]?
        /// Whether the group was all allowed when last evaluated (`.allAllowed` yields on each flip).
        var wasAllAllowed = false
    }

    private struct State {
        var nextID = 0
        var byID: [Int: Observer] = [:]
        var finished = false
    }

    private let state = Mutex(State())
    /// The manager's set: a connection's end resets the observers instead of ending them.
    let outlivesConnections: Bool

    init(outlivesConnections: Bool) {
        self.outlivesConnections = outlivesConnections
    }

    /// A new observer of `rpcs`; its stream keeps the 16 latest changes for a slow reader.
    func add(_ rpcs: [String], _ kind: SDLPermissionObservation) -> AsyncStream<[String: SDLRPCPermission]> {
        // Each RPC once: the group's permissions are a dictionary by name.
        var seen: Set<String> = []
        let rpcs = rpcs.filter { seen.insert($0).inserted }
        let (stream, continuation) = AsyncStream<[String: SDLRPCPermission]>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.byID[state.nextID] = Observer(rpcs: rpcs, kind: kind, continuation: continuation)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.byID.removeValue(forKey: id) } }
        return stream
    }

    /// Re-evaluates every observer with the connection's permissions: `.anyChange` hears each
    /// change, `.allAllowed` hears the group become all allowed and stop being so.
    func evaluate(_ permission: (String) -> SDLRPCPermission) {
        let groups = state.withLock { $0.byID.mapValues(\.rpcs) }
        let now = groups.mapValues { rpcs in Dictionary(uniqueKeysWithValues: rpcs.map { ($0, permission($0)) }) }
        let yields = state.withLock { state -> [(AsyncStream<[String: SDLRPCPermission]>.Continuation, [String: SDLRPCPermission])] in
            var yields: [(AsyncStream<[String: SDLRPCPermission]>.Continuation, [String: SDLRPCPermission])] = []
            for (id, permissions) in now {
                guard var observer = state.byID[id], permissions != observer.last else { continue }
                observer.last = permissions
                let allAllowed = permissions.values.allSatisfy(\.isAllowed)
                switch observer.kind {
                case .anyChange: yields.append((observer.continuation, permissions))
                case .allAllowed where allAllowed != observer.wasAllAllowed: yields.append((observer.continuation, permissions))
                case .allAllowed: break
                }
                observer.wasAllAllowed = allAllowed
                state.byID[id] = observer
            }
            return yields
        }
        for (continuation, permissions) in yields { continuation.yield(permissions) }
    }

    /// The connection ended: a tracker's own observers end; the manager's wait for the next
    /// connection, which they hear from its first permissions on.
    func connectionEnded() {
        if outlivesConnections {
            state.withLock { state in
                for id in state.byID.keys { state.byID[id]?.last = nil }
            }
        } else {
            finish()
        }
    }

    /// Ends every observer's stream, and any added later.
    func finish() {
        let leaving = state.withLock { state in
            state.finished = true
            defer { state.byID.removeAll() }
            return Array(state.byID.values)
        }
        for observer in leaving { observer.continuation.finish() }
    }
}
