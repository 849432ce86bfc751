import SDLRuntime

/// The rules of one SDL session, for either end, as a value: version negotiation, starting and
/// ending services, heartbeats, the security-query handshake, protected records, frame limits
/// and session IDs. It does no I/O and never waits: each event (bytes read, a call of the app,
/// a decision of the head unit, a timer) is a synchronous `mutating` transition that returns the
/// actions its driver performs in order (write these bytes, deliver this RPC, encrypt this
/// message, ask the head unit, close). The app's `SDLProtocolSession` and the emulator's
/// connection are two such drivers; because the state changes before any action runs, nothing
/// can interleave between a decision and the write it makes.
public struct SDLSessionStateMachine: Sendable {
    /// Which end this is.
    public enum Role: Sendable, Hashable {
        /// The app: starts the session, negotiates down to the head unit's version, answers the
        /// head unit's TLS ClientHello.
        case app
        /// The head unit: assigns the session, enforces the MTU and malformed-frame limits,
        /// drives the TLS handshake as its client, decides services through its driver.
        case headUnit
    }

    /// What an end offers and enforces.
    public struct Settings: Sendable {
        /// The highest protocol version this end speaks (the head unit offers the lower of the
        /// app's and this).
        public var protocolVersion = SDLProtocolVersion.latest
        /// Frames longer than this are refused before they are buffered.
        public var maxFrameDataSize = SDLFrameDecoder.defaultMaxDataSize
        /// The largest message joined from several frames.
        public var maxMessageSize = SDLReassembler.defaultMaxMessageSize
        /// RPC function names and IDs, for protocol 1's binary envelope.
        public var functions: SDLFunctionTable

        // Head unit only.
        /// The session ID the head unit assigns.
        public var sessionID: UInt8 = 1
        /// The hash sent in the RPC StartServiceACK and checked by EndService(RPC).
        public var hashID: Int32 = 0
        /// The payload bytes per frame the head unit accepts and sends; larger frames from the app
        /// are dropped (as SDL Core does).
        public var mtu = SDLFramer.defaultMaxPayloadSize
        /// Vehicle details and transports for the RPC StartServiceACK (make, model...).
        public var startParameters = SDLControlPayload()
        /// A cloud app's token, sent in the RPC StartServiceACK from protocol 5.2.
        public var authToken: String?
        /// Whether protected services can be asked for at all: without it a video or audio
        /// service asked for protected starts in plain text.
        public var supportsProtection = false
        /// More malformed frames than this within a second close the connection (SDL Core's
        /// MalformedMessageFiltering); fewer are dropped silently.
        public var malformedLimit = 10

        // App only.
        /// Send a heartbeat after this long without traffic (protocol 3 and later); nil only answers.
        public var heartbeatInterval: Duration?
        /// A heartbeat unanswered this long ends the session.
        public var heartbeatTimeout: Duration = .seconds(7)
        /// How long a start or end of a service waits for its answer.
        public var controlTimeout: Duration = .seconds(10)

        /// Settings with the default version and limits, for `functions`' RPC names.
        public init(functions: SDLFunctionTable) {
            self.functions = functions
        }
    }

    /// One control exchange this end started: a start or end of a service.
    public struct Exchange: Hashable, Sendable {
        /// The service started or ended.
        public var service: SDLServiceType
        /// `.startService` or `.endService`.
        public var request: SDLControlFrameType
        /// An exchange from its parts.
        public init(service: SDLServiceType, request: SDLControlFrameType) {
            self.service = service
            self.request = request
        }
    }

    /// The other end's answer to an exchange.
    public struct Answer: Hashable, Sendable {
        /// ACK (true) or NAK.
        public var accepted: Bool
        /// Whether the ACK carried the encryption bit (a protected start that succeeded).
        public var isEncrypted: Bool
        /// The answer's control payload (empty before protocol 5).
        public var parameters: SDLControlPayload
    }

    /// Why the session ends, as far as the protocol knows.
    public enum CloseCause: Hashable, Sendable {
        /// The other end ended the RPC service.
        case endedByPeer
        /// The head unit stopped answering heartbeats.
        case heartbeatTimeout
        /// Too many malformed frames within a second.
        case malformedFrames
        /// The head unit did not answer StartService(RPC) in time.
        case startTimedOut
    }

