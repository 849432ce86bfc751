/// Reading a JSON-RPC envelope in one pass: the few keys of the envelope are read, the body
/// object is checked and skipped without making Strings (its range kept, for the generated
/// decoder to read in place), and nothing else is allocated.

/// What an envelope's key held.
enum JSONRPCField<Value: Hashable>: Hashable {
    case absent
    /// `null`, for `id`; other keys report `null` as a wrong type.
    case null
    /// Present but unusable; the issue is recorded.
    case invalid
    case value(Value)
}

/// The envelope's keys as read, before they are judged.
struct JSONRPCFields {
    var hasVersion = false
    var id = JSONRPCField<SDLJSONRPCID>.absent
    var method = JSONRPCField<String>.absent
    var params = JSONRPCField<Range<Int>>.absent
    var result = JSONRPCField<Range<Int>>.absent
    var resultCode = JSONRPCField<Int>.absent
    var resultMethod = JSONRPCField<String>.absent
    var error = JSONRPCField<Range<Int>>.absent
    var errorCode = JSONRPCField<Int>.absent
    var errorMessage = JSONRPCField<String>.absent
    var errorData = JSONRPCField<Range<Int>>.absent
    var errorMethod = JSONRPCField<String>.absent

    /// A method read anywhere, to name an unusable message in its issues.
    var anyMethod: String? {
        for field in [resultMethod, errorMethod, method] { if case .value(let method) = field { return method } }
        return nil
    }
}

/// An envelope as judged.
struct JSONRPCEnvelope {
    /// Nil when the message is unusable whatever the policy.
    var kind: SDLJSONRPCMessage.Kind?
    var method: String?
    var body: Range<Int>?
    /// Errors (each a warning when read leniently, unless `kind` is nil).
    var issues: [SDLCodingIssue]
    var unknownKeys: [SDLCodingPath]
    /// The root of the issues: the method, once read, else `message`.
    var root = SDLJSONRPC.messageRoot
}

/// The keys of the envelope's objects, as parameters so that the reader finds them by their bytes.
enum JSONRPCKeys {
    private static func keys(_ names: String...) -> [SDLParameterInfo] {
        names.map { SDLParameterInfo(name: $0, type: .string, isMandatory: false) }
    }

    static let message = keys("jsonrpc", "id", "method", "params", "result", "error")
    static let result = keys("code", "method")
    static let error = keys("code", "message", "data")
    static let data = keys("method")
    /// A code: any integer (numbers the spec does not define are kept).
    static let code = SDLParameterInfo(name: "code", type: .integer, isMandatory: false)
    /// A method or message: any string.
    static let text = SDLParameterInfo(name: "method", type: .string, isMandatory: false)
}

/// Which body the envelope reader hands over to be decoded where it is met, instead of skipping it.
enum JSONRPCBody {
    case none
    /// A request's or notification's `params` object.
    case params
    /// A response's `result` object; `body` also sets the result's `code` and `method` in the
    /// fields, as it finds them on the way.
    case result
}

extension SDLJSONReader {
    /// Reads and judges the envelope of the message in `input`. The `params` and `result`
    /// objects are skipped, or the one `decodes` names is handed to `body` (the reader on its
    /// `{`), which must leave the reader past it: one pass for callers that know the type.
    /// `method`, when the caller knows the method it expects, is that method's name: a method
    /// written exactly so is taken without making a String (the same value either way).
    static func readEnvelope(
        _ input: UnsafeRawBufferPointer, maxDepth: Int, decodes: JSONRPCBody = .none, method expected: String? = nil,
        body: (inout SDLJSONReader, inout JSONRPCFields) throws(SDLReaderFailure) -> Void = { _, _ throws(SDLReaderFailure) in }
    ) -> JSONRPCEnvelope {
        var reader = SDLJSONReader(input: input, root: SDLJSONRPC.messageRoot, maxDepth: maxDepth)
        var fields = JSONRPCFields()
        var envelope = JSONRPCEnvelope(kind: nil, method: nil, body: nil, issues: [], unknownKeys: [])
        if reader.readEnvelope(into: &fields, decodes: decodes, method: expected, body: body) { reader.judge(fields, into: &envelope) }
        envelope.issues = reader.issues
        envelope.unknownKeys = reader.unknownKeys
        // Once the method is known, it names the message in every path (also when the message
        // turns out unusable, as far as it was read).
        if let method = envelope.method ?? fields.anyMethod {
            envelope.root = method
            for index in envelope.issues.indices { envelope.issues[index].path.root = method }
            for index in envelope.unknownKeys.indices { envelope.unknownKeys[index].root = method }
        }
        return envelope
    }

