import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// Plays the head unit for apps, the way SDL Core 8.2 behaves on the wire (see HEADUNIT.md):
/// negotiates protocol 5 (or 4 for an app that sends no BSON), answers RegisterAppInterface
/// with its capabilities followed by OnHMIStatus and OnPermissionsChange, activates the app,
/// and answers every other request with a valid default response.
public actor SDLHeadUnitEmulator {
    public struct Configuration: Sendable {
        /// The highest protocol version the head unit speaks (SDL Core 8.2: 5.4.0).
        public var protocolVersion = SDLProtocolVersion.latest
        /// Payload bytes per frame, sent as `mtu`.
        public var mtu = 131_072
        public var hashID: Int32 = 65_537
        /// The RegisterAppInterface response (`success` and `resultCode` are set by the emulator).
        public var capabilities: SDLJSONValue
        /// How long after registering the app is activated (OnHMIStatus FULL); nil: stays in NONE.
        public var activationDelay: Duration? = .zero
        /// Called with one JSON object per frame and per message, both directions.
        public var log: (@Sendable (SDLJSONValue) -> Void)?

        public init(capabilities: SDLJSONValue? = nil) {
            self.capabilities = capabilities ?? Self.defaultCapabilities
        }

        public static var defaultCapabilities: SDLJSONValue {
            (try? SDLJSONValue(parsing: DefaultCapabilities.registerAppInterfaceResponse)) ?? .object([])
        }
    }

    public let configuration: Configuration
    private let defaults = DefaultValues()
    private let requestTypes: [UInt32: any SDLRequest.Type]
    private var nextSessionID: UInt8 = 1

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var requestTypes: [UInt32: any SDLRequest.Type] = [:]
        for type in MobileAPI.requests {
            if let functionID = type.wireFunctionID { requestTypes[functionID] = type }
        }
        self.requestTypes = requestTypes
    }

    /// Serves one app until it disconnects or ends its session.
    public func serve(_ transport: any SDLTransport) async {
        let sessionID = nextSessionID
        nextSessionID = nextSessionID == 255 ? 1 : nextSessionID + 1
        let connection = EmulatedConnection(
            transport: transport, sessionID: sessionID, configuration: configuration, defaults: defaults, requestTypes: requestTypes)
        await connection.run()
    }
}