    /// Something the session waits for until a time.
    public enum Deadline: Hashable, Sendable {
        /// The next heartbeat check.
        case heartbeat
        /// The answer to an exchange.
        case exchange(Exchange)
    }

    /// What the driver does, in order.
    public enum Action: Hashable, Sendable {
        /// Write these bytes (one or more whole frames).
        case write([UInt8])
        /// Encrypt the message with the security provider (a record per frame, a control
        /// frame's payload as one record) and write it.
        case writeEncrypted(SDLProtocolMessage)
        /// An RPC message for the layer above, decoded (protocol 1's envelope unwrapped).
        case deliverRPC(SDLRPCPayload, service: SDLServiceType, isEncrypted: Bool)
        /// Audio or video data.
        case deliverMedia(SDLProtocolMessage)
        /// App: the RPC service started; the session is negotiated.
        case sessionStarted(SDLNegotiatedSession)
        /// App: the head unit refused the RPC service.
        case sessionRefused(SDLControlPayload)
        /// An exchange of `start...`/`end...` got its answer.
        case answered(Exchange, Answer)
        /// The other end ended this media service (acknowledged); nothing more may be sent on it.
        case serviceEndedByPeer(SDLServiceType)
        /// TLS bytes for the security provider; report with `handshakeStepped` or `handshakeFailed`.
        case continueHandshake([UInt8], sequenceNumber: UInt32)
        /// The other end reported a security error (or gave up the handshake).
        case peerSecurityError(SDLSecurityError)
        /// Head unit: make a security provider and its ClientHello; report with
        /// `handshakeStarted` or `handshakeFailed`.
        case startHandshake
        /// Head unit: may this protected start go ahead? Report with `protectionChecked`.
        case checkProtection(SDLServiceType)
        /// Head unit: should this video or audio service start? Report with `streamingDecided`.
        case decideStreaming(SDLServiceType, request: SDLControlPayload?, isProtected: Bool)
        /// Head unit: may this video or audio service end? Report with `endStreamingDecided`.
        case decideEndStreaming(SDLServiceType)
        /// Head unit: the app ended its RPC service (the app unregisters; the transport stays).
        case sessionEnded
        /// Head unit: the protected RPC service was refused (the app goes to NONE).
        case protectionRefused
        /// Nothing was done with this frame; `reason` says why, for the log.
        case ignored(SDLFrameHeader, reason: String)
        /// An exchange got no answer in time (it is forgotten; a late answer is ignored).
        case exchangeTimedOut(Exchange)
        /// End the session, after the writes before it.
        case close(CloseCause)
    }

    /// A call this end may not make now.
    public enum Refusal: Error, Hashable, Sendable {
        /// Before the RPC service started.
        case notStarted
        /// After the session ended (or while the app closes it).
        case closed
        /// The same exchange is already waiting for its answer.
        case busy(SDLServiceType)
        /// Streamed media for a service that is not running.
        case serviceNotRunning(SDLServiceType)
    }

    /// Where the session is.
    public enum Phase: Hashable, Sendable {
        /// Nothing sent or received yet.
        case idle
        /// App: StartService(RPC) sent, waiting for the answer.
        case starting
        /// The RPC service runs (`session` holds its terms).
        case started
        /// App: EndService(RPC) sent, waiting for the end.
        case closing
        /// Over.
        case closed
    }

    /// How far the TLS handshake got.
    enum Handshake: Hashable, Sendable { case none, underway, complete }

    /// This end.
    public let role: Role
    /// The settings it was made with.
    public let settings: Settings
    /// Where the session is.
    public internal(set) var phase = Phase.idle
    /// Services started protected (acknowledged with the encryption bit).
    public internal(set) var protectedServices: Set<SDLServiceType> = []
    /// Audio and video services started and not ended by either side.
    public internal(set) var runningMediaServices: Set<SDLServiceType> = []
    /// The last security failure: the other end's internal error or our provider's.
    public internal(set) var securityFailure: SDLSecurityError?
    /// Whether protected records may be decrypted: always on the app's end (its provider decides),
    /// on the head unit's once its handshake is complete.
    public var acceptsRecords: Bool { role == .app || handshake == .complete }

