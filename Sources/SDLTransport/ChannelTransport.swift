import NIOCore
import NIOPosix
import Synchronization

/// TCP connections are channel transports.
public typealias SDLTCPTransport = SDLChannelTransport

/// Bytes over a SwiftNIO channel: a TCP connection, or a WebSocket whose pipeline turns binary
/// messages into bytes (SDLWebSocket). Both directions are bounded: a send waits while the
/// channel still has `outboundBufferSize` bytes to write, and the channel is no longer read
/// while the reader has `inboundBufferSize` bytes unread, so a slow peer or a slow app slows the
/// other side down instead of growing memory.
///
/// A handler at the end of the pipeline moves what the channel reads into `inbound` on the
/// event loop itself: no task runs per connection for it (a server holds thousands), and
/// `run()` has nothing to do.
public final class SDLChannelTransport: SDLTransport {
    public let inbound: SDLInboundBytes
    private let queue: ByteQueue
    private let channel: any Channel
    private let outbound: OutboundWindow
    private let bridge: NIOLoopBound<InboundBridge>

    /// Connects to `host:port`, retrying by `policy`. SDL Core listens on port 12345.
    public static func connect(
        host: String, port: Int, policy: SDLReconnectPolicy = .never,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLChannelTransport {
        var lastError = ""
        for attempt in 1...policy.maxAttempts {
            try await Task.sleep(for: policy.delay(beforeAttempt: attempt))
            do {
                return try await ClientBootstrap(group: group)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .connect(hostOrAddress: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture { try SDLChannelTransport(wrappingChannelSynchronously: channel) }
                    }
            } catch {
                lastError = "\(error)"
            }
        }
        throw SDLTransportError.connectFailed(host: host, port: port, attempts: policy.maxAttempts, reason: lastError)
    }

    /// Unread bytes kept before the socket is no longer read, by default.
    public static let inboundBufferSize = 1 << 20
    /// Bytes given to the channel and not yet written before a send waits, by default.
    public static let outboundBufferSize = 256 << 10

    /// Wraps a connected channel whose pipeline reads and writes `ByteBuffer`s: adds the handler
    /// that feeds `inbound`. Call it on the channel's event loop (a bootstrap's channel
    /// initializer, an upgrade's pipeline handler). At most `inboundBufferSize` unread bytes are
    /// held before the channel is no longer read.
    public init(
        wrappingChannelSynchronously channel: any Channel, inboundBufferSize: Int = SDLChannelTransport.inboundBufferSize,
        outboundBufferSize: Int = SDLChannelTransport.outboundBufferSize
    ) throws {
        let queue = ByteQueue(highWatermark: max(1, inboundBufferSize))
        let outbound = OutboundWindow(limit: max(1, outboundBufferSize))
        let bridge = InboundBridge(queue: queue, outbound: outbound)
        try channel.pipeline.syncOperations.addHandler(bridge)
        self.bridge = NIOLoopBound(bridge, eventLoop: channel.eventLoop)
        self.queue = queue
        self.inbound = SDLInboundBytes(queue: queue)
        self.channel = channel
        self.outbound = outbound
    }

    /// Nothing to move: the channel's handler feeds `inbound` as it reads. Returns at once.
    public func run() async {}

    /// Sends `bytes`; waits first while the channel has `outboundBufferSize` bytes still to
    /// write (a peer reading slower than we write). Cancelled while waiting, it throws
    /// `CancellationError` having sent none of `bytes`.
    public func send(_ bytes: [UInt8]) async throws {
        try await outbound.reserve(bytes.count)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let outbound = self.outbound
        let count = bytes.count
        promise.futureResult.whenComplete { result in
            if case .failure(let error) = result {
                outbound.written(count, failure: Self.transportError(error))
            } else {
                outbound.written(count, failure: nil)
            }
        }
        // Written on the event loop by the bridge, which flushes once per burst of sends (a
        // flush is a system call; a stream of small RTP packets would make one each).
        let bridge = self.bridge
        let buffer = ByteBuffer(bytes: bytes)
        channel.eventLoop.execute { bridge.value.write(buffer, promise: promise) }
    }

    /// NIO's errors as ours, keeping the cause: closed, reset, or the system's description.
    static func transportError(_ error: any Error) -> SDLTransportError {
        if let error = error as? SDLTransportError { return error }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .eof, .inputClosed: return .closed
            default: return .io("\(error)")
            }
        }
        if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
            return .connectionReset
        }
        return .io("\(error)")
    }

    /// Closes the connection (a WebSocket sends its close frame first) and returns once it is
    /// closed: `inbound` then finishes, and sends throw `SDLTransportError.closed`. What was sent
    /// before is written first (for at most `drainLimit`, against a peer that stops reading):
    /// a head unit's last answer before it ends a session, a refused registration, must arrive.
    public func close() async {
        outbound.close(.closed)
        try? await drainedWrites().get()
        try? await channel.close()
        // A channel already closed by the peer: its end was reported by the handler.
        queue.finish()
    }

    /// How long `close()` waits for the bytes already sent to be written.
    static let drainLimit = TimeAmount.seconds(2)

    /// Succeeds once every write queued before it is done (or failed), or after `drainLimit`.
    private func drainedWrites() -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        let drained = eventLoop.makePromise(of: Void.self)
        let bridge = self.bridge
        eventLoop.execute {
            let completed = NIOLoopBoundBox(false, eventLoop: eventLoop)
            func complete() {
                guard !completed.value else { return }
                completed.value = true
                drained.succeed()
            }
            let limit = eventLoop.scheduleTask(in: Self.drainLimit) { complete() }
            // Drained in time (the usual case, often at once): the timer has nothing left to do.
            bridge.value.flushQueuedWrites(on: eventLoop).whenComplete { _ in
                limit.cancel()
                complete()
            }
        }
        return drained.futureResult
    }

    /// Ends the connection the way a peer that loses power does: the socket closes without the
    /// protocol's goodbye (no WebSocket close frame). For fault tests.
    public func abort() async {
        try? await channel.close(mode: .output)
        await close()
    }
}

