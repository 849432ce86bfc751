import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import SDLWebSocket

/// The word-at-a-time masking and the frame encoder that uses it write exactly the bytes NIO's
/// byte-at-a-time `webSocketMask` and `WebSocketFrameEncoder` write.
@Suite("WebSocket masking")
struct WebSocketMaskingTests {
    @Test func masksAsNIODoes() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...41) + [1_000, 4_099] {
            for offset in 0..<4 {
                let key = WebSocketMaskingKey.random(using: &generator)
                let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                var expected = ByteBuffer(bytes: bytes)
                expected.webSocketMask(key, indexOffset: offset)
                var masked = bytes
                masked.withUnsafeMutableBytes { WebSocketMasking.apply(key, to: $0, offset: offset) }
                #expect(masked == Array(expected.readableBytesView), "length \(length), offset \(offset)")
            }
        }
    }

    @Test(arguments: [0, 1, 7, 125, 126, 127, 65_535, 65_536, 70_001])
    func encodesAsNIODoes(length: Int) throws {
        for masked in [false, true] {
            for headroom in [0, 16] {
                let key: WebSocketMaskingKey? = masked ? .random() : nil
                var data = ByteBufferAllocator().buffer(capacity: headroom + length)
                data.writeRepeatingByte(0, count: headroom)
                data.writeBytes((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                data.moveReaderIndex(forwardBy: headroom)
                let frame = WebSocketFrame(fin: length % 2 == 0, opcode: masked ? .binary : .continuation, maskKey: key, data: data)
                let ours = try written(frame, by: MaskingFrameEncoder())
                let nio = try written(frame, by: WebSocketFrameEncoder())
                #expect(ours == nio, "length \(length), masked \(masked), headroom \(headroom)")
            }
        }
    }

    private func written(_ frame: WebSocketFrame, by encoder: some ChannelOutboundHandler) throws -> [UInt8] {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(encoder)
        try channel.writeOutbound(frame)
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        _ = try channel.finish()
        return bytes
    }
}
