import NIOCore
import NIOPosix

/// TCP connections are channel transports.
public typealias SDLTCPTransport = SDLChannelTransport

/// Bytes over a SwiftNIO channel: a TCP connection, or a WebSocket whose pipeline turns binary
/// messages into bytes (SDLWebSocket). Both directions are bounded: writes wait for the socket
/// to drain (NIOAsyncChannel's writer), and reads wait while the session has not read the
/// previous ones (at most `inboundBufferSize` unread bytes; NIO then stops reading the socket),
/// so a slow peer or a slow app slows the other side down instead of growing memory.
public final class SDLChannelTransport: SDLTransport {
    public let inbound: SDLInboundBytes
    private let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel
    private let pump: Task<Void, Never>

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
                return await SDLChannelTransport(channel)
            } catch {
                lastError = "\(error)"
            }
        }
        throw SDLTransportError.connectFailed(host: host, port: port, attempts: policy.maxAttempts, reason: lastError)
    }

    /// Unread bytes kept before the socket is no longer read, by default.
    public static let inboundBufferSize = 1 << 20

    /// Wraps a connected channel whose pipeline reads and writes `ByteBuffer`s; at most
    /// `inboundBufferSize` unread bytes are held before the channel is no longer read.
    public init(_ asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, inboundBufferSize: Int = SDLChannelTransport.inboundBufferSize) async {
        let queue = ByteQueue(highWatermark: max(1, inboundBufferSize))
        let (writerStream, writerContinuation) = AsyncStream<NIOAsyncChannelOutboundWriter<ByteBuffer>>.makeStream()
        self.inbound = SDLInboundBytes(queue: queue)
        self.channel = asyncChannel.channel
        self.pump = Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    writerContinuation.yield(outbound)
                    writerContinuation.finish()
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
        }
        var iterator = writerStream.makeAsyncIterator()
        // executeThenClose hands over its writer at once; the connection lives until the pump ends.
        self.writer = await iterator.next()!
    }

    public func send(_ bytes: [UInt8]) async throws {
        do {
            try await writer.write(ByteBuffer(bytes: bytes))
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

    public func close() async {
        writer.finish()
        try? await channel.close()
        await pump.value
    }

    /// Ends the connection the way a peer that loses power does: the socket closes without the
    /// protocol's goodbye (no WebSocket close frame). For fault tests.
    public func abort() async {
        try? await channel.close(mode: .output)
        await close()
    }
}

/// Accepts SDL apps over TCP, for the head-unit emulator.
public final class SDLTCPListener: Sendable {
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>

    /// The port actually bound (useful with port 0).
    public let port: Int

    public static func bind(
        host: String = "127.0.0.1", port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLTCPListener {
        let server = try await ServerBootstrap(group: group).sdlListenerOptions()
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

    /// Runs `handle` for every accepted connection, concurrently, until the listener closes.
    public func run(_ handle: @escaping @Sendable (SDLChannelTransport) async -> Void) async throws {
        try await server.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    group.addTask {
                        let transport = await SDLChannelTransport(connection)
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
}

extension ServerBootstrap {
    /// The socket options of every SDL listener (TCP, WebSocket).
    package func sdlListenerOptions() -> ServerBootstrap {
        serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Many connections at once (a load test, a fleet) must not overflow the accept queue.
            .serverChannelOption(.backlog, value: 1024)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Each connection keeps its receive buffer between reads: at most 16 KB when idle.
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 16384))
    }
}
