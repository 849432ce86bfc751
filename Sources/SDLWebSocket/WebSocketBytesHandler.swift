import NIOCore
import NIOWebSocket

/// Why a WebSocket connection was dropped by this side.
public enum SDLWebSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A message (all its fragments together) passed `limit` bytes.
    case messageTooLarge(limit: Int)
    /// A text message: SDL travels in binary messages only.
    case textMessage
    /// Frames out of order (a continuation with no message open, a new message inside one).
    case protocolViolation(String)
    /// Nothing arrived for `seconds`, pings included: the peer is gone or stuck.
    case idleTimeout(seconds: Double)
    /// The HTTP upgrade did not finish within `seconds`.
    case handshakeTimeout(seconds: Double)
    /// The server answered the upgrade with something else than 101 (a wrong path: 404, a full
    /// server: 503).
    case upgradeRefused
    /// A `ws://` or `wss://` URL was expected.
    case invalidURL(String)

    public var description: String {
        switch self {
        case .messageTooLarge(let limit): "a WebSocket message passed the limit of \(limit) bytes"
        case .textMessage: "a text WebSocket message (SDL frames travel in binary messages)"
        case .protocolViolation(let what): "WebSocket protocol violation: \(what)"
        case .idleTimeout(let seconds): "nothing received for \(seconds) s"
        case .handshakeTimeout(let seconds): "the WebSocket handshake took longer than \(seconds) s"
        case .upgradeRefused: "the server refused the WebSocket upgrade"
        case .invalidURL(let url): "not a ws:// or wss:// URL: \(url)"
        }
    }
}

/// Between NIO's WebSocket frame codec and an SDL byte stream. SDL frames are a byte stream cut
/// into binary messages anywhere (a frame may span messages, a message may hold several), so
/// each binary fragment's bytes go on at once: nothing is accumulated. Answers pings, pings a
/// silent peer, drops one that stays silent, and closes with a close frame.
final class WebSocketBytesHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    enum Role { case server, client }

    private let role: Role
    private let maxMessageSize: Int
    private let pingInterval: TimeAmount?
    private let idleTimeout: TimeAmount?
    private var messageOpen = false
    private var messageBytes = 0
    private var lastRead = NIODeadline.now()
    private var pingSent = false
    private var closeSent = false
    private var closeReceived = false
    private var failed = false
    private var timer: RepeatedTask?
    /// When NIO's encoder is in the pipeline: where this handler's frames go, encoded already.
    private let encodedWriter: EncodedFrameWriter?

    init(role: Role, maxMessageSize: Int, pingInterval: TimeAmount?, idleTimeout: TimeAmount?, encodedWriter: EncodedFrameWriter? = nil) {
        self.role = role
        self.encodedWriter = encodedWriter
        self.maxMessageSize = maxMessageSize
        self.pingInterval = pingInterval
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastRead = .now()
        let periods = [pingInterval, idleTimeout].compactMap { $0 }
        guard let shortest = periods.min() else { return }
        let period = TimeAmount.nanoseconds(max(shortest.nanoseconds / 4, 1_000_000))
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            let (handler, context) = bound.value
            handler.checkSilence(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    private func checkSilence(context: ChannelHandlerContext) {
        guard !failed else { return }
        let silence = NIODeadline.now() - lastRead
        if let idleTimeout, silence >= idleTimeout {
            fail(context: context, .idleTimeout(seconds: Double(idleTimeout.nanoseconds) / 1e9), code: .goingAway)
        } else if let pingInterval, silence >= pingInterval, !pingSent, context.channel.isActive {
            pingSent = true
            emit(frame(.ping, data: context.channel.allocator.buffer(capacity: 0)), context: context, promise: nil)
            context.flush()
        }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Frames the decoder still held when the connection closed are not passed on.
        guard !failed, !closeReceived, context.channel.isActive else { return }
        let frame = unwrapInboundIn(data)
        lastRead = .now()
        pingSent = false
        guard frame.rsv1 == false, frame.rsv2 == false, frame.rsv3 == false else {
            return fail(context: context, .protocolViolation("reserved bits set without an extension"), code: .protocolError)
        }
        // Clients mask every frame and servers none (RFC 6455 §5.1).
        guard (frame.maskKey != nil) == (role == .server) else {
            return fail(
                context: context, .protocolViolation(role == .server ? "an unmasked frame from a client" : "a masked frame from a server"), code: .protocolError
            )
        }
        switch frame.opcode {
        case .binary:
            guard !messageOpen else {
                return fail(context: context, .protocolViolation("a new message began inside a fragmented one"), code: .protocolError)
            }
            messageBytes = 0
            messageOpen = !frame.fin
            deliver(frame, context: context)
        case .continuation:
            guard messageOpen else {
                return fail(context: context, .protocolViolation("a continuation frame with no message open"), code: .protocolError)
            }
            if frame.fin { messageOpen = false }
            deliver(frame, context: context)
        case .text:
            fail(context: context, .textMessage, code: .unacceptableData)
        case .ping:
            // A peer that pings without reading gets no pongs piling up in memory.
            if context.channel.isWritable {
                emit(self.frame(.pong, data: frame.fastUnmaskedData), context: context, promise: nil)
                context.flush()
            }
        case .pong:
            break
        case .connectionClose:
            // The peer's close: answer it (unless ours crossed it), then the connection ends.
            closeReceived = true
            if !closeSent {
                closeSent = true
                writeCloseThenClose(context: context, data: closeReply(to: frame, allocator: context.channel.allocator), promise: nil)
            } else {
                context.close(promise: nil)
            }
        default:
            fail(context: context, .protocolViolation("unknown opcode \(frame.opcode)"), code: .protocolError)
        }
    }

    /// The peer's code echoed when it may be sent back (RFC 6455 §7.4), 1002 for a malformed
    /// close, nothing for a close without a code.
    private func closeReply(to frame: WebSocketFrame, allocator: ByteBufferAllocator) -> ByteBuffer {
        var data = frame.fastUnmaskedData
        var reply = allocator.buffer(capacity: 2)
        guard data.readableBytes > 0 else { return reply }
        let code = data.readInteger(as: UInt16.self)
        let sendable = code.map { (1000...1003).contains($0) || (1007...1011).contains($0) || (3000...4999).contains($0) } ?? false
        reply.writeInteger(sendable ? code! : 1002)
        return reply
    }

    private func deliver(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        messageBytes += frame.length
        guard messageBytes <= maxMessageSize else {
            return fail(context: context, .messageTooLarge(limit: maxMessageSize), code: .messageTooLarge)
        }
        if frame.length > 0 { context.fireChannelRead(wrapInboundOut(frame.fastUnmaskedData)) }
    }

    /// Stops reading, tells the reader why, sends a close frame with `code`, then closes.
    private func fail(context: ChannelHandlerContext, _ error: SDLWebSocketError, code: WebSocketErrorCode) {
        guard !failed else { return }
        failed = true
        context.fireErrorCaught(error)
        sendCloseThenClose(context: context, code: code, promise: nil)
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closeSent else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        emit(frame(.binary, data: unwrapOutboundIn(data)), context: context, promise: promise)
    }

    /// Writes a frame: encoded here and past NIO's encoder when an `EncodedFrameWriter` is
    /// there, else to the encoder next in the pipeline.
    private func emit(_ frame: WebSocketFrame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard let writer = encodedWriter?.context else {
            context.write(wrapOutboundOut(frame), promise: promise)
            return
        }
        MaskingFrameEncoder.encode(frame, allocator: context.channel.allocator) { buffer, last in
            writer.write(NIOAny(buffer), promise: last ? promise : nil)
        }
    }

    /// Closing the connection sends a close frame first, as the protocol asks.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closeSent, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        sendCloseThenClose(context: context, code: .normalClosure, promise: promise)
    }

    private func sendCloseThenClose(context: ChannelHandlerContext, code: WebSocketErrorCode, promise: EventLoopPromise<Void>?) {
        guard !closeSent, context.channel.isActive else {
            context.close(promise: promise)
            return
        }
        closeSent = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        writeCloseThenClose(context: context, data: data, promise: promise)
    }

    /// How long a close frame may take to go out: a peer that stopped reading must not keep the
    /// socket (and its connection slot) open by never taking it.
    static let closeGrace = TimeAmount.seconds(2)

    private func writeCloseThenClose(context: ChannelHandlerContext, data: ByteBuffer, promise: EventLoopPromise<Void>?) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let closed = NIOLoopBoundBox(false, eventLoop: context.eventLoop)
        let closeOnce: @Sendable () -> Void = {
            guard !closed.value else { return }
            closed.value = true
            bound.value.close(promise: promise)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        emit(frame(.connectionClose, data: data), context: context, promise: written)
        context.flush()
        written.futureResult.whenComplete { _ in closeOnce() }
        context.eventLoop.scheduleTask(in: Self.closeGrace, closeOnce)
    }

    /// Clients mask what they send (RFC 6455 §5.3); servers do not.
    private func frame(_ opcode: WebSocketOpcode, data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: role == .client ? .random() : nil, data: data)
    }
}

