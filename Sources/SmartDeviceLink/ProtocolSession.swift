import SDLProtocol
import SDLRuntime
import SDLTransport

/// What the head unit agreed to when the RPC service started.
public struct SDLNegotiatedSession: Sendable, Hashable {
    /// Full version (`5.4.0`); for protocol 1–4 head units, `major.0.0`.
    public var protocolVersion: String
    /// The major version every later frame header carries.
    public var majorVersion: UInt8
    public var sessionID: UInt8
    /// v5: `hashId`; v1–4: the 4 raw ACK bytes read big-endian.
    public var hashID: Int32?
    /// Payload bytes per frame.
    public var mtu: Int
    /// The whole StartServiceACK payload (vehicle info, transports...), for protocol 5.
    public var details: SDLControlPayload?
}

public enum SDLSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    case notStarted
    case startRejected(service: SDLServiceType, rejectedParams: [String], reason: String?)
    case endRejected(service: SDLServiceType, reason: String?)
    case protocolViolation(SDLProtocolError)
    case heartbeatTimeout
    case transportClosed(String)
    case timeout(String)
    case encryptionUnavailable

    public var description: String {
        switch self {
        case .notStarted: "the RPC service has not started"
        case .startRejected(let service, let params, let reason):
            "the head unit refused to start the \(service) service" + (params.isEmpty ? "" : " (rejected: \(params.joined(separator: ", ")))") + (reason.map { ": \($0)" } ?? "")
        case .endRejected(let service, let reason): "the head unit refused to end the \(service) service" + (reason.map { ": \($0)" } ?? "")
        case .protocolViolation(let error): "the head unit broke the protocol: \(error)"
        case .heartbeatTimeout: "the head unit stopped answering heartbeats"
        case .transportClosed(let reason): "the connection closed: \(reason)"
        case .timeout(let what): "no answer to \(what) in time"
        case .encryptionUnavailable: "encryption was requested but no security provider is configured"
        }
    }
}

