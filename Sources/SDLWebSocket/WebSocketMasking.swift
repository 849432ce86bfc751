import NIOCore
import NIOWebSocket

/// RFC 6455 masking, eight bytes at a time: NIO's `webSocketMask` goes byte by byte, and a
/// client masks (and a server unmasks) every byte of every message, which made it 3 to 4 % of
/// each process's CPU when 10,000 vehicles set up (`Benchmarks/cloud.sh`).
enum WebSocketMasking {
    /// XORs `bytes` with `key` repeated, the first byte taking `key[offset % 4]`.
    static func apply(_ key: WebSocketMaskingKey, to bytes: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let rotation = offset & 3
        let keyBytes = (key[rotation], key[(rotation + 1) & 3], key[(rotation + 2) & 3], key[(rotation + 3) & 3])
        // The key in memory order, twice: byte i of a word lines up with keyBytes[i % 4].
        let pattern = withUnsafeBytes(of: keyBytes) { $0.loadUnaligned(as: UInt32.self) }
        let word = UInt64(pattern) | UInt64(pattern) << 32
        var index = 0
        while index + 8 <= bytes.count {
            let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: value ^ word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            let keyByte = UInt8(truncatingIfNeeded: word &>> UInt64((index & 7) * 8))
            base.storeBytes(of: base.load(fromByteOffset: index, as: UInt8.self) ^ keyByte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }
}

extension WebSocketFrame {
    /// The payload with the mask removed, as `unmaskedData`, but word by word.
    var fastUnmaskedData: ByteBuffer {
        var data = self.data
        guard let maskKey else { return data }
        data.withUnsafeMutableReadableBytes { WebSocketMasking.apply(maskKey, to: $0) }
        return data
    }
}

/// Writes WebSocket frames as NIO's `WebSocketFrameEncoder` does (the header in the payload's
/// headroom when it has room, else in a buffer of its own), masking with `WebSocketMasking`.
final class MaskingFrameEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = ByteBuffer

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        Self.encode(unwrapOutboundIn(data), allocator: context.channel.allocator) { buffer, last in
            context.write(wrapOutboundOut(buffer), promise: last ? promise : nil)
        }
    }

    /// Hands `write` the frame's bytes: a header buffer (when the payload has no headroom for
    /// it), then the payload, the last one flagged.
    static func encode(_ frame: WebSocketFrame, allocator: ByteBufferAllocator, write: (ByteBuffer, _ last: Bool) -> Void) {
        var payload = frame.data
        if var extensionData = frame.extensionData {
            // Not used by SDL; kept correct: the extension data comes first, masked as one run.
            extensionData.writeBuffer(&payload)
            payload = extensionData
        }
        if let key = frame.maskKey {
            payload.withUnsafeMutableReadableBytes { WebSocketMasking.apply(key, to: $0) }
        }
        let length = payload.readableBytes
        let lengthBytes = length <= 125 ? 0 : length <= Int(UInt16.max) ? 2 : 8
        let headerSize = 2 + lengthBytes + (frame.maskKey == nil ? 0 : 4)
        var first: UInt8 = frame.fin ? 0x80 : 0
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }
        first |= UInt8(webSocketOpcode: frame.opcode)
        let maskBit: UInt8 = frame.maskKey == nil ? 0 : 0x80

        func writeHeader(into buffer: inout ByteBuffer, at start: Int) {
            var at = start
            at += buffer.setInteger(first, at: at)
            switch lengthBytes {
            case 0: at += buffer.setInteger(UInt8(length) | maskBit, at: at)
            case 2:
                at += buffer.setInteger(126 | maskBit, at: at)
                at += buffer.setInteger(UInt16(length), at: at)
            default:
                at += buffer.setInteger(127 | maskBit, at: at)
                at += buffer.setInteger(UInt64(length), at: at)
            }
            if let key = frame.maskKey { buffer.setBytes(key, at: at) }
        }

        if payload.readerIndex >= headerSize {
            let start = payload.readerIndex - headerSize
            writeHeader(into: &payload, at: start)
            payload.moveReaderIndex(to: start)
        } else {
            var header = allocator.buffer(capacity: headerSize)
            header.moveWriterIndex(forwardBy: headerSize)
            writeHeader(into: &header, at: 0)
            write(header, false)
        }
        write(payload, true)
    }
}

/// Sits just before NIO's `WebSocketFrameEncoder`, which NIO's upgraders add and which cannot
/// be removed: `WebSocketBytesHandler` writes its frames, encoded by `MaskingFrameEncoder`,
/// through this handler's context, so they skip NIO's byte-at-a-time masking. What NIO's own
/// handlers write (an automatic close) still goes through NIO's encoder, then through here.
final class EncodedFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    private(set) var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }
}
