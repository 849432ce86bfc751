/// Cuts a byte stream into frames. The header's data size is the only length information on
/// the wire, so a claim above `maxDataSize` is refused before anything is buffered for it.
public struct SDLFrameDecoder: Sendable {
    /// Largest payload accepted in one frame. Protocol 3–5 frames carry at most 131,072 bytes by
    /// default; the limit leaves room for a larger negotiated MTU.
    public var maxDataSize: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0

    public static let defaultMaxDataSize = 1 << 20

    public init(maxDataSize: Int = SDLFrameDecoder.defaultMaxDataSize) {
        self.maxDataSize = maxDataSize
    }

    /// Bytes received but not yet part of a returned frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append<C: Collection<UInt8>>(_ bytes: C) {
        if readIndex == buffer.count {
            // Everything was consumed: the chunk becomes the buffer (an array is shared, not
            // copied), so nothing is kept between chunks and nothing grows.
            buffer = Array(bytes)
            readIndex = 0
            return
        } else if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil until more bytes arrive.
    public mutating func nextFrame() throws(SDLProtocolError) -> SDLFrame? {
        let available = buffer.count - readIndex
        guard available > 0 else {
            // All read: an idle session keeps no buffer (one decoder per session, a thousand
            // sessions per server); the next chunk becomes the buffer.
            buffer = []
            readIndex = 0
            return nil
        }
        let start = readIndex
        let limit = maxDataSize
        let parsed = buffer.withUnsafeBytes { raw -> Result<(SDLFrameHeader, Int)?, SDLProtocolError> in
            let rest = UnsafeRawBufferPointer(rebasing: raw[start...])
            do throws(SDLProtocolError) {
                guard let header = try SDLFrameHeader.decode(rest) else { return .success(nil) }
                guard Int(header.dataSize) <= limit else { throw .frameTooLarge(dataSize: header.dataSize, limit: limit) }
                if header.frameType == .first && header.dataSize != 8 {
                    throw .invalidFirstFrame("header.dataSize is \(header.dataSize), a first frame carries 8 bytes")
                }
                let total = header.size + Int(header.dataSize)
                return .success(rest.count >= total ? (header, total) : nil)
            } catch {
                return .failure(error)
            }
        }
        guard let (header, total) = try parsed.get() else { return nil }
        let payload = Array(buffer[(start + header.size)..<(start + total)])
        readIndex += total
        return SDLFrame(header: header, payload: payload)
    }
}
