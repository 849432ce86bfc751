import HeapModule

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
        releaseIfEmpty()
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
        releaseIfEmpty()
        return expired
    }

    /// With nothing scheduled, every entry left is stale: the storage goes too, so an idle
    /// owner (one per session on a server of thousands) keeps none.
    private mutating func releaseIfEmpty() {
        guard live.isEmpty, !heap.isEmpty || live.capacity > 0 else { return }
        heap = Heap()
        live = [:]
    }

    private mutating func dropStale() {
        while let top = heap.min, live[top.key]?.sequence != top.sequence { heap.removeMin() }
    }

    private mutating func compact() {
        heap = Heap(live.map { Entry(deadline: $0.value.deadline, sequence: $0.value.sequence, key: $0.key) })
    }
}
