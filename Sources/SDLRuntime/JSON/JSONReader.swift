/// Reads JSON straight into generated types: no intermediate tree, no Foundation. Every
/// problem is recorded with its path and reading goes on where the syntax allows, so one
/// pass reports all the errors of a message. Input is bounded: nesting is limited to
/// `maxDepth`, and nothing is allocated beyond the values actually read.
public struct SDLJSONReader: SDLReader {
    let input: UnsafeRawBufferPointer
    var position = 0
    private let maxDepth: Int
    var depth = 0
    var path: SDLCodingPath
    /// What the open objects have seen, to catch duplicate keys: the parameters named (keys
    /// read through `nextKey(in:)`), the first 64 as bits of the open object, the others (a
    /// type with more parameters) by index in a flat stack for all the open objects, outermost
    /// first, so that entering an object allocates nothing; and the other keys, by object, in a
    /// set, so that an object with many unknown keys stays linear.
    private var seenParameters: [Int] = []
    private var seenKeys: Set<ExactKey> = []
    private var objectCount = 0
    /// The innermost open object.
    var object = OpenObject()

    struct OpenObject {
        /// Where the object's entries start in `seenParameters`.
        var parametersStart = 0
        /// The object's scope in `seenKeys`.
        var id = 0
        /// The parameter the next key most likely names: the one after the last key's.
        var nextParameter = 0
        /// The parameters below 64 the object has named, as bits.
        var seenBits: UInt64 = 0
    }
    /// Whether the innermost open object or array still waits for its first member.
    var expectingFirstMember = false
    /// While set, issues are not recorded: a quick skip that fails is done again for its path.
    private var quiet = false
    /// What a JSON-RPC response's `result` object's `code` and `method` (at its top level) are
    /// to this reader: none of its business (any other object), the envelope's, already read
    /// (skipped without being noted), or the envelope's, read here for it (captured).
    enum EnvelopeKeys {
        case none
        case skip
        case capture
    }
    private(set) var envelopeKeys = EnvelopeKeys.none
    /// With `.capture`: the `code` and `method` met, where the envelope would have read them.
    private(set) var captured = CapturedEnvelopeKeys()

    /// The envelope's keys as a body reader captured them, when they are as usual: each once,
    /// `code` an integer, `method` a string without escapes. Anything else is `unusual`, and
    /// the caller reads the message again the usual way (the envelope first), which reports it.
    struct CapturedEnvelopeKeys {
        var code: Int?
        /// The method's bytes, between its quotes.
        var method: Range<Int>?
        var unusual = false
    }

    var log = SDLIssueLog()
    public var issues: [SDLCodingIssue] { log.issues }
    public var unknownKeys: [SDLCodingPath] { log.unknownKeys }

    init(input: UnsafeRawBufferPointer, root: String, maxDepth: Int) {
        self.input = input
        self.path = SDLCodingPath(root: root)
        self.maxDepth = maxDepth
    }

    // MARK: Entry point

    /// Decodes a whole message: one JSON object holding `T`'s parameters.
    static func decode<T: SDLCodable>(_ type: T.Type, from input: UnsafeRawBufferPointer, maxDepth: Int) -> (T?, SDLJSONReader) {
        var reader = SDLJSONReader(input: input, root: T.structInfo.name, maxDepth: maxDepth)
        do throws(SDLReaderFailure) {
            reader.skipWhitespace()
            guard reader.peek() == UInt8(ascii: "{") else {
                reader.record(.malformed("a message must be a JSON object, found \(reader.describeNext())"))
                return (nil, reader)
            }
            let value = try reader.readObjectBody(T.self)
            reader.skipWhitespace()
            if reader.position < input.count {
                reader.record(.malformed("unexpected \(reader.describeNext()) after the message"))
                return (nil, reader)
            }
            return (value, reader)
        } catch {
            return (nil, reader)
        }
    }

    /// What decoding a JSON-RPC body left (the reader itself is not handed on: each copy of it
    /// would retain, and then release, all of its state).
    struct BodyOutcome {
        /// Issues and unknown keys, rooted at the root the body was decoded with.
        var issues: [SDLCodingIssue]
        var unknownKeys: [SDLCodingPath]
        /// Where reading stopped: past the object when `complete`.
        var end: Int
        /// Whether the input could be read to the object's end (else the value is nil and the
        /// issues say why).
        var complete: Bool
        /// With `.capture`, the envelope's keys found at the object's top level.
        var captured: CapturedEnvelopeKeys
    }

