import Foundation
import SDLProtocol
import SwiftASN1
import X509

/// How SDL Core checks an app's certificate during the handshake: signed by the head unit's CA,
/// valid at the head unit's time, and `serialNumber` in the subject equal to the app's
/// fullAppID (lower case). The emulator's client role uses it.
public struct SDLCertificateCheck: Sendable {
    /// The CA the head unit trusts.
    public var authority: Certificate
    /// The fullAppID the subject's serialNumber must carry; nil skips that rule.
    public var expectedSerialNumber: String?
    /// The head unit's time (the HMI's clock on SDL Core).
    public var now: @Sendable () -> Date

    /// A check against `authority`, for the app `expectedSerialNumber`, at `now`.
    public init(authority: Certificate, expectedSerialNumber: String?, now: @escaping @Sendable () -> Date = { Date() }) {
        self.authority = authority
        self.expectedSerialNumber = expectedSerialNumber
        self.now = now
    }

    /// nil when the chain (DER, the peer's certificate first) passes, else why not, with the
    /// code SDL Core reports (0x0A invalid certificate, 0x0B expired).
    public func verify(_ chain: [[UInt8]]) -> SDLSecurityError? {
        guard let der = chain.first, let leaf = try? Certificate(derEncoded: der) else {
            return SDLSecurityError(.invalidCertificate, "the app sent no certificate")
        }
        guard leaf.issuer == authority.subject, authority.publicKey.isValidSignature(leaf.signature, for: leaf) else {
            return SDLSecurityError(.invalidCertificate, "the certificate is not signed by the head unit's CA (\(authority.subject))")
        }
        let time = now()
        guard leaf.notValidBefore <= time, time <= leaf.notValidAfter else {
            return SDLSecurityError(.expiredCertificate, "the certificate is valid from \(leaf.notValidBefore) to \(leaf.notValidAfter), not at \(time)")
        }
        if let expected = expectedSerialNumber {
            let serial = leaf.subject.serialNumber
            guard serial?.lowercased() == expected.lowercased() else {
                return SDLSecurityError(.invalidCertificate, "App ID does not match certificate (serialNumber \(serial ?? "missing"), app \(expected))")
            }
        }
        return nil
    }
}

extension DistinguishedName {
    /// The serialNumber attribute (2.5.4.5), where SDL puts the app's ID.
    public var serialNumber: String? {
        for rdn in self {
            for attribute in rdn where attribute.type == .serialNumberAttribute {
                return String(attribute.value)
            }
        }
        return nil
    }
}

extension ASN1ObjectIdentifier {
    /// The subject attribute `serialNumber` (2.5.4.5), not the certificate's serial number.
    static let serialNumberAttribute: ASN1ObjectIdentifier = [2, 5, 4, 5]
}
