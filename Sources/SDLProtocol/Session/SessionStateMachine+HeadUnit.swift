/// The head unit's end, as SDL Core 8.2 answers: it assigns the session, negotiates down to its
/// own version, checks the session hash, and runs the TLS handshake as the client. What only the
/// head unit's policies know (may this app stream, protect, end a stream) is asked of its driver.
extension SDLSessionStateMachine {
    mutating func headUnitControl(_ opcode: SDLControlFrameType, _ message: SDLProtocolMessage) throws(SDLProtocolError) -> [Action] {
        let service = message.serviceType
        switch opcode {
        case .heartbeat:
            // SDL Core answers heartbeats of a started session of protocol 3 to 5 only.
            guard (3...5).contains(version) else { return [] }
            return [control(.heartbeatACK, service: .control, messageID: message.messageID)]
        case .startService where message.isEncrypted && !(service == .rpc && version == 0):
            return protectedStartRequested(message)
        case .startService where service == .rpc && rpcStarted && message.sessionID != 0:
            // The session already has its RPC service (a session ID of 0 would ask for a new
            // session instead).
            var nak = SDLControlPayload()
            nak.reason = "Cannot start an unprotected service of type 7. Session \(settings.sessionID) already has an unprotected service of type 7"
            return [control(.startServiceNAK, service: .rpc, payload: body(nak))]
        case .startService where service == .rpc:
            return [rpcStarted(message)]
        case .startService where service == .video || service == .audio:
            return [.decideStreaming(service, request: Self.parameters(message), isProtected: false)]
        case .startService:
            var ack = SDLControlPayload()
            ack.mtu = Int64(settings.mtu)
            return [control(.startServiceACK, service: service, payload: body(ack))]
        case .endService where service == .rpc:
            guard Self.endsSession(hash: message.payload, version: version, sessionHash: settings.hashID) else {
                var nak = SDLControlPayload()
                nak.rejectedParams = ["hashId"]
                nak.reason = "Wrong hash_id for session \(settings.sessionID)"
                return [control(.endServiceNAK, service: service, payload: body(nak))]
            }
            rpcStarted = false
            return [control(.endServiceACK, service: service), .sessionEnded]
        case .endService where service == .video || service == .audio:
            return [.decideEndStreaming(service)]
        case .endService:
            return [control(.endServiceACK, service: service)]
        default:
            return []
        }
    }

    /// The RPC StartServiceACK: Core offers the lower of the app's version and its own; an app
    /// without a control payload (before protocol 5) gets protocol 4 and the raw hash.
    private mutating func rpcStarted(_ message: SDLProtocolMessage) -> Action {
        rpcStarted = true
        guard let offered = Self.parameters(message)?.protocolVersion else {
            version = 4
            return control(.startServiceACK, service: .rpc, payload: SDLControlPayload.legacyHashBytes(settings.hashID), messageID: 0)
        }
        version = 5
        // A version past 5.x (which the version type cannot hold) is newer than Core's.
        let newer = offered.split(separator: ".").first.flatMap { Int($0) }.map { $0 > 5 } == true
        let appVersion = SDLProtocolVersion(offered) ?? (newer ? settings.protocolVersion : SDLProtocolVersion(5))
        var ack = settings.startParameters
        ack.protocolVersion = min(appVersion, settings.protocolVersion).description
        ack.hashID = settings.hashID
        ack.mtu = Int64(settings.mtu)
        // SDL Core sends a cloud app the policy table's auth_token from protocol 5.2.
        if appVersion >= SDLProtocolVersion(5, 2) { ack.authToken = settings.authToken }
        return control(.startServiceACK, service: .rpc, payload: ack.bytes, messageID: 0)
    }

    /// SDL Core's hash check of an EndService(RPC): a missing v5 `hashId` reads as -1 (wrong),
    /// 0 as "not supported" (accepted); before v5 the 4 bytes must be the hash, 0 included.
    public static func endsSession(hash payload: [UInt8], version: UInt8, sessionHash: Int32) -> Bool {
        switch version {
        case 0, 1: return true
        case 2...4: return SDLControlPayload.legacyHash(from: payload) == sessionHash
        default:
            let offered = (try? SDLControlPayload(decoding: payload))?.hashID ?? -1
            return offered == 0 || offered == sessionHash
        }
    }

    // MARK: Streaming services

