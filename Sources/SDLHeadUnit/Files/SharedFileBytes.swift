import SDLProtocol
import Synchronization

/// Files that many emulated vehicles of one process receive byte for byte the same (a fleet's
/// app uploads the same icon to every vehicle), held once: each vehicle's store keeps its own
/// name, type and persistence, and the bytes are an array that several stores share, as any
/// copy of an array does until one of them writes to it. Nothing a vehicle answers changes.
///
/// A fleet of 10,000 vehicles each receiving a 64 KB file held 640 MB of identical bytes, and
/// faulting in those fresh pages was a sixth of the fleet's CPU; the bytes a vehicle received
/// are now freed when an identical file is already held, and the next upload reuses them.
///
/// Only whole files are looked up, by size and CRC-32 and then compared byte for byte. At
/// most `limit` distinct contents are remembered, the oldest forgotten first (a forgotten one
/// stays with the vehicles that hold it).
public final class SDLSharedFileBytes: Sendable {
    private struct Key: Hashable {
        let count: Int
        let crc: UInt32
    }

    private struct Pool {
        var contents: [Key: [UInt8]] = [:]
        var order: [Key] = []
        var oldest = 0
    }

    private let pool = Mutex(Pool())
    /// Distinct contents remembered at most.
    public let limit: Int

    /// A pool that remembers at most `limit` distinct contents.
    public init(limit: Int = 256) {
        self.limit = max(1, limit)
    }

    /// How many distinct contents are remembered now.
    public var count: Int { pool.withLock { $0.contents.count } }

    /// `bytes`, or the identical bytes already held (which `bytes` can then be freed for).
    /// `crc` is their CRC-32 when known already (a whole file's PutFile carried it).
    func shared(_ bytes: [UInt8], crc: UInt32? = nil) -> [UInt8] {
        let key = Key(count: bytes.count, crc: crc ?? SDLCRC32.checksum(bytes))
        return pool.withLock { pool in
            if let held = pool.contents[key] {
                // Same size and CRC but other bytes: kept apart, not remembered.
                return held == bytes ? held : bytes
            }
            if pool.order.count < limit {
                pool.order.append(key)
            } else {
                pool.contents[pool.order[pool.oldest]] = nil
                pool.order[pool.oldest] = key
                pool.oldest = (pool.oldest + 1) % limit
            }
            pool.contents[key] = bytes
            return bytes
        }
    }
}
