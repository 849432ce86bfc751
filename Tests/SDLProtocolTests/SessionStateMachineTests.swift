import SDLProtocol
import SDLRPC
import SDLRuntime
import Testing

/// The session's rules on the value alone: an app's and a head unit's `SDLSessionStateMachine`
/// exchange bytes directly, no transport, no tasks, time passed in by hand.
@Suite struct SessionStateMachineTests {
    typealias Machine = SDLSessionStateMachine
    typealias Action = SDLSessionStateMachine.Action

    static let functions = SDLFunctionTable(messages: MobileAPI.requests.map { $0 as any SDLMessage.Type })

    static func app(_ configure: (inout Machine.Settings) -> Void = { _ in }) -> Machine {
        var settings = Machine.Settings(functions: functions)
        configure(&settings)
        return Machine(role: .app, settings: settings)
    }

    static func headUnit(_ configure: (inout Machine.Settings) -> Void = { _ in }) -> Machine {
        var settings = Machine.Settings(functions: functions)
        settings.protocolVersion = SDLProtocolVersion(5, 4, 0)
        settings.sessionID = 1
        settings.hashID = 65537
        configure(&settings)
        return Machine(role: .headUnit, settings: settings)
    }

    /// Feeds bytes to `machine` as a driver would (records pass through unchanged: no TLS here).
    static func feed(_ machine: inout Machine, _ bytes: [UInt8], now: Duration = .zero) throws -> [Action] {
        machine.append(bytes, now: now)
        var actions: [Action] = []
        while let inbound = try machine.nextFrame(now: now) {
            switch inbound {
            case .frame(let frame), .record(let frame): actions += try machine.receive(frame)
            case .dropped(_, let dropped): actions += dropped
            }
        }
        return actions
    }

