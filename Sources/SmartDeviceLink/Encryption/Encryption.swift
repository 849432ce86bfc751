import SDLProtocol

/// The guide's "Encryption": which security library protects the app's services on which head
/// unit, and when the RPC service is protected.
///
/// ```swift
/// var configuration = SDLManager.Configuration(appName: "Secure", appID: "8675309")
/// configuration.encryption.securityManagers = [
///     SDLSecurityManager(makes: ["SDL"]) { try SDLTLSSecurity(role: .server(identity)) },
/// ]
/// ```
public struct SDLEncryptionConfiguration: Sendable {
    /// When the manager protects the RPC service.
    public enum RPCProtection: Sendable, Hashable {
        /// When the first RPC that needs it is sent: one the permissions mark `requireEncryption`,
        /// or one sent with `protected: true`.
        case whenNeeded
        /// Right after registration, before Ready.
        case always
    }

    /// The security libraries, in order of preference; the first whose makes include the head
    /// unit's (from the StartServiceACK or the registration's vehicle type) is used.
    public var securityManagers: [SDLSecurityManager] = []
    /// When the RPC service is protected.
    public var rpcProtection = RPCProtection.whenNeeded
    /// Whether the video service starts protected (the guide's encrypted video).
    public var video = SDLStreamProtection.none
    /// Whether the audio service starts protected.
    public var audio = SDLStreamProtection.none

    /// No security manager: RPCs that need encryption are refused before sending.
    public init() {}

    /// The provider for a head unit of `make`, nil when no security manager serves it.
    func provider(for make: String?) throws -> (any SDLSecurityProvider)? {
        let manager = securityManagers.first { $0.makes.isEmpty || make.map($0.makes.contains) == true }
        return try manager?.makeProvider()
    }
}

/// Whether a video or audio service starts protected.
public enum SDLStreamProtection: Sendable, Hashable {
    /// In plain text.
    case none
    /// Protected when a security manager serves the head unit; a head unit that starts it in
    /// plain text (an ACK without the encryption bit) is accepted, and the stream's parameters say so.
    case preferred
    /// Protected or not at all: without a security manager, or when the head unit falls back to
    /// plain text, the stream fails (`encryptionNeeded`, `encryptionFailed`).
    case required
}

/// A security library and the head-unit makes it serves (the iOS library's `availableMakes`).
public struct SDLSecurityManager: Sendable {
    /// The makes (`SDL`, an OEM's name) it serves; empty serves every head unit.
    public var makes: Set<String>
    /// Makes a provider for one connection (a TLS endpoint lives as long as its session).
    public var makeProvider: @Sendable () throws -> any SDLSecurityProvider

    /// A security manager for `makes` whose providers come from `makeProvider`.
    public init(makes: Set<String> = [], makeProvider: @escaping @Sendable () throws -> any SDLSecurityProvider) {
        self.makes = makes
        self.makeProvider = makeProvider
    }
}

/// Where a service's encryption stands (the guide's service-encryption delegate, as a stream).
public enum SDLEncryptionState: Sendable, Hashable, CustomStringConvertible {
    /// Not protected, nothing asked yet.
    case notStarted
    /// The TLS handshake is running.
    case handshaking
    /// The service is encrypted.
    case encrypted
    /// The head unit started the service in plain text (an ACK without the encryption bit).
    case plainText(reason: String)
    /// The head unit refused to protect it, or no security manager serves this head unit.
    case failed(reason: String)

    public var description: String {
        switch self {
        case .notStarted: "not started"
        case .handshaking: "handshaking"
        case .encrypted: "encrypted"
        case .plainText(let reason): "plain text (\(reason))"
        case .failed(let reason): "failed (\(reason))"
        }
    }
}

/// One service's encryption state, as the manager's stream reports it.
public struct SDLServiceEncryption: Sendable, Hashable {
    /// The service: RPC, video or audio.
    public var service: SDLServiceType
    /// Where its encryption stands.
    public var state: SDLEncryptionState
}