/// For servers that do their own HTTP upgrade (Hummingbird, Vapor, a proxy) and for fuzzing:
/// the handlers that turn an upgraded channel's WebSocket frames into an SDL byte stream.
public enum SDLWebSocketPipeline {
    /// Adds, after the upgrade, the frame codec (frames up to `limits.maxMessageSize`) and the
    /// handler that passes binary messages on as `ByteBuffer`s and writes `ByteBuffer`s as binary
    /// messages, answers pings, pings and drops a silent peer, and closes with a close frame.
    public static func addHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, limits: SDLWebSocketLimits, isClient: Bool, includingCodec: Bool = true
    ) throws {
        var encodedWriter: EncodedFrameWriter?
        if includingCodec {
            try pipeline.addHandler(MaskingFrameEncoder())
            try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: limits.messageSize)))
            try pipeline.addHandler(WebSocketProtocolErrorHandler(isServer: !isClient))
        } else if let nioEncoder = try? pipeline.handler(type: WebSocketFrameEncoder.self) {
            // An upgrader's codec: our frames go past its encoder, masked eight bytes at a time.
            let writer = EncodedFrameWriter()
            try pipeline.addHandler(writer, position: .before(nioEncoder))
            encodedWriter = writer
        }
        try pipeline.addHandler(
            WebSocketBytesHandler(
                role: isClient ? .client : .server, maxMessageSize: limits.messageSize,
                pingInterval: limits.pingInterval.map { .nanoseconds($0.nanoseconds) },
                idleTimeout: limits.idleTimeout.map { .nanoseconds($0.nanoseconds) }, encodedWriter: encodedWriter))
    }
}
