import SDLProtocol
import SDLRuntime

/// The emulator's protocol log (`Configuration.log`): one JSON object per frame in and out,
/// one more for an RPC message that took several frames, and connection events.
enum ConnectionLog {
    static func event(_ event: String, _ reason: String) -> SDLJSONValue {
        .object([.init(key: "event", value: .string(event)), .init(key: "reason", value: .string(reason))])
    }

    static func frame(_ direction: String, _ frame: SDLFrame) -> SDLJSONValue {
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
        if header.frameType == .single, header.serviceType == .rpc || header.serviceType == .hybrid, let rpc = decode(frame.payload, version: header.version) {
            members.append(contentsOf: SDLRecordedRPC.logMembers(rpc))
        }
        return .object(members)
    }

    /// One line for a whole RPC message that took several frames.
    static func message(_ direction: String, _ rpc: SDLRPCPayload, service: SDLServiceType, header: SDLFrameHeader) -> SDLJSONValue {
        let members: [SDLJSONValue.Member] = [
            .init(key: "direction", value: .string(direction)),
            .init(key: "message", value: .bool(true)),
            .init(key: "serviceType", value: .integer(Int(service.rawValue))),
            .init(key: "sessionId", value: .integer(Int(header.sessionID))),
            .init(key: "messageId", value: .integer(Int(header.messageID))),
            .init(key: "size", value: .integer(rpc.encodedSize)),
        ]
        return .object(members + SDLRecordedRPC.logMembers(rpc))
    }

    /// Each frame of bytes going out, and the whole message when `rpc` took several.
    static func outbound(_ bytes: [UInt8], rpc: SDLRPCPayload?, to log: (SDLJSONValue) -> Void) {
        var decoder = SDLFrameDecoder(maxDataSize: .max)
        decoder.append(bytes)
        var last: SDLFrameHeader?
        var count = 0
        while let frame = try? decoder.nextFrame() {
            log(Self.frame("out", frame))
            last = frame.header
            count += 1
        }
        if count > 1, let rpc, let last { log(message("out", rpc, service: last.serviceType, header: last)) }
    }

    private static func decode(_ payload: [UInt8], version: UInt8) -> SDLRPCPayload? {
        version == 1 ? try? SDLProtocolOneEnvelope.decode(payload, functions: EmulatedConnection.functions) : try? SDLRPCPayload(decoding: payload)
    }
}
