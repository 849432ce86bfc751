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

    init(
        id: Int, sessionID: UInt8, transport: any SDLTransport, configuration: SDLHeadUnitEmulator.Configuration, headUnit: SDLHeadUnitEmulator,
        authToken: String? = nil
    ) {
        self.id = id
        self.authToken = authToken
        self.sessionID = sessionID
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
                while let frame = try decoder.nextFrame() {
                    log("in", frame)
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
        await headUnit?.received(rpc, on: self)
    }

    private func handleControl(_ opcode: SDLControlFrameType, _ message: SDLProtocolMessage) async throws {
        switch opcode {
        case .startService where message.serviceType == .rpc:
            let request = message.payload.isEmpty ? nil : try? SDLControlPayload(decoding: message.payload)
            if let offered = request?.protocolVersion {
                version = 5
                var ack = SDLControlPayload()
                let appVersion = SDLProtocolVersion(offered) ?? SDLProtocolVersion(5)
                ack.protocolVersion = min(appVersion, configuration.protocolVersion).description
                ack.hashID = configuration.hashID
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
                let hash = withUnsafeBytes(of: UInt32(bitPattern: configuration.hashID).bigEndian) { Array($0) }
                try await sendControl(.startServiceACK, service: .rpc, payload: hash, messageID: 0)
            }
        case .startService where message.serviceType == .video || message.serviceType == .audio:
            guard let headUnit else { return }
            let request = message.payload.isEmpty ? nil : try? SDLControlPayload(decoding: message.payload)
            let (answer, effects) = await headUnit.startStreaming(message.serviceType, request: request, sessionID: sessionID, on: self)
            switch answer {
            case .accepted(let accepted):
                var ack = accepted ?? SDLControlPayload()
                ack.mtu = Int64(configuration.mtu)
                try await sendControl(.startServiceACK, service: message.serviceType, payload: version >= 5 ? ack.bytes : [])
            case .refused(let reason, let rejectedParams):
                var nak = SDLControlPayload()
                nak.reason = reason
                nak.rejectedParams = rejectedParams
                try await sendControl(.startServiceNAK, service: message.serviceType, payload: version >= 5 ? nak.bytes : [])
            }
            await headUnit.perform(effects)
        case .startService:
            var ack = SDLControlPayload()
            if version >= 5 { ack.mtu = Int64(configuration.mtu) }
            try await sendControl(.startServiceACK, service: message.serviceType, payload: version >= 5 ? ack.bytes : [])
        case .endService:
            try await sendControl(.endServiceACK, service: message.serviceType, payload: [])
            if message.serviceType == .rpc { ended = true }
            if message.serviceType == .video || message.serviceType == .audio { await headUnit?.streamingEnded(message.serviceType, on: self) }
        case .heartbeat:
            try await sendControl(.heartbeatACK, service: .control, payload: [])
        default:
            break
        }
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
            let message = SDLProtocolMessage(version: max(version, 1), serviceType: .rpc, sessionID: sessionID, messageID: takeMessageID(), payload: payload)
            let frames = SDLFramer.frames(for: message, maxPayloadSize: configuration.mtu)
            try await send(frames)
            if frames.count > 1 { logMessage("out", message) }
        } catch {
            configuration.log?(.object([.init(key: "event", value: .string("error")), .init(key: "reason", value: .string("\(error)"))]))
        }
    }

    private func sendControl(_ opcode: SDLControlFrameType, service: SDLServiceType, payload: [UInt8], messageID: UInt32? = nil) async throws {
        let frame = SDLFrame(
            header: SDLFrameHeader(version: max(version, 1), frameType: .control, serviceType: service, frameInfo: opcode.rawValue, sessionID: sessionID, messageID: messageID ?? takeMessageID()),
            payload: payload)
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
