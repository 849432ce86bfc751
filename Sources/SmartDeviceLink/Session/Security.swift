/// Encryption of protected services: frames with the E flag carry ciphertext, and the RPC
/// service starts in clear before it is upgraded. The session passes every frame with the
/// E flag through this; the TLS handshake itself travels as security queries on service 0x00.
/// No cryptography ships here: plug in an OEM's TLS library.
public protocol SDLSecurityProvider: Sendable {
    /// Ciphertext for one frame's payload.
    func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8]
    /// Plaintext of one received frame's payload.
    func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8]
    /// The largest plaintext one encrypted frame may carry (TLS records: 16,091 bytes).
    var maxPlaintextPerFrame: Int { get }
}

/// Passes bytes through unchanged, so the encryption path can be exercised without TLS.
public struct SDLPassThroughSecurity: SDLSecurityProvider {
    /// A provider that leaves every payload as it is.
    public init() {}
    /// Returns `plaintext` unchanged.
    public func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] { plaintext }
    /// Returns `ciphertext` unchanged.
    public func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] { ciphertext }
    /// 16,091 bytes, the limit a TLS record would impose.
    public var maxPlaintextPerFrame: Int { 16_091 }
}