    // MARK: Reading

    /// Reads the message's keys into `fields`; false when the input is no JSON object.
    private mutating func readEnvelope(
        into fields: inout JSONRPCFields, decodes: JSONRPCBody, method expected: String?,
        body: (inout SDLJSONReader, inout JSONRPCFields) throws(SDLReaderFailure) -> Void
    ) -> Bool {
        do throws(SDLReaderFailure) {
            skipWhitespace()
            guard peek() == UInt8(ascii: "{") else {
                record(.malformed("a message must be a JSON object, found \(describeNext())"))
                return false
            }
            try readMembers(named: JSONRPCKeys.message, noteUnknown: true) { (reader: inout SDLJSONReader, index: Int) throws(SDLReaderFailure) in
                switch index {
                case 0:
                    fields.hasVersion = true
                    try reader.readVersion()
                case 1: fields.id = try reader.readID()
                case 2: fields.method = try reader.readMethod(expected)
                case 3:
                    guard reader.peek() == UInt8(ascii: "{") else {
                        try reader.mismatch(expected: "Object")
                        fields.params = .invalid
                        return
                    }
                    let start = reader.position
                    if decodes == .params {
                        try body(&reader, &fields)
                    } else {
                        try reader.skipValueQuickly()
                    }
                    fields.params = .value(start..<reader.position)
                case 4:
                    if decodes == .result, reader.peek() == UInt8(ascii: "{") {
                        (fields.resultCode, fields.resultMethod) = (.absent, .absent)
                        let start = reader.position
                        try body(&reader, &fields)
                        fields.result = .value(start..<reader.position)
                    } else {
                        try reader.readResult(into: &fields, method: expected)
                    }
                default: try reader.readError(into: &fields, method: expected)
                }
            }
            skipWhitespace()
            if position < input.count {
                record(.malformed("unexpected \(describeNext()) after the message"))
                return false
            }
            return true
        } catch {
            return false
        }
    }

    /// `result`: its `code` and `method`; the response's parameters are skipped for now.
    private mutating func readResult(into fields: inout JSONRPCFields, method expected: String?) throws(SDLReaderFailure) {
        (fields.resultCode, fields.resultMethod) = (.absent, .absent)
        guard peek() == UInt8(ascii: "{") else {
            try mismatch(expected: "Object")
            fields.result = .invalid
            return
        }
        let start = position
        try readMembers(named: JSONRPCKeys.result, noteUnknown: false) { (reader: inout SDLJSONReader, index: Int) throws(SDLReaderFailure) in
            if index == 0 {
                fields.resultCode = try reader.readCode()
            } else {
                fields.resultMethod = try reader.readMethod(expected)
            }
        }
        fields.result = .value(start..<position)
    }

    /// `error`: `code`, `message` and `data.method`; the rest of `data` is the sender's own.
    private mutating func readError(into fields: inout JSONRPCFields, method expected: String?) throws(SDLReaderFailure) {
        (fields.errorCode, fields.errorMessage, fields.errorData, fields.errorMethod) = (.absent, .absent, .absent, .absent)
        guard peek() == UInt8(ascii: "{") else {
            try mismatch(expected: "Object")
            fields.error = .invalid
            return
        }
        let start = position
        try readMembers(named: JSONRPCKeys.error, noteUnknown: true) { (reader: inout SDLJSONReader, index: Int) throws(SDLReaderFailure) in
            switch index {
            case 0: fields.errorCode = try reader.readCode()
            case 1: fields.errorMessage = try reader.readText()
            default:
                fields.errorMethod = .absent
                guard reader.peek() == UInt8(ascii: "{") else {
                    try reader.mismatch(expected: "Object")
                    fields.errorData = .invalid
                    return
                }
                let start = reader.position
                try reader.readMembers(named: JSONRPCKeys.data, noteUnknown: false) { (reader: inout SDLJSONReader, _: Int) throws(SDLReaderFailure) in
                    fields.errorMethod = try reader.readMethod(expected)
                }
                fields.errorData = .value(start..<reader.position)
            }
        }
        fields.error = .value(start..<position)
    }

