import Foundation
import SDLRPC
import SDLRuntime

/// One JSON object per line on standard output, written at once so pipes see it immediately.
enum Output {
    static func line(_ value: SDLJSONValue) {
        var bytes = value.jsonBytes
        bytes.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// `{"<kind>": "<name>", "params": <json as received>}`: the params stay byte for byte.
    static func message(kind: String, name: String, json: [UInt8]) {
        var bytes = Array("{\"\(kind)\":".utf8) + SDLJSONValue.string(name).jsonBytes + Array(",\"params\":".utf8)
        bytes += json.isEmpty ? Array("{}".utf8) : json
        bytes += Array("}\n".utf8)
        FileHandle.standardOutput.write(Data(bytes))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("sdl: \(text)\n".utf8))
    }

    /// The spec name of a function ID (`ShowID` → `Show`).
    static func functionName(_ id: UInt32) -> String {
        guard let element = FunctionID(value: Int(id)) else { return "FunctionID(\(id))" }
        let name = element.rawValue
        return name.hasSuffix("ID") ? String(name.dropLast(2)) : name
    }
}