    /// The head unit decided a video or audio start: an ACK with the MTU (with the encryption
    /// bit when protected) or a NAK with its reason.
    public mutating func streamingDecided(
        _ service: SDLServiceType, accepted parameters: SDLControlPayload?, refusal: (reason: String?, rejectedParams: [String]?)? = nil,
        isProtected: Bool
    ) -> Action {
        if let refusal {
            var nak = SDLControlPayload()
            nak.reason = refusal.reason
            nak.rejectedParams = refusal.rejectedParams
            return control(.startServiceNAK, service: service, payload: body(nak))
        }
        runningMediaServices.insert(service)
        if isProtected { protectedServices.insert(service) }
        var ack = parameters ?? SDLControlPayload()
        ack.mtu = Int64(settings.mtu)
        return control(.startServiceACK, service: service, payload: body(ack), encrypted: isProtected)
    }

    /// The head unit decided whether a running video or audio service may end.
    public mutating func endStreamingDecided(_ service: SDLServiceType, ended: Bool) -> Action {
        guard ended else { return control(.endServiceNAK, service: service, payload: body(SDLControlPayload())) }
        runningMediaServices.remove(service)
        protectedServices.remove(service)
        return control(.endServiceACK, service: service)
    }

    /// EndService from the head unit's side: a stream it stops, or the RPC service (exit, a
    /// language change). Nothing more is read after the RPC service's.
    public mutating func endFromHeadUnit(_ service: SDLServiceType) -> Action {
        runningMediaServices.remove(service)
        protectedServices.remove(service)
        return control(.endService, service: service)
    }

    // MARK: Protection

    /// What the head unit's policies say of a protected start.
    public enum ProtectionCheck: Hashable, Sendable {
        /// The handshake may run.
        case allowed
        /// Not possible (no security configured, the app not registered): refused, or a video
        /// or audio service started in plain text when protection is not supported at all.
        case refused(String)
        /// SDL Core cannot check certificate dates without the HMI's time: NAK, after ending
        /// the RPC service when it is the one asked for.
        case systemTimeNotReady
    }

    private mutating func protectedStartRequested(_ message: SDLProtocolMessage) -> [Action] {
        if handshake == .complete { return acceptProtected(message) }
        waitingForProtection.append(message)
        return [.checkProtection(message.serviceType)]
    }

    /// The head unit's answer to `checkProtection`: the handshake starts (unless one is under
    /// way), or the start is refused.
    public mutating func protectionChecked(_ service: SDLServiceType, _ check: ProtectionCheck) -> [Action] {
        guard let index = waitingForProtection.lastIndex(where: { $0.serviceType == service }) else { return [] }
        switch check {
        case .allowed:
            guard handshake == .none else { return [] }
            handshake = .underway
            return [.startHandshake]
        case .refused(let reason):
            return refuseProtection(waitingForProtection.remove(at: index), reason: reason)
        case .systemTimeNotReady:
            let message = waitingForProtection.remove(at: index)
            var nak = SDLControlPayload()
            nak.reason = "System time provider is not ready"
            return (service == .rpc ? [control(.endService, service: .rpc)] : [])
                + [control(.startServiceNAK, service: message.serviceType, payload: body(nak))]
        }
    }

    /// The head unit's ClientHello, sent as a request numbered 1 (SDL Core keeps the number).
    public mutating func handshakeStarted(clientHello: [UInt8]) -> Action {
        securityQuery(.handshake(clientHello, type: .request, sequenceNumber: 1))
    }

    mutating func acceptProtected(_ message: SDLProtocolMessage) -> [Action] {
        switch message.serviceType {
        case .rpc:
            // SDL Core's encrypted ACK carries hashId 0; the app keeps the first ACK's.
            protectedServices.insert(.rpc)
            var ack = SDLControlPayload()
            ack.hashID = 0
            return [control(.startServiceACK, service: .rpc, payload: body(ack), encrypted: true)]
        case .video, .audio:
            return [.decideStreaming(message.serviceType, request: Self.parameters(message), isProtected: true)]
        default:
            protectedServices.insert(message.serviceType)
            return [control(.startServiceACK, service: message.serviceType, encrypted: true)]
        }
    }

    mutating func refuseProtection(_ start: SDLProtocolMessage, reason: String) -> [Action] {
        if start.serviceType == .video || start.serviceType == .audio, !settings.supportsProtection {
            // Not forced: the service starts in plain text.
            return [.decideStreaming(start.serviceType, request: Self.parameters(start), isProtected: false)]
        }
        var nak = SDLControlPayload()
        nak.reason = reason
        return [control(.startServiceNAK, service: start.serviceType, payload: body(nak))]
    }
}