/// The bytes given to the channel and not written yet, and the senders waiting for room.
private final class OutboundWindow: Sendable {
    private struct State {
        var inFlight = 0
        var end: SDLTransportError?
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var order: [Int] = []
        var nextID = 0
    }
    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Waits until `count` more bytes fit (a send larger than the limit goes when nothing else
    /// is in flight); throws the connection's end, or `CancellationError` having taken nothing.
    func reserve(_ count: Int) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int? in
            if state.end == nil, state.waiters.isEmpty, state.inFlight == 0 || state.inFlight + count <= limit {
                state.inFlight += count
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if let end = state.end { return .failure(end) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = (count, continuation)
                    state.order.append(id)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                admit()
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                state.order.removeAll { $0 == id }
                return state.waiters.removeValue(forKey: id)?.continuation
            }
            waiter?.resume(throwing: CancellationError())
            admit()
        }
    }

    /// A write completed (or failed: the connection is over for every later send).
    func written(_ count: Int, failure: SDLTransportError?) {
        state.withLock { $0.inFlight -= count }
        if let failure { close(failure) } else { admit() }
    }

    /// Sends from now on throw `end`; waiting ones at once.
    func close(_ end: SDLTransportError) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if state.end == nil { state.end = end }
            defer {
                state.waiters.removeAll()
                state.order.removeAll()
            }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: end) }
    }

    /// Lets the waiting senders in, in order, while they fit.
    private func admit() {
        let admitted = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while let first = state.order.first, let waiter = state.waiters[first],
                state.inFlight == 0 || state.inFlight + waiter.count <= limit
            {
                state.order.removeFirst()
                state.waiters[first] = nil
                state.inFlight += waiter.count
                admitted.append(waiter.continuation)
            }
            return admitted
        }
        for waiter in admitted { waiter.resume() }
    }
}

