/// Reads JSON straight into generated types: no intermediate tree, no Foundation. Every
/// problem is recorded with its path and reading goes on where the syntax allows, so one
/// pass reports all the errors of a message. Input is bounded: nesting is limited to
/// `maxDepth`, and nothing is allocated beyond the values actually read.
public struct SDLJSONReader: SDLReader {
    private let input: UnsafeRawBufferPointer
    private var position = 0
    private let maxDepth: Int
    private var depth = 0
    private var path: SDLCodingPath
    /// Keys seen in each open object, innermost last, to catch duplicates.
    private var openObjects: [[String]] = []
    /// Whether the innermost open object or array still waits for its first member.
    private var expectingFirstMember = false

    public private(set) var issues: [SDLCodingIssue] = []
    public private(set) var unknownKeys: [SDLCodingPath] = []

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

    // MARK: Issues

    private mutating func record(_ kind: SDLCodingIssue.Kind, severity: SDLCodingIssue.Severity = .error) {
        issues.append(SDLCodingIssue(path: path, kind: kind, severity: severity))
    }

    private mutating func fail(_ reason: String) -> SDLReaderFailure {
        record(.malformed("\(reason) at byte \(position)"))
        return .malformed
    }

    // MARK: Bytes

    @inline(__always)
    private func peek() -> UInt8? {
        position < input.count ? input[position] : nil
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func describeNext() -> String {
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
    private func kindOfNext() -> String {
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

    private mutating func expectLiteral(_ literal: StaticString) throws(SDLReaderFailure) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= input.count else { throw fail("truncated literal") }
        for offset in 0..<count where input[position + offset] != literal.utf8Start[offset] {
            throw fail("invalid literal")
        }
        position += count
    }

    // MARK: Structure

    private mutating func enter() throws(SDLReaderFailure) {
        depth += 1
        if depth > maxDepth {
            record(.tooDeep(limit: maxDepth))
            throw .malformed
        }
        position += 1  // `{` or `[`
        expectingFirstMember = true
    }

    /// Reads `{ ... }` into `T`; the reader stands on `{`.
    private mutating func readObjectBody<T: SDLCodable>(_ type: T.Type) throws(SDLReaderFailure) -> T? {
        try enter()
        openObjects.append([])
        do {
            return try T(from: &self)
        } catch .invalidValue {
            return nil
        } catch {
            throw error
        }
    }

    public mutating func nextKey() throws(SDLReaderFailure) -> String? {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated object") }
        if byte == UInt8(ascii: "}") {
            position += 1
            openObjects.removeLast()
            depth -= 1
            expectingFirstMember = false
            return nil
        }
        if expectingFirstMember {
            expectingFirstMember = false
        } else {
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in object") }
            position += 1
            skipWhitespace()
        }
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key string") }
        let key = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
        position += 1
        skipWhitespace()
        if openObjects[openObjects.count - 1].contains(key) {
            path.components.append(.key(key))
            record(.duplicateKey(key))
            path.components.removeLast()
        } else {
            openObjects[openObjects.count - 1].append(key)
        }
        return key
    }

    public mutating func skipUnknownValue(forKey key: String) throws(SDLReaderFailure) {
        var at = path
        at.components.append(.key(key))
        unknownKeys.append(at)
        try skipValue()
    }

    public mutating func missing(_ parameter: SDLParameterInfo) {
        path.components.append(.key(parameter.name))
        // A value that was present but unusable is already reported; "missing" would mislead.
        if !issues.contains(where: { $0.path == path }) { record(.missingMandatory) }
        path.components.removeLast()
    }

    /// Skips one value of any kind, checking its syntax.
    private mutating func skipValue() throws(SDLReaderFailure) {
        skipWhitespace()
        guard let byte = peek() else { throw fail("truncated value") }
        switch byte {
        case UInt8(ascii: "{"):
            try enter()
            openObjects.append([])
            while try nextKey() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try enter()
            while try nextElement() { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try parseString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        default:
            _ = try parseNumber()
        }
    }

    /// Moves to the next array element; false (and the array left) after the last one.
    private mutating func nextElement() throws(SDLReaderFailure) -> Bool {
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
    private mutating func mismatch(expected: String) throws(SDLReaderFailure) {
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

    private mutating func integerValue(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int? {
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

    private mutating func stringValue(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String? {
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: "String")
            return nil
        }
        let value = try parseString()
        if let problem = SDLRules.string(value, parameter) { record(problem) }
        return value
    }

    private mutating func enumValue<E: SDLEnumeration>(_ type: E.Type) throws(SDLReaderFailure) -> E? {
        guard peek() == UInt8(ascii: "\"") else {
            try mismatch(expected: "String (\(E.enumInfo.name))")
            return nil
        }
        let value = E(rawValue: try parseString())
        if let problem = SDLRules.enumeration(value) { record(problem, severity: .warning) }
        return value
    }

    private mutating func structValue<T: SDLCodable>(_ type: T.Type) throws(SDLReaderFailure) -> T? {
        guard peek() == UInt8(ascii: "{") else {
            try mismatch(expected: "Object (\(T.structInfo.name))")
            return nil
        }
        return try readObjectBody(T.self)
    }

    // MARK: SDLReader

    /// Reads `parameter`'s value with `read`, with the parameter's key on the path.
    @inline(__always)
    private mutating func at<V>(_ parameter: SDLParameterInfo, _ read: (inout SDLJSONReader) throws(SDLReaderFailure) -> V?) throws(SDLReaderFailure) -> V? {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try read(&self)
    }

    /// Reads an array of `parameter`, each element with `element`, then checks its size.
    private mutating func array<V>(_ parameter: SDLParameterInfo, _ element: (inout SDLJSONReader) throws(SDLReaderFailure) -> V?) throws(SDLReaderFailure) -> [V]? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) -> [V]? in
            guard reader.peek() == UInt8(ascii: "[") else {
                try reader.mismatch(expected: "Array")
                return nil
            }
            try reader.enter()
            var values: [V] = []
            var index = 0
            while try reader.nextElement() {
                reader.path.components.append(.index(index))
                if let value = try element(&reader) { values.append(value) }
                reader.path.components.removeLast()
                index += 1
            }
            if let problem = SDLRules.size(index, parameter) { reader.record(problem) }
            return values
        }
    }

    public mutating func readBool(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Bool? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.boolValue() }
    }

    public mutating func readInteger(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.integerValue(parameter) }
    }

    public mutating func readFloat(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Double? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.floatValue(parameter) }
    }

