import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

@testable import SDLHeadUnit

/// Starting and ending services other than RPC, a head unit that refuses, and a peer that
/// vanishes in the middle of a message.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ServiceTests {
    /// A navigation app: only NAVIGATION and PROJECTION apps may stream (the emulator opens it
    /// in FULL at once).
    static let navigation = RegisterAppInterface(
        syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Navigator",
        isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appHMIType: [.navigation], appID: "navigator")

    @Test func videoStartsWithItsParameters() async throws {
        let connection = try await Connection.toEmulator()
        let session = connection.session
        _ = try await connection.client.send(Self.navigation)
        var request = SDLControlPayload()
        request.height = 480
        request.width = 800
        request.videoProtocol = "RAW"
        request.videoCodec = "H264"
        let accepted = try await session.startService(.video, parameters: request)
        #expect(accepted.height == 480)
        #expect(accepted.width == 800)
        #expect(accepted.videoCodec == "H264")
        #expect(accepted.mtu == 131_072)
        _ = try await session.startService(.audio)
        try await session.sendMedia([1, 2, 3], service: .audio)
        try await session.endService(.video)
        try await session.endService(.audio)
        await connection.client.close()
    }

    /// Counts what passes through, to prove the session used it.
    final class CountingSecurity: SDLSecurityProvider {
        let encrypted = Locked(0)
        func encrypt(_ plaintext: [UInt8]) async throws -> [UInt8] {
            encrypted.withLock { $0 += 1 }
            return plaintext
        }
        func decrypt(_ ciphertext: [UInt8]) async throws -> [UInt8] { ciphertext }
        func continueHandshake(with bytes: [UInt8]) async throws(SDLSecurityError) -> SDLHandshakeStep {
            SDLHandshakeStep(outgoing: [], isComplete: true)
        }
        var maxPlaintextPerFrame: Int { 16_091 }
    }

    @Test func encryptedTrafficPassesThroughTheSecurityProvider() async throws {
        let security = CountingSecurity()
        var configuration = Connection.patient
        configuration.security = security
        let connection = try await Connection.toEmulator(configuration: configuration)
        _ = try await connection.client.send(Self.navigation)
        _ = try await connection.session.startProtectedService(.video)
        // More than one TLS record's worth: split at the provider's limit, each frame encrypted.
        try await connection.session.sendMedia(Array(repeating: 7, count: 40_000), service: .video, encrypted: true)
        #expect(security.encrypted.current == 3)
        await connection.client.close()
    }

    @Test func encryptionWithoutAProviderIsRefused() async throws {
        let connection = try await Connection.toEmulator()
        await #expect(throws: SDLSessionError.encryptionUnavailable) { try await connection.session.startProtectedService(.video) }
        await connection.client.close()
    }

    @Test func aRefusedStartNamesTheReason() async throws {
        var nak = SDLControlPayload()
        nak.rejectedParams = ["protocolVersion"]
        nak.reason = "too new"
        let refusing = FakeHeadUnit(answerStartService: false)
        let connection = try await Connection.to(refusing, start: false)
        async let started = outcome { try await connection.session.start() }
        var frames = refusing.frames.makeAsyncIterator()
        _ = await frames.next()
        try await refusing.transport.send(
            SDLFrame(
                header: SDLFrameHeader(
                    version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startServiceNAK.rawValue, sessionID: 0),
                payload: nak.bytes
            ).bytes)
        guard case .failure(let error) = await started else {
            Issue.record("expected the start to fail")
            return
        }
        #expect(error as? SDLSessionError == .startRejected(service: .rpc, rejectedParams: ["protocolVersion"], reason: "too new"))
        #expect(await connection.closeReason() == .startRejected(reason: "too new", rejectedParams: ["protocolVersion"]))
    }

    @Test func aPeerThatDisconnectsMidMessage() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        async let pending = outcome { try await connection.client.send(ListFiles()) }
        var requests = headUnit.requests.makeAsyncIterator()
        let request = try #require(await requests.next())
        // The first two frames of a three-frame response, then the connection ends.
        let response = SDLProtocolMessage(
            version: 5, serviceType: .rpc, sessionID: 1, messageID: 9,
            payload: SDLRPCPayload(rpcType: .response, functionID: 34, correlationID: request.correlationID, json: Array(repeating: 0x20, count: 2500)).bytes)
        let frames = SDLFramer.frames(for: response, maxPayloadSize: 1000)
        for frame in frames.prefix(2) { try await headUnit.transport.send(frame.bytes) }
        await headUnit.transport.close()
        guard case .failure(SDLRPCError.connectionClosed(.transportClosed)) = await pending else {
            Issue.record("the pending request should fail with connectionClosed(transportClosed)")
            return
        }
        await #expect(throws: SDLSessionError.closed(.transportClosed)) {
            try await connection.session.send(SDLRPCPayload(rpcType: .request, functionID: 34, json: []))
        }
    }

    @Test func theEmulatorLogsEveryFrameAsJSON() async throws {
        let lines = Locked<[SDLJSONValue]>([])
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.log = { line in lines.withLock { $0.append(line) } }
        let connection = try await Connection.toEmulator(configuration)
        _ = try await connection.client.send(ClientEmulatorTests.registration)
        await connection.client.close()
        let logged = lines.current
        #expect(logged.first?["control"] == .string("StartService"))
        #expect(logged.contains { $0["functionId"] == .integer(1) && $0["rpcType"] == .string("response") })
    }
}