/// One SDL session over a transport, on the app's side: negotiates the protocol version, starts
/// and ends services, answers heartbeats, splits and joins frames, and hands RPC payloads up.
public actor SDLProtocolSession {
    public struct Configuration: Sendable {
        /// The highest protocol version the app speaks; `5.4.0` gets BSON control payloads.
        public var protocolVersion = "5.4.0"
        /// Send a heartbeat when nothing was received for this long (nil: only answer them).
        public var heartbeatInterval: Duration?
        /// Give up when a heartbeat goes unanswered this long.
        public var heartbeatTimeout: Duration = .seconds(7)
        public var controlTimeout: Duration = .seconds(10)
        public var security: (any SDLSecurityProvider)?
        public var maxFrameDataSize = SDLFrameDecoder.defaultMaxDataSize
        public var maxMessageSize = SDLReassembler.defaultMaxMessageSize

        public init() {}
    }

    public let configuration: Configuration
    private let transport: any SDLTransport
    private var decoder: SDLFrameDecoder
    private var reassembler: SDLReassembler
    private var negotiated: SDLNegotiatedSession?
    private var nextMessageID: UInt32 = 1
    private var lastReceived = ContinuousClock.now
    private var closedError: SDLSessionError?

    /// Control replies awaited, by (service, request opcode).
    private var pendingControl: [ControlKey: CheckedContinuation<SDLProtocolMessage, any Error>] = [:]
    private struct ControlKey: Hashable {
        var service: UInt8
        var request: UInt8
    }

    private let rpcContinuation: AsyncThrowingStream<SDLIncomingRPC, any Error>.Continuation
    /// RPC and hybrid service messages from the head unit. Throws `SDLSessionError` when the
    /// session ends abnormally.
    public nonisolated let incoming: AsyncThrowingStream<SDLIncomingRPC, any Error>
    private let mediaContinuation: AsyncStream<SDLProtocolMessage>.Continuation
    /// Messages of other services (audio, video) the head unit sends.
    public nonisolated let otherMessages: AsyncStream<SDLProtocolMessage>

    private var readTask: Task<Void, Never>?
    private var heartbeatTask: Task<Void, Never>?

    public init(transport: any SDLTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        self.decoder = SDLFrameDecoder(maxDataSize: configuration.maxFrameDataSize)
        self.reassembler = SDLReassembler(maxMessageSize: configuration.maxMessageSize)
        (incoming, rpcContinuation) = AsyncThrowingStream.makeStream()
        (otherMessages, mediaContinuation) = AsyncStream.makeStream()
    }

    public var session: SDLNegotiatedSession? { negotiated }

    // MARK: Starting and ending

    /// Starts the RPC service and negotiates the version (protocol spec §4).
    @discardableResult
    public func start() async throws -> SDLNegotiatedSession {
        if let negotiated { return negotiated }
        startReading()
        let appMajor = UInt8(configuration.protocolVersion.split(separator: ".").first.flatMap { UInt8($0) } ?? 5)
        var payload: [UInt8] = []
        if appMajor >= 5 {
            var request = SDLControlPayload()
            request.protocolVersion = configuration.protocolVersion
            payload = request.bytes
        }
        // The first frame always has a version-1 header and session 0.
        let reply = try await control(.startService, service: .rpc, version: 1, sessionID: 0, payload: payload)
        if reply.controlFrameType == .startServiceNAK {
            let details = try? SDLControlPayload(decoding: reply.payload)
            throw SDLSessionError.startRejected(service: .rpc, rejectedParams: details?.rejectedParams ?? [], reason: details?.reason)
        }
        let session: SDLNegotiatedSession
        if reply.version >= 5 {
            let details = try decodeControl(reply.payload)
            let version = details.protocolVersion ?? "\(reply.version).0.0"
            session = SDLNegotiatedSession(
                protocolVersion: version, majorVersion: reply.version, sessionID: reply.sessionID, hashID: details.hashID,
                mtu: details.mtu.map { Int(clamping: $0) } ?? SDLFramer.defaultMaxPayloadSize, details: details)
        } else {
            let major = min(appMajor, reply.version)
            let hash = reply.payload.count == 4 ? Int32(bitPattern: reply.payload.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self)) }) : nil
            session = SDLNegotiatedSession(
                protocolVersion: "\(major).0.0", majorVersion: major, sessionID: reply.sessionID, hashID: hash,
                mtu: major <= 2 ? SDLFramer.legacyMaxPayloadSize : SDLFramer.defaultMaxPayloadSize, details: nil)
        }
        negotiated = session
        startHeartbeat()
        return session
    }

    /// Starts another service (audio, video) with its parameters; returns the ACK's payload.
    @discardableResult
    public func startService(_ service: SDLServiceType, parameters: SDLControlPayload = SDLControlPayload(), encrypted: Bool = false) async throws -> SDLControlPayload {
        guard let negotiated else { throw SDLSessionError.notStarted }
        if encrypted && configuration.security == nil { throw SDLSessionError.encryptionUnavailable }
        let payload = negotiated.majorVersion >= 5 && !parameters.document.isEmpty ? parameters.bytes : []
        let reply = try await control(.startService, service: service, payload: payload, encrypted: encrypted)
        let details = negotiated.majorVersion >= 5 && !reply.payload.isEmpty ? try decodeControl(reply.payload) : SDLControlPayload()
        guard reply.controlFrameType == .startServiceACK else {
            throw SDLSessionError.startRejected(service: service, rejectedParams: details.rejectedParams ?? [], reason: details.reason)
        }
        return details
    }

    /// Ends one service; ending the RPC service ends the whole session.
    public func endService(_ service: SDLServiceType) async throws {
        guard let negotiated else { throw SDLSessionError.notStarted }
        var payload: [UInt8] = []
        if service == .rpc, let hash = negotiated.hashID {
            if negotiated.majorVersion >= 5 {
                var parameters = SDLControlPayload()
                parameters.hashID = hash
                payload = parameters.bytes
            } else {
                payload = withUnsafeBytes(of: UInt32(bitPattern: hash).bigEndian) { Array($0) }
            }
        }
        let reply = try await control(.endService, service: service, payload: payload)
        guard reply.controlFrameType == .endServiceACK else {
            let details = try? SDLControlPayload(decoding: reply.payload)
            throw SDLSessionError.endRejected(service: service, reason: details?.reason)
        }
    }

    /// Ends the RPC service politely if possible, then closes the transport.
    public func close() async {
        if negotiated != nil, closedError == nil {
            _ = try? await endService(.rpc)
        }
        await shutDown(nil)
    }

    // MARK: Sending

    /// Sends an RPC message on the RPC (or hybrid, for bulk data) service.
    public func send(_ rpc: SDLRPCPayload, service: SDLServiceType = .rpc, encrypted: Bool = false) async throws {
        guard let negotiated else { throw SDLSessionError.notStarted }
        if let closedError { throw closedError }
        let payload: [UInt8]
        if negotiated.majorVersion == 1 {
            payload = Self.protocolOneEnvelope(rpc)
        } else {
            payload = rpc.bytes
        }
        try await sendMessage(payload, service: service, encrypted: encrypted)
    }

    /// Raw media for a started audio or video service.
    public func sendMedia(_ bytes: [UInt8], service: SDLServiceType, encrypted: Bool = false) async throws {
        try await sendMessage(bytes, service: service, encrypted: encrypted)
    }

    private func sendMessage(_ payload: [UInt8], service: SDLServiceType, encrypted: Bool) async throws {
        guard let negotiated else { throw SDLSessionError.notStarted }
        let messageID = takeMessageID()
        var maxPayload = negotiated.mtu
        if encrypted {
            guard let security = configuration.security else { throw SDLSessionError.encryptionUnavailable }
            maxPayload = min(maxPayload, security.maxPlaintextPerFrame)
        }
        let message = SDLProtocolMessage(
            version: negotiated.majorVersion, serviceType: service, sessionID: negotiated.sessionID,
            messageID: messageID, isEncrypted: encrypted, payload: payload)
        var bytes: [UInt8] = []
        if encrypted, let security = configuration.security {
            // Each frame's payload is encrypted on its own (first frames stay clear).
            for var frame in SDLFramer.frames(for: message, maxPayloadSize: maxPayload) {
                if frame.header.isEncrypted {
                    frame = SDLFrame(header: frame.header, payload: try await security.encrypt(frame.payload))
                }
                frame.append(to: &bytes)
            }
        } else {
            SDLFramer.encode(message, maxPayloadSize: maxPayload, into: &bytes)
        }
        try await write(bytes)
    }

    private func takeMessageID() -> UInt32 {
        defer { nextMessageID = nextMessageID == UInt32.max ? 1 : nextMessageID + 1 }
        return nextMessageID
    }

    private func write(_ bytes: [UInt8]) async throws {
        do {
            try await transport.send(bytes)
        } catch {
            let failure = SDLSessionError.transportClosed("\(error)")
            await shutDown(failure)
            throw failure
        }
    }

    /// Protocol 1 carries no binary header: the JSON is wrapped with name and correlation ID.
    static func protocolOneEnvelope(_ rpc: SDLRPCPayload) -> [UInt8] {
        let key = rpc.rpcType == .request ? "request" : rpc.rpcType == .response ? "response" : "notification"
        var out = Array("{\"\(key)\":{\"correlationID\":\(rpc.correlationID),\"functionID\":\(rpc.functionID),\"parameters\":".utf8)
        out.append(contentsOf: rpc.json.isEmpty ? Array("{}".utf8) : rpc.json)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    // MARK: Control exchanges

    private func control(
        _ opcode: SDLControlFrameType, service: SDLServiceType, version: UInt8? = nil, sessionID: UInt8? = nil,
        payload: [UInt8], encrypted: Bool = false
    ) async throws -> SDLProtocolMessage {
        if let closedError { throw closedError }
        let key = ControlKey(service: service.rawValue, request: opcode.rawValue)
        let frame = SDLFrame(
            header: SDLFrameHeader(
                version: version ?? negotiated?.majorVersion ?? 1, isEncrypted: encrypted, frameType: .control,
                serviceType: service, frameInfo: opcode.rawValue, sessionID: sessionID ?? negotiated?.sessionID ?? 0,
                messageID: takeMessageID()),
            payload: payload)
        let timeout = configuration.controlTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await self?.failControl(key, SDLSessionError.timeout("\(opcode) for the \(service) service"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pendingControl[key] = continuation
            Task { [weak self] in
                do {
                    try await self?.write(frame.bytes)
                } catch {
                    await self?.failControl(key, error)
                }
            }
        }
    }

    private func failControl(_ key: ControlKey, _ error: any Error) {
        pendingControl.removeValue(forKey: key)?.resume(throwing: error)
    }

    private func decodeControl(_ bytes: [UInt8]) throws -> SDLControlPayload {
        do {
            return try SDLControlPayload(decoding: bytes)
        } catch {
            throw SDLSessionError.protocolViolation(error)
        }
    }

    // MARK: Receiving

    private func startReading() {
        guard readTask == nil else { return }
        let stream = transport.inbound
        readTask = Task { [weak self] in
            do {
                for try await chunk in stream {
                    guard let self else { return }
                    try await self.receive(chunk)
                }
                await self?.shutDown(SDLSessionError.transportClosed("the head unit closed the connection"))
            } catch let error as SDLSessionError {
                await self?.shutDown(error)
            } catch {
                await self?.shutDown(SDLSessionError.transportClosed("\(error)"))
            }
        }
    }

    private func receive(_ chunk: [UInt8]) async throws {
        lastReceived = .now
        decoder.append(chunk)
        do {
            while var frame = try decoder.nextFrame() {
                // Control frames on service 0 are never encrypted; others are decrypted before joining.
                if frame.header.isEncrypted, !frame.payload.isEmpty, frame.header.serviceType != .control,
                   frame.header.frameType != .first, let security = configuration.security
                {
                    let header = frame.header
                    frame = SDLFrame(header: header, payload: try await security.decrypt(frame.payload))
                }
                if let message = try reassembler.receive(frame) {
                    try await handle(message)
                }
            }
        } catch let error as SDLProtocolError {
            throw SDLSessionError.protocolViolation(error)
        }
    }

    private func handle(_ message: SDLProtocolMessage) async throws {
        if let opcode = message.controlFrameType {
            switch opcode {
            case .heartbeat:
                let ack = SDLFrame(header: SDLFrameHeader(
                    version: message.version, frameType: .control, serviceType: .control,
                    frameInfo: SDLControlFrameType.heartbeatACK.rawValue, sessionID: message.sessionID, messageID: message.messageID))
                try await write(ack.bytes)
            case .startServiceACK, .startServiceNAK:
                pendingControl.removeValue(forKey: ControlKey(service: message.serviceType.rawValue, request: SDLControlFrameType.startService.rawValue))?.resume(returning: message)
            case .endServiceACK, .endServiceNAK:
                pendingControl.removeValue(forKey: ControlKey(service: message.serviceType.rawValue, request: SDLControlFrameType.endService.rawValue))?.resume(returning: message)
            case .endService where message.serviceType == .rpc:
                // The head unit ends the session.
                await shutDown(SDLSessionError.transportClosed("the head unit ended the RPC service"))
            default:
                break  // HeartbeatACK (lastReceived already updated), TransportEventUpdate, legacy ServiceDataACK
            }
            return
        }
        switch message.serviceType {
        case .rpc, .hybrid:
            let rpc: SDLRPCPayload
            do {
                rpc = try SDLRPCPayload(decoding: message.payload)
            } catch {
                throw SDLSessionError.protocolViolation(error)
            }
            rpcContinuation.yield(SDLIncomingRPC(payload: rpc, serviceType: message.serviceType, isEncrypted: message.isEncrypted))
        default:
            mediaContinuation.yield(message)
        }
    }

    // MARK: Heartbeat and shutdown

    private func startHeartbeat() {
        guard let interval = configuration.heartbeatInterval, heartbeatTask == nil else { return }
        let timeout = configuration.heartbeatTimeout
        heartbeatTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.heartbeatTick(interval: interval, timeout: timeout)
            }
        }
    }

    private func heartbeatTick(interval: Duration, timeout: Duration) async {
        guard let negotiated, closedError == nil else { return }
        let silence = ContinuousClock.now - lastReceived
        if silence >= interval + timeout {
            await shutDown(.heartbeatTimeout)
        } else if silence >= interval {
            let frame = SDLFrame(header: SDLFrameHeader(
                version: negotiated.majorVersion, frameType: .control, serviceType: .control,
                frameInfo: SDLControlFrameType.heartbeat.rawValue, sessionID: negotiated.sessionID, messageID: takeMessageID()))
            try? await write(frame.bytes)
        }
    }

    private func shutDown(_ error: SDLSessionError?) async {
        guard closedError == nil else { return }
        closedError = error ?? .transportClosed("the session was closed")
        heartbeatTask?.cancel()
        for continuation in pendingControl.values { continuation.resume(throwing: closedError!) }
        pendingControl.removeAll()
        if let error { rpcContinuation.finish(throwing: error) } else { rpcContinuation.finish() }
        mediaContinuation.finish()
        await transport.close()
    }
}

/// An RPC message from the head unit, with how it arrived.
public struct SDLIncomingRPC: Sendable, Hashable {
    public var payload: SDLRPCPayload
    public var serviceType: SDLServiceType
    public var isEncrypted: Bool
}
