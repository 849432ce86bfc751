import NIOCore
import NIOPosix
import Synchronization

/// TCP connections are channel transports.
public typealias SDLTCPTransport = SDLChannelTransport

/// Bytes over a SwiftNIO channel: a TCP connection, or a WebSocket whose pipeline turns binary
/// messages into bytes (SDLWebSocket). Both directions are bounded: writes wait for the socket
/// to drain (NIOAsyncChannel's writer), and reads wait while the session has not read the
/// previous ones (at most `inboundBufferSize` unread bytes; NIO then stops reading the socket),
/// so a slow peer or a slow app slows the other side down instead of growing memory.
///
/// The channel lives inside `run()` (NIOAsyncChannel's `executeThenClose`), which the reader of
/// the transport runs as a child task: sends wait until it has started; the connection closes
/// when it returns. Listeners (`SDLTCPListener`, SDLWebSocket's) run their connections'
/// transports themselves.
public final class SDLChannelTransport: SDLTransport {
    public let inbound: SDLInboundBytes
    private let queue: ByteQueue
    private let asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let phase = Mutex(Phase.idle(writerWaiters: []))

    private typealias Writer = NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Where the channel is: not run yet (senders wait for its writer), running, or over.
    private enum Phase {
        case idle(writerWaiters: [CheckedContinuation<Writer?, Never>])
        case starting(writerWaiters: [CheckedContinuation<Writer?, Never>], closeRequested: Bool)
        case running(Writer, endWaiters: [CheckedContinuation<Void, Never>])
        case ended
    }

