import CZlib

/// CRC-32 (IEEE 802.3) as PutFile's `crc` carries it, computed by zlib: maintained, and with
/// the table-free slicing zlib uses it runs at memory speed, which a 10 MB upload notices.
public enum SDLCRC32 {
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    public static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return 0 }
        var remaining = buffer.count
        var crc = crc32(0, nil, 0)
        // zlib takes 32-bit lengths.
        while remaining > 0 {
            let step = min(remaining, Int(Int32.max))
            crc = crc32(crc, base, uInt(step))
            base += step
            remaining -= step
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