/// The last handler of a transport's pipeline: puts what the channel reads into the transport's
/// queue on the event loop, holds the channel's reads back while the queue is full, and ends
/// the queue (and the sends) with the channel.
private final class InboundBridge: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let queue: ByteQueue
    private let outbound: OutboundWindow
    /// The reader is behind: reads wait until it catches up.
    private var full = false
    private var readHeld = false
    private var context: ChannelHandlerContext?
    private var flushPending = false
    /// The last write given to the channel, so a close can wait for it.
    private var lastWrite: EventLoopFuture<Void>?

    init(queue: ByteQueue, outbound: OutboundWindow) {
        self.queue = queue
        self.outbound = outbound
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        queue.setOnRoom {
            eventLoop.execute {
                let (bridge, context) = bound.value
                bridge.caughtUp(context: context)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        queue.setOnRoom(nil)
        self.context = nil
    }

    /// A send's bytes, on the event loop: written at once, flushed once the sends already
    /// queued on the loop are written too.
    func write(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>) {
        guard let context else {
            promise.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
        lastWrite = promise.futureResult
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.execute {
            self.flushPending = false
            self.context?.flush()
        }
    }

    /// Flushes now, on the event loop; the result completes when the last write is done.
    /// Writes complete in order, so that is when every earlier one is done too.
    func flushQueuedWrites(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        context?.flush()
        return lastWrite ?? eventLoop.makeSucceededVoidFuture()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if !queue.push(Array(buffer.readableBytesView)) { full = true }
    }

    func read(context: ChannelHandlerContext) {
        if full {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func caughtUp(context: ChannelHandlerContext) {
        // A read since the reader caught up may have filled the queue again.
        full = queue.isBehind
        guard !full, readHeld else { return }
        readHeld = false
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        outbound.close(.closed)
        queue.finish()
        context.fireChannelInactive()
    }

    /// The reader hears of it and closes the transport; a handler before this one that failed
    /// the connection (a WebSocket protocol error) closes it its own way (with its close code).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure = SDLChannelTransport.transportError(error)
        outbound.close(failure)
        queue.finish(throwing: failure)
    }
}

/// Accepts SDL apps over TCP, for the head-unit emulator.
public final class SDLTCPListener: Sendable {
    private let server: NIOAsyncChannel<SDLChannelTransport, Never>

    /// The port actually bound (useful with port 0).
    public let port: Int

    /// Listens on `host:port`.
    ///
    /// - Parameter maxReadSize: the largest read from one connection (the receive buffer grows
    ///   to it under load and shrinks when idle). 16 KiB keeps thousands of idle connections
    ///   small; a head unit receiving video reads faster with more (`sdl headunit` uses 256 KiB).
    public static func bind(
        host: String = "127.0.0.1", port: Int, maxReadSize: Int = 16 * 1024, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLTCPListener {
        let server = try await ServerBootstrap(group: group).sdlListenerOptions(maxReadSize: maxReadSize)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try SDLChannelTransport(wrappingChannelSynchronously: channel) }
            }
        return SDLTCPListener(server: server, port: server.channel.localAddress?.port ?? port)
    }

    private init(server: NIOAsyncChannel<SDLChannelTransport, Never>, port: Int) {
        self.server = server
        self.port = port
    }

    /// Runs `handle` for every accepted connection, concurrently, until the listener closes;
    /// each connection closes when its handler returns.
    public func run(_ handle: @escaping @Sendable (SDLChannelTransport) async -> Void) async throws {
        try await server.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await transport in connections {
                    group.addTask {
                        await handle(transport)
                        await transport.close()
                    }
                }
            }
        }
    }

    public func close() async {
        try? await server.channel.close()
    }

    /// Stops accepting without waiting, from anywhere (a cancellation handler): `run` then ends
    /// once the connections it serves have.
    public func closeNow() {
        server.channel.close(promise: nil)
    }
}

extension ClientBootstrap {
    /// Connects to `host:port`; an IP address is dialed as it is, without a name lookup (a
    /// lookup and Happy Eyeballs for every dial were 5 % of the CPU of a fleet of emulated
    /// vehicles dialing `127.0.0.1`).
    package func connect<Output: Sendable>(
        hostOrAddress host: String, port: Int, channelInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> Output {
        if let address = try? SocketAddress(ipAddress: host, port: port) {
            return try await connect(to: address, channelInitializer: channelInitializer)
        }
        return try await connect(host: host, port: port, channelInitializer: channelInitializer)
    }
}

extension ServerBootstrap {
    /// The socket options of every SDL listener (TCP, WebSocket).
    package func sdlListenerOptions(maxReadSize: Int = 16 * 1024) -> ServerBootstrap {
        serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Many connections at once (a load test, a fleet dialing again after a restart) must
            // not overflow the accept queue: a dropped handshake costs its client a second or
            // more before it retries. The system caps this at its own limit (`somaxconn`).
            .serverChannelOption(.backlog, value: 65_535)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Each connection keeps its receive buffer between reads: at most 16 KB by default.
            .childChannelOption(
                .recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: min(2048, max(64, maxReadSize)), maximum: max(64, maxReadSize)))
    }
}
