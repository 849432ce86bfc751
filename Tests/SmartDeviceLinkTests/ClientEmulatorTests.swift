import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

@testable import SDLHeadUnit

/// The app-side client against the head-unit emulator, in memory and over TCP loopback.
@Suite(.timeLimit(.minutes(2)), .runsManagers) struct ClientEmulatorTests {
    static let registration = RegisterAppInterface(
        syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
        appName: "Demo", isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "1234")

    @Test func negotiatesProtocolFiveLikeSDLCore() async throws {
        let connection = try await Connection.toEmulator()
        let negotiated = try #require(await connection.session.session)
        #expect(negotiated.protocolVersion == SDLProtocolVersion(5, 4, 0))
        #expect(negotiated.majorVersion == 5)
        #expect(negotiated.sessionID == 1)
        #expect(negotiated.hashID == 65_537)
        #expect(negotiated.mtu == 131_072)
        #expect(negotiated.details?.make == "SDL")
        await connection.client.close()
        #expect(await connection.closeReason() == .closedByApp)
    }

    @Test func anAppWithoutBSONGetsProtocolFour() async throws {
        var configuration = Connection.patient
        configuration.protocolVersion = SDLProtocolVersion(4)
        let connection = try await Connection.toEmulator(configuration: configuration)
        let negotiated = try #require(await connection.session.session)
        #expect(negotiated.majorVersion == 4)
        #expect(negotiated.hashID == 65_537)
        let response = try await connection.client.send(Self.registration)
        #expect(response.success)
        await connection.client.close()
    }

    @Test func registersThenGetsHMIStatusAndPermissions() async throws {
        let connection = try await Connection.toEmulator()
        let client = connection.client
        let statuses = client.notifications(OnHMIStatus.self)
        let permissions = client.notifications(OnPermissionsChange.self)
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
        await client.close()
    }

    @Test func everyRequestGetsAValidResponse() async throws {
        let connection = try await Connection.toEmulator()
        let client = connection.client
        let emulator = try #require(connection.emulator)
        // What waits for the driver (slider, choices, scrollable message) is backed out of.
        let events = emulator.events()
        let driver = Task {
            for await event in events {
                if case .interactionStarted(let appID, _) = event { try? await emulator.answerInteraction(appID: appID, .cancel) }
            }
        }
        defer { driver.cancel() }
        _ = try await client.send(Self.registration)
        let defaults = DefaultValues()
        for type in MobileAPI.requests where type != RegisterAppInterface.self && type != UnregisterAppInterface.self {
            let json = defaults.object(type.structInfo).jsonBytes
            let wireID = type.wireFunctionID
            let functionID = try #require(wireID)
            let response = try await client.sendRaw(functionName: type.functionName, functionID: functionID, json: json)
            #expect(response.payload.functionID == functionID, "\(type.functionName)")
            try checkStrict(type, response.payload.json)
        }
        let goodbye = try await client.send(UnregisterAppInterface())
        #expect(goodbye.success)
        await client.close()
    }

    private func checkStrict<R: SDLRequest>(_ type: R.Type, _ json: [UInt8]) throws {
        let decoded = try SDLJSON.decode(R.Response.self, from: json)
        #expect(decoded.warnings.isEmpty, "\(R.functionName)")
    }

    @Test func anInvalidRequestIsAnsweredInvalidDataLikeSDLCore() async throws {
        let connection = try await Connection.toEmulator()
        // Without its mandatory syncMsgVersion.
        let json = Array(#"{"appName":"Demo","isMediaApplication":false,"languageDesired":"EN-US","hmiDisplayLanguageDesired":"EN-US","appID":"1"}"#.utf8)
        let reply = try await connection.client.sendRaw(functionName: "RegisterAppInterface", functionID: 1, json: json)
        let response = try SDLJSON.decode(RegisterAppInterfaceResponse.self, from: reply.payload.json).value
        #expect(!response.success)
        #expect(response.resultCode == .invalidData)
        #expect(response.info == "RPC.msg_params: Missing mandatory parameter: syncMsgVersion")
        // Then SDL Core ends the RPC service: the session is over.
        #expect(await connection.closeReason() == .endedByHeadUnit)
    }

    @Test func bulkDataTravelsInSeveralFrames() async throws {
        let connection = try await Connection.toEmulator()
        _ = try await connection.client.send(Self.registration)
        let file = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let response = try await connection.client.send(PutFile(syncFileName: "big.bin", fileType: .binary), bulkData: file)
        #expect(response.success)
        await connection.client.close()
    }

    @Test func theRequestIsValidatedBeforeSending() async throws {
        let connection = try await Connection.toEmulator()
        let long = String(repeating: "x", count: 501)
        await #expect(throws: SDLRPCError.self) { try await connection.client.send(Show(mainField1: long)) }
        await connection.client.close()
    }

    @Test func theScopedFormStartsAndEndsTheSession() async throws {
        let (app, headUnit) = SDLMemoryTransport.pair()
        let emulator = SDLHeadUnitEmulator()
        let served = Task { await emulator.serve(headUnit) }
        let (code, client) = try await withSDLSession(transport: app, configuration: Connection.patient) { client in
            (try await client.send(Self.registration).resultCode, client)
        }
        #expect(code == .success)
        // The session ended with the scope: the emulator's connection is over, sends fail.
        await served.value
        await #expect(throws: SDLRPCError.self) { try await client.send(ListFiles()) }
    }

    @Test func overTCPLoopback() async throws {
        let listener = try await SDLTCPListener.bind(port: 0)
        let emulator = SDLHeadUnitEmulator()
        let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
        let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        try await withSDLSession(transport: transport, configuration: Connection.patient) { client in
            #expect(try await client.send(Self.registration).success)
            let show = try await client.send(Show(mainField1: "Hello"))
            #expect(show.success)
        }
        await listener.close()
        server.cancel()
    }
}

/// What happens when the head unit goes silent or away.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ConnectionFailureTests {
    @Test func aDroppedConnectionFailsEveryPendingRequestAtOnce() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        async let first = outcome { try await client.send(Show(mainField1: "a")) }
        async let second = outcome { try await client.send(ListFiles()) }
        // Both requests are on the wire.
        var requests = headUnit.requests.makeAsyncIterator()
        _ = await requests.next()
        _ = await requests.next()
        headUnit.transport.fail(SDLTransportError.io("cable pulled"))
        for result in [await first.map { _ in () }, await second.map { _ in () }] {
            guard case .failure(SDLRPCError.connectionClosed(.transportFailed)) = result else {
                Issue.record("expected connectionClosed(transportFailed), got \(result)")
                continue
            }
        }
        #expect(await client.pendingCount == 0)
        guard case .transportFailed? = await connection.closeReason() else {
            Issue.record("the run loop should end with the transport failure")
            return
        }
    }

    @Test func aRequestTimesOutOnTheInjectedClock() async throws {
        let clock = ManualClock()
        var configuration = Connection.patient
        configuration.clock = SDLClock(clock)
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit, configuration: configuration)
        async let result = outcome { try await connection.client.send(ListFiles(), timeout: .seconds(5)) }
        var requests = headUnit.requests.makeAsyncIterator()
        _ = await requests.next()
        clock.advance(by: .seconds(4))
        // A later request with a shorter timeout expires first: one schedule, earliest first.
        async let short = outcome { try await connection.client.send(Show(mainField1: "x"), timeout: .milliseconds(500)) }
        _ = await requests.next()
        clock.advance(by: .milliseconds(600))
        guard case .failure(SDLRPCError.timeout(let function, _, let after)) = await short else {
            Issue.record("expected the short request to time out")
            return
        }
        #expect(function == "Show")
        #expect(after == .milliseconds(500))
        #expect(await connection.client.pendingCount == 1)
        clock.advance(by: .milliseconds(400))
        guard case .failure(SDLRPCError.timeout(let first, _, _)) = await result else {
            Issue.record("expected a timeout")
            return
        }
        #expect(first == "ListFiles")
        #expect(await connection.client.pendingCount == 0)
        // Nothing pending: the deadline loop has ended; the next request starts it again.
        async let again = outcome { try await connection.client.send(Show(mainField1: "y"), timeout: .seconds(1)) }
        _ = await requests.next()
        clock.advance(by: .seconds(1))
        guard case .failure(SDLRPCError.timeout(let later, _, _)) = await again else {
            Issue.record("expected the later request to time out")
            return
        }
        #expect(later == "Show")
        await connection.client.close()
    }

    @Test func aCancelledRequestLeavesNothingPending() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        let task = Task { try await client.send(ListFiles()) }
        var requests = headUnit.requests.makeAsyncIterator()
        _ = await requests.next()
        task.cancel()
        guard case .failure(SDLRPCError.cancelled(let function)) = await task.result else {
            Issue.record("expected cancelled")
            return
        }
        #expect(function == "ListFiles")
        #expect(await client.pendingCount == 0)
        await client.close()
    }

    @Test func aRequestWhoseTaskIsAlreadyCancelledIsNeverSent() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(Show(mainField1: "never"))
        }
        guard case .failure(SDLRPCError.cancelled) = await cancelled.result else {
            Issue.record("expected cancelled")
            return
        }
        // The next request is the first the head unit sees.
        async let listed = outcome { try await client.send(ListFiles()) }
        var requests = headUnit.requests.makeAsyncIterator()
        let first = try #require(await requests.next())
        #expect(first.functionID == ListFiles.wireFunctionID)
        try await headUnit.respond(to: first, with: ListFilesResponse(success: true, resultCode: .success))
        #expect(try await listed.get().success)
        await client.close()
    }

    @Test func requestsFromOneTaskReachTheWireInCallOrder() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        // Each request gives up at once, so the task moves on while the head unit has not
        // answered; its requests must still be written one after the other, in call order.
        let sender = Task {
            for index in 0..<20 {
                _ = await outcome { try await client.send(Show(mainField1: "\(index)"), timeout: .zero) }
            }
        }
        var texts: [String] = []
        var requests = headUnit.requests.makeAsyncIterator()
        while texts.count < 20, let request = await requests.next() {
            texts.append(try SDLJSON.decode(Show.self, from: request.json).value.mainField1 ?? "")
        }
        await sender.value
        #expect(texts == (0..<20).map { "\($0)" })
        await client.close()
    }
}