    /// Decodes the body of a JSON-RPC message into `value`: the `params` or `result` object at
    /// `start` in `input` (the whole message, read in place), `depth` levels down, with issues
    /// under `root`. (`value` is inout rather than returned: unspecialized callers would look
    /// the metadata of `T?`, or of a tuple holding it, up on every call.)
    static func decodeBody<T: SDLCodable>(
        _ type: T.Type, from input: UnsafeRawBufferPointer, at start: Int, root: String, depth: Int, maxDepth: Int,
        envelopeKeys: EnvelopeKeys = .none, into value: inout T?
    ) -> BodyOutcome {
        var reader = SDLJSONReader(input: input, root: root, maxDepth: maxDepth)
        reader.position = start
        reader.depth = depth
        reader.envelopeKeys = envelopeKeys
        var complete = false
        do throws(SDLReaderFailure) {
            reader.skipWhitespace()
            if reader.peek() == UInt8(ascii: "{") {
                value = try reader.readObjectBody(T.self)
                complete = true
            } else {
                reader.record(.malformed("a message body must be a JSON object, found \(reader.describeNext())"))
            }
        } catch {
            value = nil
        }
        return BodyOutcome(issues: reader.issues, unknownKeys: reader.unknownKeys, end: reader.position, complete: complete, captured: reader.captured)
    }

    // MARK: Issues

    mutating func record(_ kind: SDLCodingIssue.Kind, severity: SDLCodingIssue.Severity = .error) {
        if quiet { return }
        log.record(kind, at: path, severity: severity)
    }

    mutating func fail(_ reason: String) -> SDLReaderFailure {
        record(.malformed("\(reason) at byte \(position)"))
        return .malformed
    }

    // MARK: Bytes

    @inline(__always)
    func peek() -> UInt8? {
        position < input.count ? input[position] : nil
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    func describeNext() -> String {
        guard let byte = peek() else { return "end of input" }
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default: return "byte 0x\(String(byte, radix: 16))"
        }
    }

