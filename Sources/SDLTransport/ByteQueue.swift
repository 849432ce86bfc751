import DequeModule
import Synchronization

/// Byte chunks from any number of producers to one reader, with back-pressure: `send` waits
/// while more than `highWatermark` bytes are unread and goes on as the reader catches up. A
/// chunk larger than the watermark is taken when the queue is empty, so a big message never
/// deadlocks. After `finish`, the reader gets what is buffered, then the end.
final class ByteQueue: Sendable {
    private struct State {
        var chunks = Deque<[UInt8]>()
        var bufferedBytes = 0
        /// What the buffered chunks cost against the watermark: each at least `minimumCharge`,
        /// so a flood of tiny chunks (each an array of its own) is bounded too.
        var charged = 0
        /// nil while open; `.success` for a clean end, `.failure` for a broken one.
        var end: Result<Void, any Error>?
        var reader: (id: Int, continuation: CheckedContinuation<[UInt8]?, any Error>)?
        /// Producers waiting for room; resumed with `false` to try again.
        var producers: [Int: CheckedContinuation<Bool, any Error>] = [:]
        var nextID = 0
        /// A `push` found the reader behind: `onRoom` is due once it catches up.
        var roomWanted = false
        var onRoom: (@Sendable () -> Void)?

        mutating func takeID() -> Int {
            nextID += 1
            return nextID
        }

        mutating func wakeProducers() -> [CheckedContinuation<Bool, any Error>] {
            defer { producers.removeAll() }
            return Array(producers.values)
        }

        /// `onRoom` when a push is waiting for it.
        mutating func takeRoom() -> (@Sendable () -> Void)? {
            guard roomWanted else { return nil }
            roomWanted = false
            return onRoom
        }
    }

    private let state = Mutex(State())

    static let minimumCharge = 64
    static func charge(_ chunk: [UInt8]) -> Int { max(chunk.count, minimumCharge) }
    let highWatermark: Int

    init(highWatermark: Int) {
        self.highWatermark = max(1, highWatermark)
    }

    /// Appends `bytes`, waiting while the reader is behind. Throws `SDLTransportError.closed`
    /// once the queue is finished, and `CancellationError` (nothing enqueued) when cancelled
    /// while waiting.
    func send(_ bytes: [UInt8]) async throws {
        while true {
            try Task.checkCancellation()
            let id = state.withLock { $0.takeID() }
            let sent = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                    let handOff = state.withLock { state -> (() -> Void) in
                        if state.end != nil { return { continuation.resume(throwing: SDLTransportError.closed) } }
                        if let reader = state.reader {
                            state.reader = nil
                            return {
                                reader.continuation.resume(returning: bytes)
                                continuation.resume(returning: true)
                            }
                        }
                        if state.chunks.isEmpty || state.charged + Self.charge(bytes) <= highWatermark {
                            state.chunks.append(bytes)
                            state.bufferedBytes += bytes.count
                            state.charged += Self.charge(bytes)
                            return { continuation.resume(returning: true) }
                        }
                        state.producers[id] = continuation
                        return {}
                    }
                    handOff()
                }
            } onCancel: {
                let producer = state.withLock { $0.producers.removeValue(forKey: id) }
                producer?.resume(throwing: CancellationError())
            }
            if sent { return }
        }
    }

    /// Appends `bytes` at once, never waiting (a channel handler on its event loop). False when
    /// the reader is now behind (the watermark reached): the caller stops producing until
    /// `onRoom` is called. Dropped once the queue is finished.
    func push(_ bytes: [UInt8]) -> Bool {
        let (reader, room) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, Bool) in
            guard state.end == nil else { return (nil, true) }
            if let reader = state.reader {
                state.reader = nil
                return (reader.continuation, true)
            }
            state.chunks.append(bytes)
            state.bufferedBytes += bytes.count
            state.charged += Self.charge(bytes)
            guard state.charged >= highWatermark else { return (nil, true) }
            state.roomWanted = true
            return (nil, false)
        }
        reader?.resume(returning: bytes)
        return room
    }

    /// Called, on the reader's task, each time the reader catches up after a `push` returned
    /// false. Must not block. Dropped when the queue finishes.
    func setOnRoom(_ onRoom: (@Sendable () -> Void)?) {
        state.withLock { $0.onRoom = onRoom }
    }

    /// The next chunk in order; nil after `finish()` once everything was read; throws the error
    /// given to `finish(throwing:)` after the buffered chunks. A cancelled read returns nil. A
    /// second reader waiting at the same time gets `SDLTransportError.concurrentRead`, not a trap.
    func next() async throws -> [UInt8]? {
        if Task.isCancelled { return nil }
        let id = state.withLock { $0.takeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let action = state.withLock { state -> (() -> Void) in
                    if let chunk = state.chunks.popFirst() {
                        state.bufferedBytes -= chunk.count
                        state.charged -= Self.charge(chunk)
                        let caughtUp = state.charged < highWatermark
                        let woken = caughtUp ? state.wakeProducers() : []
                        let room = caughtUp ? state.takeRoom() : nil
                        return {
                            continuation.resume(returning: chunk)
                            for producer in woken { producer.resume(returning: false) }
                            room?()
                        }
                    }
                    switch state.end {
                    case .success?: return { continuation.resume(returning: nil) }
                    case .failure(let error)?: return { continuation.resume(throwing: error) }
                    case nil: break
                    }
                    if state.reader != nil { return { continuation.resume(throwing: SDLTransportError.concurrentRead) } }
                    if Task.isCancelled { return { continuation.resume(returning: nil) } }
                    state.reader = (id, continuation)
                    let woken = state.wakeProducers()
                    return { for producer in woken { producer.resume(returning: false) } }
                }
                action()
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
                guard let reader = state.reader, reader.id == id else { return nil }
                state.reader = nil
                return reader.continuation
            }
            reader?.resume(returning: nil)
        }
    }

    /// Ends the stream: the reader gets what is buffered, then nil (or `error`); waiting and
    /// later producers get `SDLTransportError.closed`.
    func finish(throwing error: (any Error)? = nil) {
        let (reader, producers) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, [CheckedContinuation<Bool, any Error>]) in
            guard state.end == nil else { return (nil, []) }
            state.end = error.map { .failure($0) } ?? .success(())
            // It may hold its producer (a channel handler): nothing is produced from now on.
            state.onRoom = nil
            state.roomWanted = false
            let reader = state.reader?.continuation
            state.reader = nil
            return (reader, state.wakeProducers())
        }
        if let reader {
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
        for producer in producers { producer.resume(throwing: SDLTransportError.closed) }
    }

    var isFinished: Bool { state.withLock { $0.end != nil } }

    /// Whether the reader is behind (the watermark reached): a producer that pushes waits.
    var isBehind: Bool { state.withLock { $0.end == nil && $0.charged >= highWatermark } }

    /// Producers waiting for room (for tests that check back-pressure).
    var waitingProducerCount: Int { state.withLock { $0.producers.count } }

    /// Bytes waiting to be read.
    var bufferedByteCount: Int { state.withLock { $0.bufferedBytes } }
}

/// The bytes a transport received, in order, as an `AsyncSequence` with one reader. The queue
/// behind it is bounded: the peer (a socket read, the other end of a memory pair) waits while
/// the reader is behind, instead of memory growing.
public struct SDLInboundBytes: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let queue: ByteQueue

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: ByteQueue
        public mutating func next() async throws -> [UInt8]? { try await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }
}
