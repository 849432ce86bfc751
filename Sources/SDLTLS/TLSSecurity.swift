import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOSSL
import NIOTLS
import SDLProtocol

/// A TLS 1.2 endpoint for one SDL session, on swift-nio-ssl (BoringSSL) driven in memory: the
/// handshake's bytes go in and out of security queries, and each protected frame's payload is
/// one record. The app is the TLS server (``Role/server(_:)``) as SDL Core expects; the
/// emulator uses the client role, checking the app's certificate as SDL Core does.
///
/// Thread-safe: every call runs under one lock (the engine is an `EmbeddedChannel`, which runs
/// on the calling thread).
public final class SDLTLSSecurity: SDLSecurityProvider, @unchecked Sendable {
    /// Which end of the handshake.
    public enum Role: Sendable {
        /// Answers the head unit's ClientHello with this certificate and key (the app).
        case server(SDLTLSIdentity)
        /// Starts the handshake and checks the peer's certificate (the head unit).
        case client(SDLCertificateCheck)
    }

    /// The largest plaintext per protected frame: within one TLS record (16 KiB).
    public let maxPlaintextPerFrame = 16_000

    private let lock = NIOLock()
    private let channel: EmbeddedChannel
    private let progress = HandshakeProgress()
    private let verdict = NIOLockedValueBox<SDLSecurityError?>(nil)

    /// An endpoint in `role`; nothing is exchanged until the handshake starts.
    public init(role: Role) throws(SDLSecurityError) {
        let verdict = self.verdict
        do {
            var configuration: TLSConfiguration
            let handler: any ChannelHandler
            switch role {
            case .server(let identity):
                let chain = try NIOSSLCertificate.fromPEMBytes(identity.certificateChainPEM)
                let key = try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem)
                configuration = .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
                // SDL Core 8.2 breaks with TLS 1.3: offer 1.2 only.
                configuration.minimumTLSVersion = .tlsv12
                configuration.maximumTLSVersion = .tlsv12
                handler = NIOSSLServerHandler(context: try NIOSSLContext(configuration: configuration))
            case .client(let check):
                configuration = .makeClientConfiguration()
                // The app's certificate names an app, not a host: SDL checks its serialNumber.
                configuration.certificateVerification = .noHostnameVerification
                configuration.minimumTLSVersion = .tlsv12
                configuration.maximumTLSVersion = .tlsv12
                // The check replaces BoringSSL's verification: SDL Core's rules, on its clock.
                handler = try NIOSSLClientHandler(context: try NIOSSLContext(configuration: configuration), serverHostname: nil) { certificates, promise in
                    let failure = check.verify(certificates.map { (try? $0.toDERBytes()) ?? [] })
                    verdict.withLockedValue { $0 = failure }
                    promise.succeed(failure == nil ? .certificateVerified : .failed)
                }
            }
            channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.pipeline.syncOperations.addHandler(progress)
        } catch let error as SDLSecurityError {
            throw error
        } catch {
            throw SDLSecurityError(.internalError, "TLS set-up: \(error)")
        }
    }

    /// The client's ClientHello (a server sends nothing first).
    public func startHandshake() async throws(SDLSecurityError) -> [UInt8] {
        try step { () throws -> [UInt8] in
            // Becoming active makes a client send its ClientHello.
            try self.activate()
            return try self.drainOutbound()
        }
    }

    /// The peer's handshake bytes in; ours out, and whether the handshake is complete.
    public func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep {
        try step { () throws -> SDLHandshakeStep in
            try self.activate()
            try self.channel.writeInbound(ByteBuffer(bytes: bytes))
            return SDLHandshakeStep(outgoing: try self.drainOutbound(), isComplete: self.progress.isComplete)
        }
    }

    /// Runs a handshake step under the lock; any failure becomes the security error to report.
    private func step<T>(_ body: () throws -> T) throws(SDLSecurityError) -> T {
        let result: Result<T, SDLSecurityError> = lock.withLock {
            do {
                return .success(try body())
            } catch {
                return .failure(failure(error))
            }
        }
        return try result.get()
    }

    private func activate() throws {
        guard !channel.isActive else { return }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    /// One record holding `plaintext` (at most ``maxPlaintextPerFrame`` bytes).
    public func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] {
        try lock.withLock {
            guard progress.isComplete else { throw SDLSecurityError(.encryptionFailed, "the handshake has not completed") }
            try channel.writeOutbound(ByteBuffer(bytes: plaintext))
            return try drainOutbound()
        }
    }

    /// The plaintext of one record (or several, back to back).
    public func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] {
        try lock.withLock {
            guard progress.isComplete else { throw SDLSecurityError(.serviceNotProtected, "the handshake has not completed") }
            do {
                try channel.writeInbound(ByteBuffer(bytes: ciphertext))
            } catch {
                throw SDLSecurityError(.decryptionFailed, "\(error)")
            }
            channel.embeddedEventLoop.run()
            var plaintext: [UInt8] = []
            while let buffer = try channel.readInbound(as: ByteBuffer.self) { plaintext += buffer.readableBytesView }
            return plaintext
        }
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool { lock.withLock { progress.isComplete } }

    private func drainOutbound() throws -> [UInt8] {
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
