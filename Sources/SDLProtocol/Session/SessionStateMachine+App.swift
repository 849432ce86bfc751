import SDLRuntime

/// The app's end: it starts the session and its services and keeps the heartbeat.
extension SDLSessionStateMachine {
    /// StartService(RPC) offering the app's version; the first frame always has a version-1
    /// header and session 0.
    public mutating func startSession(now: Duration) throws(Refusal) -> Action {
        guard case .idle = phase else { throw phase == .closed ? .closed : .busy(.rpc) }
        phase = .starting
        wait(for: Exchange(service: .rpc, request: .startService), now: now)
        var request = SDLControlPayload()
        request.protocolVersion = settings.protocolVersion.description
        let payload = settings.protocolVersion.hasControlPayloads ? request.bytes : []
        let frame = SDLFrame(
            header: SDLFrameHeader(
                version: 1, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startService.rawValue, sessionID: 0,
                messageID: takeMessageID()),
            payload: payload)
        return .write(frame.bytes)
    }

    /// StartService for another service (audio, video), or a protected start of any (the
    /// head unit then runs the TLS handshake through security queries).
    public mutating func startService(_ service: SDLServiceType, parameters: SDLControlPayload, encrypted: Bool, now: Duration) throws(Refusal) -> Action {
        let exchange = try begin(.startService, service: service)
        if encrypted, service == .rpc { protectingRPC = true }
        if encrypted { securityFailure = nil }
        wait(for: exchange, now: now)
        let payload = hasControlPayloads && !parameters.document.isEmpty ? parameters.bytes : []
        return control(.startService, service: service, payload: payload, encrypted: encrypted)
    }

    /// EndService; for the RPC service with the session's hash. Nothing more goes out on a
    /// media service from now, whatever the answer.
    public mutating func endService(_ service: SDLServiceType, now: Duration) throws(Refusal) -> Action {
        let exchange = try begin(.endService, service: service, allowClosing: service == .rpc)
        runningMediaServices.remove(service)
        wait(for: exchange, now: now)
        var payload: [UInt8] = []
        if service == .rpc, let hash = session?.hashID {
            var parameters = SDLControlPayload()
            parameters.hashID = hash
            payload = hasControlPayloads ? parameters.bytes : SDLControlPayload.legacyHashBytes(hash)
        }
        return control(.endService, service: service, payload: payload)
    }

    private mutating func wait(for exchange: Exchange, now: Duration) {
        pending.insert(exchange)
        deadlines[.exchange(exchange)] = now + settings.controlTimeout
    }

    /// The exchange's answer came: it waits no more.
    private mutating func settle(_ exchange: Exchange) -> Bool {
        deadlines[.exchange(exchange)] = nil
        return pending.remove(exchange) != nil
    }

    private mutating func begin(_ request: SDLControlFrameType, service: SDLServiceType, allowClosing: Bool = false) throws(Refusal) -> Exchange {
        switch phase {
        case .started: break
        case .closing where allowClosing: break
        case .closing, .closed: throw .closed
        case .idle, .starting: throw .notStarted
        }
        let exchange = Exchange(service: service, request: request)
        guard !pending.contains(exchange) else { throw .busy(service) }
        return exchange
    }

    /// The app closes: true when the session was running (EndService(RPC) is worth sending).
    public mutating func beginClosing() -> Bool {
        switch phase {
        case .started:
            phase = .closing
            return true
        case .idle, .starting:
            phase = .closed
            return false
        case .closing, .closed:
            return false
        }
    }

    /// The session is over (closed by either side, or the transport went): nothing more is
    /// pending. Returns the exchanges that were waiting, to fail.
    public mutating func closed() -> Set<Exchange> {
        phase = .closed
        deadlines.removeAll()
        defer { pending.removeAll() }
        return pending
    }

    /// A protected start is settled either way: the RPC service's EndService means the session again.
    public mutating func protectionSettled(_ service: SDLServiceType) {
        if service == .rpc { protectingRPC = false }
    }

    // MARK: Heartbeat

    /// A heartbeat after `heartbeatInterval` without traffic, the end after `heartbeatTimeout`
    /// without an answer, else the check again when the time left runs out.
    mutating func heartbeatDue(now: Duration) -> [Action] {
        guard let interval = settings.heartbeatInterval, session != nil else { return [] }
        let timeout = settings.heartbeatTimeout
        if let sentAt = heartbeatSentAt {
            guard now - sentAt >= timeout else {
                deadlines[.heartbeat] = sentAt + timeout
                return []
            }
            phase = .closed
            return [.close(.heartbeatTimeout)]
        }
        guard now - lastReceived >= interval else {
            deadlines[.heartbeat] = lastReceived + interval
            return []
        }
        heartbeatSentAt = now
        deadlines[.heartbeat] = now + timeout
        return [control(.heartbeat, service: .control)]
    }

    // MARK: Control frames from the head unit