    var decoder: SDLFrameDecoder
    var reassembler: SDLReassembler
    var nextMessageID: UInt32 = 1
    /// Exchanges waiting for their answer.
    var pending: Set<Exchange> = []
    /// The head unit's view of the app's protocol: 0 until the app starts the session, then 5
    /// or 4, and 1 for a protocol-1 app.
    var version: UInt8 = 1 {
        didSet { frameVersion = max(version, 1) }
    }
    /// Head unit: the RPC service runs (a second StartService for it is refused).
    var rpcStarted = false
    /// App: a protected start of the RPC service is waiting; an EndService(RPC) then ends the
    /// protection attempt (SDL Core's answer to a refused certificate), not the session.
    var protectingRPC = false
    var handshake = Handshake.none
    /// Head unit: protected starts waiting for the handshake.
    var waitingForProtection: [SDLProtocolMessage] = []
    /// Head unit: when the recent malformed frames came.
    var malformedFrames: [Duration] = []
    /// Head unit: correlation IDs of requests that came encrypted; their responses go out encrypted.
    var encryptedRequests: Set<UInt32> = []
    /// App: when anything was last received, and when the unanswered heartbeat went out.
    var lastReceived = Duration.zero
    var heartbeatSentAt: Duration?
    /// When each wait ends; `deadlinesPassed(now:)` acts on those that did.
    public internal(set) var deadlines: [Deadline: Duration] = [:]

    /// A session's rules for `role`, nothing happened yet.
    public init(role: Role, settings: Settings) {
        self.role = role
        self.settings = settings
        decoder = SDLFrameDecoder(maxDataSize: settings.maxFrameDataSize)
        reassembler = SDLReassembler(maxMessageSize: settings.maxMessageSize)
        if role == .headUnit {
            version = 0
            sessionID = settings.sessionID
            mtu = settings.mtu
        }
    }

    /// The terms of the running session (also while the app closes it, and after).
    public internal(set) var session: SDLNegotiatedSession?

    // The negotiated terms every frame needs, kept apart from `session` so that framing one
    // does not copy the negotiated session (and its control payload) each time.
    /// The version frames are written with (the head unit: 1 until the app starts the session).
    var frameVersion: UInt8 = 1
    /// The session ID frames carry.
    var sessionID: UInt8 = 0
    /// The payload bytes per frame.
    var mtu = SDLFramer.defaultMaxPayloadSize
    var hasControlPayloads: Bool { frameVersion >= 5 }
    /// Whether frames must carry this session's ID (the RPC service runs).
    var isSessionRunning: Bool { role == .headUnit ? rpcStarted : phase == .started || phase == .closing }

    mutating func takeMessageID() -> UInt32 {
        defer { nextMessageID = nextMessageID == .max ? 1 : nextMessageID + 1 }
        return nextMessageID
    }

    // MARK: Reading

    /// One frame read and checked, before it is joined into a message.
    public enum Inbound: Hashable, Sendable {
        /// A frame to pass to `receive(_:)`.
        case frame(SDLFrame)
        /// A protected record: decrypt its payload, then pass the frame to `receive(_:)`.
        case record(SDLFrame)
        /// Dropped; the actions say what follows (an internal error, a close, a log line).
        case dropped(SDLFrame, [Action])
    }

    /// Bytes from the transport, to be read with `nextFrame(now:)`. Any traffic answers the
    /// app's heartbeat (the clock is read only when heartbeats are on).
    public mutating func append(_ bytes: [UInt8], now: @autoclosure () -> Duration) {
        decoder.append(bytes)
        guard role == .app, let interval = settings.heartbeatInterval else { return }
        lastReceived = now()
        if heartbeatSentAt != nil {
            heartbeatSentAt = nil
            deadlines[.heartbeat] = lastReceived + interval
        }
    }

    /// The earliest deadline, for the driver's one timer.
    public var nextDeadline: Duration? { deadlines.values.min() }

    /// The clock passed deadlines: exchanges time out (StartService(RPC) ends the session),
    /// the heartbeat is checked.
    public mutating func deadlinesPassed(now: Duration) -> [Action] {
        var actions: [Action] = []
        for (deadline, time) in deadlines where time <= now {
            deadlines[deadline] = nil
            switch deadline {
            case .heartbeat:
                actions += heartbeatDue(now: now)
            case .exchange(let exchange):
                guard pending.remove(exchange) != nil else { continue }
                if exchange == Exchange(service: .rpc, request: .startService), case .starting = phase {
                    phase = .closed
                    actions.append(.close(.startTimedOut))
                } else {
                    actions.append(.exchangeTimedOut(exchange))
                }
            }
        }
        return actions
    }

