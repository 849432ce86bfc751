import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// One app's connection to the emulator: drives the head unit's end of
/// `SDLSessionStateMachine` (which holds the protocol's rules) over a transport. RPC requests
/// go to the head unit, which answers through `send(_:)`; what only the head unit decides (may
/// this app stream, protect a service, end a stream) the machine asks of it through here.
actor EmulatedConnection {
    let id: Int
    let sessionID: UInt8
    /// The session hash sent in the RPC StartServiceACK, checked in EndService(RPC).
    let hashID: Int32
    private let transport: any SDLTransport
    private let configuration: SDLHeadUnitEmulator.Configuration
    private weak var headUnit: SDLHeadUnitEmulator?
    private var machine: SDLSessionStateMachine
    /// The TLS client of this connection's handshake (SDL Core's security manager).
    private var security: (any SDLSecurityProvider)?
    private var ended = false

    static let functions = SDLFunctionTable(
        messages: MobileAPI.requests.map { $0 as any SDLMessage.Type } + MobileAPI.responses.map { $0 as any SDLMessage.Type }
            + MobileAPI.notifications.map { $0 as any SDLMessage.Type })

    /// `authToken` is a cloud app's token (the policy table's auth_token), sent in the RPC
    /// StartServiceACK.
    init(
        id: Int, sessionID: UInt8, hashID: Int32, transport: any SDLTransport, configuration: SDLHeadUnitEmulator.Configuration, headUnit: SDLHeadUnitEmulator,
        authToken: String? = nil
    ) {
        self.id = id
        self.sessionID = sessionID
        self.hashID = hashID
        self.transport = transport
        self.configuration = configuration
        self.headUnit = headUnit
        machine = SDLSessionStateMachine(role: .headUnit, settings: configuration.sessionSettings(sessionID: sessionID, hashID: hashID, authToken: authToken))
    }

    /// Reads until the app ends its session or the transport closes; the transport runs beside
    /// the reading and ends with it.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.transport.run() }
            // As on SDL Core, nothing of the app is read (its StartService waits) before the HMI is ready.
            await headUnit?.untilHMIReady()
            await read()
        }
    }

    private func read() async {
        do {
            reading: for try await chunk in transport.inbound {
                machine.append(chunk, now: configuration.clock.now)
                while let inbound = try machine.nextFrame(now: configuration.clock.now) {
                    switch inbound {
                    case .frame(let frame):
                        try await receive(frame)
                    case .record(let frame):
                        let plaintext: [UInt8]
                        do {
                            plaintext = try await security?.decrypt(frame.payload) ?? frame.payload
                        } catch {
                            log("in", frame)
                            try await perform([machine.recordUndecryptable(error)])
                            continue
                        }
                        try await receive(SDLFrame(header: frame.header, payload: plaintext), logged: frame)
                    case .dropped(let frame, let actions):
                        log("in", frame)
                        try await perform(actions)
                    }
                    if ended { break reading }
                }
            }
            configuration.log?(ConnectionLog.event("closed", ended ? "session ended" : "the app closed the connection"))
        } catch {
            // The transport ending after the session did is how every session ends, not an error.
            let quiet = ended || (error as? SDLTransportError).map { $0 == .closed || $0 == .connectionReset } == true
            configuration.log?(ConnectionLog.event(quiet ? "closed" : "error", "\(error)"))
        }
        ended = true
        await transport.close()
    }

    private func receive(_ frame: SDLFrame, logged: SDLFrame? = nil) async throws {
        log("in", logged ?? frame)
        let actions = try machine.receive(frame)
        // A message that came in several frames is logged once more, whole.
        if frame.header.frameType == .consecutive, let log = configuration.log {
            for case .deliverRPC(let rpc, let service, _) in actions { log(ConnectionLog.message("in", rpc, service: service, header: frame.header)) }
        }
        try await perform(actions)
    }

    /// Ends a streaming service from the head unit's side (the app went to NONE).
    func endService(_ service: SDLServiceType) async {
        guard !ended else { return }
        try? await perform([machine.endFromHeadUnit(service)])
    }

    /// Ends the connection from the head unit's side (exit, language change, `/disconnect`).
    func close(endService: Bool) async {
        guard !ended else { return }
        if endService { try? await perform([machine.endFromHeadUnit(.rpc)]) }
        ended = true
        await transport.close()
    }

    /// Sends one RPC message; a closed connection drops it (the app is gone).
    func send(_ rpc: SDLRPCPayload) async {
        guard !ended else { return }
        do {
            try await perform([try machine.sendRPC(rpc)], rpc: rpc)
        } catch {
            configuration.log?(ConnectionLog.event("error", "\(error)"))
        }
    }

    // MARK: Performing the machine's actions

    private func perform(_ actions: [SDLSessionStateMachine.Action], rpc: SDLRPCPayload? = nil) async throws {
        for action in actions {
            switch action {
            case .write(let bytes):
                try await write(bytes, rpc: rpc)
            case .writeEncrypted(let message):
                guard let security else { continue }
                try await write(try await SDLFramer.protectedBytes(for: message, maxPayloadSize: configuration.mtu, security: security), rpc: rpc)
            case .deliverRPC(let rpc, _, let encrypted):
                await headUnit?.received(rpc, encrypted: encrypted, on: self)
            case .deliverMedia(let message):
                await headUnit?.streamData(message.serviceType, payload: message.payload, on: self)
            case .checkProtection(let service):
                try await perform(machine.protectionChecked(service, await protectionCheck(service)))
            case .startHandshake:
                try await startHandshake()
            case .continueHandshake(let bytes, let sequenceNumber):
                try await perform(machine.handshakeProgressed(await security.handshakeStep(bytes), sequenceNumber: sequenceNumber))
            case .decideStreaming(let service, let request, let isProtected):
                guard let headUnit else { continue }
                let (answer, effects) = await headUnit.startStreaming(service, request: request, sessionID: sessionID, on: self)
                switch answer {
                case .accepted(let parameters):
                    try await perform([machine.streamingDecided(service, accepted: parameters, isProtected: isProtected)])
                case .refused(let reason, let rejectedParams):
                    try await perform([machine.streamingDecided(service, accepted: nil, refusal: (reason, rejectedParams), isProtected: isProtected)])
                }
                await headUnit.perform(effects)
            case .decideEndStreaming(let service):
                let ended = await headUnit?.streamingEnded(service, on: self) == true
                try await perform([machine.endStreamingDecided(service, ended: ended)])
            case .sessionEnded:
                await headUnit?.sessionEnded(on: self)
            case .protectionRefused:
                await headUnit?.protectionRefused(on: self)
            case .close:
                configuration.log?(ConnectionLog.event("malformed", "more than \(machine.settings.malformedLimit) malformed frames in a second"))
                ended = true
            case .ignored, .sessionStarted, .sessionRefused, .answered, .serviceEndedByPeer, .peerSecurityError, .exchangeTimedOut:
                break  // logged with their frame, or only the app's end
            }
        }
    }

    /// What SDL Core's security manager checks before a handshake.
    private func protectionCheck(_ service: SDLServiceType) async -> SDLSessionStateMachine.ProtectionCheck {
        guard configuration.security != nil, let headUnit else {
            return .refused("Service type: \(service.rawValue) protection is not supported by the head unit")
        }
        guard await headUnit.appID(on: self) != nil else { return .refused("the app is not registered") }
        return await headUnit.systemTimeReady ? .allowed : .systemTimeNotReady
    }

    /// SDL Core is the TLS client: a provider for the app, and its ClientHello.
    private func startHandshake() async throws {
        do {
            guard let makeSecurity = configuration.security, let appID = await headUnit?.appID(on: self) else {
                throw SDLSecurityError(.notSupported, "no security for this app")
            }
            let provider = try makeSecurity(appID)
            security = provider
            try await perform([machine.handshakeStarted(clientHello: try await provider.startHandshake())])
        } catch {
            try await perform(machine.handshakeFailed(error as? SDLSecurityError ?? SDLSecurityError(.internalError, "\(error)"), sequenceNumber: 1))
        }
    }

    private func write(_ bytes: [UInt8], rpc: SDLRPCPayload?) async throws {
        if let log = configuration.log { ConnectionLog.outbound(bytes, rpc: rpc, to: log) }
        try await transport.send(bytes)
    }

    private func log(_ direction: String, _ frame: SDLFrame) {
        if let log = configuration.log { log(ConnectionLog.frame(direction, frame)) }
    }
}
