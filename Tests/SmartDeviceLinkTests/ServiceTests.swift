import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import SmartDeviceLink
import Synchronization
import Testing

@testable import SDLHeadUnit

/// Starting and ending services other than RPC, a head unit that refuses, and a peer that
/// vanishes in the middle of a message.
@Suite struct ServiceTests {
    @Test func videoStartsWithItsParameters() async throws {
        let (session, client) = try await ClientEmulatorTests.connected()
        _ = try await client.send(ClientEmulatorTests.registration)
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
        await session.close()
    }

    @Test func encryptedTrafficPassesThroughTheSecurityProvider() async throws {
        var configuration = ClientEmulatorTests.patient
        configuration.security = SDLPassThroughSecurity()
        let (session, client) = try await ClientEmulatorTests.connected(configuration)
        _ = try await client.send(ClientEmulatorTests.registration)
        _ = try await session.startService(.video, encrypted: true)
        // More than one TLS record's worth: split at the security provider's limit.
        try await session.sendMedia(Array(repeating: 7, count: 40_000), service: .video, encrypted: true)
        await session.close()
    }

    @Test func encryptionWithoutAProviderIsRefused() async throws {
        let (session, _) = try await ClientEmulatorTests.connected()
        await #expect(throws: SDLSessionError.encryptionUnavailable) { try await session.startService(.video, encrypted: true) }
        await session.close()
    }

    /// A fake head unit that answers StartService(RPC) with a NAK carrying a reason.
    @Test func aRefusedStartNamesTheReason() async throws {
        let (app, headUnit) = SDLMemoryTransport.pair()
        Task {
            var decoder = SDLFrameDecoder()
            for try await chunk in headUnit.inbound {
                decoder.append(chunk)
                while try decoder.nextFrame() != nil {
                    var nak = SDLControlPayload()
                    nak.rejectedParams = ["protocolVersion"]
                    nak.reason = "too new"
                    let frame = SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 3, sessionID: 0), payload: nak.bytes)
                    try await headUnit.send(frame.bytes)
                }
            }
        }
        let session = SDLProtocolSession(transport: app, configuration: ClientEmulatorTests.patient)
        await #expect(throws: SDLSessionError.startRejected(service: .rpc, rejectedParams: ["protocolVersion"], reason: "too new")) {
            try await session.start()
        }
    }

    @Test func aPeerThatDisconnectsMidMessage() async throws {
        let (session, client, headUnit) = try await ConnectionFailureTests.silentHeadUnit()
        async let pending = outcome { try await client.send(ListFiles()) }
        while await client.pendingCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        // The first two frames of a three-frame response, then the connection ends.
        let response = SDLProtocolMessage(
            version: 5, serviceType: .rpc, sessionID: 1, messageID: 9,
            payload: SDLRPCPayload(rpcType: .response, functionID: 34, correlationID: 1, json: Array(repeating: 0x20, count: 2500)).bytes)
        let frames = SDLFramer.frames(for: response, maxPayloadSize: 1000)
        for frame in frames.prefix(2) { try await headUnit.send(frame.bytes) }
        await headUnit.close()
        guard case .failure(let error) = await pending, case .connectionClosed = error as? SDLRPCError else {
            Issue.record("the pending request should fail with connectionClosed")
            return
        }
        await #expect(throws: (any Error).self) { try await session.send(SDLRPCPayload(rpcType: .request, functionID: 34, json: [])) }
    }

    @Test func theEmulatorLogsEveryFrameAsJSON() async throws {
        let lines = LockedLines()
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.log = { lines.append($0) }
        let (app, headUnit) = SDLMemoryTransport.pair()
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        Task { await emulator.serve(headUnit) }
        let session = SDLProtocolSession(transport: app, configuration: ClientEmulatorTests.patient)
        _ = try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        await client.run()
        _ = try await client.send(ClientEmulatorTests.registration)
        await session.close()
        let logged = lines.values
        #expect(logged.first?["control"] == .string("StartService"))
        #expect(logged.contains { $0["functionId"] == .integer(1) && $0["rpcType"] == .string("response") })
    }
}

/// Collects log lines from the emulator's callback, which may run on any thread.
final class LockedLines: Sendable {
    private let lines = Mutex<[SDLJSONValue]>([])
    func append(_ line: SDLJSONValue) { lines.withLock { $0.append(line) } }
    var values: [SDLJSONValue] { lines.withLock { $0 } }
}

@Suite struct HeartbeatTests {
    /// A head unit that stops answering: the session's own heartbeats go unanswered, and it ends
    /// with a heartbeat timeout that fails the pending request.
    @Test func anUnansweredHeartbeatEndsTheSession() async throws {
        let (app, headUnit) = SDLMemoryTransport.pair()
        let heartbeats = LockedLines()
        Task {
            var decoder = SDLFrameDecoder()
            for try await chunk in headUnit.inbound {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() {
                    if frame.header.controlFrameType == .startService {
                        var ack = SDLControlPayload()
                        ack.protocolVersion = "5.4.0"
                        try await headUnit.send(SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 2, sessionID: 1), payload: ack.bytes).bytes)
                    } else if frame.header.controlFrameType == .heartbeat {
                        heartbeats.append(.string("heartbeat"))
                    }
                }
            }
        }
        var configuration = ClientEmulatorTests.patient
        configuration.heartbeatInterval = .milliseconds(50)
        configuration.heartbeatTimeout = .milliseconds(150)
        let session = SDLProtocolSession(transport: app, configuration: configuration)
        try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        await client.run()
        let outcome = await outcome { try await client.send(ListFiles()) }
        guard case .failure(let error) = outcome, case .connectionClosed(let reason) = error as? SDLRPCError else {
            Issue.record("expected the request to fail when the session ends, got \(outcome)")
            return
        }
        #expect(reason == SDLSessionError.heartbeatTimeout.description)
        #expect(!heartbeats.values.isEmpty, "the session never sent a heartbeat")
    }
}
