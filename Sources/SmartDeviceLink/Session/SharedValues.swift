import Synchronization

/// Values that the sessions of one server receive byte for byte the same, decoded once and
/// shared between them: the registration response (the head unit's capabilities), the display
/// capabilities, the permission table a policy grants. A thousand vehicles of one model under
/// one policy then hold one copy instead of a thousand (Swift's arrays, sets and dictionaries
/// share their storage between copies of one value).
///
/// ``SDLCloudAppHost`` gives its sessions one of its own; set ``SDLManager/Configuration/sharedValues``
/// to share one between managers you create yourself. Per server or host, never global: a value
/// is found only by the exact bytes it came from, so nothing of one head unit reaches another
/// that did not send the same. At most `capacity` values of each kind are kept (the oldest goes
/// first) and none made from more than ``maxSharedBytes`` bytes (those are decoded per session),
/// so head units that all answer differently cost a bounded amount.
public final class SDLSharedValues: Sendable {
    /// A key hashed once, outside the lock; equal only for the same kind and bytes.
    private struct Key: Hashable {
        var kind: ObjectIdentifier
        var bytes: [UInt8]
        var hash: Int

        init(kind: ObjectIdentifier, bytes: [UInt8]) {
            self.kind = kind
            self.bytes = bytes
            var hasher = Hasher()
            hasher.combine(kind)
            // In one go: an array hashes element by element, a call per byte.
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            hash = hasher.finalize()
        }

        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.kind == b.kind && a.bytes == b.bytes }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private struct Entries {
        var values: [Key: any Sendable] = [:]
        var order: [ObjectIdentifier: [Key]] = [:]
        var hits = 0
        var lastID: UInt64 = 0
    }

    /// Values made from more bytes than this are not shared.
    public static let maxSharedBytes = 64 << 10

    private let entries = Mutex(Entries())
    /// At most this many values of each kind.
    public let capacity: Int

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// How many lookups found a value decoded before (for benchmarks and tests).
    public var hits: Int { entries.withLock { $0.hits } }

    /// The value made from `bytes` before, or `make()`'s, kept for the next session. `make`
    /// runs outside the lock; a failure is not kept.
    func value<T: Sendable, Failure: Error>(_ type: T.Type, from bytes: [UInt8], make: () throws(Failure) -> T) throws(Failure) -> T {
        guard bytes.count <= Self.maxSharedBytes else { return try make() }
        let key = Key(kind: ObjectIdentifier(type), bytes: bytes)
        if let found = entries.withLock({ entries -> T? in
            guard let found = entries.values[key] as? T else { return nil }
            entries.hits += 1
            return found
        }) {
            return found
        }
        let made = try make()
        entries.withLock { entries in
            guard entries.values[key] == nil else { return }
            entries.values[key] = made
            entries.order[key.kind, default: []].append(key)
            if entries.order[key.kind]!.count > capacity, let oldest = entries.order[key.kind]?.removeFirst() {
                entries.values[oldest] = nil
            }
        }
        return made
    }

    /// An id no other value of this instance has (never 0).
    func newID() -> UInt64 {
        entries.withLock { entries in
            entries.lastID += 1
            return entries.lastID
        }
    }
}