    /// Connects to `host:port`, retrying by `policy`. SDL Core listens on port 12345.
    public static func connect(
        host: String, port: Int, policy: SDLReconnectPolicy = .never,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLChannelTransport {
        var lastError = ""
        for attempt in 1...policy.maxAttempts {
            try await Task.sleep(for: policy.delay(beforeAttempt: attempt))
            do {
                let channel = try await ClientBootstrap(group: group)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .connect(host: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                return SDLChannelTransport(channel)
            } catch {
                lastError = "\(error)"
            }
        }
        throw SDLTransportError.connectFailed(host: host, port: port, attempts: policy.maxAttempts, reason: lastError)
    }

    /// Unread bytes kept before the socket is no longer read, by default.
    public static let inboundBufferSize = 1 << 20

    /// Wraps a connected channel whose pipeline reads and writes `ByteBuffer`s; at most
    /// `inboundBufferSize` unread bytes are held before the channel is no longer read. Nothing
    /// moves until `run()`.
    public init(_ asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, inboundBufferSize: Int = SDLChannelTransport.inboundBufferSize) {
        self.queue = ByteQueue(highWatermark: max(1, inboundBufferSize))
        self.inbound = SDLInboundBytes(queue: queue)
        self.asyncChannel = asyncChannel
    }

    /// Runs the channel until it closes: hands its writer to the senders and moves what it reads
    /// into `inbound`, waiting while the reader is behind. A second call returns at once.
    public func run() async {
        let start = phase.withLock { phase -> Bool in
            guard case .idle(let waiters) = phase else { return false }
            phase = .starting(writerWaiters: waiters, closeRequested: false)
            return true
        }
        guard start else { return }
        let queue = self.queue
        do {
            try await asyncChannel.executeThenClose { inbound, outbound in
                guard self.opened(outbound) else { return }
                for try await buffer in inbound {
                    try await queue.send(Array(buffer.readableBytesView))
                }
            }
            queue.finish()
        } catch SDLTransportError.closed {
            queue.finish()
        } catch {
            queue.finish(throwing: Self.transportError(error))
        }
        ended()
    }

    /// The writer is there: waiting senders get it. False when a close came first.
    private func opened(_ writer: Writer) -> Bool {
        let (waiters, closing) = phase.withLock { phase -> ([CheckedContinuation<Writer?, Never>], Bool) in
            guard case .starting(let waiters, let closeRequested) = phase else { return ([], true) }
            phase = .running(writer, endWaiters: [])
            return (waiters, closeRequested)
        }
        for waiter in waiters { waiter.resume(returning: closing ? nil : writer) }
        return !closing
    }

    private func ended() {
        let waiting = phase.withLock { phase -> (writers: [CheckedContinuation<Writer?, Never>], ends: [CheckedContinuation<Void, Never>]) in
            defer { phase = .ended }
            switch phase {
            case .idle(let waiters), .starting(let waiters, _): return (waiters, [])
            case .running(_, let ends): return ([], ends)
            case .ended: return ([], [])
            }
        }
        for waiter in waiting.writers { waiter.resume(returning: nil) }
        for waiter in waiting.ends { waiter.resume() }
    }

    /// The channel's writer once `run()` has opened it; nil once it is over.
    private func writer() async -> Writer? {
        // The usual case, without a continuation: the channel is open (or over).
        let now = phase.withLock { phase -> Writer?? in
            switch phase {
            case .running(let writer, _): .some(writer)
            case .ended: .some(nil)
            case .idle, .starting: .none
            }
        }
        if case .some(let writer) = now { return writer }
        return await withCheckedContinuation { continuation in
            let ready = phase.withLock { phase -> Writer?? in
                switch phase {
                case .idle(var waiters):
                    waiters.append(continuation)
                    phase = .idle(writerWaiters: waiters)
                    return .none
                case .starting(var waiters, let closeRequested):
                    waiters.append(continuation)
                    phase = .starting(writerWaiters: waiters, closeRequested: closeRequested)
                    return .none
                case .running(let writer, _): return .some(writer)
                case .ended: return .some(nil)
                }
            }
            if case .some(let writer) = ready { continuation.resume(returning: writer) }
        }
    }

    public func send(_ bytes: [UInt8]) async throws {
        guard let writer = await writer() else { throw SDLTransportError.closed }
        do {
            try await writer.write(ByteBuffer(bytes: bytes))
        } catch is CancellationError {
            // NIO's writer yields nothing of a cancelled write: the connection is intact.
            throw CancellationError()
        } catch {
            throw Self.transportError(error)
        }
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
        if error is NIOAsyncWriterError { return .closed }
        return .io("\(error)")
    }

    /// Closes the connection; when `run()` is running, returns once it has ended (`inbound`
    /// finished). Before `run()`, the transport is over at once and `run()` will return.
    public func close() async {
        enum Step { case notRun([CheckedContinuation<Writer?, Never>]), starting, running(Writer), over }
        let step = phase.withLock { phase -> Step in
            switch phase {
            case .idle(let waiters):
                phase = .ended
                return .notRun(waiters)
            case .starting(let waiters, _):
                phase = .starting(writerWaiters: waiters, closeRequested: true)
                return .starting
            case .running(let writer, _): return .running(writer)
            case .ended: return .over
            }
        }
        switch step {
        case .notRun(let waiters):
            for waiter in waiters { waiter.resume(returning: nil) }
            queue.finish()
            try? await asyncChannel.channel.close()
        case .starting:
            try? await asyncChannel.channel.close()
        case .running(let writer):
            writer.finish()
            // Unread bytes are no one's now: a run waiting for room in the queue must not keep
            // this close waiting for it.
            queue.finish()
            try? await asyncChannel.channel.close()
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let over = phase.withLock { phase -> Bool in
                    guard case .running(let writer, var ends) = phase else { return true }
                    ends.append(continuation)
                    phase = .running(writer, endWaiters: ends)
                    return false
                }
                if over { continuation.resume() }
            }
        case .over:
            break
        }
    }

    /// Ends the connection the way a peer that loses power does: the socket closes without the
    /// protocol's goodbye (no WebSocket close frame). For fault tests.
    public func abort() async {
        try? await asyncChannel.channel.close(mode: .output)
        await close()
    }
}

/// Accepts SDL apps over TCP, for the head-unit emulator.
public final class SDLTCPListener: Sendable {
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>

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
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return SDLTCPListener(server: server, port: server.channel.localAddress?.port ?? port)
    }

    private init(server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int) {
        self.server = server
        self.port = port
    }

    /// Runs `handle` for every accepted connection, concurrently, until the listener closes;
    /// each connection's transport runs beside its handler and closes when the handler returns.
    public func run(_ handle: @escaping @Sendable (SDLChannelTransport) async -> Void) async throws {
        try await server.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    group.addTask {
                        let transport = SDLChannelTransport(connection)
                        await withDiscardingTaskGroup { connection in
                            connection.addTask { await transport.run() }
                            await handle(transport)
                            await transport.close()
                        }
                    }
                }
            }
        }
    }

    public func close() async {
        try? await server.channel.close()
    }
}

extension ServerBootstrap {
    /// The socket options of every SDL listener (TCP, WebSocket).
    package func sdlListenerOptions(maxReadSize: Int = 16 * 1024) -> ServerBootstrap {
        serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Many connections at once (a load test, a fleet) must not overflow the accept queue.
            .serverChannelOption(.backlog, value: 1024)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Each connection keeps its receive buffer between reads: at most 16 KB by default.
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: max(2048, maxReadSize)))
    }
}