    mutating func appControl(_ opcode: SDLControlFrameType, _ message: SDLProtocolMessage) throws(SDLProtocolError) -> [Action] {
        let service = message.serviceType
        switch opcode {
        case .heartbeat:
            return [control(.heartbeatACK, service: .control, messageID: message.messageID)]
        case .startServiceACK, .startServiceNAK:
            guard settle(Exchange(service: service, request: .startService)) else { return [unexpected(message)] }
            if service == .rpc, case .starting = phase { return try negotiated(message) }
            let answer = try answer(message, accepted: opcode == .startServiceACK)
            if answer.accepted {
                if service != .rpc { runningMediaServices.insert(service) }
                if answer.isEncrypted { protectedServices.insert(service) }
            }
            return [.answered(Exchange(service: service, request: .startService), answer)]
        case .endServiceACK, .endServiceNAK:
            guard settle(Exchange(service: service, request: .endService)) else { return [unexpected(message)] }
            return [.answered(Exchange(service: service, request: .endService), try answer(message, accepted: opcode == .endServiceACK))]
        case .endService where service == .rpc && protectingRPC:
            // SDL Core ends the protected RPC service it refused (then NAKs the start): the
            // plain one goes on.
            return [control(.endServiceACK, service: .rpc, messageID: message.messageID)]
        case .endService where service == .rpc:
            phase = .closed
            return [control(.endServiceACK, service: .rpc, messageID: message.messageID), .close(.endedByPeer)]
        case .endService:
            // The service is closed to streamed media before the ACK is written, so no frame
            // the app has not yet heard of follows it (SDL Core would unregister the app).
            runningMediaServices.remove(service)
            protectedServices.remove(service)
            return [control(.endServiceACK, service: service, messageID: message.messageID), .serviceEndedByPeer(service)]
        default:
            // HeartbeatACK (any traffic counts), TransportEventUpdate, legacy ServiceDataACK.
            return []
        }
    }

    private func unexpected(_ message: SDLProtocolMessage) -> Action {
        .ignored(
            SDLFrameHeader(
                version: message.version, frameType: .control, serviceType: message.serviceType, frameInfo: message.controlFrameType?.rawValue ?? 0,
                sessionID: message.sessionID, messageID: message.messageID),
            reason: "an answer nothing waits for")
    }

    /// An ACK's payload must decode (protocol 5); a NAK's is read as far as it goes.
    private func answer(_ message: SDLProtocolMessage, accepted: Bool) throws(SDLProtocolError) -> Answer {
        var parameters = SDLControlPayload()
        if hasControlPayloads, !message.payload.isEmpty {
            if accepted {
                parameters = try SDLControlPayload(decoding: message.payload)
            } else {
                parameters = (try? SDLControlPayload(decoding: message.payload)) ?? parameters
            }
        }
        return Answer(accepted: accepted, isEncrypted: message.isEncrypted, parameters: parameters)
    }

    /// The RPC StartServiceACK or NAK: the version is the lower of both ends'; protocol 5 takes
    /// the ACK's `protocolVersion` (the header's major when it is not a version) and `mtu`.
    private mutating func negotiated(_ reply: SDLProtocolMessage) throws(SDLProtocolError) -> [Action] {
        let offered = settings.protocolVersion
        guard reply.controlFrameType == .startServiceACK else {
            phase = .closed
            return [.sessionRefused((try? SDLControlPayload(decoding: reply.payload)) ?? SDLControlPayload())]
        }
        guard (1...5).contains(reply.version) else { throw .unsupportedVersion(reply.version) }
        let session: SDLNegotiatedSession
        if reply.version >= 5 && offered.hasControlPayloads {
            let details = try SDLControlPayload(decoding: reply.payload)
            let version = min(details.protocolVersion.flatMap(SDLProtocolVersion.init) ?? SDLProtocolVersion(reply.version), offered)
            var mtu = version.defaultMTU
            if let offeredMTU = details.mtu {
                guard SDLFramer.acceptedMTURange.contains(offeredMTU) else { throw .invalidMTU(offeredMTU) }
                mtu = Int(offeredMTU)
            }
            session = SDLNegotiatedSession(protocolVersion: version, sessionID: reply.sessionID, hashID: details.hashID, mtu: mtu, details: details)
        } else {
            let version = SDLProtocolVersion(min(offered.major, reply.version))
            session = SDLNegotiatedSession(
                protocolVersion: version, sessionID: reply.sessionID, hashID: SDLControlPayload.legacyHash(from: reply.payload), mtu: version.defaultMTU,
                details: nil)
        }
        phase = .started
        self.session = session
        (frameVersion, sessionID, mtu) = (session.majorVersion, session.sessionID, session.mtu)
        // Heartbeats from protocol 3, counted from the ACK's arrival.
        if let interval = settings.heartbeatInterval, session.majorVersion >= 3 { deadlines[.heartbeat] = lastReceived + interval }
        return [.sessionStarted(session)]
    }
}
