import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SDLTransport
import Synchronization

/// One accepted WebSocket connection, as an SDL byte transport.
public struct SDLWebSocketConnection: Sendable {
    /// The connection's bytes: binary messages in, binary messages out.
    public let transport: SDLChannelTransport
    /// Where the head unit (or the load balancer in front of it) connected from.
    public let remoteAddress: String?
    /// The request's path and query, e.g. `/sdl?vin=123`.
    public let uri: String
    /// The upgrade request's headers (a load balancer's X-Forwarded-For...).
    public let headers: [(name: String, value: String)]
}

/// Accepts WebSocket connections on one path, over TLS when given a context, within
/// `SDLWebSocketLimits`, and hands each to a handler as an `SDLChannelTransport`.
public final class SDLWebSocketListener: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port (see `port` once bound).
        public var port: Int
        /// The upgrade is accepted on this path only, with or without a trailing slash (SDL Core
        /// dials the policy table's `/sdl` as `/sdl/`), the query ignored; others get HTTP 404.
        /// nil accepts any path.
        public var path: String?
        /// wss: the server's certificate and key (`SDLWebSocketTLS.server(certificateChain:privateKey:)`).
        public var tls: NIOSSLContext?
        public var limits: SDLWebSocketLimits
        /// Told of every request answered with a refusal (404 for a wrong path or a request that
        /// is no WebSocket upgrade, 503 at the connection limit), with the path asked for; not of
        /// connections closed before their request (a handshake deadline, a failed TLS
        /// handshake). Called on an event loop, so keep it short. `SDLWebSocketServer` logs them.
        public var onRefusal: (@Sendable (SDLWebSocketRefusal) -> Void)?

        public init(
            host: String = "127.0.0.1", port: Int, path: String? = "/", tls: NIOSSLContext? = nil, limits: SDLWebSocketLimits = SDLWebSocketLimits(),
            onRefusal: (@Sendable (SDLWebSocketRefusal) -> Void)? = nil
        ) {
            self.host = host
            self.port = port
            self.path = path
            self.tls = tls
            self.limits = limits
            self.onRefusal = onRefusal
        }
    }

    private enum Upgrade {
        case websocket(SDLChannelTransport, HTTPRequestHead, remoteAddress: SocketAddress?)
        case refused
    }

    private let server: NIOAsyncChannel<EventLoopFuture<Upgrade>, Never>
    private let open: Admissions
    public let configuration: Configuration
    /// The port actually bound.
    public let port: Int

    /// Connections open now, handshakes included.
    public var openConnections: Int { open.value }

    private init(server: NIOAsyncChannel<EventLoopFuture<Upgrade>, Never>, open: Admissions, configuration: Configuration) {
        self.server = server
        self.open = open
        self.configuration = configuration
        self.port = server.channel.localAddress?.port ?? configuration.port
    }

    public static func bind(
        _ configuration: Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLWebSocketListener {
        let open = Admissions()
        let limits = configuration.limits
        // Reads of at most 1 KB: each connection keeps its receive buffers between reads (NIO's
        // pool holds two when the frame decoder still holds the last), which thousands of idle
        // cloud sessions would otherwise hold at 16 KB each (plain ws:// only; with TLS, NIOSSL
        // keeps a plaintext buffer of its own). What a head unit sends a cloud app is mostly
        // small; larger messages take more reads.
        let server = try await ServerBootstrap(group: group).sdlListenerOptions(maxReadSize: 1024)
            // At most four reads in a row before the reader's queue is checked again.
            .childChannelOption(.maxMessagesPerRead, value: 4)
            // Connections are admitted in the order they were accepted, on the listener's event
            // loop: each child's initializer runs later on its own loop, where a later
            // connection could otherwise take the last place before an earlier one.
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(AdmissionHandler(admissions: open, limit: limits.maxConnections))
                }
            }
            .bind(host: configuration.host, port: configuration.port) { channel in
                let admitted = open.decision(for: channel)
                return channel.eventLoop.makeCompletedFuture {
                    let upgraded = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
                    // The request's URI, for a refusal's report (the upgrader sees the head; the
                    // refusal handler may not).
                    let asked = NIOLoopBoundBox<String?>(nil, eventLoop: channel.eventLoop)
                    // A refused connection (503) gets a moment to read its answer, not the whole handshake time.
                    let deadline = TimeAmount.nanoseconds((admitted ? limits.handshakeTimeout : limits.refusalTimeout).nanoseconds)
                    channel.eventLoop.scheduleTask(in: deadline) {
                        if !upgraded.value { channel.close(promise: nil) }
                    }
                    if let tls = configuration.tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                        maxFrameSize: limits.messageSize,
                        shouldUpgrade: { channel, head in
                            asked.value = head.uri
                            let accepted = admitted && Self.accepts(head.uri, path: configuration.path)
                            return channel.eventLoop.makeSucceededFuture(accepted ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                upgraded.value = true
                                try SDLWebSocketPipeline.addHandlers(
                                    to: channel.pipeline.syncOperations, limits: limits, isClient: false, includingCodec: false)
                                let transport = try SDLChannelTransport(wrappingChannelSynchronously: channel, inboundBufferSize: limits.bufferSize)
                                return .websocket(transport, head, remoteAddress: channel.remoteAddress)
                            }
                        })
                    let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            // A full server (503) or another path (404): answered, then closed.
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    RefusalHandler(
                                        admitted: admitted, path: configuration.path, limit: limits.maxConnections, uri: asked.value,
                                        report: configuration.onRefusal))
                                return .refused
                            }
                        })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(upgradeConfiguration: upgrade))
                }
            }
        return SDLWebSocketListener(server: server, open: open, configuration: configuration)
    }

    /// `127.0.0.1:51486`, `[::1]:51486`.
    static func text(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress else { return "\(address)" }
        let host = ip.contains(":") ? "[\(ip)]" : ip
        return address.port.map { "\(host):\($0)" } ?? host
    }

    static func path(of uri: String) -> String {
        String(uri.prefix { $0 != "?" && $0 != "#" })
    }

    /// Whether a request for `uri` reaches the listener on `path`: the same path, a trailing
    /// slash on either side aside (nil: any path).
    static func accepts(_ uri: String, path: String?) -> Bool {
        guard let path else { return true }
        func trimmed(_ text: String) -> Substring { text.count > 1 && text.hasSuffix("/") ? text.dropLast() : Substring(text) }
        return trimmed(Self.path(of: uri)) == trimmed(path)
    }

    /// Runs `handle` for every accepted connection, concurrently, until the listener is closed;
    /// each connection is closed when its handler returns. A connection's failure touches no
    /// other. A connection costs one task, its handler's: its transport needs none.
    public func run(_ handle: @escaping @Sendable (SDLWebSocketConnection) async -> Void) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { accepted in
                for try await upgrade in accepted {
                    group.addTask {
                        guard case .websocket(let transport, let head, let remoteAddress)? = try? await upgrade.get() else { return }
                        let connection = SDLWebSocketConnection(
                            transport: transport, remoteAddress: remoteAddress.map(Self.text),
                            uri: head.uri, headers: head.headers.map { ($0.name, $0.value) })
                        await handle(connection)
                        await connection.transport.close()
                    }
                }
            }
        }
    }

    /// Stops accepting; connections already open stay until their handlers return.
    public func close() async {
        try? await server.channel.close()
    }
}