    /// Reads the object the reader stands on: hands each key among `names` to `member` (with
    /// its index, the key on the path) and skips the others quickly. With `noteUnknown` they
    /// are noted as unknown keys; without, they belong to a body read later, which checks them.
    /// A key of `names` twice is a duplicate.
    private mutating func readMembers(
        named names: [SDLParameterInfo], noteUnknown: Bool,
        _ member: (inout SDLJSONReader, Int) throws(SDLReaderFailure) -> Void
    ) throws(SDLReaderFailure) {
        let outer = try enterObject()
        defer { object = outer }
        var seen: UInt64 = 0
        var likely = 0
        while try advanceToKey() {
            let keyStart = position
            var index = -1
            var unknown: String?
            if let (found, end) = Self.parameter(at: position + 1, of: input, in: names, likely: likely) {
                index = found
                position = end + 1
            } else if noteUnknown {
                let key = try parseString()
                // A name spelled with escapes is the same key.
                index = names.firstIndex { $0.name == key } ?? -1
                unknown = key
            } else if try scanString() {
                position = keyStart
                let key = try parseString()
                index = names.firstIndex { $0.name == key } ?? -1
            }
            try expectColon()
            if index >= 0 {
                let bit: UInt64 = 1 << UInt64(index)
                if seen & bit != 0 { duplicate(names[index].name) }
                seen |= bit
                likely = index + 1
                path.components.append(.key(names[index].name))
                defer { path.components.removeLast() }
                try member(&self, index)
            } else if let unknown {
                noteKey(unknown)
                try skipUnknownValue(forKey: unknown)
            } else {
                try skipValueQuickly(key: keyStart)
            }
        }
    }

    /// `jsonrpc`, which must be "2.0".
    private mutating func readVersion() throws(SDLReaderFailure) {
        // As it is always written: compared in place.
        if position + 5 <= input.count, input[position] == UInt8(ascii: "\""), input[position + 1] == UInt8(ascii: "2"),
            input[position + 2] == UInt8(ascii: "."), input[position + 3] == UInt8(ascii: "0"), input[position + 4] == UInt8(ascii: "\"")
        {
            position += 5
            return
        }
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: #""2.0""#)
            return
        }
        let version = try parseString()
        if version != "2.0" { record(.wrongType(expected: #""2.0""#, found: "\"\(version)\"")) }
    }

    /// `id`: an integer or a string, or `null` (in an error).
    private mutating func readID() throws(SDLReaderFailure) -> JSONRPCField<SDLJSONRPCID> {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""):
            return .value(.string(try parseString()))
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            switch try parseNumber() {
            case .integer(let number): return .value(.number(number))
            case .float: record(.wrongType(expected: "Integer or String", found: "Float"))
            case .overflow: record(.numberOverflow(text(start..<position)))
            }
            return .invalid
        default:
            try mismatch(expected: "Integer or String")
            return .invalid
        }
    }

    private mutating func readCode() throws(SDLReaderFailure) -> JSONRPCField<Int> {
        guard let code = try integerValue(JSONRPCKeys.code) else { return .invalid }
        return .value(code)
    }

    /// A method: `expected` when written exactly so (no String made), else any string.
    private mutating func readMethod(_ expected: String?) throws(SDLReaderFailure) -> JSONRPCField<String> {
        if let expected, peek() == UInt8(ascii: "\""), let end = Self.name(expected, at: position + 1, of: input) {
            position = end + 1
            return .value(expected)
        }
        return try readText()
    }

    private mutating func readText() throws(SDLReaderFailure) -> JSONRPCField<String> {
        guard let text = try stringValue(JSONRPCKeys.text) else { return .invalid }
        return .value(text)
    }

