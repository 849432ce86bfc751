import NIOCore
import NIOEmbedded
import NIOWebSocket
import SDLProtocol
import SDLWebSocket

/// libFuzzer's entry point: the bytes a head unit sends a cloud app after the HTTP upgrade,
/// through `SDLWebSocketPipeline`'s handlers (NIO's frame decoder, our encoder and handler, server side) on an
/// `EmbeddedChannel`, then what comes out through the SDL frame decoder and the reassembler. A
/// thrown error is the expected outcome for most inputs (typed errors close the channel); a crash,
/// a hang, unbounded memory, a leak or a failed check below is a finding.
///
/// Two spies and a last handler watch the pipeline:
///
///     encoder, OutboundSpy, frame decoder, protocol error handler, FrameSpy, ours, Tail
///
/// `FrameSpy` sees the frames NIO decoded before our handler does and keeps its own model of
/// what the handler must do with each (pass a binary or continuation payload on, or close with
/// 1002, 1003 or 1009); `Tail` checks what was passed on against it and feeds the SDL decoder;
/// `OutboundSpy` sees every frame written and every close.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let observed = Observed()
    let channel = EmbeddedChannel()
    let sync = channel.pipeline.syncOperations
    // Small limits, so a lying length is refused instead of buffered; no timers.
    let limits = SDLWebSocketLimits(maxMessageSize: Observed.maxMessageSize, pingInterval: nil, idleTimeout: nil)
    try! SDLWebSocketPipeline.addHandlers(to: sync, limits: limits, isClient: false)
    try! sync.addHandler(OutboundSpy(observed), position: .before(try! sync.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)))
    try! sync.addHandler(FrameSpy(observed), position: .after(try! sync.handler(type: WebSocketProtocolErrorHandler.self)))
    try! sync.addHandler(Tail(observed))
    try! channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()

    // Fed in three pieces cut where the size says: a split anywhere must not matter.
    let cuts = [0, size / 3, size - size / 4, size]
    for (start, end) in zip(cuts, cuts.dropFirst()) where start < end {
        // A closed socket reads nothing more.
        guard channel.isActive else { break }
        var buffer = channel.allocator.buffer(capacity: end - start)
        buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        do {
            try channel.writeInbound(buffer)
        } catch {
            // A WebSocket or SDL protocol error: the connection is closed.
        }
        if observed.closeRequested {
            precondition(!channel.isActive, "a close was asked for and the channel is still active")
        }
        precondition(observed.passedOn <= observed.dataPayloadIn, "more bytes passed on than binary payload came in")
        // What went out is checked by OutboundSpy; drop it, and run what a real loop would run.
        while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
        channel.embeddedEventLoop.run()
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)
    precondition(!channel.isActive, "still active after finish")
    precondition(observed.reassembler.pendingCount <= 4, "more pending messages than allowed")
    return 0
}

/// What the spies and the last handler share for one input.
final class Observed {
    /// 1 KiB, not the 64 KiB of a real server: libFuzzer's inputs are at most 4096 bytes (its
    /// default -max_len), so only a small limit lets a message or a frame pass it.
    static let maxMessageSize = 1 << 10

    // The model of our handler, kept by FrameSpy from the frames alone.
    var modelOpen = false
    var modelBytes = 0
    var modelRefused = false
    var modelCloseReceived = false
    /// The payload the handler must pass on for the frame it is handling now, if any.
    var expected: ByteBuffer?

    // What came in and went on.
    var dataPayloadIn = 0
    var passedOn = 0
    var passedOnInMessage = 0
    var lastError: Error?

    // What went out.
    var closeRequested = false
    var inactive = false
    var closeFramesOut: [WebSocketErrorCode?] = []
    var pingPayload: ByteBuffer?

    // The SDL side, as FuzzFrameDecoder has it.
    var decoder = SDLFrameDecoder(maxDataSize: 4096)
    var reassembler = SDLReassembler(maxMessageSize: 1 << 16, maxPendingMessages: 4)
    var sdlFailed = false

    var closed: Bool { closeRequested || inactive }
}

