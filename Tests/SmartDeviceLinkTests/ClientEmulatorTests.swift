import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import SmartDeviceLink
import Testing

@testable import SDLHeadUnit

/// The app-side client against the head-unit emulator, in memory and over TCP loopback.
@Suite struct ClientEmulatorTests {
    static let registration = RegisterAppInterface(
        syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
        appName: "Demo", isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "1234")

    /// Session settings for tests: timeouts generous enough for a machine busy with other
    /// suites, since nothing here is about timing.
    static var patient: SDLProtocolSession.Configuration {
        var configuration = SDLProtocolSession.Configuration()
        configuration.controlTimeout = .seconds(120)
        return configuration
    }

    /// A started session and client talking to a fresh emulator over an in-memory pair.
    static func connected(_ configuration: SDLProtocolSession.Configuration = patient) async throws -> (SDLProtocolSession, SDLRPCClient) {
        let (app, headUnit) = SDLMemoryTransport.pair()
        let emulator = SDLHeadUnitEmulator()
        Task { await emulator.serve(headUnit) }
        let session = SDLProtocolSession(transport: app, configuration: configuration)
        _ = try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        await client.run()
        return (session, client)
    }

    @Test func negotiatesProtocolFiveLikeSDLCore() async throws {
        let (session, _) = try await Self.connected()
        let negotiated = try #require(await session.session)
        #expect(negotiated.protocolVersion == "5.4.0")
        #expect(negotiated.majorVersion == 5)
        #expect(negotiated.sessionID == 1)
        #expect(negotiated.hashID == 65_537)
        #expect(negotiated.mtu == 131_072)
        #expect(negotiated.details?.make == "SDL")
        await session.close()
    }

    @Test func anAppWithoutBSONGetsProtocolFour() async throws {
        var configuration = Self.patient
        configuration.protocolVersion = "4.0.0"
        let (session, client) = try await Self.connected(configuration)
        let negotiated = try #require(await session.session)
        #expect(negotiated.majorVersion == 4)
        #expect(negotiated.hashID == 65_537)
        let response = try await client.send(Self.registration)
        #expect(response.success)
        await session.close()
    }

    @Test func registersThenGetsHMIStatusAndPermissions() async throws {
        let (session, client) = try await Self.connected()
        let statuses = await client.notifications(OnHMIStatus.self)
        let permissions = await client.notifications(OnPermissionsChange.self)
        let response = try await client.send(Self.registration)
        #expect(response.success)
        #expect(response.resultCode == .success)
        #expect(response.displayCapabilities?.displayName == "GENERIC_DISPLAY")
        #expect(response.syncMsgVersion?.majorVersion == 8)

        var levels: [HMILevel] = []
        for await status in statuses {
            levels.append(status.hmiLevel)
            if levels.count == 2 { break }
        }
        #expect(levels == [.none, .full])
        var permissionIterator = permissions.makeAsyncIterator()
        let change = await permissionIterator.next()
        #expect(change?.permissionItem.contains { $0.rpcName == "Show" } == true)
        await session.close()
    }

    @Test func everyRequestGetsAValidResponse() async throws {
        let (session, client) = try await Self.connected()
        _ = try await client.send(Self.registration)
        let defaults = DefaultValues()
        for type in MobileAPI.requests where type != RegisterAppInterface.self && type != UnregisterAppInterface.self {
            let json = defaults.object(type.structInfo).jsonBytes
            let response = try await client.sendRaw(functionName: type.functionName, functionID: UInt32(type.functionIDValue), json: json)
            #expect(response.payload.functionID == UInt32(type.functionIDValue), "\(type.functionName)")
            try checkStrict(type, response.payload.json)
        }
        let goodbye = try await client.send(UnregisterAppInterface())
        #expect(goodbye.success)
        await session.close()
    }

    private func checkStrict<R: SDLRequest>(_ type: R.Type, _ json: [UInt8]) throws {
        let decoded = try SDLJSON.decode(R.Response.self, from: json)
        #expect(decoded.warnings.isEmpty, "\(R.functionName)")
    }

