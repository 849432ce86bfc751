import Foundation
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import Testing

/// The raw bytes of real SDL Core 8.2.0 sessions (../shared/captures), decoded frame by frame
/// and message by message, against an independent decoding of the same bytes.
@Suite struct CaptureTests {
    static var capturesDirectory: URL { URL(fileURLWithPath: SharedData.capturesDirectory) }

    struct Capture: CustomTestStringConvertible, Sendable {
        var session: String
        var direction: String
        var testDescription: String { "\(session)/\(direction)" }
    }

    static let captures = ["sdl-core-8.2.0-session", "sdl-core-8.2.0-protocol4"].flatMap { session in
        ["app-to-hu", "hu-to-app"].map { Capture(session: session, direction: $0) }
    }

    /// One line of the independent decoding.
    typealias Line = [String: Any]

    static func load(_ capture: Capture) throws -> (bytes: [UInt8], lines: [Line]) {
        let base = capturesDirectory.appendingPathComponent(capture.session).appendingPathComponent(capture.direction)
        guard let bytes = FileManager.default.contents(atPath: base.path + ".bin"),
            let text = FileManager.default.contents(atPath: base.path + ".jsonl")
        else {
            try Test.cancel(Comment(rawValue: SharedData.missingCapture(base.path)))
        }
        let lines = try text.split(separator: UInt8(ascii: "\n")).map { line in
            try JSONSerialization.jsonObject(with: Data(line)) as? Line ?? [:]
        }
        return (Array(bytes), lines)
    }

    /// Says once why the cases below are skipped when the recordings are absent (a skipped case
    /// of a parameterized test is reported as passed, without its reason).
    @Test func theRecordingsAreHere() throws {
        for capture in Self.captures { _ = try Self.load(capture) }
    }

    @Test(arguments: captures)
    func framesAndMessagesMatchTheIndependentDecoding(_ capture: Capture) throws {
        let (bytes, lines) = try Self.load(capture)
        var decoder = SDLFrameDecoder()
        decoder.append(bytes)
        var reassembler = SDLReassembler()
        var offset = 0
        var expected = lines[...]
        while let frame = try decoder.nextFrame() {
            guard let line = expected.popFirst() else {
                Issue.record("more frames than the decoding lists")
                return
            }
            #expect(line["frame"] as? Bool == true)
            check(frame, offset: offset, against: line)
            offset += frame.header.size + frame.payload.count
            guard let message = try reassembler.receive(frame) else { continue }
            guard message.controlFrameType == nil else { continue }
            guard let messageLine = expected.popFirst() else {
                Issue.record("more messages than the decoding lists")
                return
            }
            try check(message, against: messageLine)
        }
        #expect(offset == bytes.count, "bytes left after the last frame")
        #expect(expected.isEmpty, "the decoding lists \(expected.count) more lines")
        #expect(reassembler.pendingCount == 0)
    }

    private func check(_ frame: SDLFrame, offset: Int, against line: Line) {
        let header = frame.header
        #expect(line["offset"] as? Int == offset)
        #expect(line["version"] as? Int == Int(header.version))
        #expect(line["encrypted"] as? Bool == header.isEncrypted)
        #expect(line["frameType"] as? Int == Int(header.frameType.rawValue))
        #expect(line["serviceType"] as? Int == Int(header.serviceType.rawValue))
        #expect(line["frameInfo"] as? Int == Int(header.frameInfo))
        #expect(line["sessionId"] as? Int == Int(header.sessionID))
        #expect(line["dataSize"] as? Int == frame.payload.count)
        if header.version == 1 {
            #expect(line["messageId"] is NSNull)
        } else {
            #expect(line["messageId"] as? Int == Int(header.messageID))
        }
        if let control = header.controlFrameType {
            #expect(line["control"] as? String == control.description)
            if let expectedBSON = line["bson"] as? [String: Any] {
                // Every key survives typed decoding, and re-encoding gives a document with the same values.
                let payload = try? SDLControlPayload(decoding: frame.payload)
                #expect(payload != nil)
                if let payload {
                    #expect(payload.otherKeys.isEmpty, "unknown keys \(payload.otherKeys.keys)")
                    #expect(Set(payload.document.keys) == Set(expectedBSON.keys))
                    #expect(payload.protocolVersion == expectedBSON["protocolVersion"] as? String)
                    #expect(payload.hashID.map(Int.init) == expectedBSON["hashId"] as? Int)
                    #expect(payload.mtu.map(Int.init) == expectedBSON["mtu"] as? Int)
                }
            }
        }
    }

    private func check(_ message: SDLProtocolMessage, against line: Line) throws {
        #expect(line["message"] as? Bool == true)
        #expect(line["serviceType"] as? Int == Int(message.serviceType.rawValue))
        #expect(line["sessionId"] as? Int == Int(message.sessionID))
        #expect(line["messageId"] as? Int == Int(message.messageID))
        #expect(line["size"] as? Int == message.payload.count)
        let rpc = try SDLRPCPayload(decoding: message.payload)
        #expect(line["rpcType"] as? String == rpc.rpcType.description)
        #expect(line["functionId"] as? Int == Int(rpc.functionID))
        #expect(line["correlationId"] as? Int == Int(rpc.correlationID))
        #expect(line["jsonSize"] as? Int == rpc.json.count)
        #expect(line["bulkSize"] as? Int == rpc.bulkData.count)

        let name = try #require(FunctionID(value: Int(rpc.functionID))?.rawValue).replacing(/ID$/, with: "")
        #expect(line["name"] as? String == name)
        let json = try SDLJSONValue(parsing: rpc.json)
        guard case .object(let members) = json else {
            Issue.record("JSON is not an object")
            return
        }
        #expect(line["params"] as? [String] == members.map(\.key).sorted())
        try decodeTyped(name: name, rpcType: rpc.rpcType, json: rpc.json)
    }

    /// Every message SDL Core sent or accepted decodes into its generated type. Strictly, all but
    /// one do: SDL Core 8.2 leaves out `ImageField.imageTypeSupported`, which the spec makes
    /// mandatory, so the app-side (lenient) decoding keeps the response and warns.
    private func decodeTyped(name: String, rpcType: SDLRPCType, json: [UInt8]) throws {
        let types: [any SDLMessage.Type] =
            switch rpcType {
            case .request: MobileAPI.requests
            case .response: MobileAPI.responses
            default: MobileAPI.notifications
            }
        let type = try #require(types.first { $0.functionName == name })
        try decode(type, json)
    }

    private func decode<T: SDLMessage>(_ type: T.Type, _ json: [UInt8]) throws {
        let decoded = try SDLJSON.decode(T.self, from: json, policy: .lenient)
        let deviations = Set(decoded.warnings.map { "\($0.path.components.last.map { "\($0)" } ?? ""): \($0.message)" })
        if T.self == RegisterAppInterfaceResponse.self {
            #expect(deviations == [#"key("imageTypeSupported"): mandatory parameter is missing"#])
            #expect(throws: SDLDecodingError.self) { try SDLJSON.decode(T.self, from: json, policy: .strict) }
            // Every image field is kept (the missing types empty), `graphic` among them: an app
            // must see that the template shows a graphic.
            let fields = (decoded.value as? RegisterAppInterfaceResponse)?.displayCapabilities?.imageFields ?? []
            #expect(fields.count == 12)
            #expect(fields.first { $0.name == .graphic }?.imageTypeSupported == [])
        } else {
            #expect(decoded.warnings.isEmpty, "\(T.functionName): \(decoded.warnings)")
        }
    }
}
