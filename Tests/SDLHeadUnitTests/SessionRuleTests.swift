import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// Resumption after a drop and the language switch, as SDL Core runs them.
@Suite(.timeLimit(.minutes(1))) struct ResumptionTests {
    /// Also for an app that sends a `fullAppID` (today's libraries do), which SDL Core keys it by.
    @Test(arguments: [nil, "8d2c6a04-5f3e-4b1a-9c7d-2e8f0a6b1c3d"])
    func reRegisteringWithTheLastHashRestoresMenuAndSubscriptions(fullAppID: String?) async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "resume", fullAppID: fullAppID)
        let hashes = first.client.notifications(OnHashChange.self)
        _ = try await first.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
        _ = try await first.client.send(SubscribeButton(buttonName: .ok))
        var iterator = hashes.makeAsyncIterator()
        _ = await iterator.next()
        let hash = try #require(await iterator.next()?.hashID)
        // The cable is pulled: no UnregisterAppInterface.
        try await headUnit.disconnect(appID: first.appID)
        guard case .failure(SDLRPCError.connectionClosed(.transportClosed)) = await outcome({ try await first.running.value }) else {
            Issue.record("the app's session should end with the transport")
            return
        }
        let second = try await TestApp.register(to: headUnit, appID: "resume", hashID: hash, fullAppID: fullAppID)
        #expect(second.registration.resultCode == .success)
        #expect(second.registration.info == "Data resumption successful")
        #expect(try await second.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"))).resultCode == .invalidId)
        #expect(try await second.client.send(SubscribeButton(buttonName: .ok)).resultCode == .ignored)
        await second.close()
    }

    /// Vehicle-data subscriptions come back with the hash too (SDL Core resumes them with the
    /// HMI): the new registration gets OnVehicleData without subscribing again.
    @Test func reRegisteringWithTheLastHashRestoresVehicleDataSubscriptions() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "driving")
        let hashes = first.client.notifications(OnHashChange.self)
        #expect(try await first.client.send(SubscribeVehicleData(speed: true)).resultCode == .success)
        let hash = try #require(await hashes.first { _ in true }?.hashID)
        try await headUnit.disconnect(appID: first.appID)
        _ = await outcome { try await first.running.value }

        let second = try await TestApp.register(to: headUnit, appID: "driving", hashID: hash)
        #expect(second.registration.info == "Data resumption successful")
        let updates = second.client.notifications(OnVehicleData.self)
        try await headUnit.setVehicleData("speed", to: .float(42.5))
        let update = await updates.first { _ in true }
        #expect(update?.speed == 42.5)
        // Already subscribed, as before the drop.
        let again = try await second.client.send(SubscribeVehicleData(speed: true))
        #expect(again.speed?.resultCode == .dataAlreadySubscribed)
        await second.close()
    }

    @Test func unregisteringForgetsTheState() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "gone")
        let hashes = first.client.notifications(OnHashChange.self)
        _ = try await first.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
        var iterator = hashes.makeAsyncIterator()
        let hash = try #require(await iterator.next()?.hashID)
        #expect(try await first.client.send(UnregisterAppInterface()).success)
        await first.close()
        let second = try await TestApp.register(to: headUnit, appID: "gone", hashID: hash)
        #expect(second.registration.resultCode == .resumeFailed)
        #expect(try await second.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"))).resultCode == .success)
        await second.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct LanguageTests {
    @Test func aLanguageChangeUnregistersAppsWhichRegisterAgain() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "lang")
        let changes = app.client.notifications(OnLanguageChange.self)
        await headUnit.setLanguage(.frCa)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.language == .frCa)
        guard case .failure(SDLRPCError.connectionClosed(let reason)) = await outcome({ try await app.running.value }) else {
            Issue.record("the session should end")
            return
        }
        #expect(reason == .unregistered(.languageChange))
        #expect(await headUnit.registeredApps().isEmpty)
        let again = try await TestApp.register(to: headUnit, appID: "lang", language: .frCa)
        #expect(again.registration.resultCode == .success)
        #expect(again.registration.language == .frCa)
        #expect(try await again.client.send(ChangeRegistration(language: .frCa, hmiDisplayLanguage: .frCa)).success)
        await again.close()
    }
}

