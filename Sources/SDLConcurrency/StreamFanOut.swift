import Synchronization

/// Hands each element to every current subscriber's `AsyncStream`. Each subscriber has its own
/// bounded buffer: when a reader falls `bufferLimit` elements behind, its oldest elements are
/// dropped (and counted) rather than memory growing or the producer, usually a connection's read
/// loop, stalling every other reader. With `replaysLatest`, a new subscriber first gets the
/// latest element, so state (an HMI level, a connection state) is never missed by arriving late.
package final class StreamFanOut<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var latest: Element?
        var finished = false
    }

    private let state: Mutex<State>
    private let bufferLimit: Int
    private let replaysLatest: Bool

    package init(bufferLimit: Int, replaysLatest: Bool = false, initial: Element? = nil) {
        self.bufferLimit = max(1, bufferLimit)
        self.replaysLatest = replaysLatest
        self.state = Mutex(State(latest: initial))
    }

    /// The latest element yielded (or the initial one), when the fan-out replays it; nil
    /// otherwise: a fan-out that does not replay keeps nothing once delivered (an idle session
    /// would hold its last notification, or its last video frame, for nothing).
    package var latest: Element? { state.withLock { $0.latest } }

    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A new subscriber's stream; after `finish()` it holds the latest element (when replaying)
    /// and ends.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { state in
            if replaysLatest, let latest = state.latest { continuation.yield(latest) }
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers `element`; returns how many subscribers had to drop their oldest element.
    @discardableResult
    package func yield(_ element: Element) -> Int {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            guard !state.finished else { return [] }
            if replaysLatest { state.latest = element }
            return Array(state.subscribers.values)
        }
        var dropped = 0
        for subscriber in subscribers {
            if case .dropped = subscriber.yield(element) { dropped += 1 }
        }
        return dropped
    }

    /// Takes subscribers again after `finish()` (a manager started anew).
    package func reopen() {
        state.withLock { $0.finished = false }
    }

    /// Ends every stream; later subscribers get the latest element (when replaying) and an end.
    package func finish(with last: Element? = nil) {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            guard !state.finished else { return [] }
            state.finished = true
            if let last, replaysLatest { state.latest = last }
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            if let last { subscriber.yield(last) }
            subscriber.finish()
        }
    }
}
