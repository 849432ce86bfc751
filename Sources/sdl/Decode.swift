import ArgumentParser
import Foundation
import SDLProtocol
import SDLRuntime

/// `sdl decode FILE`: the frames and messages of a capture (one direction's raw bytes).
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the frames and messages in a binary capture as JSON lines.",
        discussion: "One line per frame, and one per complete RPC message after its last frame.")

    @Argument(help: ArgumentHelp("Raw bytes of one direction of an SDL connection.", valueName: "file"))
    var file: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("Cannot read \(file).") }
        for line in try Self.decode(Array(data)) { Output.line(line) }
    }

    static func decode(_ bytes: [UInt8]) throws -> [SDLJSONValue] {
        var decoder = SDLFrameDecoder(maxDataSize: Int(UInt32.max))
        var reassembler = SDLReassembler()
        decoder.append(bytes)
        var lines: [SDLJSONValue] = []
        var offset = 0
        do {
            while let frame = try decoder.nextFrame() {
                lines.append(frameLine(frame, offset: offset))
                offset += frame.header.size + frame.payload.count
                if let message = try reassembler.receive(frame), message.controlFrameType == nil {
                    lines.append(messageLine(message))
                }
            }
        } catch {
            lines.append(.object([.init(key: "error", value: .string("\(error)")), .init(key: "offset", value: .integer(offset))]))
        }
        if decoder.bufferedByteCount > 0 {
            lines.append(
                .object([
                    .init(key: "error", value: .string("\(decoder.bufferedByteCount) bytes of an incomplete frame at the end")),
                    .init(key: "offset", value: .integer(offset)),
                ]))
        }
        return lines
    }

    static func frameLine(_ frame: SDLFrame, offset: Int) -> SDLJSONValue {
        let header = frame.header
        var members: [SDLJSONValue.Member] = [
            .init(key: "frame", value: .bool(true)),
            .init(key: "offset", value: .integer(offset)),
            .init(key: "version", value: .integer(Int(header.version))),
            .init(key: "encrypted", value: .bool(header.isEncrypted)),
            .init(key: "frameType", value: .integer(Int(header.frameType.rawValue))),
            .init(key: "serviceType", value: .integer(Int(header.serviceType.rawValue))),
            .init(key: "frameInfo", value: .integer(Int(header.frameInfo))),
            .init(key: "sessionId", value: .integer(Int(header.sessionID))),
            .init(key: "dataSize", value: .integer(frame.payload.count)),
            .init(key: "messageId", value: header.version == 1 ? .null : .integer(Int(header.messageID))),
        ]
        if let control = header.controlFrameType {
            members.append(.init(key: "control", value: .string(control.description)))
            if header.version >= 5 || !frame.payload.isEmpty, let document = try? BSONDocument(decoding: frame.payload) {
                members.append(.init(key: "bson", value: json(.document(document))))
            }
        }
        return .object(members)
    }

    static func messageLine(_ message: SDLProtocolMessage) -> SDLJSONValue {
        var members: [SDLJSONValue.Member] = [
            .init(key: "message", value: .bool(true)),
            .init(key: "serviceType", value: .integer(Int(message.serviceType.rawValue))),
            .init(key: "sessionId", value: .integer(Int(message.sessionID))),
            .init(key: "messageId", value: .integer(Int(message.messageID))),
            .init(key: "size", value: .integer(message.payload.count)),
        ]
        guard message.serviceType == .rpc || message.serviceType == .hybrid else { return .object(members) }
        do {
            let rpc = try SDLRPCPayload(decoding: message.payload)
            members += [
                .init(key: "rpcType", value: .string(rpc.rpcType.description)),
                .init(key: "functionId", value: .integer(Int(rpc.functionID))),
                .init(key: "name", value: .string(Output.functionName(rpc.functionID))),
                .init(key: "correlationId", value: .integer(Int(rpc.correlationID))),
                .init(key: "jsonSize", value: .integer(rpc.json.count)),
                .init(key: "bulkSize", value: .integer(rpc.bulkData.count)),
            ]
            if case .object(let params)? = try? SDLJSONValue(parsing: rpc.json) {
                members.append(.init(key: "params", value: .array(params.map(\.key).sorted().map(SDLJSONValue.string))))
            }
        } catch {
            members.append(.init(key: "error", value: .string("\(error)")))
        }
        return .object(members)
    }

    static func json(_ value: BSONValue) -> SDLJSONValue {
        switch value {
        case .double(let number): .float(number)
        case .string(let text): .string(text)
        case .document(let document): .object(document.elements.map { .init(key: $0.key, value: json($0.value)) })
        case .array(let values): .array(values.map(json))
        case .binary(_, let bytes): .string(bytes.map { String($0, radix: 16) }.joined())
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .int32(let number): .integer(Int(number))
        case .int64(let number): .integer(Int(number))
        }
    }
}