    /// The next frame of what was appended, nil when more bytes are needed. Throws what makes
    /// the byte stream unreadable (the session ends with it).
    public mutating func nextFrame(now: @autoclosure () -> Duration) throws(SDLProtocolError) -> Inbound? {
        guard let frame = try decoder.nextFrame() else { return nil }
        let header = frame.header
        if role == .headUnit {
            // SDL Core drops a frame whose payload exceeds the MTU, silently.
            if frame.payload.count > settings.mtu { return .dropped(frame, [.ignored(header, reason: "payload beyond the MTU")]) }
            // A service type or version Core does not know is malformed: dropped without an
            // answer, the connection closed after too many.
            if !Self.knownServices.contains(header.serviceType) || header.version > 5 {
                let now = now()
                malformedFrames.append(now)
                malformedFrames.removeAll { now - $0 > .seconds(1) }
                guard malformedFrames.count > settings.malformedLimit else { return .dropped(frame, [.ignored(header, reason: "malformed")]) }
                phase = .closed
                return .dropped(frame, [.close(.malformedFrames)])
            }
        }
        let isStart = header.controlFrameType == .startService
        if !isStart, isSessionRunning, header.sessionID != sessionID {
            return .dropped(frame, [.ignored(header, reason: "a frame for session \(header.sessionID), not \(sessionID)")])
        }
        // A first frame carries the sizes in plain text, and a protected StartService its
        // parameters; the head unit's protected ACK carries one record.
        guard header.isEncrypted, !frame.payload.isEmpty, header.serviceType != .control,
            header.frameType == .control ? role == .app : header.frameType != .first
        else { return .frame(frame) }
        guard acceptsRecords else {
            return .dropped(frame, [securityQuery(.internalError(.serviceNotProtected, text: "encrypted data on a service that is not protected"))])
        }
        return .record(frame)
    }

    /// The action for a record that did not decrypt: the other end is told.
    public mutating func recordUndecryptable(_ error: any Error) -> Action {
        securityQuery(.internalError(.decryptionFailed, text: "\(error)"))
    }

    /// The service types SDL Core's header validation knows; a frame of another is malformed.
    static let knownServices: Set<SDLServiceType> = [.control, .rpc, .audio, .video, .hybrid]

    /// A frame (decrypted if it was a record): joins it into its message and applies the rules.
    public mutating func receive(_ frame: SDLFrame) throws(SDLProtocolError) -> [Action] {
        guard let message = try reassembler.receive(frame) else { return [] }
        if let opcode = message.controlFrameType {
            return try role == .app ? appControl(opcode, message) : headUnitControl(opcode, message)
        }
        switch message.serviceType {
        case .rpc, .hybrid:
            let rpc: SDLRPCPayload
            if message.version == 1 {
                // An app that speaks only protocol 1 keeps version-1 headers after the ACK.
                if role == .headUnit { version = 1 }
                rpc = try SDLProtocolOneEnvelope.decode(message.payload, functions: settings.functions)
            } else {
                rpc = try SDLRPCPayload(decoding: message.payload)
            }
            if role == .headUnit, message.isEncrypted, rpc.rpcType == .request { encryptedRequests.insert(rpc.correlationID) }
            return [.deliverRPC(rpc, service: message.serviceType, isEncrypted: message.isEncrypted)]
        case .control:
            // A single frame on the control service is a security query (the TLS handshake).
            return securityQueryReceived(message.payload)
        case .audio, .video:
            return [.deliverMedia(message)]
        default:
            return [.ignored(frame.header, reason: "a message of service \(message.serviceType)")]
        }
    }

    // MARK: Writing

    /// The frames of an RPC message: on the RPC service, or the hybrid one when it carries
    /// binary data (as both SDL Core and the SDKs send a PutFile or a GetFile response).
    /// A head unit encrypts a response whose request came encrypted.
    public mutating func sendRPC(_ rpc: SDLRPCPayload, encrypted: Bool = false) throws(SDLProtocolError) -> Action {
        let service: SDLServiceType = rpc.bulkData.isEmpty || frameVersion < 2 ? .rpc : .hybrid
        var encrypt = encrypted
        if role == .headUnit {
            encrypt = rpc.rpcType == .response && encryptedRequests.remove(rpc.correlationID) != nil && handshake == .complete
        }
        let version = frameVersion
        if version >= 2, !encrypt, rpc.encodedSize <= mtu {
            // One frame, built in one buffer: a PutFile chunk is copied once on its way out.
            let header = SDLFrameHeader(
                version: version, frameType: .single, serviceType: service, sessionID: sessionID,
                dataSize: UInt32(truncatingIfNeeded: rpc.encodedSize), messageID: takeMessageID())
            var bytes: [UInt8] = []
            bytes.reserveCapacity(header.size + rpc.encodedSize)
            header.append(to: &bytes)
            rpc.append(to: &bytes)
            return .write(bytes)
        }
        let payload = version == 1 ? try SDLProtocolOneEnvelope.encode(rpc, functions: settings.functions) : rpc.bytes
        return send(payload, service: service, encrypted: encrypt)
    }

