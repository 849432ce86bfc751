import Synchronization

/// Answers that callers wait for by key, behind one lock: an answer, a failure or a cancellation
/// resumes the waiter under that lock. A task-cancellation handler thus ends a wait at once,
/// without a task hop to reach an actor first: the library's one cancellation idiom (grpc-swift's
/// `ServerCancellationManager` resumes its waiters in `onCancel` the same way).
final class PendingReplies<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let replies = Mutex<[Key: PendingReply<Value>]>([:])

    init() {}

    /// Expects an answer under `key`; one that comes before `wait` is kept for it.
    func expect(_ key: Key) {
        replies.withLock { $0[key] = PendingReply() }
    }

    /// Delivers `key`'s answer or failure; false when nothing is expected under it.
    @discardableResult
    func complete(_ key: Key, _ result: Result<Value, any Error>) -> Bool {
        replies.withLock { replies in
            guard var reply = replies[key] else { return false }
            if reply.complete(result) { replies[key] = nil } else { replies[key] = reply }
            return true
        }
    }

    /// Delivers `result` to every waiter and forgets them all (an answer kept for a caller not
    /// yet waiting goes too: that caller then meets `missing`).
    func completeAll(_ result: Result<Value, any Error>) {
        let all = replies.withLock { replies in
            defer { replies = [:] }
            return replies
        }
        for var reply in all.values { _ = reply.complete(result) }
    }

    /// Waits for `key`'s answer: `missing` when nothing is expected under it; cancelling the
    /// calling task fails the wait with `cancelled` at once (with `cancelled` nil, the wait goes
    /// on: the answer comes anyway).
    func wait(for key: Key, missing: any Error, cancelled: (any Error)?) async throws -> Value {
        guard let cancelled else { return try await wait(for: key, missing: missing) }
        return try await withTaskCancellationHandler {
            try await wait(for: key, missing: missing)
        } onCancel: {
            complete(key, .failure(cancelled))
        }
    }

    private func wait(for key: Key, missing: any Error) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let expected = replies.withLock { replies -> Bool in
                guard var reply = replies[key] else { return false }
                if reply.wait(continuation) { replies[key] = nil } else { replies[key] = reply }
                return true
            }
            if !expected { continuation.resume(throwing: missing) }
        }
    }

    /// How many answers are expected.
    var count: Int { replies.withLock { $0.count } }

    /// Expects nothing more under `key` (its request never went out).
    func forget(_ key: Key) {
        _ = replies.withLock { $0.removeValue(forKey: key) }
    }
}