/// Between NIO's frame decoder (and its protocol error handler) and ours: counts the payload
/// that comes in and says what our handler must do with each frame, then checks it did.
final class FrameSpy: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let observed: Observed

    init(_ observed: Observed) {
        self.observed = observed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let o = observed
        // Nil: nothing to pass on and nothing to refuse; a code: the handler must close with it.
        var refusal: WebSocketErrorCode?
        var deliver = false
        let ignoring = o.modelRefused || o.modelCloseReceived || o.closed
        // No extension is agreed, so a reserved bit is a protocol error whatever the opcode.
        // Clients mask every frame (RFC 6455 §5.1): an unmasked one is refused like a reserved bit.
        let reserved = frame.rsv1 || frame.rsv2 || frame.rsv3 || frame.maskKey == nil
        switch reserved ? nil : frame.opcode {
        case nil:
            refusal = .protocolError
        case .binary, .continuation:
            o.dataPayloadIn += frame.length
            if frame.opcode == .binary ? o.modelOpen : !o.modelOpen {
                refusal = .protocolError
            } else {
                if frame.opcode == .binary {
                    o.modelBytes = 0
                    if !ignoring { o.passedOnInMessage = 0 }
                }
                o.modelOpen = !frame.fin
                o.modelBytes += frame.length
                if o.modelBytes > Observed.maxMessageSize {
                    refusal = .messageTooLarge
                } else {
                    deliver = frame.length > 0
                }
            }
        case .text:
            refusal = .unacceptableData
        case .ping:
            o.pingPayload = frame.unmaskedData
        case .pong:
            break
        case .connectionClose:
            o.modelCloseReceived = true
        default:
            refusal = .protocolError
        }
        if ignoring {
            // After a refusal, the peer's close or ours, nothing more is passed on.
            (refusal, deliver) = (nil, false)
        }
        if refusal != nil { o.modelRefused = true }
        let wasActive = context.channel.isActive
        let closeFramesBefore = o.closeFramesOut.count
        o.expected = deliver ? frame.unmaskedData : nil
        context.fireChannelRead(data)
        precondition(o.expected == nil, "a binary payload within the limits was not passed on")
        if let refusal, wasActive {
            precondition(o.lastError is SDLWebSocketError, "a refused frame raised no SDLWebSocketError but \(String(describing: o.lastError))")
            if closeFramesBefore == 0 {
                precondition(o.closeFramesOut.count == 1, "a refused frame was not answered with a close frame")
                precondition(o.closeFramesOut[0] == refusal, "closed with \(String(describing: o.closeFramesOut[0])), not \(refusal)")
            }
            precondition(!context.channel.isActive, "a refused frame left the channel open")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // NIO's decoder refused the bytes (a fragmented or long control frame, a length beyond
        // the limit): no more frames come, nothing more is passed on.
        observed.modelRefused = true
        context.fireErrorCaught(error)
    }
}

/// After our handler: checks what it passes on, and feeds it to the SDL frame decoder and
/// reassembler; an SDL protocol error closes the connection, as the session does.
final class Tail: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let observed: Observed

    init(_ observed: Observed) {
        self.observed = observed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let o = observed
        precondition(!o.closed, "bytes passed on after a close")
        precondition(o.expected != nil, "bytes passed on that no binary frame in order brought")
        precondition(buffer == o.expected, "bytes passed on are not the frame's unmasked payload")
        o.expected = nil
        o.passedOn += buffer.readableBytes
        o.passedOnInMessage += buffer.readableBytes
        precondition(o.passedOn <= o.dataPayloadIn, "more bytes passed on than binary payload came in")
        precondition(o.passedOnInMessage <= Observed.maxMessageSize, "a message passed on beyond maxMessageSize")

        guard !o.sdlFailed else { return }
        o.decoder.append(buffer.readableBytesView)
        do {
            while let frame = try o.decoder.nextFrame() {
                precondition(frame.payload.count <= 4096, "a frame beyond the decoder's limit")
                if let message = try o.reassembler.receive(frame) {
                    precondition(message.payload.count <= 1 << 16, "a message beyond the limit")
                }
                precondition(o.reassembler.pendingCount <= 4, "more pending messages than allowed")
            }
            // What is left is less than one frame: a header and the largest payload.
            precondition(o.decoder.bufferedByteCount < 12 + 4096, "the SDL decoder holds more than a frame")
        } catch {
            o.sdlFailed = true
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        observed.inactive = true
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        observed.lastError = error
        // On to the EmbeddedChannel, which throws it from writeInbound.
        context.fireErrorCaught(error)
    }
}

/// Right after the frame encoder: every frame written and every close. A server does not mask,
/// sends one close frame at most and nothing after it, and answers a ping with its payload.
final class OutboundSpy: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let observed: Observed

    init(_ observed: Observed) {
        self.observed = observed
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        let o = observed
        // A write on a closed channel fails before it reaches the peer.
        if context.channel.isActive {
            precondition(frame.maskKey == nil, "a server frame was masked")
            precondition(o.closeFramesOut.isEmpty, "\(frame.opcode) written after the close frame")
            switch frame.opcode {
            case .connectionClose:
                precondition(frame.length == 0 || frame.length == 2, "a close frame of \(frame.length) bytes")
                o.closeFramesOut.append(frame.unmaskedData.getWebSocketErrorCode(at: frame.unmaskedData.readerIndex))
            case .pong:
                precondition(frame.unmaskedData == o.pingPayload, "a pong that does not echo the ping")
            default:
                preconditionFailure("\(frame.opcode) written, and the harness writes nothing")
            }
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        observed.closeRequested = true
        context.close(mode: mode, promise: promise)
    }
}