    /// The frames of one message on `service` (media, a security query...).
    public mutating func send(_ payload: [UInt8], service: SDLServiceType, encrypted: Bool = false) -> Action {
        let message = SDLProtocolMessage(
            version: frameVersion, serviceType: service, sessionID: sessionID, messageID: takeMessageID(), isEncrypted: encrypted,
            payload: payload)
        if encrypted { return .writeEncrypted(message) }
        var bytes: [UInt8] = []
        SDLFramer.encode(message, maxPayloadSize: mtu, into: &bytes)
        return .write(bytes)
    }

    /// Several media messages for a running service, in one write; refused (nothing sent) when
    /// the service is not running, as SDL Core unregisters an app that streams on one.
    public mutating func sendStreamedMedia(_ messages: [[UInt8]], service: SDLServiceType, encrypted: Bool) throws(Refusal) -> [Action] {
        guard runningMediaServices.contains(service) else { throw .serviceNotRunning(service) }
        if encrypted { return messages.map { send($0, service: service, encrypted: true) } }
        let mtu = self.mtu
        var bytes: [UInt8] = []
        bytes.reserveCapacity(messages.reduce(0) { $0 + $1.count + 12 * (1 + $1.count / max(1, mtu)) } + 12)
        for payload in messages {
            let message = SDLProtocolMessage(
                version: frameVersion, serviceType: service, sessionID: sessionID, messageID: takeMessageID(), payload: payload)
            SDLFramer.encode(message, maxPayloadSize: mtu, into: &bytes)
        }
        return [.write(bytes)]
    }

    /// A control frame of this session.
    mutating func control(
        _ opcode: SDLControlFrameType, service: SDLServiceType, payload: [UInt8] = [], messageID: UInt32? = nil, encrypted: Bool = false
    ) -> Action {
        let message = SDLProtocolMessage(
            version: frameVersion, serviceType: service, sessionID: sessionID, messageID: messageID ?? takeMessageID(),
            isEncrypted: encrypted, controlFrameType: opcode, payload: payload)
        // A protected ACK's payload is one record; a protected StartService's parameters are
        // plain (no handshake yet).
        if encrypted && !payload.isEmpty && role == .headUnit { return .writeEncrypted(message) }
        var bytes: [UInt8] = []
        SDLFramer.encode(message, maxPayloadSize: .max, into: &bytes)
        return .write(bytes)
    }

    /// A control payload when the version has them, else nothing.
    func body(_ parameters: SDLControlPayload) -> [UInt8] { hasControlPayloads ? parameters.bytes : [] }

    // MARK: Security queries

    mutating func securityQuery(_ query: SDLSecurityQuery) -> Action {
        send(query.encoded, service: .control)
    }

    mutating func securityQueryReceived(_ bytes: [UInt8]) -> [Action] {
        let query: SDLSecurityQuery
        do {
            query = try SDLSecurityQuery(decoding: bytes)
        } catch {
            return [securityQuery(.internalError(.invalidQuerySize, text: error.description))]
        }
        switch query.id {
        case .sendHandshakeData:
            if role == .headUnit, handshake != .underway {
                return [securityQuery(.internalError(.serviceNotProtected, text: "no handshake is under way", sequenceNumber: query.sequenceNumber))]
            }
            return [.continueHandshake(query.binary, sequenceNumber: query.sequenceNumber)]
        case .sendInternalError:
            let text = (try? SDLJSONValue(parsing: query.json))?["text"].flatMap { if case .string(let text) = $0 { text } else { nil } }
            let failure = SDLSecurityError(query.errorCode ?? .internalError, text ?? "the other end reported an error")
            if role == .app {
                securityFailure = failure
                return [.peerSecurityError(failure)]
            }
            // The app gave up on the handshake: the waiting starts fail.
            guard handshake == .underway else { return [] }
            return [.peerSecurityError(failure)] + handshakeFailed(failure, sequenceNumber: query.sequenceNumber, tell: false)
        default:
            return [securityQuery(.internalError(.invalidQueryID, text: "unknown \(query.id)", sequenceNumber: query.sequenceNumber))]
        }
    }

