import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The session's state machine, why it ends (typed), and the races the review found.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SessionLifecycleTests {
    @Test func theStateStreamReplaysAndEndsWithTheReason() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit, start: false)
        let session = connection.session
        #expect(session.connectionState == .idle)
        let states = session.connectionStates()
        try await session.start()
        await connection.client.close()
        var seen: [SDLConnectionState] = []
        for await state in states { seen.append(state) }
        #expect(seen.count == 5)
        #expect(seen.first == .idle)
        #expect(seen.dropFirst().first == .starting)
        guard seen.count == 5, case .connected(let negotiated) = seen[2] else {
            Issue.record("expected connected, got \(seen)")
            return
        }
        #expect(negotiated.sessionID == 1)
        #expect(seen[3] == .closing)
        #expect(seen[4] == .closed(.closedByApp))
        // A late subscriber learns the end at once.
        var late: [SDLConnectionState] = []
        for await state in session.connectionStates() { late.append(state) }
        #expect(late == [.closed(.closedByApp)])
    }

    @Test func runningTwiceAndSendingOutOfOrderThrow() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit, start: false)
        // Sending before start.
        await #expect(throws: SDLSessionError.notStarted) {
            try await connection.session.send(SDLRPCPayload(rpcType: .request, functionID: 34, json: []))
        }
        // The client refuses too: not started, or not even running yet (its run() is a task).
        switch await outcome({ try await connection.client.send(ListFiles()) }) {
        case .failure(SDLRPCError.session(.notStarted)), .failure(SDLRPCError.notRunning): break
        case let other: Issue.record("the client should refuse before start, got \(other)")
        }
        try await connection.session.start()
        // A second run loop.
        await #expect(throws: SDLSessionError.alreadyRunning) { try await connection.session.run(onRPC: { _ in }) }
        guard case .failure(SDLRPCError.alreadyRunning) = await outcome({ try await connection.client.run() }) else {
            Issue.record("the client should refuse a second run()")
            return
        }
        await connection.client.close()
        // After stop.
        await #expect(throws: SDLSessionError.closed(.closedByApp)) { try await connection.session.start() }
        guard case .failure(SDLRPCError.connectionClosed(.closedByApp)) = await outcome({ try await connection.client.send(ListFiles()) }) else {
            Issue.record("the client should refuse after close")
            return
        }
    }

    @Test func aClientThatIsNotRunningRefusesToSend() async throws {
        let headUnit = FakeHeadUnit()
        let session = SDLProtocolSession(transport: headUnit.appTransport)
        let client = SDLRPCClient(session: session)
        guard case .failure(SDLRPCError.notRunning) = await outcome({ try await client.send(ListFiles()) }) else {
            Issue.record("expected notRunning")
            return
        }
    }

    @Test func twoConcurrentStartsShareOneNegotiation() async throws {
        let headUnit = FakeHeadUnit(sessionID: 7, answerStartService: false)
        let connection = try await Connection.to(headUnit, start: false)
        let session = connection.session
        async let first = session.start()
        async let second = session.start()
        var frames = headUnit.frames.makeAsyncIterator()
        let startService = try #require(await frames.next())
        #expect(startService.header.controlFrameType == .startService)
        try await headUnit.transport.send(
            SDLFrame(
                header: SDLFrameHeader(
                    version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startServiceACK.rawValue, sessionID: 7),
                payload: FakeHeadUnit.standardACK.bytes
            ).bytes)
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(a.sessionID == 7)
        await connection.client.close()
        // Exactly one StartService went out: the next frame is the EndService of the close.
        let next = try #require(await frames.next())
        #expect(next.header.controlFrameType == .endService)
    }

    @Test func aSecondStartOfTheSameServiceDoesNotStealTheFirstsAnswer() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let session = connection.session
        var frames = headUnit.frames.makeAsyncIterator()
        _ = await frames.next()  // StartService(RPC)
        async let first = outcome { try await session.startService(.video) }
        _ = try #require(await frames.next())  // StartService(video), unanswered so far
        // The second call is refused while the first waits; the first still gets its ACK.
        await #expect(throws: SDLSessionError.serviceBusy(.video)) { try await session.startService(.video) }
        try await headUnit.transport.send(
            SDLFrame(
                header: SDLFrameHeader(
                    version: 5, frameType: .control, serviceType: .video, frameInfo: SDLControlFrameType.startServiceACK.rawValue, sessionID: 1),
                payload: FakeHeadUnit.standardACK.bytes
            ).bytes)
        #expect(try await first.get().mtu == 131_072)
        await connection.client.close()
    }

    @Test func theHeadUnitEndingTheSessionIsTypedAndAcknowledged() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        var frames = headUnit.frames.makeAsyncIterator()
        _ = await frames.next()
        try await headUnit.sendControl(.endService, service: .rpc)
        let ack = try #require(await frames.next())
        #expect(ack.header.controlFrameType == .endServiceACK)
        #expect(await connection.closeReason() == .endedByHeadUnit)
    }

    @Test func anUnregistrationIsTheCloseReason() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        try await headUnit.notify(OnAppInterfaceUnregistered(reason: .languageChange))
        // SDL Core then closes the connection; the transport delivers what came before the close.
        await headUnit.transport.close()
        let reason = await connection.closeReason()
        #expect(reason == .unregistered(.languageChange))
        #expect(reason?.allowsReconnection == true)
        #expect(SDLCloseReason.unregistered(.appUnauthorized).allowsReconnection == false)
    }

    @Test func aBrokenTransportIsTheCloseReason() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        headUnit.transport.fail(SDLTransportError.io("cable pulled"))
        #expect(await connection.closeReason() == .transportFailed(.io("cable pulled")))
    }

    @Test func aMalformedFrameEndsTheSessionWithATypedViolation() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        async let pending = outcome { try await connection.client.send(ListFiles()) }
        var requests = headUnit.requests.makeAsyncIterator()
        _ = await requests.next()
        // A header claiming a 2 GB payload.
        try await headUnit.transport.send([0x51, 0x07, 0x00, 0x01, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 9])
        guard case .failure(SDLRPCError.connectionClosed(.protocolViolation(.frameTooLarge))) = await pending else {
            Issue.record("expected the pending request to fail with the violation")
            return
        }
        await #expect(throws: SDLSessionError.self) { try await connection.session.send(SDLRPCPayload(rpcType: .request, functionID: 34, json: [])) }
    }

    @Test(arguments: [Int64(0), -5, 1 << 40])
    func anAbsurdMTUIsRejectedNotACrash(mtu: Int64) async throws {
        var ack = FakeHeadUnit.standardACK
        ack.mtu = mtu
        let headUnit = FakeHeadUnit(ack: ack)
        let connection = try await Connection.to(headUnit, start: false)
        await #expect(throws: SDLSessionError.protocolViolation(.invalidMTU(mtu))) { try await connection.session.start() }
        #expect(await connection.closeReason() == .protocolViolation(.invalidMTU(mtu)))
    }

    @Test func framesForAnotherSessionAreIgnored() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        async let listed = outcome { try await connection.client.send(ListFiles()) }
        var requests = headUnit.requests.makeAsyncIterator()
        let request = try #require(await requests.next())
        // A response for session 9 (another app's) is dropped; the real one follows.
        try await headUnit.respond(to: request, with: ListFilesResponse(success: false, resultCode: .rejected), sessionID: 9)
        try await headUnit.respond(to: request, with: ListFilesResponse(success: true, resultCode: .success))
        #expect(try await listed.get().resultCode == .success)
        await connection.client.close()
    }
}

