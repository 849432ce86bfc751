import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink

/// A scripted head unit on the other end of an in-memory pair: answers StartService (with the
/// ACK a test chooses) and EndService, and reports every other frame and RPC it receives as an
/// event, so tests synchronise on what reached the wire instead of sleeping.
final class FakeHeadUnit: Sendable {
    let transport: SDLMemoryTransport
    let appTransport: SDLMemoryTransport
    /// RPC messages from the app, in wire order.
    let requests: AsyncStream<SDLRPCPayload>
    /// Every frame from the app, in wire order.
    let frames: AsyncStream<SDLFrame>
    private let reader: Task<Void, Never>

    /// - Parameters:
    ///   - ack: the StartServiceACK payload for the RPC service (nil: answer with a NAK).
    ///   - answerStartService: when false, StartService frames are only reported.
    init(ack: SDLControlPayload? = FakeHeadUnit.standardACK, sessionID: UInt8 = 1, answerStartService: Bool = true) {
        let (app, headUnit) = SDLMemoryTransport.pair()
        transport = headUnit
        appTransport = app
        let (requests, requestSink) = AsyncStream<SDLRPCPayload>.makeStream()
        let (frames, frameSink) = AsyncStream<SDLFrame>.makeStream()
        self.requests = requests
        self.frames = frames
        reader = Task {
            var decoder = SDLFrameDecoder()
            var reassembler = SDLReassembler()
            do {
                for try await chunk in headUnit.inbound {
                    decoder.append(chunk)
                    while let frame = try decoder.nextFrame() {
                        frameSink.yield(frame)
                        switch frame.header.controlFrameType {
                        case .startService? where answerStartService && frame.header.serviceType == .rpc:
                            let opcode: SDLControlFrameType = ack == nil ? .startServiceNAK : .startServiceACK
                            try await headUnit.send(
                                SDLFrame(
                                    header: SDLFrameHeader(
                                        version: 5, frameType: .control, serviceType: .rpc, frameInfo: opcode.rawValue, sessionID: sessionID),
                                    payload: (ack ?? SDLControlPayload()).bytes
                                ).bytes)
                        case .endService? where frame.header.serviceType == .rpc:
                            try await headUnit.send(
                                SDLFrame(
                                    header: SDLFrameHeader(
                                        version: 5, frameType: .control, serviceType: .rpc,
                                        frameInfo: SDLControlFrameType.endServiceACK.rawValue, sessionID: sessionID)
                                ).bytes)
                        case nil:
                            if let message = try reassembler.receive(frame) {
                                requestSink.yield(try SDLRPCPayload(decoding: message.payload))
                            }
                        default:
                            break
                        }
                    }
                }
            } catch {}
            requestSink.finish()
            frameSink.finish()
        }
    }

    deinit { reader.cancel() }

    static var standardACK: SDLControlPayload {
        var ack = SDLControlPayload()
        ack.protocolVersion = "5.4.0"
        ack.hashID = 1
        ack.mtu = 131_072
        return ack
    }

    /// Sends an RPC message in one frame, as SDL Core does.
    func send(_ rpc: SDLRPCPayload, sessionID: UInt8 = 1, messageID: UInt32 = 100) async throws {
        let message = SDLProtocolMessage(version: 5, serviceType: .rpc, sessionID: sessionID, messageID: messageID, payload: rpc.bytes)
        var bytes: [UInt8] = []
        SDLFramer.encode(message, maxPayloadSize: 131_072, into: &bytes)
        try await transport.send(bytes)
    }

    func sendControl(_ opcode: SDLControlFrameType, service: SDLServiceType = .control, sessionID: UInt8 = 1) async throws {
        try await transport.send(
            SDLFrame(
                header: SDLFrameHeader(
                    version: 5, frameType: .control, serviceType: service, frameInfo: opcode.rawValue, sessionID: sessionID)
            ).bytes)
    }

    /// A notification, encoded from its typed value.
    func notify<N: SDLNotification>(_ notification: N) async throws {
        try await send(SDLRPCPayload(rpcType: .notification, functionID: N.wireFunctionID!, correlationID: 0xFFFF_FFFF, json: try SDLJSON.encode(notification)))
    }

    /// A success response to `request` of type `R`.
    func respond<R: SDLResponse>(to request: SDLRPCPayload, with response: R, sessionID: UInt8 = 1) async throws {
        try await send(
            SDLRPCPayload(rpcType: .response, functionID: R.wireFunctionID!, correlationID: request.correlationID, json: try SDLJSON.encode(response)),
            sessionID: sessionID)
    }
}

/// A session and its running client connected to `headUnit`; the client's run loop's outcome is
/// in `running`.
struct Connection {
    let session: SDLProtocolSession
    let client: SDLRPCClient
    let running: Task<Void, any Error>
    /// The emulator on the other end, when there is one.
    var emulator: SDLHeadUnitEmulator?

    static func to(
        _ headUnit: FakeHeadUnit, configuration: SDLProtocolSession.Configuration = Connection.patient, start: Bool = true
    ) async throws -> Connection {
        try await over(headUnit.appTransport, configuration: configuration, start: start)
    }

    /// The app side of a fresh emulator over an in-memory pair.
    static func toEmulator(
        _ emulatorConfiguration: SDLHeadUnitEmulator.Configuration = SDLHeadUnitEmulator.Configuration(),
        configuration: SDLProtocolSession.Configuration = Connection.patient
    ) async throws -> Connection {
        let (app, headUnit) = SDLMemoryTransport.pair()
        let emulator = SDLHeadUnitEmulator(configuration: emulatorConfiguration)
        Task { await emulator.serve(headUnit) }
        var connection = try await over(app, configuration: configuration)
        connection.emulator = emulator
        return connection
    }

    static func over(
        _ transport: any SDLTransport, configuration: SDLProtocolSession.Configuration = Connection.patient, start: Bool = true
    ) async throws -> Connection {
        let session = SDLProtocolSession(transport: transport, configuration: configuration)
        // Safety timeout: generous, so an unanswered request fails the test instead of hanging.
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        let running = Task { try await client.run() }
        if start { try await session.start() }
        return Connection(session: session, client: client, running: running)
    }

    /// Timeouts generous enough for a machine busy with other suites: nothing here is about timing.
    /// Safety timeouts only: a bound after which a control exchange fails instead of hanging, never a wait.
    static var patient: SDLProtocolSession.Configuration {
        var configuration = SDLProtocolSession.Configuration()
        configuration.controlTimeout = .seconds(120)
        return configuration
    }

    /// The reason the client's run loop ended with.
    func closeReason() async -> SDLCloseReason? {
        do {
            try await running.value
            return .closedByApp
        } catch SDLRPCError.connectionClosed(let reason) {
            return reason
        } catch {
            return nil
        }
    }
}