    /// A `continueHandshake` step's outcome: `handshakeStepped` or `handshakeFailed`.
    public mutating func handshakeProgressed(_ result: Result<SDLHandshakeStep, SDLSecurityError>, sequenceNumber: UInt32) -> [Action] {
        switch result {
        case .success(let step): handshakeStepped(step, sequenceNumber: sequenceNumber)
        case .failure(let error): handshakeFailed(error, sequenceNumber: sequenceNumber)
        }
    }

    /// The security provider took the other end's bytes: its answer goes back (the app answers
    /// with the request's number; the head unit, the TLS client, keeps number 1). A complete
    /// handshake lets the head unit's waiting protected starts go ahead.
    public mutating func handshakeStepped(_ step: SDLHandshakeStep, sequenceNumber: UInt32) -> [Action] {
        var actions: [Action] = []
        if !step.outgoing.isEmpty {
            let query: SDLSecurityQuery =
                role == .app
                ? .handshake(step.outgoing, type: .response, sequenceNumber: sequenceNumber) : .handshake(step.outgoing, type: .request, sequenceNumber: 1)
            actions.append(securityQuery(query))
        }
        guard role == .headUnit, step.isComplete, handshake == .underway else { return actions }
        handshake = .complete
        let waiting = waitingForProtection
        waitingForProtection = []
        for start in waiting { actions += acceptProtected(start) }
        return actions
    }

    /// The security provider failed: the other end gets the internal error; on the head unit,
    /// the waiting protected starts are refused (the RPC service: EndService, then a NAK) or,
    /// for video and audio, started in plain text.
    public mutating func handshakeFailed(_ error: SDLSecurityError, sequenceNumber: UInt32, tell: Bool = true) -> [Action] {
        securityFailure = error
        var actions: [Action] = tell ? [securityQuery(.internalError(error.code, text: error.message, sequenceNumber: sequenceNumber))] : []
        guard role == .headUnit else { return actions }
        handshake = .none
        let waiting = waitingForProtection
        waitingForProtection = []
        let certificate = error.code == .invalidCertificate || error.code == .expiredCertificate
        for start in waiting {
            if start.serviceType == .rpc {
                actions.append(control(.endService, service: .rpc))
                actions += refuseProtection(start, reason: certificate ? "Invalid certificate: \(error.message)" : "Handshake failed: \(error.message)")
                actions.append(.protectionRefused)
            } else {
                actions.append(.decideStreaming(start.serviceType, request: Self.parameters(start), isProtected: false))
            }
        }
        return actions
    }

    static func parameters(_ message: SDLProtocolMessage) -> SDLControlPayload? {
        message.payload.isEmpty ? nil : try? SDLControlPayload(decoding: message.payload)
    }
}

/// What the head unit agreed to when the RPC service started.
public struct SDLNegotiatedSession: Sendable, Hashable {
    /// The version both sides speak: the lower of the app's and the head unit's. For protocol
    /// 1–4 head units, `major.0.0`.
    public var protocolVersion: SDLProtocolVersion
    /// The session ID the head unit assigned; every frame of the session carries it.
    public var sessionID: UInt8
    /// v5: `hashId`; v1–4: the 4 raw ACK bytes read big-endian.
    public var hashID: Int32?
    /// Payload bytes per frame, within `SDLFramer.acceptedMTURange`.
    public var mtu: Int
    /// The whole StartServiceACK payload (vehicle info, transports...), for protocol 5.
    public var details: SDLControlPayload?

    /// The terms of a started session.
    public init(protocolVersion: SDLProtocolVersion, sessionID: UInt8, hashID: Int32?, mtu: Int, details: SDLControlPayload?) {
        self.protocolVersion = protocolVersion
        self.sessionID = sessionID
        self.hashID = hashID
        self.mtu = mtu
        self.details = details
    }

    /// The major version every later frame header carries.
    public var majorVersion: UInt8 { protocolVersion.major }
}