    /// What the next value is, for "expected X, found Y" messages.
    func kindOfNext() -> String {
        guard let byte = peek() else { return "end of input" }
        switch byte {
        case UInt8(ascii: "{"): return "Object"
        case UInt8(ascii: "["): return "Array"
        case UInt8(ascii: "\""): return "String"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "Boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var index = position
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return "Float"
                case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "0")...UInt8(ascii: "9"): index += 1
                default: return "Integer"
                }
            }
            return "Integer"
        default: return "invalid JSON"
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(SDLReaderFailure) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= input.count else { throw fail("truncated literal") }
        for offset in 0..<count where input[position + offset] != literal.utf8Start[offset] {
            throw fail("invalid literal")
        }
        position += count
    }

    // MARK: Structure

    mutating func enter() throws(SDLReaderFailure) {
        depth += 1
        if depth > maxDepth {
            record(.tooDeep(limit: maxDepth))
            throw .malformed
        }
        position += 1  // `{` or `[`
        expectingFirstMember = true
    }

    /// Enters an object (the reader stands on `{`); returns the enclosing object's state, which
    /// the caller puts back once the object is read.
    mutating func enterObject() throws(SDLReaderFailure) -> OpenObject {
        try enter()
        let outer = object
        objectCount += 1
        object = OpenObject(parametersStart: seenParameters.count, id: objectCount)
        return outer
    }

    /// Reads `{ ... }` into `T`; the reader stands on `{`.
    private mutating func readObjectBody<T: SDLCodable>(_ type: T.Type) throws(SDLReaderFailure) -> T? {
        let outer = try enterObject()
        defer { object = outer }
        do {
            return try T(from: &self)
        } catch .invalidValue {
            return nil
        } catch {
            throw error
        }
    }

    /// Moves to the next key's opening quote; false (and the object left) after the last key.
    mutating func advanceToKey() throws(SDLReaderFailure) -> Bool {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated object") }
        if byte == UInt8(ascii: "}") {
            position += 1
            if seenParameters.count > object.parametersStart {
                seenParameters.removeLast(seenParameters.count - object.parametersStart)
            }
            depth -= 1
            expectingFirstMember = false
            return false
        }
        if expectingFirstMember {
            expectingFirstMember = false
        } else {
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in object") }
            position += 1
            skipWhitespace()
        }
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key string") }
        return true
    }

    /// Moves past the `:` after a key.
    @inline(__always)
    mutating func expectColon() throws(SDLReaderFailure) {
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
        position += 1
        skipWhitespace()
    }

    /// Records `key` as a duplicate when the object has seen it.
    mutating func noteKey(_ key: String) {
        if !seenKeys.insert(ExactKey(scope: object.id, text: key)).inserted { duplicate(key) }
    }

    /// Records `key`, which names parameter `index`, as a duplicate when the object has seen it.
    private mutating func noteParameter(_ index: Int, key: String) {
        object.nextParameter = index + 1
        if index < 64 {
            let bit: UInt64 = 1 << UInt64(index)
            if object.seenBits & bit != 0 { duplicate(key) }
            object.seenBits |= bit
            return
        }
        for seen in object.parametersStart..<seenParameters.count where seenParameters[seen] == index {
            duplicate(key)
            return
        }
        seenParameters.append(index)
    }

    mutating func duplicate(_ key: String) {
        path.components.append(.key(key))
        record(.duplicateKey(key))
        path.components.removeLast()
    }

    public mutating func nextKey() throws(SDLReaderFailure) -> String? {
        guard try advanceToKey() else { return nil }
        // (A type without parameters reads its keys here: the envelope's are captured, not noted.)
        if envelopeKeys == .capture, try skipEnvelopeKey() { return try nextKey() }
        let key = try parseString()
        if envelopeKeys == .capture { noteEscapedEnvelopeKey(key) }
        try expectColon()
        noteKey(key)
        return key
    }

    public mutating func nextKey(in parameters: [SDLParameterInfo]) throws(SDLReaderFailure) -> SDLKey? {
        guard try advanceToKey() else { return nil }
        // Usually the key is a parameter's name as is (no escapes), most likely the one after
        // the previous key's: find it by its bytes, and make no String.
        if let (index, end) = Self.parameter(at: position + 1, of: input, in: parameters, likely: object.nextParameter) {
            position = end + 1
            try expectColon()
            let name = parameters[index].name
            noteParameter(index, key: name)
            return SDLKey(index: index, name: name)
        }
        if envelopeKeys != .none, try skipEnvelopeKey() { return try nextKey(in: parameters) }
        let key = try parseString()
        if envelopeKeys == .capture { noteEscapedEnvelopeKey(key) }
        try expectColon()
        // Equal as Strings (e.g. written with escapes) is the same key.
        if let index = parameters.firstIndex(where: { $0.name == key }) {
            noteParameter(index, key: key)
            return SDLKey(index: index, name: key)
        }
        noteKey(key)
        return SDLKey(index: -1, name: key)
    }

    /// Skips (or, with `.capture`, reads into `captured`) the member whose key the reader stands
    /// on when it is the envelope's `code` or `method` at the top level of a JSON-RPC `result`.
    /// `nextKey(in:)` calls this after the type's own parameters did not match.
    private mutating func skipEnvelopeKey() throws(SDLReaderFailure) -> Bool {
        guard object.id == 1 else { return false }
        let isCode: Bool
        let end: Int
        if let found = Self.name("code", at: position + 1, of: input) {
            (isCode, end) = (true, found)
        } else if let found = Self.name("method", at: position + 1, of: input) {
            (isCode, end) = (false, found)
        } else {
            return false
        }
        position = end + 1
        try expectColon()
        guard envelopeKeys == .capture else {
            try skipValue()
            return true
        }
        if isCode {
            // Once, an integer (as the envelope reads `code`).
            guard captured.code == nil, let byte = peek(), byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
                captured.unusual = true
                try skipValue()
                return true
            }
            if case .integer(let code) = try parseNumber() { captured.code = code } else { captured.unusual = true }
        } else {
            // Once, a string; its bytes, when it holds no escapes.
            guard captured.method == nil, peek() == UInt8(ascii: "\"") else {
                captured.unusual = true
                try skipValue()
                return true
            }
            let start = position + 1
            if try scanString() { captured.unusual = true }
            captured.method = start..<(position - 1)
        }
        return true
    }

    /// With `.capture`, a top-level key that is `code` or `method` spelled with escapes: the
    /// envelope would read it as its own, so this reader cannot stand in for it.
    private mutating func noteEscapedEnvelopeKey(_ key: String) {
        if object.id == 1, key == "code" || key == "method" { captured.unusual = true }
    }

    /// The parameter whose name is exactly the key starting at `start` (after its opening
    /// quote), with the position of the closing quote; `likely` is tried first, without looking
    /// for the key's end. (Static: a method on `self` called from a mutating one can copy the
    /// whole reader.)
    static func parameter(
        at start: Int, of input: UnsafeRawBufferPointer, in parameters: [SDLParameterInfo], likely: Int
    ) -> (index: Int, end: Int)? {
        parameters.withUnsafeBufferPointer { list -> (index: Int, end: Int)? in
            if likely < list.count, let end = name(list[likely].name, at: start, of: input) { return (likely, end) }
            var end = start
            while end < input.count {
                let byte = input[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                end += 1
            }
            guard end < input.count, input[end] == UInt8(ascii: "\"") else { return nil }
            let key = UnsafeRawBufferPointer(rebasing: input[start..<end])
            for index in list.indices where index != likely && bytes(key, equal: list[index].name) {
                return (index, end)
            }
            return nil
        }
    }

    /// Where the closing quote is when the input at `start` is `name` then a quote. A name holds
    /// no quote or backslash, so that quote ends the key.
    @inline(__always)
    static func name(_ name: String, at start: Int, of input: UnsafeRawBufferPointer) -> Int? {
        let end = start + name.utf8.count
        guard end < input.count, input[end] == UInt8(ascii: "\""),
            bytes(UnsafeRawBufferPointer(rebasing: input[start..<end]), equal: name)
        else { return nil }
        return end
    }

    @inline(__always)
    static func bytes(_ key: UnsafeRawBufferPointer, equal name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == key.count else { return false }
        return utf8.withContiguousStorageIfAvailable { bytes in
            // Eight bytes at a time, then the rest.
            let name = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= name.count {
                guard
                    name.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < name.count {
                guard name[offset] == key[offset] else { return false }
                offset += 1
            }
            return true
        } ?? utf8.elementsEqual(key)
    }

    public mutating func skipUnknownValue(forKey key: String) throws(SDLReaderFailure) {
        log.unknownKey(key, in: path)
        path.components.append(.key(key))
        defer { path.components.removeLast() }
        try skipValue()
    }

    public mutating func missing(_ parameter: SDLParameterInfo) {
        log.missing(parameter, in: path)
    }

    /// Skips one value of any kind, checking its syntax.
    mutating func skipValue() throws(SDLReaderFailure) {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated value") }
        switch byte {
        case UInt8(ascii: "{"):
            let outer = try enterObject()
            defer { object = outer }
            while let key = try nextKey() {
                path.components.append(.key(key))
                defer { path.components.removeLast() }
                try skipValue()
            }
        case UInt8(ascii: "["):
            try enter()
            var index = 0
            while try nextElement() {
                path.components.append(.index(index))
                defer { path.components.removeLast() }
                try skipValue()
                index += 1
            }
        case UInt8(ascii: "\""):
            _ = try parseString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        default:
            _ = try parseNumber()
        }
    }

    // MARK: Quick skipping

    /// Skips one value like `skipValue`, checking the same syntax and depth, but makes no String
    /// and notes no key: for a value that is read again later (a JSON-RPC body) or never. When
    /// the value is malformed it is skipped again with `skipValue`, for the issue's exact path;
    /// `key`, the position of the value's key, puts that key on the path.
    mutating func skipValueQuickly(key: Int? = nil) throws(SDLReaderFailure) {
        let (start, outerDepth, outerObject) = (position, depth, object)
        quiet = true
        do {
            try scanValue()
            quiet = false
        } catch {
            quiet = false
            (position, depth, object, expectingFirstMember) = (start, outerDepth, outerObject, false)
            guard let key else { return try skipValue() }
            position = key
            let name = try parseString()
            try expectColon()
            path.components.append(.key(name))
            defer { path.components.removeLast() }
            try skipValue()
        }
    }

    /// `skipValue`'s syntax, without making Strings or noting keys.
    private mutating func scanValue() throws(SDLReaderFailure) {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated value") }
        switch byte {
        case UInt8(ascii: "{"):
            let outer = try enterObject()
            defer { object = outer }
            while try advanceToKey() {
                try scanString()
                try expectColon()
                try scanValue()
            }
        case UInt8(ascii: "["):
            try enter()
            while try nextElement() { try scanValue() }
        case UInt8(ascii: "\""):
            try scanString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        default:
            try scanNumber()
        }
    }

    /// Moves past the string the reader stands on, checking it as `parseString` does (escapes,
    /// control characters, UTF-8); true when it holds escapes.
    @discardableResult
    mutating func scanString() throws(SDLReaderFailure) -> Bool {
        let start = position + 1
        var index = start
        let count = input.count
        var bits: UInt64 = 0
        var escaped = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash or a control character.
            while index + 8 <= count {
                let word = input.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let quote = word ^ 0x2222_2222_2222_2222
                let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
                let special =
                    ((quote &- 0x0101_0101_0101_0101) & ~quote)
                    | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                    | ((word &- 0x2020_2020_2020_2020) & ~word)
                if special & 0x8080_8080_8080_8080 != 0 { break }
                bits |= word
                index += 8
            }
            guard index < count else {
                position = index
                throw fail("unterminated string")
            }
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                // Escapes are ASCII: the raw bytes are valid UTF-8 exactly when the decoded are.
                guard bits & 0x8080_8080_8080_8080 == 0 || UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: input[start..<index])) else {
                    position = start
                    throw fail("invalid UTF-8 in string")
                }
                position = index + 1
                return escaped
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position = index + 1
                var decoded: [UInt8] = []
                if let problem = JSONText.decodeEscape(input, at: &position, into: &decoded) { throw fail(problem) }
                index = position
                continue
            }
            if byte < 0x20 {
                position = index
                throw fail("control character in string")
            }
            bits |= UInt64(byte)
            index += 1
        }
    }

    /// Moves past a number, checking it as `parseNumber` does (RFC 8259) without its value.
    private mutating func scanNumber() throws(SDLReaderFailure) {
        @inline(__always) func isDigit(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard isDigit(peek()) else { throw fail("invalid number") }
        if peek() == UInt8(ascii: "0") {
            position += 1
        } else {
            while isDigit(peek()) { position += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard isDigit(peek()) else { throw fail("invalid number") }
            while isDigit(peek()) { position += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            position += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek()) else { throw fail("invalid number") }
            while isDigit(peek()) { position += 1 }
        }
    }

    /// Moves to the next array element; false (and the array left) after the last one.
    mutating func nextElement() throws(SDLReaderFailure) -> Bool {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated array") }
        if byte == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            expectingFirstMember = false
            return false
        }
        if expectingFirstMember {
            expectingFirstMember = false
        } else {
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']' in array") }
            position += 1
            skipWhitespace()
        }
        return true
    }

    /// Records a type mismatch at the current path and skips the value.
    mutating func mismatch(expected: String) throws(SDLReaderFailure) {
        record(.wrongType(expected: expected, found: kindOfNext()))
        try skipValue()
    }

    // MARK: Scalars at the current path

    private mutating func boolValue() throws(SDLReaderFailure) -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return false
        default:
            try mismatch(expected: "Boolean")
            return nil
        }
    }

    mutating func integerValue(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int? {
        guard let byte = peek(), byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
            try mismatch(expected: "Integer")
            return nil
        }
        let start = position
        switch try parseNumber() {
        case .integer(let value):
            if let problem = SDLRules.integer(value, parameter) { record(problem) }
            return value
        case .float:
            record(.wrongType(expected: "Integer", found: "Float"))
            return nil
        case .overflow:
            record(.numberOverflow(text(start..<position)))
            return nil
        }
    }

    private mutating func floatValue(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Double? {
        guard let byte = peek(), byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
            try mismatch(expected: "Float")
            return nil
        }
        let start = position
        let value: Double
        switch try parseNumber() {
        case .integer(let integer): value = Double(integer)
        case .float(let float): value = float
        case .overflow: value = Double(text(start..<position)) ?? .infinity
        }
        guard value.isFinite else {
            record(.numberOverflow(text(start..<position)))
            return nil
        }
        if let problem = SDLRules.number(value, parameter) { record(problem) }
        return value
    }

    mutating func stringValue(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String? {
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: "String")
            return nil
        }
        let value = try parseString()
        if let problem = SDLRules.string(value, parameter) { record(problem) }
        return value
    }

    // The generic values below avoid closures and locals of type `E?`/`T?`: in code that is not
    // specialized, each would look up `Optional<E>`'s metadata at run time, per value.

    private mutating func enumValue<E: SDLEnumeration>(_ type: E.Type) throws(SDLReaderFailure) -> E? {
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: "String (\(E.enumInfo.name))")
            return nil
        }
        let value = E(rawValue: try parseString())
        if let problem = SDLRules.enumeration(value) { record(problem, severity: .warning) }
        return value
    }

    /// `enumValue`, appending the value when there is one.
    private mutating func appendEnum<E: SDLEnumeration>(to values: inout ElementBuffer<E>) throws(SDLReaderFailure) {
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: "String (\(E.enumInfo.name))")
            return
        }
        let value = E(rawValue: try parseString())
        if let problem = SDLRules.enumeration(value) { record(problem, severity: .warning) }
        values.append(value)
    }

    private mutating func structValue<T: SDLCodable>(_ type: T.Type) throws(SDLReaderFailure) -> T? {
        guard peek() == UInt8(ascii: "{") else {
            try mismatch(expected: "Object (\(T.structInfo.name))")
            return nil
        }
        return try readObjectBody(T.self)
    }

    /// `structValue`, appending the value when there is one.
    private mutating func appendStruct<T: SDLCodable>(to values: inout ElementBuffer<T>) throws(SDLReaderFailure) {
        guard peek() == UInt8(ascii: "{") else {
            try mismatch(expected: "Object (\(T.structInfo.name))")
            return
        }
        let outer = try enterObject()
        defer { object = outer }
        do {
            values.append(try T(from: &self))
        } catch .invalidValue {
            return
        } catch {
            throw error
        }
    }

    // MARK: Values that record nothing

    // Most values break no rule, and a value that records no issue needs no path: each scalar
    // is read first as one of these, without its key (or index) on the path and recording
    // nothing; only when that fails (a problem, a wrong type, bad syntax) is it read again from
    // the same place the usual way, with the path, which records exactly what it always did.

    /// `true` or `false`; nil, the reader where it was, for anything else.
    @inline(__always)
    private mutating func plainBool() -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"):
            guard position + 4 <= input.count, input[position + 1] == UInt8(ascii: "r"), input[position + 2] == UInt8(ascii: "u"),
                input[position + 3] == UInt8(ascii: "e")
            else { return nil }
            position += 4
            return true
        case UInt8(ascii: "f"):
            guard position + 5 <= input.count, input[position + 1] == UInt8(ascii: "a"), input[position + 2] == UInt8(ascii: "l"),
                input[position + 3] == UInt8(ascii: "s"), input[position + 4] == UInt8(ascii: "e")
            else { return nil }
            position += 5
            return false
        default:
            return nil
        }
    }

    /// An integer `parameter`'s rules allow; nil, the reader where it was, otherwise.
    private mutating func plainInteger(_ parameter: SDLParameterInfo) -> Int? {
        let start = position
        if case .integer(let value)? = quietNumber(), SDLRules.integer(value, parameter) == nil { return value }
        position = start
        return nil
    }

    /// A finite number `parameter`'s rules allow; nil, the reader where it was, otherwise.
    private mutating func plainFloat(_ parameter: SDLParameterInfo) -> Double? {
        let start = position
        let value: Double
        switch quietNumber() {
        case .integer(let integer)?: value = Double(integer)
        case .float(let float)?: value = float
        default: value = .nan
        }
        if value.isFinite, SDLRules.number(value, parameter) == nil { return value }
        position = start
        return nil
    }

    /// The number at the reader, read without recording an issue; nil when there is none (the
    /// caller puts the reader back and reads again the way that reports why).
    private mutating func quietNumber() -> Number? {
        guard let byte = peek(), byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else { return nil }
        let wasQuiet = quiet
        quiet = true
        defer { quiet = wasQuiet }
        return try? parseNumber()
    }

    /// A well-formed string `parameter`'s rules allow; nil, the reader where it was, otherwise.
    private mutating func plainString(_ parameter: SDLParameterInfo) -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = position
        let wasQuiet = quiet
        quiet = true
        defer { quiet = wasQuiet }
        if let value = try? parseString(), SDLRules.string(value, parameter) == nil { return value }
        position = start
        return nil
    }

    /// A well-formed string; nil, the reader where it was, otherwise.
    private mutating func plainRawString() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = position
        let wasQuiet = quiet
        quiet = true
        defer { quiet = wasQuiet }
        if let value = try? parseString() { return value }
        position = start
        return nil
    }

    // MARK: SDLReader

    /// Reads an array of `parameter`, each element with `plain` or else (with its index on the
    /// path) `element`, then checks its size. The key is on the path throughout.
    private mutating func array<V>(
        _ parameter: SDLParameterInfo, plain: (inout SDLJSONReader) -> V?, _ element: (inout SDLJSONReader) throws(SDLReaderFailure) -> V?
    ) throws(SDLReaderFailure) -> [V]? {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        guard peek() == UInt8(ascii: "[") else {
            try mismatch(expected: "Array")
            return nil
        }
        try enter()
        var values: [V] = []
        var index = 0
        while try nextElement() {
            if let value = plain(&self) {
                values.append(value)
            } else {
                path.components.append(.index(index))
                if let value = try element(&self) { values.append(value) }
                path.components.removeLast()
            }
            index += 1
        }
        if let problem = SDLRules.size(index, parameter) { record(problem) }
        return values
    }

    public mutating func readBool(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Bool? {
        if let value = plainBool() { return value }
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try boolValue()
    }

    public mutating func readInteger(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int? {
        if let value = plainInteger(parameter) { return value }
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try integerValue(parameter)
    }

    public mutating func readFloat(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Double? {
        if let value = plainFloat(parameter) { return value }
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try floatValue(parameter)
    }

    public mutating func readString(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String? {
        if let value = plainString(parameter) { return value }
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try stringValue(parameter)
    }

    public mutating func readEnum<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> E? {
        if let raw = plainRawString() {
            let value = E(rawValue: raw)
            if let problem = SDLRules.enumeration(value) {
                path.components.append(.key(parameter.name))
                record(problem, severity: .warning)
                path.components.removeLast()
            }
            return value
        }
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try enumValue(E.self)
    }

    public mutating func readStruct<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> T? {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try structValue(T.self)
    }

    public mutating func readBoolArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Bool]? {
        try array(parameter, plain: { (reader: inout SDLJSONReader) in reader.plainBool() }) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in
            try reader.boolValue()
        }
    }

    public mutating func readIntegerArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Int]? {
        try array(parameter, plain: { (reader: inout SDLJSONReader) in reader.plainInteger(parameter) }) {
            (reader: inout SDLJSONReader) throws(SDLReaderFailure) in
            try reader.integerValue(parameter)
        }
    }

    public mutating func readFloatArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Double]? {
        try array(parameter, plain: { (reader: inout SDLJSONReader) in reader.plainFloat(parameter) }) {
            (reader: inout SDLJSONReader) throws(SDLReaderFailure) in
            try reader.floatValue(parameter)
        }
    }

    public mutating func readStringArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [String]? {
        try array(parameter, plain: { (reader: inout SDLJSONReader) in reader.plainString(parameter) }) {
            (reader: inout SDLJSONReader) throws(SDLReaderFailure) in
            try reader.stringValue(parameter)
        }
    }

    // Like `array`, without closures returning `E?`/`T?` (see `enumValue`).

    public mutating func readEnumArray<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [E]? {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        guard peek() == UInt8(ascii: "[") else {
            try mismatch(expected: "Array")
            return nil
        }
        try enter()
        var values = ElementBuffer<E>()
        defer { values.discard() }
        var index = 0
        while try nextElement() {
            if let raw = plainRawString() {
                let value = E(rawValue: raw)
                if let problem = SDLRules.enumeration(value) {
                    path.components.append(.index(index))
                    record(problem, severity: .warning)
                    path.components.removeLast()
                }
                values.append(value)
            } else {
                path.components.append(.index(index))
                try appendEnum(to: &values)
                path.components.removeLast()
            }
            index += 1
        }
        if let problem = SDLRules.size(index, parameter) { record(problem) }
        return values.take()
    }

    public mutating func readStructArray<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [T]? {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        guard peek() == UInt8(ascii: "[") else {
            try mismatch(expected: "Array")
            return nil
        }
        try enter()
        var values = ElementBuffer<T>()
        defer { values.discard() }
        var index = 0
        while try nextElement() {
            path.components.append(.index(index))
            try appendStruct(to: &values)
            path.components.removeLast()
            index += 1
        }
        if let problem = SDLRules.size(index, parameter) { record(problem) }
        return values.take()
    }

    // MARK: Tokens

    @inline(__always)
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: input[range]), as: UTF8.self)
    }

    enum Number {
        case integer(Int)
        case float(Double)
        /// An integer with more digits than Int holds.
        case overflow
    }

    /// Parses a number per RFC 8259.
    mutating func parseNumber() throws(SDLReaderFailure) -> Number {
        let start = position
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard let first = peek(), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw fail("invalid number")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let digit = peek(), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                magnitude = sum
                position += 1
            }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let digit = peek(), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { throw fail("invalid number") }
            while let digit = peek(), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { position += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { throw fail("invalid number") }
            while let digit = peek(), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { position += 1 }
        }
        if isInteger {
            if overflow { return .overflow }
            if negative {
                if magnitude <= UInt64(Int.max) { return .integer(-Int(magnitude)) }
                if magnitude == UInt64(Int.max) + 1 { return .integer(Int.min) }
                return .overflow
            }
            return magnitude <= UInt64(Int.max) ? .integer(Int(magnitude)) : .overflow
        }
        return .float(Double(text(start..<position)) ?? .nan)
    }

    /// Parses a string; the reader stands on the opening quote.
    mutating func parseString() throws(SDLReaderFailure) -> String {
        position += 1
        let start = position
        var bits: UInt8 = 0
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: input[start..<position])
                position += 1
                // ASCII needs no further check.
                guard bits < 0x80 || UTF8Validation.isValid(raw) else {
                    position = start
                    throw fail("invalid UTF-8 in string")
                }
                return String(decoding: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            bits |= byte
            position += 1
        }
        return try parseEscapedString(from: start)
    }

    private mutating func parseEscapedString(from start: Int) throws(SDLReaderFailure) -> String {
        var bytes = Array(UnsafeRawBufferPointer(rebasing: input[start..<position]))
        while true {
            guard let byte = peek() else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard bytes.withUnsafeBytes({ UTF8Validation.isValid($0) }) else { throw fail("invalid UTF-8 in string") }
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                if let problem = JSONText.decodeEscape(input, at: &position, into: &bytes) { throw fail(problem) }
            case 0..<0x20:
                throw fail("control character in string")
            default:
                bytes.append(byte)
                position += 1
            }
        }
    }
}

