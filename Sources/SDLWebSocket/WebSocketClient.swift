import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SDLTransport

/// A `ws://` or `wss://` address.
public struct SDLWebSocketURL: Sendable, Hashable, CustomStringConvertible {
    public var secure: Bool
    public var host: String
    public var port: Int
    /// Path and query, `/` at least.
    public var uri: String

    public init(_ text: String) throws(SDLWebSocketError) {
        let secure: Bool
        let rest: Substring
        if text.hasPrefix("ws://") {
            (secure, rest) = (false, text.dropFirst(5))
        } else if text.hasPrefix("wss://") {
            (secure, rest) = (true, text.dropFirst(6))
        } else {
            throw .invalidURL(text)
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var uri = String(rest.dropFirst(authority.count))
        if uri.isEmpty { uri = "/" } else if uri.hasPrefix("?") { uri = "/" + uri }
        var host = Substring(authority)
        var port = secure ? 443 : 80
        if authority.hasPrefix("[") {
            // [::1]:8080
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { throw .invalidURL(text) }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]) else { throw .invalidURL(text) }
            port = number
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { throw .invalidURL(text) }
        self.secure = secure
        self.host = String(host)
        self.port = port
        self.uri = uri
    }

    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(hostPart):\(port)\(uri)"
    }
}

extension SDLChannelTransport {
    /// Opens a WebSocket to `url` as SDL Core does to a cloud app: the HTTP upgrade, then binary
    /// messages both ways. `tls` is used for `wss://` (default: the system's trust roots).
    public static func connectWebSocket(
        to url: SDLWebSocketURL, tls: TLSConfiguration? = nil, limits: SDLWebSocketLimits = SDLWebSocketLimits(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SDLChannelTransport {
        enum Upgrade {
            case websocket(SDLChannelTransport)
            case refused(any Channel)
        }
        let sslContext = try url.secure ? NIOSSLContext(configuration: tls ?? .makeClientConfiguration()) : nil
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.nanoseconds(limits.handshakeTimeout.nanoseconds))
            .connect(hostOrAddress: url.host, port: url.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // TLS and the upgrade must finish in time, or the dial fails.
                    let upgraded = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
                    channel.eventLoop.scheduleTask(in: .nanoseconds(limits.handshakeTimeout.nanoseconds)) {
                        guard !upgraded.value else { return }
                        // The upgrade handler fails the dial with this error; then the socket goes.
                        channel.pipeline.fireErrorCaught(SDLWebSocketError.handshakeTimeout(seconds: limits.handshakeTimeout.seconds))
                        channel.close(promise: nil)
                    }
                    if let sslContext {
                        let serverName = url.host.first?.isNumber == true || url.host.contains(":") ? nil : url.host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: limits.messageSize,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                upgraded.value = true
                                try SDLWebSocketPipeline.addHandlers(to: channel.pipeline.syncOperations, limits: limits, isClient: true, includingCodec: false)
                                return .websocket(try SDLChannelTransport(wrappingChannelSynchronously: channel, inboundBufferSize: limits.bufferSize))
                            }
                        })
                    var headers = HTTPHeaders()
                    let defaultPort = url.secure ? 443 : 80
                    headers.add(name: "Host", value: url.port == defaultPort ? url.host : "\(url.host):\(url.port)")
                    headers.add(name: "Content-Length", value: "0")
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: url.uri, headers: headers),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture { .refused(channel) }
                        })
                    // The server may write its first SDL frame in the same packet as the 101
                    // response: those bytes go on to the WebSocket decoder, not away.
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        switch try await upgrade.get() {
        case .websocket(let transport):
            return transport
        case .refused(let channel):
            try? await channel.close()
            throw SDLWebSocketError.upgradeRefused
        }
    }
}

/// TLS set-ups for `wss://`.
public enum SDLWebSocketTLS {
    /// A server context from PEM files: the certificate chain and the private key.
    public static func server(certificateChainPath: String, privateKeyPath: String) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        return try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
    }

    /// A client configuration that trusts the certificates in a PEM file (a self-signed test
    /// server, a private CA) instead of the system's roots.
    public static func client(trustingPEMFile path: String) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .file(path)
        return configuration
    }
}
