/// Encryption of protected services, one TLS endpoint per session: the handshake travels as
/// security queries (``SDLSecurityQuery``) on the control service, then each frame with the
/// encryption bit carries one record (a first frame stays plain). The app is the TLS server by
/// default, SDL Core the client. `SDLTLS` ships a provider built on swift-nio-ssl; an OEM's
/// security library can conform instead.
public protocol SDLSecurityProvider: Sendable {
    /// The bytes to send first: a client's ClientHello; nothing for a server, which waits for it.
    func startHandshake() async throws(SDLSecurityError) -> [UInt8]
    /// Handshake bytes from the peer: what to send back, and whether the handshake is complete.
    func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep
    /// Ciphertext (one record) for one frame's payload.
    func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8]
    /// Plaintext of one received frame's payload.
    func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8]
    /// The largest plaintext one encrypted frame may carry (a TLS record holds 16 KiB).
    var maxPlaintextPerFrame: Int { get }
    /// Forgets a handshake that did not complete, so the next one starts from fresh state: a
    /// head unit that refused a handshake starts the next with a new ClientHello. A completed
    /// handshake is kept.
    func resetHandshake() async
}

extension SDLSecurityProvider {
    /// Providers without handshake state have nothing to forget.
    public func resetHandshake() async {}
}

/// One step of a handshake: bytes for the peer (maybe none), and whether it is done.
public struct SDLHandshakeStep: Sendable, Hashable {
    /// What to send the peer in a security query; empty when there is nothing to send.
    public var outgoing: [UInt8]
    /// The handshake completed: protected frames can flow.
    public var isComplete: Bool

    /// A step sending `outgoing`, complete or not.
    public init(outgoing: [UInt8], isComplete: Bool) {
        self.outgoing = outgoing
        self.isComplete = isComplete
    }
}

/// Why a handshake or a record failed, with the security error code SDL sends for it.
public struct SDLSecurityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code an internal-error query carries.
    public var code: SDLSecurityErrorCode
    /// What went wrong, for people.
    public var message: String

    /// An error with `code` and an explanation.
    public init(_ code: SDLSecurityErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension SDLSecurityProvider {
    /// A server's default: nothing to send until the client speaks.
    public func startHandshake() async throws(SDLSecurityError) -> [UInt8] { [] }
}

/// Passes bytes through unchanged and completes the handshake at once, so the encryption path
/// can be exercised without TLS.
public struct SDLPassThroughSecurity: SDLSecurityProvider {
    /// A provider that leaves every payload as it is.
    public init() {}
    /// Done at once, sending nothing.
    public func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep {
        SDLHandshakeStep(outgoing: [], isComplete: true)
    }
    /// Returns `plaintext` unchanged.
    public func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] { plaintext }
    /// Returns `ciphertext` unchanged.
    public func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] { ciphertext }
    /// 16,091 bytes, the limit a TLS record would impose.
    public var maxPlaintextPerFrame: Int { 16_091 }
}

extension SDLFramer {
    /// The frames of a protected `message`, each frame's payload one record of `security`: cut
    /// at `maxPayloadSize` or the provider's record limit, whichever is smaller; a first frame
    /// (the sizes) stays plain. What both ends of a protected service send.
    public static func protectedFrames(
        for message: SDLProtocolMessage, maxPayloadSize: Int, security: any SDLSecurityProvider
    ) async throws -> [SDLFrame] {
        var frames = frames(for: message, maxPayloadSize: max(1, min(maxPayloadSize, security.maxPlaintextPerFrame)))
        for index in frames.indices where frames[index].header.isEncrypted {
            frames[index] = SDLFrame(header: frames[index].header, payload: try await security.encrypt(frames[index].payload))
        }
        return frames
    }
}

extension SDLFramer {
    /// The wire bytes of a protected `message`: a control frame's payload as one record (a
    /// protected StartServiceACK), any other message as `protectedFrames`.
    public static func protectedBytes(
        for message: SDLProtocolMessage, maxPayloadSize: Int, security: any SDLSecurityProvider
    ) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        if message.controlFrameType != nil {
            var record = message
            record.payload = try await security.encrypt(message.payload)
            encode(record, maxPayloadSize: .max, into: &bytes)
        } else {
            for frame in try await protectedFrames(for: message, maxPayloadSize: maxPayloadSize, security: security) { frame.append(to: &bytes) }
        }
        return bytes
    }
}

extension Optional where Wrapped == any SDLSecurityProvider {
    /// One handshake step as a value, for `SDLSessionStateMachine.handshakeProgressed`; without
    /// a provider, `notSupported`.
    public func handshakeStep(_ bytes: [UInt8]) async -> Result<SDLHandshakeStep, SDLSecurityError> {
        guard let provider = self else { return .failure(SDLSecurityError(.notSupported, "no security provider for the handshake")) }
        do {
            return .success(try await provider.continueHandshake(with: bytes))
        } catch {
            return .failure(error)
        }
    }
}