/// UTF-8 well-formedness per RFC 3629 (no overlongs, no surrogates, nothing past U+10FFFF).
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            // Eight ASCII bytes at a time.
            while index + 8 <= count, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { break }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return false }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }
}

/// The elements of an array being read, in memory of their own until the array is built. The
/// generated types call the reader through `SDLReader`, so its generic methods run unspecialized,
/// where every `Array<E>.append` looks the metadata of `Array<E>` up at run time (about as long as
/// reading a short value); this looks nothing up per element, and `take()` once per array.
struct ElementBuffer<Element> {
    private var base: UnsafeMutablePointer<Element>?
    private var count = 0
    private var capacity = 0

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        let larger = Swift.max(4, capacity * 2)
        let new = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        if let base {
            new.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        (base, capacity) = (new, larger)
    }

    /// The elements as an array, leaving the buffer empty.
    mutating func take() -> [Element] {
        guard let base else { return [] }
        let count = self.count
        let array = [Element](unsafeUninitializedCapacity: count) { elements, initialized in
            elements.baseAddress.unsafelyUnwrapped.moveInitialize(from: base, count: count)
            initialized = count
        }
        base.deallocate()
        (self.base, self.count, capacity) = (nil, 0, 0)
        return array
    }

    /// Frees what `take()` did not (reading stopped).
    mutating func discard() {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
        (self.base, count, capacity) = (nil, 0, 0)
    }
}
