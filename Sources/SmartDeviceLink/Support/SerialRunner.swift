import DequeModule
import Synchronization

/// Work done one piece at a time, in order, on a child of a `TaskScope` that exists only while
/// there is work: an idle connection holds no task for it (a server keeps thousands of those).
final class SerialRunner: Sendable {
    typealias Work = @Sendable () async -> Void
    private struct State {
        var pending = Deque<Work>()
        var running = false
    }
    private let state = Mutex(State())
    private let scope: TaskScope
    private let keepsLateWork: Bool

    /// `keepsLateWork`: work queued once the scope has ended waits for `drainHere()` instead of
    /// being dropped.
    init(on scope: TaskScope, keepsLateWork: Bool = false) {
        self.scope = scope
        self.keepsLateWork = keepsLateWork
    }

    /// Runs `work` after the work already queued. Dropped once the scope has ended (unless
    /// late work is kept).
    func enqueue(_ work: @escaping Work) {
        let start = state.withLock { state -> Bool in
            state.pending.append(work)
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        if !scope.spawn({ await self.drain() }), !keepsLateWork {
            state.withLock { $0 = State() }
        }
    }

    /// Runs what is queued on the calling task, for an owner whose scope has ended (or never
    /// ran) and who still owes that work.
    func drainHere() async {
        while let work = state.withLock({ $0.pending.popFirst() }) { await work() }
    }

    private func drain() async {
        while let work = state.withLock({ state -> Work? in
            guard let next = state.pending.popFirst() else {
                state.running = false
                return nil
            }
            return next
        }) {
            await work()
        }
    }
}
