import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import NIOSSL
import NIOTLS
import SDLProtocol

/// A TLS 1.2 endpoint for one SDL session, on swift-nio-ssl (BoringSSL) driven in memory: the
/// handshake's bytes go in and out of security queries, and each protected frame's payload is
/// one record. The app is the TLS server (``Role/server(_:)``) as SDL Core expects; the
/// emulator uses the client role, checking the app's certificate as SDL Core does.
///
/// An actor that runs on one of SwiftNIO's event loops: the engine (an `EmbeddedChannel`, which
/// must stay on the thread that made it) lives on that loop's thread, and endpoints spread over
/// the loops, so thousands of sessions share a core each without a thread of their own.
public actor SDLTLSSecurity: SDLSecurityProvider {
    /// Which end of the handshake.
    public enum Role: Sendable {
        /// Answers the head unit's ClientHello with this certificate and key (the app).
        case server(SDLTLSIdentity)
        /// Starts the handshake and checks the peer's certificate (the head unit).
        case client(SDLCertificateCheck)
    }

    /// The largest plaintext per protected frame: within one TLS record (16 KiB).
    public nonisolated let maxPlaintextPerFrame = 16_000

    private let eventLoop: any EventLoop
    private let context: NIOSSLContext
    private let check: SDLCertificateCheck?
    /// Made on the event loop's thread at the first use.
    private var channel: EmbeddedChannel?
    private let progress = HandshakeProgress()
    private let verdict = NIOLockedValueBox<SDLSecurityError?>(nil)

    /// The actor runs on its event loop, where its engine lives.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    /// An endpoint in `role`; nothing is exchanged until the handshake starts. `eventLoop`
    /// defaults to one of SwiftNIO's shared loops.
    public init(role: Role, eventLoop: (any EventLoop)? = nil) throws(SDLSecurityError) {
        self.eventLoop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        do {
            var configuration: TLSConfiguration
            switch role {
            case .server(let identity):
                let chain = try NIOSSLCertificate.fromPEMBytes(identity.certificateChainPEM)
                let key = try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem)
                configuration = .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
                check = nil
            case .client(let peerCheck):
                configuration = .makeClientConfiguration()
                // The app's certificate names an app, not a host: SDL checks its serialNumber.
                configuration.certificateVerification = .noHostnameVerification
                check = peerCheck
            }
            // SDL Core 8.2 breaks with TLS 1.3: 1.2 only.
            configuration.minimumTLSVersion = .tlsv12
            configuration.maximumTLSVersion = .tlsv12
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw SDLSecurityError(.internalError, "TLS set-up: \(error)")
        }
    }

    deinit {
        // The engine must end on its own thread, and this may run anywhere: the box takes it
        // there and lets go of it on that thread, whoever releases the box last.
        let box = EngineBox(channel)
        channel = nil
        eventLoop.execute { box.release() }
    }

    /// The client's ClientHello (a server sends nothing first).
    public func startHandshake() async throws(SDLSecurityError) -> [UInt8] {
        try step { channel in
            try Self.activate(channel)
            return try self.drainOutbound(channel)
        }
    }

    /// The peer's handshake bytes in; ours out, and whether the handshake is complete.
    public func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep {
        try step { channel in
            try Self.activate(channel)
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            return SDLHandshakeStep(outgoing: try self.drainOutbound(channel), isComplete: self.progress.isComplete)
        }
    }

    /// One record holding `plaintext` (at most ``maxPlaintextPerFrame`` bytes).
    public func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] {
        guard progress.isComplete, let channel else { throw SDLSecurityError(.encryptionFailed, "the handshake has not completed") }
        try channel.writeOutbound(ByteBuffer(bytes: plaintext))
        return try drainOutbound(channel)
    }

    /// The plaintext of one record (or several, back to back).
    public func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] {
        guard progress.isComplete, let channel else { throw SDLSecurityError(.serviceNotProtected, "the handshake has not completed") }
        do {
            try channel.writeInbound(ByteBuffer(bytes: ciphertext))
            channel.embeddedEventLoop.run()
            try channel.throwIfErrorCaught()
        } catch {
            throw SDLSecurityError(.decryptionFailed, "\(error)")
        }
        var plaintext: [UInt8] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { plaintext += buffer.readableBytesView }
        return plaintext
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool { progress.isComplete }

    /// Runs a handshake step on the engine (made on first use); any failure becomes the security
    /// error to report.
    private func step<T>(_ body: (EmbeddedChannel) throws -> T) throws(SDLSecurityError) -> T {
        do {
            return try body(try engine())
        } catch {
            throw failure(error)
        }
    }

    /// The engine, made here (on the event loop's thread) the first time.
    private func engine() throws -> EmbeddedChannel {
        if let channel { return channel }
        let handler: any ChannelHandler
        if let check {
            let verdict = self.verdict
            // The check replaces BoringSSL's verification: SDL Core's rules, on its clock.
            handler = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                let failure = check.verify(certificates.map { (try? $0.toDERBytes()) ?? [] })
                verdict.withLockedValue { $0 = failure }
                promise.succeed(failure == nil ? .certificateVerified : .failed)
            }
        } else {
            handler = NIOSSLServerHandler(context: context)
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.pipeline.syncOperations.addHandler(progress)
        self.channel = channel
        return channel
    }

    private static func activate(_ channel: EmbeddedChannel) throws {
        guard !channel.isActive else { return }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    private func drainOutbound(_ channel: EmbeddedChannel) throws -> [UInt8] {
        // Work the engine scheduled (the certificate check's answer resumes the handshake).
        channel.embeddedEventLoop.run()
        // A failure in that work (a refused certificate) reaches the end of the pipeline.
        try channel.throwIfErrorCaught()
        if let refused = verdict.withLockedValue({ $0 }) { throw refused }
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }

    /// The certificate check's reason when it refused, else a handshake failure.
    private func failure(_ error: any Error) -> SDLSecurityError {
        if let refused = verdict.withLockedValue({ $0 }) { return refused }
        if let error = error as? SDLSecurityError { return error }
        return SDLSecurityError(.handshakeFailed, "\(error)")
    }
}

/// Carries the engine to its event loop for its end; only that loop touches it.
private final class EngineBox: @unchecked Sendable {
    private var channel: EmbeddedChannel?
    init(_ channel: EmbeddedChannel?) { self.channel = channel }
    func release() { channel = nil }
}

/// A certificate chain and its private key, PEM.
public struct SDLTLSIdentity: Sendable, Hashable {
    /// The certificate first, then any intermediates.
    public var certificateChainPEM: [UInt8]
    /// The certificate's private key.
    public var privateKeyPEM: [UInt8]

    /// An identity from PEM text.
    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = Array(certificateChainPEM.utf8)
        self.privateKeyPEM = Array(privateKeyPEM.utf8)
    }
}

/// Notes the end of the handshake, which swift-nio-ssl reports as a user event.
private final class HandshakeProgress: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private(set) var isComplete = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls { isComplete = true }
        context.fireUserInboundEventTriggered(event)
    }
}
