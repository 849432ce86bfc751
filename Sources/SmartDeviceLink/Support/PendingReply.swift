/// An answer awaited from the head unit. The entry is registered before the request is written,
/// so an answer (or a timeout) that arrives before the writer starts waiting is kept, not lost.
struct PendingReply<Value: Sendable>: Sendable {
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?

    init() {}

    /// Starts waiting. Returns true when the answer was already there and `continuation` has
    /// been resumed: the caller drops the entry.
    mutating func wait(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        if let early {
            continuation.resume(with: early)
            return true
        }
        self.continuation = continuation
        return false
    }

    /// Delivers the answer. Returns true when a waiter was resumed: the caller drops the entry;
    /// otherwise the answer is kept for `wait`.
    mutating func complete(_ result: Result<Value, any Error>) -> Bool {
        if let continuation {
            continuation.resume(with: result)
            self.continuation = nil
            return true
        }
        if early == nil { early = result }
        return false
    }

    /// Fails a waiter, if one is waiting (for when the entry is dropped with everything else).
    func fail(_ error: any Error) {
        continuation?.resume(throwing: error)
    }
}
