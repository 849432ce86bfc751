import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// One app's connection to the emulator: the protocol side only (version negotiation, services,
/// heartbeats, frames, the RPC envelope). RPC requests go to the head unit, which answers
/// through `send(_:)`; the head unit's state lives there, not here.
actor EmulatedConnection {
    let id: Int
    let sessionID: UInt8
    /// The session hash sent in the RPC StartServiceACK, checked in EndService(RPC).
    let hashID: Int32
    private let transport: any SDLTransport
    private let configuration: SDLHeadUnitEmulator.Configuration
    /// A cloud app's token (the policy table's auth_token), sent in the RPC StartServiceACK.
    private let authToken: String?
    private weak var headUnit: SDLHeadUnitEmulator?

    private var decoder = SDLFrameDecoder()
    private var reassembler = SDLReassembler()
    /// The frame version this app speaks: 5 or 4 after StartService, 1 once a protocol-1 app's
    /// first RPC arrives with a version-1 header.
    private(set) var version: UInt8 = 0
    private var nextMessageID: UInt32 = 1
    private var ended = false
    /// Whether the session's RPC service runs: a second StartService for it is refused.
    private var rpcStarted = false
    /// When the last malformed frames came (SDL Core's MalformedMessageFiltering: more than
    /// `malformedLimit` within a second close the connection; fewer are dropped silently).
    private var malformedFrames: [Duration] = []
    static let malformedLimit = 10
    /// The service types SDL Core's frame header validation knows; a frame of another is malformed.
    static let knownServices: Set<SDLServiceType> = [.control, .rpc, .audio, .video, .hybrid]

    // The security handshake (SDL Core's security manager): one TLS client per connection.
    private var security: (any SDLSecurityProvider)?
    private var handshakeComplete = false
    /// Protected StartServices waiting for the handshake to end.
    private var waitingForProtection: [SDLProtocolMessage] = []
    /// Correlation IDs of requests that came encrypted: their responses go out encrypted.
    private var encryptedRequests: Set<UInt32> = []

    init(
        id: Int, sessionID: UInt8, hashID: Int32, transport: any SDLTransport, configuration: SDLHeadUnitEmulator.Configuration, headUnit: SDLHeadUnitEmulator,
        authToken: String? = nil
    ) {
        self.id = id
        self.authToken = authToken
        self.sessionID = sessionID
        self.hashID = hashID
        self.transport = transport
        self.configuration = configuration
        self.headUnit = headUnit
    }

    /// Reads until the app ends its session or the transport closes; the transport runs beside
    /// the reading and ends with it.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.transport.run() }
            await read()
        }
    }

    private func read() async {
        do {
            for try await chunk in transport.inbound {
                decoder.append(chunk)
                while var frame = try decoder.nextFrame() {
                    log("in", frame)
                    // SDL Core drops a frame whose payload exceeds the MTU, silently; the connection stays.
                    if frame.payload.count > configuration.mtu { continue }
                    // A frame of a service type or protocol version Core does not know is
                    // malformed: dropped without an answer, the connection closed after too many.
                    if !Self.knownServices.contains(frame.header.serviceType) || frame.header.version > 5 {
                        if malformed() { break }
                        continue
                    }
                    // A protected StartService carries its parameters in plain text; data frames
                    // (not a first frame) are records.
                    if frame.header.isEncrypted, !frame.payload.isEmpty, frame.header.frameType == .single || frame.header.frameType == .consecutive,
                       frame.header.serviceType != .control
                    {
                        guard let plaintext = await decrypt(frame.payload) else { continue }
                        frame = SDLFrame(header: frame.header, payload: plaintext)
                    }
                    if let message = try reassembler.receive(frame) {
                        // A message that came in several frames is logged once more, whole.
                        if frame.header.frameType == .consecutive { logMessage("in", message) }
                        try await handle(message)
                    }
                    if ended { break }
                }
                if ended { break }
            }
            configuration.log?(.object([.init(key: "event", value: .string("closed")), .init(key: "reason", value: .string(ended ? "session ended" : "the app closed the connection"))]))
        } catch {
            // The transport ending after the session did is how every session ends, not an error.
            let quiet = ended || (error as? SDLTransportError).map { $0 == .closed || $0 == .connectionReset } == true
            configuration.log?(.object([.init(key: "event", value: .string(quiet ? "closed" : "error")), .init(key: "reason", value: .string("\(error)"))]))
        }
        ended = true
        await transport.close()
    }

    /// Ends a streaming service from the head unit's side (the app went to NONE).
    func endService(_ service: SDLServiceType) async {
        guard !ended else { return }
        try? await sendControl(.endService, service: service, payload: [])
    }

    /// Ends the connection from the head unit's side (exit, language change, `/disconnect`).
    func close(endService: Bool) async {
        guard !ended else { return }
        if endService { try? await sendControl(.endService, service: .rpc, payload: []) }
        ended = true
        await transport.close()
    }

    // MARK: Control

    private func handle(_ message: SDLProtocolMessage) async throws {
        if let opcode = message.controlFrameType {
            try await handleControl(opcode, message)
            return
        }
        if message.serviceType == .control {
            try await receivedSecurityQuery(message.payload)
            return
        }
        if message.serviceType == .video || message.serviceType == .audio {
            await headUnit?.streamData(message.serviceType, payload: message.payload, on: self)
            return
        }
        guard message.serviceType == .rpc || message.serviceType == .hybrid else { return }
        let rpc: SDLRPCPayload
        if message.version == 1 {
            // An app that speaks only protocol 1 keeps version-1 headers after the ACK.
            version = 1
            rpc = try SDLProtocolOneEnvelope.decode(message.payload, functions: Self.functions)
        } else {
            rpc = try SDLRPCPayload(decoding: message.payload)
        }
        if message.isEncrypted, rpc.rpcType == .request { encryptedRequests.insert(rpc.correlationID) }
        await headUnit?.received(rpc, encrypted: message.isEncrypted, on: self)
    }

    private func handleControl(_ opcode: SDLControlFrameType, _ message: SDLProtocolMessage) async throws {
        switch opcode {
        case .startService where message.isEncrypted && !(message.serviceType == .rpc && version == 0):
            try await startProtected(message)
        case .startService where message.serviceType == .rpc && rpcStarted && message.sessionID != 0:
            // SDL Core: the session already has its RPC service (a session ID of 0 would ask
            // for a new session instead).
            var nak = SDLControlPayload()
            nak.reason = "Cannot start an unprotected service of type 7. Session \(sessionID) already has an unprotected service of type 7"
            try await sendControl(.startServiceNAK, service: .rpc, payload: version >= 5 ? nak.bytes : [])
        case .startService where message.serviceType == .rpc:
            rpcStarted = true
            let request = message.payload.isEmpty ? nil : try? SDLControlPayload(decoding: message.payload)
            if let offered = request?.protocolVersion {
                version = 5
                var ack = SDLControlPayload()
                // A version past 5.x (which this library's type cannot hold) is newer than Core's.
                let newer = offered.split(separator: ".").first.flatMap { Int($0) }.map { $0 > 5 } == true
                let appVersion = SDLProtocolVersion(offered) ?? (newer ? configuration.protocolVersion : SDLProtocolVersion(5))
                // Core offers the lower of the app's and its own (5.4.0); an app asking for a
                // newer protocol gets Core's.
                ack.protocolVersion = min(appVersion, configuration.protocolVersion).description
                ack.hashID = hashID
                ack.mtu = Int64(configuration.mtu)
                ack.secondaryTransports = []
                ack.audioServiceTransports = [1]
                ack.videoServiceTransports = [1]
                ack.make = "SDL"
                ack.model = "Generic"
                ack.modelYear = "2019"
                ack.trim = "SE"
                ack.systemSoftwareVersion = "12345_US"
                // SDL Core sends a cloud app the policy table's auth_token from protocol 5.2.
                if appVersion >= SDLProtocolVersion(5, 2) { ack.authToken = authToken }
                try await sendControl(.startServiceACK, service: .rpc, payload: ack.bytes, messageID: 0)
            } else {
                // An app without BSON gets protocol 4 and the raw hash, as SDL Core answers.
                version = 4
                try await sendControl(.startServiceACK, service: .rpc, payload: SDLControlPayload.legacyHashBytes(hashID), messageID: 0)
            }
        case .startService where message.serviceType == .video || message.serviceType == .audio:
            try await startStreaming(message, protected: false)
        case .startService:
            var ack = SDLControlPayload()
            if version >= 5 { ack.mtu = Int64(configuration.mtu) }
            try await sendControl(.startServiceACK, service: message.serviceType, payload: version >= 5 ? ack.bytes : [])
        case .endService:
            try await endService(message)
        case .heartbeat:
            try await sendControl(.heartbeatACK, service: .control, payload: [])
        default:
            break
        }
    }

    /// EndService as SDL Core answers it: the RPC service (the whole session) with the session's
    /// hash (v5 `hashId`, where 0 means "no hash" and is accepted; v2–4 the 4 raw bytes; v1 none),
    /// else EndServiceNAK with `rejectedParams` ["hashId"]; a video or audio service only while it
    /// runs. An ended RPC service unregisters the app (its resumption data kept, as after a drop)
    /// and leaves the transport open for a new session, as Core does.
    private func endService(_ message: SDLProtocolMessage) async throws {
        let service = message.serviceType
        if service == .rpc {
            if !Self.endsSession(hash: message.payload, version: version, sessionHash: hashID) {
                var nak = SDLControlPayload()
                nak.rejectedParams = ["hashId"]
                nak.reason = "Wrong hash_id for session \(sessionID)"
                try await sendControl(.endServiceNAK, service: service, payload: version >= 5 ? nak.bytes : [])
                return
            }
        } else if service == .video || service == .audio, await headUnit?.streamingEnded(service, on: self) != true {
            try await sendControl(.endServiceNAK, service: service, payload: version >= 5 ? SDLControlPayload().bytes : [])
            return
        }
        try await sendControl(.endServiceACK, service: service, payload: [])
        if service == .rpc {
            rpcStarted = false
            await headUnit?.sessionEnded(on: self)
        }
    }

    /// SDL Core's hash check of an EndService(RPC): a missing v5 `hashId` reads as -1 (wrong),
    /// 0 as "not supported" (accepted); before v5 the 4 bytes must be the hash, 0 included.
    static func endsSession(hash payload: [UInt8], version: UInt8, sessionHash: Int32) -> Bool {
        switch version {
        case 0, 1: return true
        case 2...4: return SDLControlPayload.legacyHash(from: payload) == sessionHash
        default:
            let offered = (try? SDLControlPayload(decoding: payload))?.hashID ?? -1
            return offered == 0 || offered == sessionHash
        }
    }

    /// Counts a malformed frame; true when there were more than `malformedLimit` in a second
    /// and the connection is to close.
    private func malformed() -> Bool {
        let now = configuration.clock.now
        malformedFrames.append(now)
        malformedFrames.removeAll { now - $0 > .seconds(1) }
        guard malformedFrames.count > Self.malformedLimit else { return false }
        configuration.log?(.object([.init(key: "event", value: .string("malformed")), .init(key: "reason", value: .string("more than \(Self.malformedLimit) malformed frames in a second"))]))
        ended = true
        return true
    }

    /// StartService for a video or audio service: the head unit decides; `protected` ACKs with
    /// the encryption bit (the handshake is done).
    private func startStreaming(_ message: SDLProtocolMessage, protected: Bool) async throws {
        guard let headUnit else { return }
        let request = message.payload.isEmpty ? nil : try? SDLControlPayload(decoding: message.payload)
        let (answer, effects) = await headUnit.startStreaming(message.serviceType, request: request, sessionID: sessionID, on: self)
        switch answer {
        case .accepted(let accepted):
            var ack = accepted ?? SDLControlPayload()
            ack.mtu = Int64(configuration.mtu)
            try await sendControl(.startServiceACK, service: message.serviceType, payload: version >= 5 ? ack.bytes : [], encrypted: protected)
        case .refused(let reason, let rejectedParams):
            var nak = SDLControlPayload()
            nak.reason = reason
            nak.rejectedParams = rejectedParams
            try await sendControl(.startServiceNAK, service: message.serviceType, payload: version >= 5 ? nak.bytes : [])
        }
        await headUnit.perform(effects)
    }

    // MARK: Security

    /// A StartService with the encryption bit: the handshake runs first (SDL Core is the TLS
    /// client and sends the ClientHello), then the service is acknowledged with the bit.
    private func startProtected(_ message: SDLProtocolMessage) async throws {
        if handshakeComplete {
            try await acceptProtected(message)
            return
        }
        guard let makeSecurity = configuration.security, let headUnit else {
            try await refuseProtection(message, reason: "Service type: \(message.serviceType.rawValue) protection is not supported by the head unit")
            return
        }
        guard let appID = await headUnit.appID(on: self) else {
            try await refuseProtection(message, reason: "the app is not registered")
            return
        }
        guard await headUnit.systemTimeReady else {
            // SDL Core cannot check certificate dates without the HMI's time: NAK, whatever the
            // service (the RPC service first ended, as for a refused certificate).
            if message.serviceType == .rpc { try await sendControl(.endService, service: .rpc, payload: []) }
            var nak = SDLControlPayload()
            nak.reason = "System time provider is not ready"
            try await sendControl(.startServiceNAK, service: message.serviceType, payload: version >= 5 ? nak.bytes : [])
            return
        }
        waitingForProtection.append(message)
        guard security == nil else { return }  // a handshake is under way
        do {
            let provider = try makeSecurity(appID)
            security = provider
            let hello = try await provider.startHandshake()
            // SDL Core sends its ClientHello as a request numbered 1 and keeps the number.
            try await sendSecurityQuery(.handshake(hello, type: .request, sequenceNumber: 1))
        } catch {
            try await handshakeFailed(error as? SDLSecurityError ?? SDLSecurityError(.internalError, "\(error)"), sequenceNumber: 1)
        }
    }

    private func receivedSecurityQuery(_ bytes: [UInt8]) async throws {
        let query: SDLSecurityQuery
        do {
            query = try SDLSecurityQuery(decoding: bytes)
        } catch {
            try await sendSecurityQuery(.internalError(.invalidQuerySize, text: error.description))
            return
        }
        switch query.id {
        case .sendHandshakeData:
            guard let security, !handshakeComplete else {
                try await sendSecurityQuery(.internalError(.serviceNotProtected, text: "no handshake is under way", sequenceNumber: query.sequenceNumber))
                return
            }
            do {
                let step = try await security.continueHandshake(with: query.binary)
                if !step.outgoing.isEmpty { try await sendSecurityQuery(.handshake(step.outgoing, type: .request, sequenceNumber: 1)) }
                guard step.isComplete else { return }
                handshakeComplete = true
                let waiting = waitingForProtection
                waitingForProtection = []
                for start in waiting { try await acceptProtected(start) }
            } catch {
                try await handshakeFailed(error as? SDLSecurityError ?? SDLSecurityError(.handshakeFailed, "\(error)"), sequenceNumber: query.sequenceNumber)
            }
        case .sendInternalError:
            // The app gave up on the handshake: the waiting starts fail.
            guard security != nil, !handshakeComplete else { return }
            try await handshakeFailed(SDLSecurityError(query.errorCode ?? .internalError, "the app reported an error"), sequenceNumber: query.sequenceNumber, tell: false)
        default:
            try await sendSecurityQuery(.internalError(.invalidQueryID, text: "unknown \(query.id)", sequenceNumber: query.sequenceNumber))
        }
    }

    /// As SDL Core: an internal error with the code, then the waiting starts are refused (the RPC
    /// service: EndService, then a NAK, and the app goes to NONE) or, for video and audio, started
    /// in plain text (an ACK without the bit).
    private func handshakeFailed(_ error: SDLSecurityError, sequenceNumber: UInt32, tell: Bool = true) async throws {
        security = nil
        if tell { try await sendSecurityQuery(.internalError(error.code, text: error.message, sequenceNumber: sequenceNumber)) }
        let waiting = waitingForProtection
        waitingForProtection = []
        let certificate = error.code == .invalidCertificate || error.code == .expiredCertificate
        for start in waiting {
            if start.serviceType == .rpc {
                try await sendControl(.endService, service: .rpc, payload: [])
                try await refuseProtection(start, reason: certificate ? "Invalid certificate: \(error.message)" : "Handshake failed: \(error.message)")
                if let headUnit { await headUnit.protectionRefused(on: self) }
            } else {
                try await startStreaming(start, protected: false)
            }
        }
    }

    private func acceptProtected(_ message: SDLProtocolMessage) async throws {
        switch message.serviceType {
        case .rpc:
            // SDL Core's encrypted ACK carries hashId 0; the app keeps the first ACK's.
            var ack = SDLControlPayload()
            ack.hashID = 0
            try await sendControl(.startServiceACK, service: .rpc, payload: version >= 5 ? ack.bytes : [], encrypted: true)
        case .video, .audio:
            try await startStreaming(message, protected: true)
        default:
            try await sendControl(.startServiceACK, service: message.serviceType, payload: [], encrypted: true)
        }
    }

    private func refuseProtection(_ message: SDLProtocolMessage, reason: String) async throws {
        if message.serviceType == .video || message.serviceType == .audio, configuration.security == nil {
            // Not forced: the service starts in plain text.
            try await startStreaming(message, protected: false)
            return
        }
        var nak = SDLControlPayload()
        nak.reason = reason
        try await sendControl(.startServiceNAK, service: message.serviceType, payload: version >= 5 ? nak.bytes : [])
    }

    /// The plaintext of a protected frame, or nil (an internal error told the app) when it does
    /// not decrypt.
    private func decrypt(_ payload: [UInt8]) async -> [UInt8]? {
        guard let security, handshakeComplete else {
            try? await sendSecurityQuery(.internalError(.serviceNotProtected, text: "encrypted data on a service that is not protected"))
            return nil
        }
        do {
            return try await security.decrypt(payload)
        } catch {
            try? await sendSecurityQuery(.internalError(.decryptionFailed, text: "\(error)"))
            return nil
        }
    }

    private func sendSecurityQuery(_ query: SDLSecurityQuery) async throws {
        let message = SDLProtocolMessage(version: max(version, 1), serviceType: .control, sessionID: sessionID, messageID: takeMessageID(), payload: query.encoded)
        try await send(SDLFramer.frames(for: message, maxPayloadSize: configuration.mtu))
    }

    static let functions = SDLFunctionTable(
        messages: MobileAPI.requests.map { $0 as any SDLMessage.Type } + MobileAPI.responses.map { $0 as any SDLMessage.Type }
            + MobileAPI.notifications.map { $0 as any SDLMessage.Type })

    // MARK: Sending

    /// Sends one RPC message; a closed connection drops it (the app is gone).
    func send(_ rpc: SDLRPCPayload) async {
        guard !ended else { return }
        do {
            let payload = version == 1 ? try SDLProtocolOneEnvelope.encode(rpc, functions: Self.functions) : rpc.bytes
            // SDL Core encrypts a response only when its request came encrypted.
            let encrypt = rpc.rpcType == .response && encryptedRequests.remove(rpc.correlationID) != nil && handshakeComplete
            // SDL Core sends a message with binary data (GetFile's response) on the hybrid service.
            let service: SDLServiceType = rpc.bulkData.isEmpty || version < 2 ? .rpc : .hybrid
            let message = SDLProtocolMessage(
                version: max(version, 1), serviceType: service, sessionID: sessionID, messageID: takeMessageID(), isEncrypted: encrypt, payload: payload)
            let frames = if encrypt, let security {
                try await SDLFramer.protectedFrames(for: message, maxPayloadSize: configuration.mtu, security: security)
            } else {
                SDLFramer.frames(for: message, maxPayloadSize: configuration.mtu)
            }
            try await send(frames)
            if frames.count > 1 { logMessage("out", message) }
        } catch {
            configuration.log?(.object([.init(key: "event", value: .string("error")), .init(key: "reason", value: .string("\(error)"))]))
        }
    }

    private func sendControl(
        _ opcode: SDLControlFrameType, service: SDLServiceType, payload: [UInt8], messageID: UInt32? = nil, encrypted: Bool = false
    ) async throws {
        // A protected ACK's payload is one record.
        let body = encrypted && !payload.isEmpty ? (try await security?.encrypt(payload) ?? payload) : payload
        let frame = SDLFrame(
            header: SDLFrameHeader(
                version: max(version, 1), isEncrypted: encrypted, frameType: .control, serviceType: service, frameInfo: opcode.rawValue,
                sessionID: sessionID, messageID: messageID ?? takeMessageID()),
            payload: body)
        try await send([frame])
    }

    private func send(_ frames: [SDLFrame]) async throws {
        var bytes: [UInt8] = []
        for frame in frames {
            log("out", frame)
            frame.append(to: &bytes)
        }
        try await transport.send(bytes)
    }

    private func takeMessageID() -> UInt32 {
        defer { nextMessageID &+= 1 }
        return nextMessageID
    }

    private func log(_ direction: String, _ frame: SDLFrame) {
        guard let log = configuration.log else { return }
        let header = frame.header
        var members: [SDLJSONValue.Member] = [
            .init(key: "direction", value: .string(direction)),
            .init(key: "version", value: .integer(Int(header.version))),
            .init(key: "frameType", value: .integer(Int(header.frameType.rawValue))),
            .init(key: "serviceType", value: .integer(Int(header.serviceType.rawValue))),
            .init(key: "frameInfo", value: .integer(Int(header.frameInfo))),
            .init(key: "sessionId", value: .integer(Int(header.sessionID))),
            .init(key: "messageId", value: .integer(Int(header.messageID))),
            .init(key: "dataSize", value: .integer(frame.payload.count)),
        ]
        if let control = header.controlFrameType { members.append(.init(key: "control", value: .string(control.description))) }
        if header.isEncrypted { members.append(.init(key: "encrypted", value: .bool(true))) }
        if header.frameType == .single, header.serviceType == .rpc || header.serviceType == .hybrid,
           let rpc = header.version == 1
               ? try? SDLProtocolOneEnvelope.decode(frame.payload, functions: Self.functions) : try? SDLRPCPayload(decoding: frame.payload)
        {
            members.append(contentsOf: SDLRecordedRPC.logMembers(rpc))
        }
        log(.object(members))
    }

    /// One line for a whole RPC message that took several frames, decoded as a message.
    private func logMessage(_ direction: String, _ message: SDLProtocolMessage) {
        guard let log = configuration.log, message.serviceType == .rpc || message.serviceType == .hybrid,
              let rpc = message.version == 1
                  ? try? SDLProtocolOneEnvelope.decode(message.payload, functions: Self.functions) : try? SDLRPCPayload(decoding: message.payload)
        else { return }
        let members: [SDLJSONValue.Member] = [
            .init(key: "direction", value: .string(direction)),
            .init(key: "message", value: .bool(true)),
            .init(key: "serviceType", value: .integer(Int(message.serviceType.rawValue))),
            .init(key: "sessionId", value: .integer(Int(message.sessionID))),
            .init(key: "messageId", value: .integer(Int(message.messageID))),
            .init(key: "size", value: .integer(message.payload.count)),
        ]
        log(.object(members + SDLRecordedRPC.logMembers(rpc)))
    }
}