    public mutating func readString(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.stringValue(parameter) }
    }

    public mutating func readEnum<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> E? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.enumValue(E.self) }
    }

    public mutating func readStruct<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> T? {
        try at(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.structValue(T.self) }
    }

    public mutating func readBoolArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Bool]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.boolValue() }
    }

    public mutating func readIntegerArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Int]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.integerValue(parameter) }
    }

    public mutating func readFloatArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Double]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.floatValue(parameter) }
    }

    public mutating func readStringArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [String]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.stringValue(parameter) }
    }

    public mutating func readEnumArray<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [E]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.enumValue(E.self) }
    }

    public mutating func readStructArray<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [T]? {
        try array(parameter) { (reader: inout SDLJSONReader) throws(SDLReaderFailure) in try reader.structValue(T.self) }
    }

    // MARK: Tokens

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: input[range]), as: UTF8.self)
    }

    enum Number {
        case integer(Int)
        case float(Double)
        /// An integer with more digits than Int holds.
        case overflow
    }

    /// Parses a number per RFC 8259.
    private mutating func parseNumber() throws(SDLReaderFailure) -> Number {
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
    private mutating func parseString() throws(SDLReaderFailure) -> String {
        position += 1
        let start = position
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: input[start..<position])
                position += 1
                guard UTF8Validation.isValid(raw) else {
                    position = start
                    throw fail("invalid UTF-8 in string")
                }
                return String(decoding: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
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
                guard let escape = peek() else { throw fail("unterminated escape") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\"), position + 1 < input.count, input[position + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    bytes.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw fail("invalid escape")
                }
            case 0..<0x20:
                throw fail("control character in string")
            default:
                bytes.append(byte)
                position += 1
            }
        }
    }

    private mutating func hex4() throws(SDLReaderFailure) -> UInt32 {
        guard position + 4 <= input.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
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
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
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
