import HeapModule

/// Time as sessions see it: offsets from an arbitrary origin on an injected clock, so tests drive
/// timeouts and heartbeats by advancing a clock instead of waiting.
public struct SDLClock: Sendable {
    private let currentOffset: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// The clock this one wraps, for code that needs it back (a test advancing its clock).
    public let base: any Clock<Duration>

    /// Wraps any clock that measures in `Duration` (`ContinuousClock`, a test clock...).
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        base = clock
        let origin = clock.now
        currentOffset = { origin.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// The real clock; keeps running while the machine sleeps, as a head unit's timers do.
    public static let continuous = SDLClock(ContinuousClock())

    /// Now, as an offset from this clock's origin.
    public var now: Duration { currentOffset() }

    /// Suspends until `deadline` (an offset from `now`'s origin); throws on cancellation.
    public func sleep(until deadline: Duration) async throws {
        try await sleeper(deadline)
    }

    /// Returns at `deadline` (never, when nil), as soon as `interruption` yields or finishes, or
    /// when the task is cancelled: how a timer loop waits for its earliest deadline while staying
    /// ready for an earlier one.
    public func sleep(until deadline: Duration?, interruptedBy interruption: AsyncStream<Void>) async {
        await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask { try? await self.sleep(until: deadline) }
            }
            group.addTask {
                for await _ in interruption { return }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// Deadlines by key, earliest first: one schedule per connection instead of one sleeping task
/// per request. Cancelling is O(1) (the heap entry goes stale and is skipped); stale entries are
/// compacted away when they outnumber live ones, so the heap stays proportional to what is pending.
public struct SDLDeadlineSchedule<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Comparable, Sendable {
        var deadline: Duration
        var sequence: UInt64
        var key: Key

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence) }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.sequence == rhs.sequence }
    }

    private var heap = Heap<Entry>()
    private var live: [Key: (sequence: UInt64, deadline: Duration)] = [:]
    private var nextSequence: UInt64 = 0

    public init() {}

    /// Deadlines not yet fired or cancelled.
    public var count: Int { live.count }
    public var isEmpty: Bool { live.isEmpty }

    /// Sets (or moves) `key`'s deadline.
    public mutating func schedule(_ key: Key, at deadline: Duration) {
        nextSequence &+= 1
        live[key] = (nextSequence, deadline)
        heap.insert(Entry(deadline: deadline, sequence: nextSequence, key: key))
        if heap.count > 64 && heap.count > 2 * live.count { compact() }
    }

    public mutating func cancel(_ key: Key) {
        live[key] = nil
    }

    public func deadline(of key: Key) -> Duration? { live[key]?.deadline }

    /// The earliest live deadline.
    public mutating func earliest() -> Duration? {
        dropStale()
        return heap.min?.deadline
    }

    /// Removes and returns the keys whose deadline is at or before `now`, earliest first.
    public mutating func popExpired(now: Duration) -> [Key] {
        var expired: [Key] = []
        while true {
            dropStale()
            guard let top = heap.min, top.deadline <= now else { break }
            heap.removeMin()
            live[top.key] = nil
            expired.append(top.key)
        }
        return expired
    }

    private mutating func dropStale() {
        while let top = heap.min, live[top.key]?.sequence != top.sequence { heap.removeMin() }
    }

    private mutating func compact() {
        heap = Heap(live.map { Entry(deadline: $0.value.deadline, sequence: $0.value.sequence, key: $0.key) })
    }
}