/// Session IDs, hashes and EndService on the wire, as SDL Core answers them.
@Suite(.timeLimit(.minutes(1))) struct SessionControlTests {
    /// One app's raw side of a connection to the emulator.
    struct Wire {
        let transport: SDLMemoryTransport
        var chunks: SDLInboundBytes.AsyncIterator
        var decoder = SDLFrameDecoder()

        init(_ headUnit: SDLHeadUnitEmulator) {
            let (app, car) = SDLMemoryTransport.pair()
            Task { await headUnit.serve(car) }
            transport = app
            chunks = app.inbound.makeAsyncIterator()
        }

        func send(_ type: SDLControlFrameType, service: SDLServiceType, sessionID: UInt8, payload: [UInt8] = []) async throws {
            try await transport.send(
                SDLFrame(
                    header: SDLFrameHeader(version: 5, frameType: .control, serviceType: service, frameInfo: type.rawValue, sessionID: sessionID),
                    payload: payload
                ).bytes)
        }

        mutating func next() async throws -> SDLFrame {
            while true {
                if let frame = try decoder.nextFrame() { return frame }
                decoder.append(try #require(try await chunks.next(), "the head unit closed the connection"))
            }
        }

        /// StartService(RPC) with protocol 5: the ACK's session ID and hash.
        mutating func start() async throws -> (sessionID: UInt8, hashID: Int32?) {
            var request = SDLControlPayload()
            request.protocolVersion = "5.4.0"
            try await send(.startService, service: .rpc, sessionID: 0, payload: request.bytes)
            let ack = try await next()
            #expect(ack.header.controlFrameType == .startServiceACK)
            return (ack.header.sessionID, try SDLControlPayload(decoding: ack.payload).hashID)
        }
    }

    /// SDL Core's protocol handler (protocol_handler_impl.cc, connection_handler_impl.cc).
    @Test func aSecondRPCServiceIsRefusedAndANewerProtocolGetsCores() async throws {
        let headUnit = TestApp.headUnit()
        var wire = Wire(headUnit)
        var request = SDLControlPayload()
        request.protocolVersion = "9.9.9"
        try await wire.send(.startService, service: .rpc, sessionID: 0, payload: request.bytes)
        let ack = try await wire.next()
        #expect(ack.header.controlFrameType == .startServiceACK)
        #expect(try SDLControlPayload(decoding: ack.payload).protocolVersion == "5.4.0")
        // The same session asks again: NAK, with Core's reason and no rejected parameters.
        try await wire.send(.startService, service: .rpc, sessionID: ack.header.sessionID, payload: request.bytes)
        let nak = try await wire.next()
        #expect(nak.header.controlFrameType == .startServiceNAK)
        let payload = try SDLControlPayload(decoding: nak.payload)
        #expect(payload.reason == "Cannot start an unprotected service of type 7. Session 1 already has an unprotected service of type 7")
        #expect(payload.rejectedParams == nil)
    }

    @Test func aFrameOfAnUnknownServiceIsDroppedAndTooManyCloseTheConnection() async throws {
        let headUnit = TestApp.headUnit(clock: ManualClock())
        var wire = Wire(headUnit)
        let session = try await wire.start()
        // StartService for service type 5: no answer at all; the next answer is the video NAK.
        try await wire.send(.startService, service: SDLServiceType(rawValue: 0x05), sessionID: session.sessionID)
        try await wire.send(.endService, service: .video, sessionID: session.sessionID)
        #expect(try await wire.next().header.controlFrameType == .endServiceNAK)
        // Eleven malformed frames within a second (the clock stands still): the connection closes.
        for _ in 1...10 { try await wire.send(.startService, service: SDLServiceType(rawValue: 0x09), sessionID: session.sessionID) }
        #expect(try await wire.chunks.next() == nil)
    }

    @Test func endingTheSessionWithHashZeroUnregistersAndTheTransportStays() async throws {
        let headUnit = TestApp.headUnit()
        var wire = Wire(headUnit)
        let session = try await wire.start()
        // No hashId at all reads as -1 in Core: refused.
        try await wire.send(.endService, service: .rpc, sessionID: session.sessionID, payload: SDLControlPayload().bytes)
        #expect(try await wire.next().header.controlFrameType == .endServiceNAK)
        // hashId 0 means "no hash": Core accepts it.
        var zero = SDLControlPayload()
        zero.hashID = 0
        try await wire.send(.endService, service: .rpc, sessionID: session.sessionID, payload: zero.bytes)
        #expect(try await wire.next().header.controlFrameType == .endServiceACK)
        // The transport is still there: a new session starts on it.
        let again = try await wire.start()
        #expect(again.sessionID == 1)
    }

    @Test func endingTheSessionOfARegisteredAppUnregistersIt() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "leaving")
        let events = headUnit.events()
        // The library sends the session's hash: ACK, and the app is unregistered.
        try await app.session.endService(.rpc)
        await waitFor(events) { $0 == .appUnregistered(appID: "leaving") }
        #expect(await headUnit.registeredApps().isEmpty)
        await app.close()
    }

    @Test func everyConnectionStartsSessionOneWithItsOwnHash() async throws {
        let headUnit = TestApp.headUnit()
        // One after the other, so the connections are numbered in this order.
        var first = Wire(headUnit)
        let a = try await first.start()
        var second = Wire(headUnit)
        let b = try await second.start()
        #expect(a.sessionID == 1 && b.sessionID == 1)
        #expect(a.hashID == 65_537 && b.hashID == 65_538)
    }

    @Test func endingTheSessionNeedsItsHashAndAStreamMustRun() async throws {
        let headUnit = TestApp.headUnit()
        var wire = Wire(headUnit)
        let session = try await wire.start()
        var wrong = SDLControlPayload()
        wrong.hashID = 42
        try await wire.send(.endService, service: .rpc, sessionID: session.sessionID, payload: wrong.bytes)
        let refused = try await wire.next()
        #expect(refused.header.controlFrameType == .endServiceNAK)
        #expect(try SDLControlPayload(decoding: refused.payload).rejectedParams == ["hashId"])
        // A video service that never started cannot end.
        try await wire.send(.endService, service: .video, sessionID: session.sessionID)
        #expect(try await wire.next().header.controlFrameType == .endServiceNAK)
        // The session is still there: with its hash it ends.
        var right = SDLControlPayload()
        right.hashID = session.hashID
        try await wire.send(.endService, service: .rpc, sessionID: session.sessionID, payload: right.bytes)
        #expect(try await wire.next().header.controlFrameType == .endServiceACK)
    }

    /// A frame whose payload exceeds the MTU is dropped silently and the connection stays.
    @Test func aFrameOverTheMTUIsDroppedSilently() async throws {
        let headUnit = TestApp.headUnit()
        var wire = Wire(headUnit)
        let session = try await wire.start()
        func frame(_ size: Int) -> [UInt8] {
            SDLFrame(
                header: SDLFrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: session.sessionID, messageID: 1),
                payload: [UInt8](repeating: 0, count: size)
            ).bytes
        }
        try await wire.transport.send(frame(131_073))
        try await wire.send(.heartbeat, service: .control, sessionID: session.sessionID)
        // The next frame is the heartbeat's answer: nothing came back for the oversized one.
        #expect(try await wire.next().header.controlFrameType == .heartbeatACK)
        #expect(await headUnit.registeredApps().isEmpty)
    }
}
