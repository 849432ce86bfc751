import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTLS
import SDLProtocol

/// A TLS endpoint (1.2; see ``TLS13``) for one SDL session, on swift-nio-ssl (BoringSSL) driven in memory: the
/// handshake's bytes go in and out of security queries, and each protected frame's payload is
/// one record. The app is the TLS server (``Role/server(_:)``) as SDL Core expects; the
/// emulator uses the client role, checking the app's certificate as SDL Core does.
///
/// An actor with no thread of its own: the engine (swift-nio-ssl's handler in a socketless
/// pipeline) runs wherever the actor runs, so sealing or opening a record from a session costs
/// an actor switch, not a thread hop, and thousands of endpoints cost only their memory.
public actor SDLTLSSecurity: SDLSecurityProvider {
    /// Which end of the handshake.
    public enum Role: Sendable {
        /// Answers the head unit's ClientHello with this certificate and key (the app). With
        /// `headUnitCA` (PEM), the app also asks for the head unit's certificate and requires it
        /// to be signed by that CA (SDL Core presents its `CertificatePath` when asked).
        case server(SDLTLSIdentity, headUnitCA: [UInt8]? = nil)
        /// Starts the handshake and checks the peer's certificate (the head unit); presents
        /// `identity` when the app asks for the head unit's certificate.
        case client(SDLCertificateCheck, identity: SDLTLSIdentity? = nil)
    }

    /// How an endpoint treats TLS 1.3.
    public enum TLS13: Sendable, Hashable {
        /// TLS 1.2 only: what works with SDL Core 8.2, and the default.
        case refused
        /// TLS 1.3 offered too, and used when the peer offers it.
        case offered
        /// SDL Core 8.2's head unit: its TLS 1.2 cap does not take effect, so a peer that offers
        /// TLS 1.3 completes a 1.3 handshake, and then none of the peer's records decrypts
        /// (DECRYPTION_FAILED), as on Core; what it seals itself still goes out. The emulator's head unit (`sdl headunit
        /// --security`) uses it, so an app that offers TLS 1.3 fails there as it would in a car.
        case brokenAsInSDLCore82
    }

    /// The largest plaintext per protected frame: within one TLS record (16 KiB).
    public nonisolated let maxPlaintextPerFrame = 16_000
    /// How this endpoint treats TLS 1.3.
    public nonisolated let tls13: TLS13

    /// The TLS state of one handshake and the session after it, made anew by `resetHandshake`.
    private var engine: RecordEngine
    private var progress: HandshakeProgress
    private var verdict: NIOLockedValueBox<SDLSecurityError?>
    private let role: Role

    /// An endpoint in `role`; nothing is exchanged until the handshake starts.
    public init(role: Role, tls13: TLS13 = .refused) throws(SDLSecurityError) {
        self.tls13 = tls13
        self.role = role
        (engine, progress, verdict) = try Self.makeState(role: role, tls13: tls13)
    }

    /// A handshake that did not complete (the head unit refused it, or it broke off) leaves
    /// BoringSSL mid-handshake; the head unit's next ClientHello must meet fresh state, not
    /// that (WRONG_VERSION_NUMBER). A completed handshake is kept: its session protects the
    /// services that follow.
    public func resetHandshake() async {
        guard !progress.isComplete, let fresh = try? Self.makeState(role: role, tls13: tls13) else { return }
        (engine, progress, verdict) = fresh
        readVersion = nil
    }

    /// A TLS endpoint for `role`: its engine, what tells when the handshake completed, and the
    /// certificate check's verdict.
    private static func makeState(
        role: Role, tls13: TLS13
    ) throws(SDLSecurityError) -> (RecordEngine, HandshakeProgress, NIOLockedValueBox<SDLSecurityError?>) {
        let progress = HandshakeProgress()
        let verdict = NIOLockedValueBox<SDLSecurityError?>(nil)
        do {
            var configuration: TLSConfiguration
            switch role {
            case .server(let identity, let headUnitCA):
                let (chain, key) = try Self.load(identity)
                configuration = .makeServerConfiguration(certificateChain: chain, privateKey: key)
                if let headUnitCA {
                    configuration.certificateVerification = .noHostnameVerification
                    configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(headUnitCA))
                }
            case .client(_, let identity):
                configuration = .makeClientConfiguration()
                // The app's certificate names an app, not a host: SDL checks its serialNumber.
                configuration.certificateVerification = .noHostnameVerification
                if let identity {
                    (configuration.certificateChain, configuration.privateKey) = try Self.load(identity)
                }
            }
            // SDL Core 8.2 breaks with TLS 1.3: 1.2 only, unless asked otherwise.
            configuration.minimumTLSVersion = .tlsv12
            configuration.maximumTLSVersion = tls13 == .refused ? .tlsv12 : .tlsv13
            let context = try NIOSSLContext(configuration: configuration)
            let handler: any ChannelHandler
            if case .client(let check, _) = role {
                // The check replaces BoringSSL's verification: SDL Core's rules, on its clock.
                handler = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                    let failure = check.verify(certificates.map { (try? $0.toDERBytes()) ?? [] })
                    verdict.withLockedValue { $0 = failure }
                    promise.succeed(failure == nil ? .certificateVerified : .failed)
                }
            } else {
                handler = NIOSSLServerHandler(context: context)
            }
            return (try RecordEngine(handler: handler, observer: progress), progress, verdict)
        } catch {
            throw SDLSecurityError(.internalError, "TLS set-up: \(error)")
        }
    }

    private static func load(_ identity: SDLTLSIdentity) throws -> ([NIOSSLCertificateSource], NIOSSLPrivateKeySource) {
        let chain = try NIOSSLCertificate.fromPEMBytes(identity.certificateChainPEM)
        let key = try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem)
        return (chain.map { .certificate($0) }, .privateKey(key))
    }

    /// The client's ClientHello (a server sends nothing first).
    public func startHandshake() async throws(SDLSecurityError) -> [UInt8] {
        try step { engine in try engine.activate() }
    }

    /// The peer's handshake bytes in; ours out, and whether the handshake is complete.
    public func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep {
        let outgoing = try step { engine in
            try engine.activate()
            try engine.receive(bytes)
        }
        return SDLHandshakeStep(outgoing: outgoing, isComplete: progress.isComplete)
    }

    /// The TLS version the handshake settled on ("TLS 1.2", "TLS 1.3"); nil before it completes.
    public var negotiatedVersion: String? {
        return switch settledVersion {
        case .tlsv13?: "TLS 1.3"
        case .tlsv12?: "TLS 1.2"
        case let other?: "\(other)"
        case nil: nil
        }
    }

    /// The handshake's TLS version, read from the engine once it has completed (it does not
    /// change after), so a protected frame does not look it up again.
    private var settledVersion: TLSVersion? {
        guard progress.isComplete else { return nil }
        if readVersion == nil { readVersion = engine.tlsVersion }
        return readVersion
    }
    private var readVersion: TLSVersion?

    /// SDL Core 8.2 after a TLS 1.3 handshake: the peer's records do not decrypt.
    private var brokenByTLS13: Bool { tls13 == .brokenAsInSDLCore82 && settledVersion == .tlsv13 }
    private static let tls13Failure = "TLS 1.3 was negotiated, and SDL Core 8.2 cannot read its records: offer TLS 1.2 only"

    /// One record holding `plaintext` (at most ``maxPlaintextPerFrame`` bytes).
    public func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] {
        guard progress.isComplete else { throw SDLSecurityError(.encryptionFailed, "the handshake has not completed") }
        do {
            try engine.send(plaintext)
        } catch {
            throw SDLSecurityError(.encryptionFailed, "the TLS session has ended: \(error)")
        }
        return engine.takeOutbound()
    }

    /// The plaintext of one record (or several, back to back).
    public func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] {
        guard progress.isComplete else { throw SDLSecurityError(.serviceNotProtected, "the handshake has not completed") }
        if brokenByTLS13 { throw SDLSecurityError(.decryptionFailed, Self.tls13Failure) }
        do {
            try engine.receive(ciphertext)
        } catch {
            throw SDLSecurityError(.decryptionFailed, "\(error)")
        }
        return engine.takeInbound()
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool { progress.isComplete }

    /// Runs a handshake step and returns what the engine wrote for the peer; any failure
    /// becomes the security error to report.
    private func step(_ body: (RecordEngine) throws -> Void) throws(SDLSecurityError) -> [UInt8] {
        do {
            try body(engine)
            // A refused certificate fails the handshake inside the engine: report its reason.
            if let refused = verdict.withLockedValue({ $0 }) { throw refused }
            return engine.takeOutbound()
        } catch {
            throw failure(error)
        }
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