    /// The bytes of every write, and of every encrypted write as plain text.
    static func written(_ actions: [Action]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in
            switch action {
            case .write(let bytes): bytes
            case .writeEncrypted(let message): SDLFramer.frames(for: message, maxPayloadSize: .max).flatMap(\.bytes)
            default: []
            }
        }
    }

    static func frames(_ actions: [Action]) throws -> [SDLFrame] {
        var decoder = SDLFrameDecoder(maxDataSize: .max)
        decoder.append(written(actions))
        var frames: [SDLFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    static func others(_ actions: [Action]) -> [Action] {
        actions.filter {
            switch $0 {
            case .write, .writeEncrypted, .ignored: false
            default: true
            }
        }
    }

    /// An app and a head unit with the RPC service started (protocol 5.4.0, MTU 131,072).
    static func started(app configureApp: (inout Machine.Settings) -> Void = { _ in }) throws -> (Machine, Machine) {
        var app = app(configureApp)
        var headUnit = headUnit()
        let ack = try feed(&headUnit, written([try app.startSession(now: .zero)]))
        _ = try feed(&app, written(ack))
        return (app, headUnit)
    }

    // MARK: Negotiation

    @Test func negotiatesTheLowerVersionWithTheHashAndMTU() throws {
        var app = Self.app()
        var headUnit = Self.headUnit {
            $0.protocolVersion = SDLProtocolVersion(5, 2, 0)
            $0.mtu = 4096
        }
        let start = try Self.frames([try app.startSession(now: .zero)])
        #expect(start.map(\.header.version) == [1])
        #expect(start.map(\.header.sessionID) == [0])
        #expect(app.phase == .starting)
        let ack = try Self.feed(&headUnit, start[0].bytes)
        let ackFrame = try #require(try Self.frames(ack).first)
        #expect(ackFrame.header.controlFrameType == .startServiceACK)
        let parameters = try SDLControlPayload(decoding: ackFrame.payload)
        #expect(parameters.protocolVersion == "5.2.0")
        #expect(parameters.hashID == 65537)
        #expect(parameters.mtu == 4096)
        #expect(parameters.make == nil)  // startParameters are the driver's
        let session = SDLNegotiatedSession(protocolVersion: SDLProtocolVersion(5, 2, 0), sessionID: 1, hashID: 65537, mtu: 4096, details: parameters)
        #expect(try Self.feed(&app, ackFrame.bytes) == [.sessionStarted(session)])
        #expect(app.session == session)
    }

    @Test func anAppWithoutControlPayloadsGetsProtocol4AndTheRawHash() throws {
        var app = Self.app { $0.protocolVersion = SDLProtocolVersion(4) }
        var headUnit = Self.headUnit()
        let ack = try Self.feed(&headUnit, Self.written([try app.startSession(now: .zero)]))
        #expect(try Self.frames(ack).map(\.payload) == [SDLControlPayload.legacyHashBytes(65537)])
        let started = try Self.feed(&app, Self.written(ack))
        #expect(
            started == [.sessionStarted(SDLNegotiatedSession(protocolVersion: SDLProtocolVersion(4), sessionID: 1, hashID: 65537, mtu: 131_072, details: nil))])
    }

    @Test func anAppAskingForANewerProtocolGetsTheHeadUnits() throws {
        var headUnit = Self.headUnit()
        var request = SDLControlPayload()
        request.protocolVersion = "7.0.0"
        let start = SDLFrame(
            header: SDLFrameHeader(
                version: 1, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startService.rawValue, sessionID: 0, messageID: 1),
            payload: request.bytes)
        let ack = try Self.frames(try Self.feed(&headUnit, start.bytes))
        #expect(try SDLControlPayload(decoding: ack[0].payload).protocolVersion == "5.4.0")
    }

    @Test func anMTUOutsideTheAcceptedRangeIsAProtocolViolation() throws {
        var app = Self.app()
        _ = try app.startSession(now: .zero)
        var parameters = SDLControlPayload()
        parameters.protocolVersion = "5.4.0"
        parameters.mtu = 10
        let ack = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startServiceACK.rawValue, sessionID: 1, messageID: 1),
            payload: parameters.bytes)
        #expect(throws: SDLProtocolError.invalidMTU(10)) { try Self.feed(&app, ack.bytes) }
    }

    @Test func aRefusedSessionEndsTheStart() throws {
        var app = Self.app()
        _ = try app.startSession(now: .zero)
        var nak = SDLControlPayload()
        nak.reason = "no"
        let frame = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startServiceNAK.rawValue, sessionID: 0, messageID: 1),
            payload: nak.bytes)
        #expect(try Self.feed(&app, frame.bytes) == [.sessionRefused(nak)])
        #expect(app.phase == .closed)
        #expect(throws: Machine.Refusal.closed) { try app.startSession(now: .zero) }
    }

    @Test func aSecondRPCStartServiceIsRefused() throws {
        var (app, headUnit) = try Self.started()
        _ = app
        let again = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startService.rawValue, sessionID: 1, messageID: 9))
        let nak = try Self.frames(try Self.feed(&headUnit, again.bytes))
        #expect(nak.map(\.header.controlFrameType) == [.startServiceNAK])
        #expect(try SDLControlPayload(decoding: nak[0].payload).reason?.contains("already has an unprotected service of type 7") == true)
    }

    @Test func theStartTimesOutAfterTheControlTimeout() throws {
        var app = Self.app { $0.controlTimeout = .seconds(10) }
        _ = try app.startSession(now: .seconds(1))
        #expect(app.nextDeadline == .seconds(11))
        #expect(app.deadlinesPassed(now: .seconds(10)).isEmpty)
        #expect(app.deadlinesPassed(now: .seconds(11)) == [.close(.startTimedOut)])
        #expect(app.phase == .closed)
    }

    // MARK: Heartbeat

    static func ack(version: UInt8) -> [UInt8] {
        SDLFrame(
            header: SDLFrameHeader(
                version: version, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startServiceACK.rawValue, sessionID: 3, messageID: 1)
        ).bytes
    }

    @Test func heartbeatsFromProtocol3() throws {
        var app = Self.app {
            $0.protocolVersion = SDLProtocolVersion(3)
            $0.heartbeatInterval = .seconds(5)
            $0.heartbeatTimeout = .seconds(7)
        }
        _ = try app.startSession(now: .zero)
        _ = try Self.feed(&app, Self.ack(version: 3), now: .seconds(1))
        #expect(app.nextDeadline == .seconds(6))
        // Traffic in between moves the heartbeat on.
        _ = try Self.feed(
            &app,
            SDLFrame(
                header: SDLFrameHeader(
                    version: 3, frameType: .control, serviceType: .control, frameInfo: SDLControlFrameType.heartbeatACK.rawValue, sessionID: 3, messageID: 2)
            ).bytes, now: .seconds(4))
        #expect(app.deadlinesPassed(now: .seconds(6)).isEmpty)
        #expect(app.nextDeadline == .seconds(9))
        let heartbeat = try Self.frames(app.deadlinesPassed(now: .seconds(9)))
        #expect(heartbeat.map(\.header.controlFrameType) == [.heartbeat])
        #expect(heartbeat.map(\.header.sessionID) == [3])
        #expect(app.nextDeadline == .seconds(16))
        #expect(app.deadlinesPassed(now: .seconds(16)) == [.close(.heartbeatTimeout)])
    }

    @Test func noHeartbeatsBeforeProtocol3() throws {
        var app = Self.app {
            $0.protocolVersion = SDLProtocolVersion(2)
            $0.heartbeatInterval = .seconds(5)
        }
        _ = try app.startSession(now: .zero)
        _ = try Self.feed(&app, Self.ack(version: 2))
        #expect(app.session?.protocolVersion == SDLProtocolVersion(2))
        #expect(app.nextDeadline == nil)
    }

    @Test func bothEndsAnswerAHeartbeatWithItsMessageID() throws {
        var (app, headUnit) = try Self.started()
        let heartbeat = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .control, frameInfo: SDLControlFrameType.heartbeat.rawValue, sessionID: 1, messageID: 77)
        ).bytes
        for answer in [try Self.feed(&app, heartbeat), try Self.feed(&headUnit, heartbeat)] {
            let frames = try Self.frames(answer)
            #expect(frames.map(\.header.controlFrameType) == [.heartbeatACK])
            #expect(frames.map(\.header.messageID) == [77])
        }
        // Before the session starts (and for protocols 1 and 2) SDL Core does not answer one.
        var idle = Self.headUnit()
        #expect(try Self.feed(&idle, heartbeat).isEmpty)
    }

    // MARK: Services

    @Test(arguments: [SDLServiceType.video, .audio])
    func theHeadUnitDecidesAStreamingStartAndEnd(service: SDLServiceType) throws {
        var (app, headUnit) = try Self.started()
        var request = SDLControlPayload()
        request.height = 480
        let start = try app.startService(service, parameters: request, encrypted: false, now: .zero)
        #expect(throws: Machine.Refusal.busy(service)) { try app.startService(service, parameters: request, encrypted: false, now: .zero) }
        #expect(try Self.feed(&headUnit, Self.written([start])) == [.decideStreaming(service, request: request, isProtected: false)])
        // Refused: a NAK with the reason.
        let nak = headUnit.streamingDecided(service, accepted: nil, refusal: ("busy", ["height"]), isProtected: false)
        let refused = try Self.feed(&app, Self.written([nak]))
        guard case .answered(_, let answer) = refused.first else {
            Issue.record("no answer: \(refused)")
            return
        }
        #expect(!answer.accepted)
        #expect(answer.parameters.rejectedParams == ["height"])
        #expect(!app.runningMediaServices.contains(service))
        // Accepted: an ACK with the MTU.
        _ = try Self.feed(&headUnit, Self.written([try app.startService(service, parameters: request, encrypted: false, now: .zero)]))
        let ack = headUnit.streamingDecided(service, accepted: SDLControlPayload(), isProtected: false)
        let accepted = try Self.feed(&app, Self.written([ack]))
        guard case .answered(_, let answer) = accepted.first else {
            Issue.record("no answer: \(accepted)")
            return
        }
        #expect(answer.accepted && answer.parameters.mtu == 131_072)
        #expect(app.runningMediaServices.contains(service))
        // The end: the head unit refuses once, then accepts.
        let end = try app.endService(service, now: .zero)
        #expect(!app.runningMediaServices.contains(service))
        #expect(try Self.feed(&headUnit, Self.written([end])) == [.decideEndStreaming(service)])
        let endNAK = try Self.feed(&app, Self.written([headUnit.endStreamingDecided(service, ended: false)]))
        #expect(endNAK.count == 1)
        _ = try Self.feed(&headUnit, Self.written([try app.endService(service, now: .zero)]))
        let endACK = try Self.feed(&app, Self.written([headUnit.endStreamingDecided(service, ended: true)]))
        guard case .answered(let exchange, let ended) = endACK.first else {
            Issue.record("no answer: \(endACK)")
            return
        }
        #expect(exchange == Machine.Exchange(service: service, request: .endService) && ended.accepted)
    }

    @Test func aServiceTheHeadUnitEndsIsAcknowledgedAndClosedToMedia() throws {
        var (app, headUnit) = try Self.started()
        _ = try Self.feed(&headUnit, Self.written([try app.startService(.video, parameters: SDLControlPayload(), encrypted: false, now: .zero)]))
        _ = try Self.feed(&app, Self.written([headUnit.streamingDecided(.video, accepted: nil, isProtected: false)]))
        #expect(try app.sendStreamedMedia([[1, 2, 3]], service: .video, encrypted: false).count == 1)
        let ended = try Self.feed(&app, Self.written([headUnit.endFromHeadUnit(.video)]))
        #expect(try Self.frames(ended).map(\.header.controlFrameType) == [.endServiceACK])
        #expect(Self.others(ended) == [.serviceEndedByPeer(.video)])
        #expect(throws: Machine.Refusal.serviceNotRunning(.video)) { try app.sendStreamedMedia([[1]], service: .video, encrypted: false) }
    }

    @Test func aServiceAnswerThatNeverComesTimesOut() throws {
        var (app, _) = try Self.started()
        _ = try app.startService(.audio, parameters: SDLControlPayload(), encrypted: false, now: .seconds(2))
        #expect(app.deadlinesPassed(now: .seconds(12)) == [.exchangeTimedOut(Machine.Exchange(service: .audio, request: .startService))])
        // A late answer is ignored.
        let late = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .audio, frameInfo: SDLControlFrameType.startServiceACK.rawValue, sessionID: 1, messageID: 5))
        #expect(Self.others(try Self.feed(&app, late.bytes)).isEmpty)
    }

    @Test func endingTheRPCServiceChecksTheHash() throws {
        var (app, headUnit) = try Self.started()
        var wrong = SDLControlPayload()
        wrong.hashID = 12
        let bad = SDLFrame(
            header: SDLFrameHeader(
                version: 5, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.endService.rawValue, sessionID: 1, messageID: 4),
            payload: wrong.bytes)
        let nak = try Self.frames(try Self.feed(&headUnit, bad.bytes))
        #expect(nak.map(\.header.controlFrameType) == [.endServiceNAK])
        #expect(try SDLControlPayload(decoding: nak[0].payload).rejectedParams == ["hashId"])
        // The app's own EndService carries the hash: accepted, the session ends there.
        let closing = app.beginClosing()
        #expect(closing)
        let ended = try Self.feed(&headUnit, Self.written([try app.endService(.rpc, now: .zero)]))
        #expect(try Self.frames(ended).map(\.header.controlFrameType) == [.endServiceACK])
        #expect(Self.others(ended) == [.sessionEnded])
        #expect(Machine.endsSession(hash: [], version: 5, sessionHash: 65537) == false)
        var zero = SDLControlPayload()
        zero.hashID = 0
        #expect(Machine.endsSession(hash: zero.bytes, version: 5, sessionHash: 65537))
        #expect(Machine.endsSession(hash: SDLControlPayload.legacyHashBytes(65537), version: 4, sessionHash: 65537))
    }

    @Test func theHeadUnitEndingTheRPCServiceEndsTheAppsSession() throws {
        var (app, headUnit) = try Self.started()
        let ended = try Self.feed(&app, Self.written([headUnit.endFromHeadUnit(.rpc)]))
        #expect(try Self.frames(ended).map(\.header.controlFrameType) == [.endServiceACK])
        #expect(Self.others(ended) == [.close(.endedByPeer)])
        #expect(app.phase == .closed)
    }

    // MARK: Frames

    @Test func messagesOverTheMTUAreSplitAndJoined() throws {
        var (_, headUnit) = try Self.started()
        var small = Self.headUnit { $0.mtu = 100 }
        var other = Self.app()
        _ = try Self.feed(&small, Self.written([try other.startSession(now: .zero)]))
        let rpc = SDLRPCPayload(rpcType: .request, functionID: 11, correlationID: 3, json: Array(repeating: UInt8(ascii: "a"), count: 250))
        let out = try small.sendRPC(rpc)
        #expect(try Self.frames([out]).map(\.header.frameType) == [.first, .consecutive, .consecutive, .consecutive])
        #expect(try Self.feed(&headUnit, Self.written([out])) == [.deliverRPC(rpc, service: .rpc, isEncrypted: false)])
    }

    @Test func theHeadUnitDropsFramesOverItsMTU() throws {
        var headUnit = Self.headUnit { $0.mtu = 100 }
        let big = SDLFrame(
            header: SDLFrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 1, messageID: 1), payload: Array(repeating: 0, count: 101))
        let actions = try Self.feed(&headUnit, big.bytes)
        #expect(actions.count == 1)
        guard case .ignored(_, let reason) = actions.first else {
            Issue.record("\(actions)")
            return
        }
        #expect(reason == "payload beyond the MTU")
    }

    @Test func moreThanTenMalformedFramesInASecondCloseTheConnection() throws {
        var headUnit = Self.headUnit()
        let unknown = SDLFrame(header: SDLFrameHeader(version: 5, frameType: .single, serviceType: SDLServiceType(rawValue: 0x09), sessionID: 1, messageID: 1))
            .bytes
        for index in 0..<10 {
            #expect(!(try Self.feed(&headUnit, unknown, now: .milliseconds(50 * index))).contains(.close(.malformedFrames)))
        }
        // Those of over a second ago no longer count.
        #expect(!(try Self.feed(&headUnit, unknown, now: .milliseconds(1_100))).contains(.close(.malformedFrames)))
        var burst = Self.headUnit()
        let closing = try Self.feed(&burst, Array((0..<11).map { _ in unknown }.joined()))
        #expect(closing.last == .close(.malformedFrames))
    }

    @Test func framesForAnotherSessionAreIgnoredByBothEnds() throws {
        var (app, headUnit) = try Self.started()
        let rpc = SDLRPCPayload(rpcType: .notification, functionID: 32768, json: Array("{}".utf8))
        let stranger = SDLFrame(header: SDLFrameHeader(version: 5, frameType: .single, serviceType: .rpc, sessionID: 9, messageID: 1), payload: rpc.bytes)
        for actions in [try Self.feed(&app, stranger.bytes), try Self.feed(&headUnit, stranger.bytes)] {
            guard case .ignored(_, let reason) = actions.first, actions.count == 1 else {
                Issue.record("\(actions)")
                continue
            }
            #expect(reason.contains("session 9"))
        }
    }

    // MARK: Security

    /// The head unit's protected start of `service` up to its ClientHello.
    static func protectedStart(_ service: SDLServiceType, app: inout Machine, headUnit: inout Machine) throws -> [Action] {
        let start = try app.startService(service, parameters: SDLControlPayload(), encrypted: true, now: .zero)
        #expect(try Self.feed(&headUnit, Self.written([start])) == [.checkProtection(service)])
        #expect(headUnit.protectionChecked(service, .allowed) == [.startHandshake])
        return try Self.feed(&app, Self.written([headUnit.handshakeStarted(clientHello: [0x16, 0x03])]))
    }

    @Test func theHandshakeRunsThroughSecurityQueriesThenTheStartIsAcknowledgedEncrypted() throws {
        var (app, headUnit) = try Self.started()
        #expect(try Self.protectedStart(.rpc, app: &app, headUnit: &headUnit) == [.continueHandshake([0x16, 0x03], sequenceNumber: 1)])
        let answer = app.handshakeStepped(SDLHandshakeStep(outgoing: [0x14], isComplete: true), sequenceNumber: 1)
        let query = try SDLSecurityQuery(decoding: try Self.frames(answer)[0].payload)
        #expect(query.type == .response && query.sequenceNumber == 1 && query.binary == [0x14])
        #expect(try Self.feed(&headUnit, Self.written(answer)) == [.continueHandshake([0x14], sequenceNumber: 1)])
        let accepted = headUnit.handshakeStepped(SDLHandshakeStep(outgoing: [], isComplete: true), sequenceNumber: 1)
        guard case .writeEncrypted(let ack) = accepted.first else {
            Issue.record("\(accepted)")
            return
        }
        #expect(ack.controlFrameType == .startServiceACK && ack.isEncrypted)
        #expect(headUnit.protectedServices == [.rpc])
        let answered = try Self.feed(&app, Self.written(accepted))
        guard case .answered(_, let result) = answered.first else {
            Issue.record("\(answered)")
            return
        }
        #expect(result.accepted && result.isEncrypted)
        #expect(app.protectedServices == [.rpc])
        // Now records are accepted, and a response to an encrypted request goes out encrypted.
        let request = SDLRPCPayload(rpcType: .request, functionID: 13, correlationID: 8, json: Array("{}".utf8))
        let encrypted = try app.sendRPC(request, encrypted: true)
        #expect(try Self.feed(&headUnit, Self.written([encrypted])) == [.deliverRPC(request, service: .rpc, isEncrypted: true)])
        guard case .writeEncrypted = try headUnit.sendRPC(SDLRPCPayload(rpcType: .response, functionID: 13, correlationID: 8, json: Array("{}".utf8))) else {
            Issue.record("the response went out in plain text")
            return
        }
    }

    @Test func aRefusedCertificateEndsTheProtectedRPCServiceAndNAKsTheStart() throws {
        var (app, headUnit) = try Self.started()
        _ = try Self.protectedStart(.rpc, app: &app, headUnit: &headUnit)
        let failed = headUnit.handshakeFailed(SDLSecurityError(.invalidCertificate, "expired"), sequenceNumber: 1)
        let frames = try Self.frames(failed)
        #expect(frames.map(\.header.serviceType) == [.control, .rpc, .rpc])
        #expect(try SDLSecurityQuery(decoding: frames[0].payload).errorCode == .invalidCertificate)
        #expect(frames.dropFirst().map(\.header.controlFrameType) == [.endService, .startServiceNAK])
        #expect(try SDLControlPayload(decoding: frames[2].payload).reason == "Invalid certificate: expired")
        #expect(Self.others(failed) == [.protectionRefused])
        // The app: the internal error is kept, EndService(RPC) ends only the protection attempt.
        let seen = try Self.feed(&app, Self.written(failed))
        #expect(Self.others(seen).first == .peerSecurityError(SDLSecurityError(.invalidCertificate, "expired")))
        #expect(app.phase != .closed)
        #expect(app.securityFailure?.code == .invalidCertificate)
    }

    @Test func aFailedHandshakeStartsVideoInPlainText() throws {
        var (app, headUnit) = try Self.started()
        _ = try Self.protectedStart(.video, app: &app, headUnit: &headUnit)
        let failed = headUnit.handshakeFailed(SDLSecurityError(.handshakeFailed, "no"), sequenceNumber: 1)
        #expect(Self.others(failed) == [.decideStreaming(.video, request: nil, isProtected: false)])
    }

    @Test func protectionTheHeadUnitCannotGiveIsRefused() throws {
        var (app, headUnit) = try Self.started()
        _ = try Self.feed(&headUnit, Self.written([try app.startService(.rpc, parameters: SDLControlPayload(), encrypted: true, now: .zero)]))
        let notReady = try Self.frames(headUnit.protectionChecked(.rpc, .systemTimeNotReady))
        #expect(notReady.map(\.header.controlFrameType) == [.endService, .startServiceNAK])
        #expect(try SDLControlPayload(decoding: notReady[1].payload).reason == "System time provider is not ready")
        // Video without any security configured starts in plain text instead.
        _ = try Self.feed(&headUnit, Self.written([try app.startService(.video, parameters: SDLControlPayload(), encrypted: true, now: .zero)]))
        #expect(headUnit.protectionChecked(.video, .refused("not supported")) == [.decideStreaming(.video, request: nil, isProtected: false)])
    }

    @Test func badSecurityQueriesAreAnsweredWithInternalErrors() throws {
        var (app, headUnit) = try Self.started()
        let malformed = try Self.frames(app.send([1, 2, 3], service: .control).asArray)
        let tooShort = try Self.frames(try Self.feed(&headUnit, malformed[0].bytes))
        #expect(try SDLSecurityQuery(decoding: tooShort[0].payload).errorCode == .invalidQuerySize)
        let unknownID = SDLSecurityQuery(type: .request, id: SDLSecurityQuery.QueryID(rawValue: 0x77), sequenceNumber: 4)
        let answer = try Self.frames(try Self.feed(&app, Self.written([headUnit.send(unknownID.encoded, service: .control)])))
        let error = try SDLSecurityQuery(decoding: answer[0].payload)
        #expect(error.errorCode == .invalidQueryID && error.sequenceNumber == 4)
        // Handshake data when no handshake runs, and a record before any: refused.
        let stray = try Self.frames(
            try Self.feed(&headUnit, Self.written([app.send(SDLSecurityQuery.handshake([1], sequenceNumber: 2).encoded, service: .control)])))
        #expect(try SDLSecurityQuery(decoding: stray[0].payload).errorCode == .serviceNotProtected)
        let record = try app.sendRPC(SDLRPCPayload(rpcType: .request, functionID: 13, correlationID: 1, json: Array("{}".utf8)), encrypted: true)
        let refused = try Self.frames(try Self.feed(&headUnit, Self.written([record])))
        #expect(try SDLSecurityQuery(decoding: refused[0].payload).errorCode == .serviceNotProtected)
    }
}

extension SDLSessionStateMachine.Action {
    var asArray: [Self] { [self] }
}