    // MARK: Judging

    /// Records `kind` at `message.<keys>`.
    private mutating func record(_ kind: SDLCodingIssue.Kind, at keys: String...) {
        let depth = path.components.count
        for key in keys { path.components.append(.key(key)) }
        record(kind)
        path.components.removeLast(path.components.count - depth)
    }

    /// Decides the message's kind from the keys read, recording what is missing or does not fit.
    /// `kind` stays nil when no message can be built (whatever the policy).
    private mutating func judge(_ fields: JSONRPCFields, into envelope: inout JSONRPCEnvelope) {
        if !fields.hasVersion { record(.missingMandatory, at: "jsonrpc") }
        let hasParams = fields.params != .absent
        let hasResult = fields.result != .absent
        let hasError = fields.error != .absent
        if (hasParams ? 1 : 0) + (hasResult ? 1 : 0) + (hasError ? 1 : 0) > 1 {
            record(.malformed("a message has one of params, result and error, not two"))
            return
        }
        if hasResult {
            judgeResponse(fields, into: &envelope)
        } else if hasError {
            judgeError(fields, into: &envelope)
        } else if fields.method != .absent {
            judgeRequest(fields, into: &envelope)
        } else {
            record(.malformed("a message needs a method, a result or an error"))
        }
    }

    private mutating func judgeRequest(_ fields: JSONRPCFields, into envelope: inout JSONRPCEnvelope) {
        var usable = true
        if case .value(let method) = fields.method { envelope.method = method } else { usable = false }
        if case .value(let body) = fields.params { envelope.body = body } else if fields.params != .absent { usable = false }
        let kind: SDLJSONRPCMessage.Kind
        switch fields.id {
        case .absent: kind = .notification
        case .value(let id): kind = .request(id: id)
        case .null:
            record(.wrongType(expected: "Integer or String", found: "null"), at: "id")
            return
        case .invalid: return
        }
        if usable { envelope.kind = kind }
    }

    private mutating func judgeResponse(_ fields: JSONRPCFields, into envelope: inout JSONRPCEnvelope) {
        switch fields.resultMethod {
        case .value(let method): envelope.method = method
        case .absent: if case .value = fields.result { record(.missingMandatory, at: "result", "method") }
        case .null, .invalid: break
        }
        // A request's key in a response: not JSON-RPC's, so ignored.
        if fields.method != .absent { log.unknownKey("method", in: path) }
        let id = requiredID(fields.id)
        var code: Int?
        switch fields.resultCode {
        case .value(let value): code = value
        case .absent: if case .value = fields.result { record(.missingMandatory, at: "result", "code") }
        case .null, .invalid: break
        }
        guard case .value(let body) = fields.result, let id, let code else { return }
        envelope.body = body
        envelope.kind = .response(id: id, code: code)
    }

    private mutating func judgeError(_ fields: JSONRPCFields, into envelope: inout JSONRPCEnvelope) {
        if case .value(let method) = fields.errorMethod { envelope.method = method }
        if fields.method != .absent { log.unknownKey("method", in: path) }
        var id: SDLJSONRPCID?
        switch fields.id {
        case .value(let value): id = value
        case .absent: record(.missingMandatory, at: "id")
        case .null, .invalid: break
        }
        var code: Int?
        switch fields.errorCode {
        case .value(let value): code = value
        case .absent: if case .value = fields.error { record(.missingMandatory, at: "error", "code") }
        case .null, .invalid: break
        }
        guard case .value = fields.error, let code else { return }
        var message: String?
        if case .value(let text) = fields.errorMessage { message = text }
        envelope.kind = .error(id: id, code: code, message: message)
    }

    /// A response's id: present, and not `null`.
    private mutating func requiredID(_ field: JSONRPCField<SDLJSONRPCID>) -> SDLJSONRPCID? {
        switch field {
        case .value(let id): return id
        case .absent: record(.missingMandatory, at: "id")
        case .null: record(.wrongType(expected: "Integer or String", found: "null"), at: "id")
        case .invalid: break
        }
        return nil
    }
}