    @Test func anInvalidRequestIsAnsweredInvalidDataLikeSDLCore() async throws {
        let (session, client) = try await Self.connected()
        // Without its mandatory syncMsgVersion.
        let json = Array(#"{"appName":"Demo","isMediaApplication":false,"languageDesired":"EN-US","hmiDisplayLanguageDesired":"EN-US","appID":"1"}"#.utf8)
        let reply = try await client.sendRaw(functionName: "RegisterAppInterface", functionID: 1, json: json)
        let response = try SDLJSON.decode(RegisterAppInterfaceResponse.self, from: reply.payload.json).value
        #expect(!response.success)
        #expect(response.resultCode == .invalidData)
        #expect(response.info == "RPC.msg_params: RegisterAppInterface.syncMsgVersion: mandatory parameter is missing")
        await session.close()
    }

    @Test func bulkDataTravelsInSeveralFrames() async throws {
        let (session, client) = try await Self.connected()
        _ = try await client.send(Self.registration)
        let file = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let response = try await client.send(PutFile(syncFileName: "big.bin", fileType: .binary), bulkData: file)
        #expect(response.success)
        await session.close()
    }

    @Test func theRequestIsValidatedBeforeSending() async throws {
        let (session, client) = try await Self.connected()
        let long = String(repeating: "x", count: 501)
        await #expect(throws: SDLRPCError.self) { try await client.send(Show(mainField1: long)) }
        await session.close()
    }

    @Test func overTCPLoopback() async throws {
        let listener = try await SDLTCPListener.bind(port: 0)
        let emulator = SDLHeadUnitEmulator()
        let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
        let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        let session = SDLProtocolSession(transport: transport, configuration: Self.patient)
        _ = try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        await client.run()
        #expect(try await client.send(Self.registration).success)
        let show = try await client.send(Show(mainField1: "Hello"))
        #expect(show.success)
        await session.close()
        await listener.close()
        server.cancel()
    }
}

/// The result of an async call, for checking errors after the fact.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// What happens when the head unit goes silent or away.
@Suite struct ConnectionFailureTests {
    /// A session with a fake head unit that answers StartService and EndService, and no RPC.
    static func silentHeadUnit() async throws -> (SDLProtocolSession, SDLRPCClient, SDLMemoryTransport) {
        let (app, headUnit) = SDLMemoryTransport.pair()
        Task {
            var decoder = SDLFrameDecoder()
            for try await chunk in headUnit.inbound {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() {
                    switch frame.header.controlFrameType {
                    case .startService?:
                        var ack = SDLControlPayload()
                        ack.protocolVersion = "5.4.0"
                        ack.hashID = 1
                        ack.mtu = 131_072
                        let reply = SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 2, sessionID: 1), payload: ack.bytes)
                        try await headUnit.send(reply.bytes)
                    case .endService?:
                        let reply = SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 5, sessionID: 1))
                        try await headUnit.send(reply.bytes)
                    default:
                        break
                    }
                }
            }
        }
        let session = SDLProtocolSession(transport: app, configuration: ClientEmulatorTests.patient)
        _ = try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        await client.run()
        return (session, client, headUnit)
    }

    @Test func aDroppedConnectionFailsEveryPendingRequestAtOnce() async throws {
        let (_, client, headUnit) = try await Self.silentHeadUnit()
        async let first = outcome { try await client.send(Show(mainField1: "a")) }
        async let second = outcome { try await client.send(ListFiles()) }
        while await client.pendingCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        headUnit.fail(SDLTransportError.io("cable pulled"))
        for result in [await first.map { _ in () }, await second.map { _ in () }] {
            guard case .failure(let error) = result, case .connectionClosed = error as? SDLRPCError else {
                Issue.record("expected connectionClosed, got \(result)")
                continue
            }
        }
        #expect(await client.pendingCount == 0)
    }

    @Test func aRequestTimesOut() async throws {
        let (session, client, _) = try await Self.silentHeadUnit()
        do {
            _ = try await client.send(ListFiles(), timeout: .milliseconds(100))
            Issue.record("expected a timeout")
        } catch let error as SDLRPCError {
            guard case .timeout(let function, _, _) = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(function == "ListFiles")
        }
        #expect(await client.pendingCount == 0)
        await session.close()
    }

    @Test func aCancelledRequestLeavesNothingPending() async throws {
        let (session, client, _) = try await Self.silentHeadUnit()
        let task = Task { try await client.send(ListFiles()) }
        while await client.pendingCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: SDLRPCError.self) { try await task.value }
        #expect(await client.pendingCount == 0)
        await session.close()
    }

    @Test func theSessionAnswersHeartbeats() async throws {
        let (app, headUnit) = SDLMemoryTransport.pair()
        let session = SDLProtocolSession(transport: app, configuration: ClientEmulatorTests.patient)
        let started = Task { try await session.start() }
        var decoder = SDLFrameDecoder()
        var inbound = headUnit.inbound.makeAsyncIterator()
        // StartService, answered.
        while try decoder.nextFrame() == nil { decoder.append(try #require(try await inbound.next())) }
        var ack = SDLControlPayload()
        ack.protocolVersion = "5.4.0"
        try await headUnit.send(SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .rpc, frameInfo: 2, sessionID: 1), payload: ack.bytes).bytes)
        _ = try await started.value
        // A heartbeat from the head unit gets a HeartbeatACK.
        try await headUnit.send(SDLFrame(header: SDLFrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0, sessionID: 1)).bytes)
        var reply: SDLFrame?
        while reply == nil {
            if let frame = try decoder.nextFrame() { reply = frame } else { decoder.append(try #require(try await inbound.next())) }
        }
        #expect(reply?.header.controlFrameType == .heartbeatACK)
        #expect(reply?.header.serviceType == .control)
    }

    @Test func aMalformedFrameEndsTheSessionWithAClearError() async throws {
        let (session, client, headUnit) = try await Self.silentHeadUnit()
        async let pending = outcome { try await client.send(ListFiles()) }
        while await client.pendingCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        // A header claiming a 2 GB payload.
        try await headUnit.send([0x51, 0x07, 0x00, 0x01, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 9])
        guard case .failure(let error) = await pending, case .connectionClosed(let reason) = error as? SDLRPCError else {
            Issue.record("expected the pending request to fail")
            return
        }
        #expect(reason.contains("header.dataSize"))
        await #expect(throws: (any Error).self) { try await session.send(SDLRPCPayload(rpcType: .request, functionID: 34, json: [])) }
    }
}