/// One app's connection to the emulator.
actor EmulatedConnection {
    let transport: any SDLTransport
    let sessionID: UInt8
    let configuration: SDLHeadUnitEmulator.Configuration
    let defaults: DefaultValues
    let requestTypes: [UInt32: any SDLRequest.Type]

    private var decoder = SDLFrameDecoder()
    private var reassembler = SDLReassembler()
    /// The frame version this app speaks: 5 or 4 after StartService, 1 once a protocol-1 app's
    /// first RPC arrives with a version-1 header.
    private var version: UInt8 = 0
    private var nextMessageID: UInt32 = 1
    private var registered = false
    private var ended = false

    /// What SDL Core puts in notifications' correlation ID.
    static let notificationCorrelationID: UInt32 = 0xFFFF_FFFF

    init(transport: any SDLTransport, sessionID: UInt8, configuration: SDLHeadUnitEmulator.Configuration, defaults: DefaultValues, requestTypes: [UInt32: any SDLRequest.Type]) {
        self.transport = transport
        self.sessionID = sessionID
        self.configuration = configuration
        self.defaults = defaults
        self.requestTypes = requestTypes
    }

    func run() async {
        do {
            for try await chunk in transport.inbound {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() {
                    log("in", frame)
                    if let message = try reassembler.receive(frame) { try await handle(message) }
                    if ended { break }
                }
                if ended { break }
            }
        } catch {
            configuration.log?(.object([.init(key: "event", value: .string("error")), .init(key: "reason", value: .string("\(error)"))]))
        }
        await transport.close()
    }

    // MARK: Control

    private func handle(_ message: SDLProtocolMessage) async throws {
        if let opcode = message.controlFrameType {
            try await handleControl(opcode, message)
        } else if message.serviceType == .rpc || message.serviceType == .hybrid {
            if message.version == 1 {
                // An app that speaks only protocol 1 keeps version-1 headers after the ACK.
                version = 1
                try await handleRPC(try SDLProtocolOneEnvelope.decode(message.payload, functions: Self.functions))
            } else {
                try await handleRPC(try SDLRPCPayload(decoding: message.payload))
            }
        }
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
                try await sendControl(.startServiceACK, service: .rpc, payload: ack.bytes, messageID: 0)
            } else {
                // An app without BSON gets protocol 4 and the raw hash, as SDL Core answers.
                version = 4
                let hash = withUnsafeBytes(of: UInt32(bitPattern: configuration.hashID).bigEndian) { Array($0) }
                try await sendControl(.startServiceACK, service: .rpc, payload: hash, messageID: 0)
            }
        case .startService:
            var ack = SDLControlPayload()
            if version >= 5 {
                ack.mtu = Int64(configuration.mtu)
                if message.serviceType == .video, let request = try? SDLControlPayload(decoding: message.payload) {
                    ack.height = request.height
                    ack.width = request.width
                    ack.videoProtocol = request.videoProtocol ?? "RAW"
                    ack.videoCodec = request.videoCodec ?? "H264"
                }
            }
            try await sendControl(.startServiceACK, service: message.serviceType, payload: version >= 5 ? ack.bytes : [])
        case .endService:
            try await sendControl(.endServiceACK, service: message.serviceType, payload: [])
            if message.serviceType == .rpc { ended = true }
        case .heartbeat:
            try await sendControl(.heartbeatACK, service: .control, payload: [])
        default:
            break
        }
    }

    static let functions = SDLFunctionTable(
        messages: MobileAPI.requests.map { $0 as any SDLMessage.Type } + MobileAPI.responses.map { $0 as any SDLMessage.Type }
            + MobileAPI.notifications.map { $0 as any SDLMessage.Type })

    // MARK: RPC

    private func handleRPC(_ request: SDLRPCPayload) async throws {
        guard request.rpcType == .request else { return }
        guard let type = requestTypes[request.functionID] else {
            return try await respond(to: request, functionID: GenericResponse.wireFunctionID ?? 31, json: failure("INVALID_DATA", "unknown function ID \(request.functionID)"))
        }
        try await answer(type, request)
    }

    private func answer<R: SDLRequest>(_ type: R.Type, _ request: SDLRPCPayload) async throws {
        guard let functionID = R.Response.wireFunctionID else { return }
        // Like SDL Core: a request that breaks the spec is answered INVALID_DATA.
        do {
            _ = try SDLJSON.decode(R.self, from: request.json)
        } catch {
            let first = error.errors.first
            return try await respond(to: request, functionID: functionID, json: failure("INVALID_DATA", first.map { "RPC.msg_params: \($0)" } ?? "invalid"))
        }
        if R.self == RegisterAppInterface.self {
            try await respond(to: request, functionID: functionID, json: registration())
            registered = true
            try await notify(OnHMIStatus(hmiLevel: .none, audioStreamingState: .notAudible, systemContext: .main, videoStreamingState: .notStreamable, windowID: 0))
            try await notify(permissions())
            if let delay = configuration.activationDelay {
                Task { [weak self] in
                    try? await Task.sleep(for: delay)
                    try? await self?.notify(OnHMIStatus(hmiLevel: .full, audioStreamingState: .audible, systemContext: .main, videoStreamingState: .notStreamable, windowID: 0))
                }
            }
            return
        }
        guard registered else {
            return try await respond(to: request, functionID: functionID, json: failure("APPLICATION_NOT_REGISTERED", nil))
        }
        try await respond(to: request, functionID: functionID, json: defaults.successResponse(R.Response.structInfo))
    }

    private func registration() -> SDLJSONValue {
        guard case .object(var members) = configuration.capabilities else { return configuration.capabilities }
        members.removeAll { $0.key == "success" || $0.key == "resultCode" }
        members.insert(.init(key: "resultCode", value: .string("SUCCESS")), at: 0)
        members.insert(.init(key: "success", value: .bool(true)), at: 0)
        return .object(members)
    }

    private func failure(_ code: String, _ info: String?) -> SDLJSONValue {
        var members: [SDLJSONValue.Member] = [.init(key: "success", value: .bool(false)), .init(key: "resultCode", value: .string(code))]
        if let info { members.append(.init(key: "info", value: .string(info))) }
        return .object(members)
    }

    /// Every RPC allowed in every HMI level: the emulator does not enforce policies.
    private func permissions() -> OnPermissionsChange {
        let levels: [HMILevel] = [.background, .full, .limited, .none]
        let items = MobileAPI.requests.map { type in
            PermissionItem(
                rpcName: type.functionName,
                hmiPermissions: HMIPermissions(allowed: levels, userDisallowed: []),
                parameterPermissions: ParameterPermissions(allowed: [], userDisallowed: []))
        }
        return OnPermissionsChange(permissionItem: items)
    }

    // MARK: Sending

    private func respond(to request: SDLRPCPayload, functionID: UInt32, json: SDLJSONValue) async throws {
        try await sendRPC(SDLRPCPayload(rpcType: .response, functionID: functionID, correlationID: request.correlationID, json: json.jsonBytes))
    }

    func notify<N: SDLNotification>(_ notification: N) async throws {
        let json = (try? SDLJSON.encode(notification)) ?? Array("{}".utf8)
        guard let functionID = N.wireFunctionID else { return }
        try await sendRPC(SDLRPCPayload(rpcType: .notification, functionID: functionID, correlationID: Self.notificationCorrelationID, json: json))
    }

    private func sendRPC(_ rpc: SDLRPCPayload) async throws {
        let payload = version == 1 ? try SDLProtocolOneEnvelope.encode(rpc, functions: Self.functions) : rpc.bytes
        let message = SDLProtocolMessage(version: version, serviceType: .rpc, sessionID: sessionID, messageID: takeMessageID(), payload: payload)
        try await send(SDLFramer.frames(for: message, maxPayloadSize: configuration.mtu))
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
            members.append(.init(key: "rpcType", value: .string(rpc.rpcType.description)))
            members.append(.init(key: "functionId", value: .integer(Int(rpc.functionID))))
            members.append(.init(key: "correlationId", value: .integer(Int(rpc.correlationID))))
            if let json = try? SDLJSONValue(parsing: rpc.json) { members.append(.init(key: "params", value: json)) }
        }
        log(.object(members))
    }
}
