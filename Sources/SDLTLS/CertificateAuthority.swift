import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority that issues app certificates as SDL expects them (subject
/// `serialNumber` = the app's fullAppID): the emulator's test CA (`sdl headunit --security`)
/// and the tests'. P-256 keys, ECDSA with SHA-256.
public struct SDLCertificateAuthority: Sendable {
    /// The CA's own certificate, which the head unit trusts.
    public let certificate: Certificate
    private let key: Certificate.PrivateKey

    /// A new self-signed CA named `name`, valid from an hour ago for `days`.
    public static func generate(name: String = "SDL test CA", days: Int = 3650) throws -> SDLCertificateAuthority {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                KeyUsage(keyCertSign: true, cRLSign: true)
            },
            issuerPrivateKey: key)
        return SDLCertificateAuthority(certificate: certificate, key: key)
    }

    /// A CA from its PEM certificate and private key (`sdl headunit --ca --ca-key`).
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        self.init(certificate: try Certificate(pemEncoded: certificatePEM), key: try Certificate.PrivateKey(pemEncoded: privateKeyPEM))
    }

    private init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// The CA's certificate as PEM, to give a head unit (SDL Core's `CACertificatePath`).
    public var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// The CA's private key as PEM.
    public var privateKeyPEM: String {
        get throws { try key.serializeAsPEM().pemString }
    }

    /// An app certificate and key: subject `serialNumber` = `appID` (SDL Core compares it with the
    /// app's fullAppID), valid from `notBefore` to `notAfter` (by default an hour ago to a year on).
    public func issue(appID: String, commonName: String? = nil, notBefore: Date? = nil, notAfter: Date? = nil) throws -> SDLTLSIdentity {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let now = Date()
        let subject = try DistinguishedName {
            CommonName(commonName ?? appID)
        }
        let serial = RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: ASN1ObjectIdentifier.serialNumberAttribute, utf8String: appID))
        let withSerial = DistinguishedName(Array(subject) + [serial])
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: notBefore ?? now.addingTimeInterval(-3600), notValidAfter: notAfter ?? now.addingTimeInterval(365 * 86_400),
            issuer: certificate.subject, subject: withSerial, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true, keyEncipherment: true)
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            },
            issuerPrivateKey: self.key)
        return SDLTLSIdentity(certificateChainPEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: try key.serializeAsPEM().pemString)
    }
}
