import Foundation
import SDLProtocol
import SDLTLS
import SwiftASN1
import Testing
import X509

/// The TLS provider in both roles, in memory: the app (server) and the head unit (client) run
/// SDL's handshake, then protect records; the head unit's certificate rules refuse what SDL
/// Core refuses.
@Suite(.timeLimit(.minutes(1))) struct TLSHandshakeTests {
    /// Flights back and forth until both ends are done (TLS 1.2 takes two round trips).
    static func handshake(client: SDLTLSSecurity, server: SDLTLSSecurity) async throws(SDLSecurityError) {
        var toServer = try await client.startHandshake()
        #expect(!toServer.isEmpty)  // the ClientHello
        for _ in 0..<4 {
            let answer = try await server.continueHandshake(with: toServer)
            let next = try await client.continueHandshake(with: answer.outgoing)
            toServer = next.outgoing
            if answer.isComplete && next.isComplete && toServer.isEmpty { return }
        }
        Issue.record("the handshake did not complete in four round trips")
    }

    static func pair(
        authority: SDLCertificateAuthority, trusted: SDLCertificateAuthority? = nil, appID: String = "app-1234",
        expected: String = "app-1234", notBefore: Date? = nil, notAfter: Date? = nil
    ) throws -> (client: SDLTLSSecurity, server: SDLTLSSecurity) {
        let identity = try authority.issue(appID: appID, notBefore: notBefore, notAfter: notAfter)
        let server = try SDLTLSSecurity(role: .server(identity))
        let check = SDLCertificateCheck(authority: (trusted ?? authority).certificate, expectedSerialNumber: expected)
        return (try SDLTLSSecurity(role: .client(check)), server)
    }

    @Test func theHandshakeCompletesAndRecordsFlowBothWays() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let (client, server) = try Self.pair(authority: authority)
        try await Self.handshake(client: client, server: server)
        let clientDone = await client.isHandshakeComplete
        let serverDone = await server.isHandshakeComplete
        #expect(clientDone && serverDone)
        // One frame's payload is one record: TLS 1.2 record header, then ciphertext.
        let show = Array(#"{"mainField1":"Hello"}"#.utf8)
        let record = try await server.encrypt(show)
        #expect(record.prefix(3) == [0x17, 0x03, 0x03])
        #expect(record != show)
        #expect(try await client.decrypt(record) == show)
        let answer = try await client.encrypt(Array("SUCCESS".utf8))
        #expect(try await server.decrypt(answer) == Array("SUCCESS".utf8))
        // A full frame's worth still fits one record.
        let large = [UInt8](repeating: 0x41, count: server.maxPlaintextPerFrame)
        let big = try await server.encrypt(large)
        #expect(Int(big[3]) << 8 | Int(big[4]) == big.count - 5)
        #expect(try await client.decrypt(big) == large)
    }

    /// An app that asks for the head unit's certificate (`headUnitCA`) completes the handshake
    /// with a head unit presenting one from that CA, and refuses one presenting none.
    @Test func anAppCanRequireTheHeadUnitsCertificate() async throws {
        let oem = try SDLCertificateAuthority.generate(name: "OEM CA")
        let app = try oem.issue(appID: "app-1234")
        let caPEM = Array(try oem.certificate.serializeAsPEM().pemString.utf8)
        let check = SDLCertificateCheck(authority: oem.certificate, expectedSerialNumber: "app-1234")
        let presenting = try SDLTLSSecurity(role: .client(check, identity: try oem.issue(appID: "head-unit")))
        let asking = try SDLTLSSecurity(role: .server(app, headUnitCA: caPEM))
        try await Self.handshake(client: presenting, server: asking)
        #expect(await asking.isHandshakeComplete)
        #expect(try await presenting.decrypt(try await asking.encrypt([1, 2, 3])) == [1, 2, 3])

        let anonymous = try SDLTLSSecurity(role: .client(check))
        let stillAsking = try SDLTLSSecurity(role: .server(app, headUnitCA: caPEM))
        await #expect(throws: SDLSecurityError.self) { try await Self.handshake(client: anonymous, server: stillAsking) }
        #expect(await !stillAsking.isHandshakeComplete)
    }

    /// A record that does not decrypt ends the TLS session (BoringSSL sends a fatal alert): from
    /// then on the endpoint refuses, instead of handing out empty or stale "records".
    @Test func aBadRecordEndsTheSessionAndLaterRecordsFail() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let (client, server) = try Self.pair(authority: authority)
        try await Self.handshake(client: client, server: server)
        var record = try await server.encrypt(Array("Show".utf8))
        record[record.count - 1] ^= 0xFF
        await #expect(throws: SDLSecurityError.self) { try await client.decrypt(record) }
        let error = await #expect(throws: SDLSecurityError.self) { try await client.encrypt(Array("again".utf8)) }
        #expect(error?.code == .encryptionFailed)
        await #expect(throws: (any Error).self) { try await client.decrypt(try await server.encrypt([1])) }
    }

    @Test func aCertificateFromAnotherCAIsInvalid() async throws {
        let (client, server) = try Self.pair(authority: try .generate(name: "Rogue CA"), trusted: try .generate(name: "OEM CA"))
        await #expect(throws: SDLSecurityError.self) { try await Self.handshake(client: client, server: server) }
        do {
            try await Self.handshake(client: client, server: server)
        } catch {
            #expect(error.code == .invalidCertificate)
        }
    }

    @Test func anExpiredCertificateIsExpired() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let (client, server) = try Self.pair(
            authority: authority, notBefore: Date().addingTimeInterval(-10 * 86_400), notAfter: Date().addingTimeInterval(-86_400))
        let failure = await Self.failure(client: client, server: server)
        #expect(failure?.code == .expiredCertificate)
    }

    @Test func aCertificateForAnotherAppDoesNotMatch() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let (client, server) = try Self.pair(authority: authority, appID: "someone-else", expected: "app-1234")
        let failure = await Self.failure(client: client, server: server)
        #expect(failure?.code == .invalidCertificate)
        #expect(failure?.message.contains("App ID does not match certificate") == true)
        // Upper-case IDs match lower-case serial numbers, as SDL Core lower-cases the app's ID.
        let (upper, same) = try Self.pair(authority: authority, appID: "APP-1234", expected: "app-1234")
        #expect(await Self.failure(client: upper, server: same) == nil)
    }

    @Test func recordsBeforeTheHandshakeAreRefused() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let (_, server) = try Self.pair(authority: authority)
        await #expect(throws: SDLSecurityError.self) { _ = try await server.encrypt([1, 2, 3]) }
        await #expect(throws: SDLSecurityError.self) { _ = try await server.decrypt([0x17, 3, 3, 0, 1, 0]) }
    }

    @Test func theAuthorityRoundTripsThroughPEM() throws {
        let authority = try SDLCertificateAuthority.generate(name: "Round trip CA")
        let again = try SDLCertificateAuthority(certificatePEM: try authority.certificatePEM, privateKeyPEM: try authority.privateKeyPEM)
        #expect(again.certificate == authority.certificate)
        let identity = try again.issue(appID: "8675309")
        let certificate = try Certificate(pemEncoded: String(decoding: identity.certificateChainPEM, as: UTF8.self))
        #expect(certificate.subject.serialNumber == "8675309")
        #expect(certificate.issuer == authority.certificate.subject)
    }

    static func failure(client: SDLTLSSecurity, server: SDLTLSSecurity) async -> SDLSecurityError? {
        do {
            try await handshake(client: client, server: server)
            return nil
        } catch {
            return error
        }
    }

    /// TLS 1.2 unless both ends offer 1.3; a head unit that behaves as SDL Core 8.2 completes a
    /// 1.3 handshake with an app that offers it, and then no record gets through, as on Core.
    @Test func tls13IsRefusedByDefaultAndBreaksAsOnSDLCore() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let identity = try authority.issue(appID: "app-1234")
        let check = SDLCertificateCheck(authority: authority.certificate, expectedSerialNumber: "app-1234")
        let request = Array(#"{"speed":true}"#.utf8)

        // The app offers 1.2 only (the default): 1.2 with Core's head unit, and it works.
        let core = try SDLTLSSecurity(role: .client(check), tls13: .brokenAsInSDLCore82)
        let careful = try SDLTLSSecurity(role: .server(identity))
        try await Self.handshake(client: core, server: careful)
        #expect(await core.negotiatedVersion == "TLS 1.2")
        #expect(try await core.decrypt(try await careful.encrypt(request)) == request)

        // Both offer 1.3: 1.3, and it works.
        let modern = try SDLTLSSecurity(role: .client(check), tls13: .offered)
        let eager = try SDLTLSSecurity(role: .server(identity), tls13: .offered)
        try await Self.handshake(client: modern, server: eager)
        #expect(await modern.negotiatedVersion == "TLS 1.3")
        #expect(try await modern.decrypt(try await eager.encrypt(request)) == request)

        // An app that offers 1.3 to Core's head unit: the handshake completes, and the app's
        // records fail to decrypt there (the head unit's own still reach the app).
        let broken = try SDLTLSSecurity(role: .client(check), tls13: .brokenAsInSDLCore82)
        let eagerApp = try SDLTLSSecurity(role: .server(identity), tls13: .offered)
        try await Self.handshake(client: broken, server: eagerApp)
        #expect(await broken.negotiatedVersion == "TLS 1.3")
        let record = try await eagerApp.encrypt(request)
        do {
            _ = try await broken.decrypt(record)
            Issue.record("a TLS 1.3 record decrypted on SDL Core 8.2's head unit")
        } catch {
            #expect((error as? SDLSecurityError)?.code == .decryptionFailed)
        }
        #expect(try await eagerApp.decrypt(try await broken.encrypt(request)) == request)
    }
}
