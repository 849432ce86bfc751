import NIOCore
import NIOPosix

/// TCP on SwiftNIO. Reads arrive as they come; writes wait for the socket to drain
/// (NIOAsyncChannel's writer applies back-pressure), so a slow head unit slows the app down
/// instead of growing a buffer without bound.
public final class SDLTCPTransport: SDLTransport {
    public let inbound: AsyncThrowingStream<[UInt8], any Error>
    private let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel
    private let pump: Task<Void, Never>

    /// Connects to `host:port`, retrying by `policy`. SDL Core listens on port 12345.
    public static func connect(
        host: String, port: Int, policy: SDLReconnectPolicy = .never,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLTCPTransport {
        var lastError = ""
        for attempt in 1...policy.maxAttempts {
            try await Task.sleep(for: policy.delay(beforeAttempt: attempt))
            do {
                let channel = try await ClientBootstrap(group: group)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                return await SDLTCPTransport(channel)
            } catch {
                lastError = "\(error)"
            }
        }
        throw SDLTransportError.connectFailed(host: host, port: port, attempts: policy.maxAttempts, reason: lastError)
    }

    /// Wraps an accepted connection (the head-unit emulator's side).
    public init(_ asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let (writerStream, writerContinuation) = AsyncStream<NIOAsyncChannelOutboundWriter<ByteBuffer>>.makeStream()
        self.inbound = stream
        self.channel = asyncChannel.channel
        self.pump = Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    writerContinuation.yield(outbound)
                    writerContinuation.finish()
                    for try await buffer in inbound {
                        continuation.yield(Array(buffer.readableBytesView))
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: SDLTransportError.io("\(error)"))
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
            throw SDLTransportError.closed
        }
    }

    public func close() async {
        writer.finish()
        try? await channel.close()
        await pump.value
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
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
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
    public func run(_ handle: @escaping @Sendable (SDLTCPTransport) async -> Void) async throws {
        try await server.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    group.addTask {
                        let transport = await SDLTCPTransport(connection)
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