/// Heartbeats on an injected clock: the session sends one after `interval` of silence and ends
/// with `.heartbeatTimeout` when it goes unanswered for `timeout`.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct HeartbeatTests {
    /// A session that sends heartbeats after 5 s of silence and gives up 7 s later, on a manual clock.
    static func heartbeating() async throws -> (ManualClock, FakeHeadUnit, Connection) {
        let clock = ManualClock()
        var configuration = Connection.patient
        configuration.clock = SDLClock(clock)
        configuration.heartbeatInterval = .seconds(5)
        configuration.heartbeatTimeout = .seconds(7)
        let headUnit = FakeHeadUnit()
        return (clock, headUnit, try await Connection.to(headUnit, configuration: configuration))
    }

    @Test func theSessionAnswersHeartbeats() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        var frames = headUnit.frames.makeAsyncIterator()
        _ = await frames.next()
        try await headUnit.sendControl(.heartbeat)
        let reply = try #require(await frames.next())
        #expect(reply.header.controlFrameType == .heartbeatACK)
        #expect(reply.header.serviceType == .control)
        await connection.client.close()
    }

    @Test func anUnansweredHeartbeatEndsTheSession() async throws {
        let (clock, headUnit, connection) = try await Self.heartbeating()
        var frames = headUnit.frames.makeAsyncIterator()
        _ = await frames.next()  // StartService
        async let pending = outcome { try await connection.client.send(ListFiles()) }
        _ = await frames.next()  // ListFiles
        clock.advance(by: .seconds(5))
        let heartbeat = try #require(await frames.next())
        #expect(heartbeat.header.controlFrameType == .heartbeat)
        clock.advance(by: .seconds(7))
        guard case .failure(SDLRPCError.connectionClosed(.heartbeatTimeout)) = await pending else {
            Issue.record("expected the request to fail with the heartbeat timeout")
            return
        }
        #expect(await connection.closeReason() == .heartbeatTimeout)
    }

    @Test func anAnsweredHeartbeatKeepsTheSession() async throws {
        let (clock, headUnit, connection) = try await Self.heartbeating()
        var frames = headUnit.frames.makeAsyncIterator()
        _ = await frames.next()
        for _ in 0..<3 {
            clock.advance(by: .seconds(5))
            let heartbeat = try #require(await frames.next())
            #expect(heartbeat.header.controlFrameType == .heartbeat)
            try await headUnit.sendControl(.heartbeatACK)
            // The ACK is read once a request round trip after it completes.
            async let listed = outcome { try await connection.client.send(ListFiles()) }
            let request = try #require(await headUnit.requests.first { _ in true })
            try await headUnit.respond(to: request, with: ListFilesResponse(success: true, resultCode: .success))
            _ = await listed
            _ = await frames.next()  // the ListFiles frame
        }
        #expect(connection.session.connectionState != .closed(.heartbeatTimeout))
        await connection.client.close()
        #expect(await connection.closeReason() == .closedByApp)
    }
}