/// The connections open and which of them were admitted, across event loops.
private final class Admissions: Sendable {
    private struct State {
        var open = 0
        /// Each accepted connection's admission, until its initializer takes it.
        var decided: [ObjectIdentifier: Bool] = [:]
    }
    private let state = Mutex(State())

    var value: Int { state.withLock { $0.open } }

    /// Admits `channel` if a place is free; its place is freed when it closes.
    func admit(_ channel: any Channel, limit: Int) {
        let id = ObjectIdentifier(channel)
        let admitted = state.withLock { state in
            let admitted = state.open < limit
            if admitted { state.open += 1 }
            state.decided[id] = admitted
            return admitted
        }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { state in
                if admitted { state.open -= 1 }
                state.decided[id] = nil
            }
        }
    }

    /// Whether `channel` was admitted (false for one closed before its initializer ran).
    func decision(for channel: any Channel) -> Bool {
        state.withLock { $0.decided[ObjectIdentifier(channel)] ?? false }
    }
}

/// On the listener's pipeline, ahead of NIO's accept handler: sees each accepted connection in
/// the order the listener accepted them.
private final class AdmissionHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    let admissions: Admissions
    let limit: Int

    init(admissions: Admissions, limit: Int) {
        self.admissions = admissions
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        admissions.admit(unwrapInboundIn(data), limit: limit)
        context.fireChannelRead(data)
    }
}

/// A connection the listener turned away, and why.
public struct SDLWebSocketRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Why it was turned away.
    public enum Reason: Sendable, Hashable {
        /// The path asked for is not the listener's (HTTP 404).
        case unknownPath(listening: String)
        /// The listener holds its maximum of connections (HTTP 503).
        case connectionLimit(Int)
        /// A request on the right path that is no WebSocket upgrade (HTTP 404).
        case notAnUpgrade
    }

    /// Why.
    public var reason: Reason
    /// The request's URI as sent (path and query).
    public var uri: String
    /// The HTTP status answered.
    public var status: Int
    /// Where the request came from.
    public var remoteAddress: String?

    /// The request's path, without the query.
    public var path: String { SDLWebSocketListener.path(of: uri) }

    /// `GET /sdl from 10.0.0.7:51000 refused (404): the listener is on /cloud`.
    public var description: String {
        let why =
            switch reason {
            case .unknownPath(let listening): "the listener is on \(listening)"
            case .connectionLimit(let limit): "the listener holds its \(limit) connections"
            case .notAnUpgrade: "not a WebSocket upgrade"
            }
        return "GET \(uri)\(remoteAddress.map { " from \($0)" } ?? "") refused (\(status)): \(why)"
    }
}

/// Answers a request that is not a WebSocket upgrade we take (a full server: 503; another path
/// or a plain request: 404), reports it, then closes.
private final class RefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let admitted: Bool
    private let path: String?
    private let limit: Int
    private let report: (@Sendable (SDLWebSocketRefusal) -> Void)?
    private var uri: String

    init(admitted: Bool, path: String?, limit: Int, uri: String?, report: (@Sendable (SDLWebSocketRefusal) -> Void)?) {
        self.admitted = admitted
        self.path = path
        self.limit = limit
        self.uri = uri ?? "/"
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): uri = head.uri
        case .body: break
        case .end: refuse(context: context)
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        let reason: SDLWebSocketRefusal.Reason
        if !admitted {
            reason = .connectionLimit(limit)
        } else if let path, !SDLWebSocketListener.accepts(uri, path: path) {
            reason = .unknownPath(listening: path)
        } else {
            reason = .notAnUpgrade
        }
        let status: HTTPResponseStatus = admitted ? .notFound : .serviceUnavailable
        report?(
            SDLWebSocketRefusal(
                reason: reason, uri: uri, status: Int(status.code), remoteAddress: context.channel.remoteAddress.map(SDLWebSocketListener.text)))
        let body = context.channel.allocator.buffer(string: "\(status.reasonPhrase)\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
