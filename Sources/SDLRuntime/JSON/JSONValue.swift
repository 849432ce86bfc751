/// A JSON document as a tree, for tools that handle messages whose type is known only at run
/// time (`sdl validate`, `sdl send`). Typed messages go through `SDLJSON` instead, which is
/// faster and needs no tree. Integers and floats stay apart (`5` vs `5.0`), object members keep
/// their order, and duplicate keys are an error.
public enum SDLJSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case float(Double)
    case string(String)
    case array([SDLJSONValue])
    case object([Member])

    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: SDLJSONValue

        public init(key: String, value: SDLJSONValue) {
            self.key = key
            self.value = value
        }
    }

    public subscript(key: String) -> SDLJSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The JSON type, as messages name it: `Object`, `Array`, `String`, `Integer`, `Float`, ...
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "Boolean"
        case .integer: "Integer"
        case .float: "Float"
        case .string: "String"
        case .array: "Array"
        case .object: "Object"
        }
    }

    /// Compact JSON text.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    private func append(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): JSONText.appendInteger(value, to: &out)
        case .float(let value): JSONText.appendFloat(value, to: &out)
        case .string(let value): JSONText.appendQuoted(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// Why text is not the JSON a tool expected.
public struct SDLJSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public var description: String { "\(message) at byte \(offset)" }
}

extension SDLJSONValue {
    /// Parses one JSON value filling `bytes` (RFC 8259), nesting at most `maxDepth` deep.
    public init(parsing bytes: [UInt8], maxDepth: Int = SDLJSON.defaultMaxDepth) throws(SDLJSONSyntaxError) {
        let result = bytes.withUnsafeBytes { raw -> Result<SDLJSONValue, SDLJSONSyntaxError> in
            var parser = JSONTreeParser(input: raw, maxDepth: maxDepth)
            do throws(SDLJSONSyntaxError) {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.position == raw.count else { throw parser.error("unexpected text after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    public init(parsing text: String, maxDepth: Int = SDLJSON.defaultMaxDepth) throws(SDLJSONSyntaxError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }
}

private struct JSONTreeParser {
    let input: UnsafeRawBufferPointer
    var position = 0
    let maxDepth: Int

    init(input: UnsafeRawBufferPointer, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    func error(_ message: String) -> SDLJSONSyntaxError {
        SDLJSONSyntaxError(message: message, offset: position)
    }

    func peek() -> UInt8? { position < input.count ? input[position] : nil }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(SDLJSONSyntaxError) {
        skipWhitespace()
        guard peek() == byte else { throw error("expected \(what)") }
        position += 1
    }

    mutating func value(depth: Int) throws(SDLJSONSyntaxError) -> SDLJSONValue {
        skipWhitespace()
        guard let byte = peek() else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw error("nested deeper than \(maxDepth) levels") }
            position += 1
            var members: [SDLJSONValue.Member] = []
            var keys: Set<String> = []
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw error("expected a key string") }
                let keyStart = position
                let key = try string()
                guard keys.insert(key).inserted else {
                    position = keyStart
                    throw error("key \"\(key)\" appears more than once")
                }
                try expect(UInt8(ascii: ":"), "':'")
                members.append(.init(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return .object(members)
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw error("nested deeper than \(maxDepth) levels") }
            position += 1
            var values: [SDLJSONValue] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                position += 1
                return .array(values)
            }
            while true {
                values.append(try value(depth: depth + 1))
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return .array(values)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return try number()
        }
    }

    mutating func literal(_ text: StaticString) throws(SDLJSONSyntaxError) {
        let count = text.utf8CodeUnitCount
        guard position + count <= input.count,
            (0..<count).allSatisfy({ input[position + $0] == text.utf8Start[$0] })
        else { throw error("invalid literal") }
        position += count
    }

    mutating func digits() -> Int {
        let start = position
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    mutating func number() throws(SDLJSONSyntaxError) -> SDLJSONValue {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("invalid number") }
        guard integerDigits == 1 || input[integerStart] != UInt8(ascii: "0") else { throw error("leading zero in number") }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard digits() > 0 else { throw error("invalid number") }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            position += 1
            isInteger = false
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
        if isInteger {
            guard let integer = Int(text) else {
                position = start
                throw error("integer \(text) does not fit in 64 bits")
            }
            return .integer(integer)
        }
        guard let float = Double(text), float.isFinite else {
            position = start
            throw error("number \(text) does not fit")
        }
        return .float(float)
    }

    mutating func string() throws(SDLJSONSyntaxError) -> String {
        position += 1
        var bytes: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard bytes.withUnsafeBytes({ UTF8Validation.isValid($0) }) else { throw error("invalid UTF-8 in string") }
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                if let problem = JSONText.decodeEscape(input, at: &position, into: &bytes) { throw error(problem) }
            case 0..<0x20:
                throw error("control character in string")
            default:
                bytes.append(byte)
            }
        }
    }
}
