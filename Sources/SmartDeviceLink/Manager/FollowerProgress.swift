import SDLProtocol
import Synchronization

/// The notifications the manager follows (HMI status, permissions, language...), numbered as
/// the connection reads them, and how far its follower has got. The follower runs on the
/// connection's task, not the read loop's, so it may be behind the read loop; a permission check that would refuse a request
/// first waits until every notification read before the request is followed
/// (`catchUp()`), so it never refuses on a level or a grant the head unit already changed.
final class FollowerProgress: Sendable {
    /// One notification to follow, with its number in read order.
    struct Item: Sendable {
        let number: UInt64
        let notification: SDLIncomingRPC
    }

    private struct State {
        var read: UInt64 = 0
        var followed: UInt64 = 0
        var ended = false
        var waiters: [Int: (target: UInt64, continuation: CheckedContinuation<Bool, Never>)] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let sink: AsyncStream<Item>.Continuation
    /// What the follower reads. Keeps the newest `bufferLimit` unread ones (a flood drops the
    /// oldest; their numbers are skipped).
    let items: AsyncStream<Item>

    init(bufferLimit: Int = 256) {
        (items, sink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
    }

    /// A notification was read (called in read order, on the read loop).
    func read(_ notification: SDLIncomingRPC) {
        let number = state.withLock { state -> UInt64? in
            guard !state.ended else { return nil }
            state.read += 1
            return state.read
        }
        if let number { sink.yield(Item(number: number, notification: notification)) }
    }

    /// The follower is done with `number` (and, the stream being in order, everything before it).
    func followed(_ number: UInt64) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.followed = max(state.followed, number)
            let followed = state.followed
            let done = state.waiters.filter { $0.value.target <= followed }
            for id in done.keys { state.waiters[id] = nil }
            return done.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// The connection ended: the follower's stream ends, nobody waits any more.
    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.ended = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        sink.finish()
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Whether every notification read so far is followed.
    var isCaughtUp: Bool { state.withLock { $0.followed >= $0.read } }

    /// Waits until every notification read so far is followed (or the connection ends, or the
    /// task is cancelled). False when the follower was not behind, or on the follower itself
    /// (whose wait would be for its own notification): nothing changed since the caller looked.
    func catchUp() async -> Bool {
        guard !Self.onFollower else { return false }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let behind = state.withLock { state -> Bool in
                    guard !state.ended, state.followed < state.read, !Task.isCancelled else { return false }
                    state.waiters[id] = (state.read, continuation)
                    return true
                }
                if !behind { continuation.resume(returning: false) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
    }

    /// Set while a notification is followed: code it runs (the app's hash store, its lock-screen
    /// observers) that sends must not wait for the follower to catch up with itself.
    @TaskLocal static var onFollower = false
}
