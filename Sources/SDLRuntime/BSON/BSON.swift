/// BSON (bsonspec.org) for the types SDL uses: double, string, document, array, binary,
/// boolean, null, int32 and int64. Byte-identical with pymongo's `bson` module for these types
/// (checked in CI against a corpus it generates).

/// A BSON value.
public enum BSONValue: Hashable, Sendable {
    case double(Double)
    case string(String)
    case document(BSONDocument)
    case array([BSONValue])
    case binary(subtype: UInt8, bytes: [UInt8])
    case bool(Bool)
    case null
    case int32(Int32)
    case int64(Int64)

    /// An integer in the width SDL's C library would use: int32 when it fits, else int64.
    public static func integer(_ value: Int) -> BSONValue {
        if let small = Int32(exactly: value) { return .int32(small) }
        return .int64(Int64(value))
    }

    /// Equality by bits for doubles, so NaN equals NaN and -0.0 differs from 0.0.
    public static func == (lhs: BSONValue, rhs: BSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.document(let a), .document(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.binary(let s1, let b1), .binary(let s2, let b2)): s1 == s2 && b1 == b2
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.int32(let a), .int32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .double(let value):
            hasher.combine(0)
            hasher.combine(value.bitPattern)
        case .string(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .document(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .binary(let subtype, let bytes):
            hasher.combine(4)
            hasher.combine(subtype)
            hasher.combine(bytes)
        case .bool(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .null: hasher.combine(6)
        case .int32(let value):
            hasher.combine(7)
            hasher.combine(value)
        case .int64(let value):
            hasher.combine(8)
            hasher.combine(value)
        }
    }

    var typeName: String {
        switch self {
        case .double: "double"
        case .string: "string"
        case .document: "document"
        case .array: "array"
        case .binary: "binary"
        case .bool: "boolean"
        case .null: "null"
        case .int32: "int32"
        case .int64: "int64"
        }
    }
}

/// A BSON document: keys in order. Keys are unique; decoding rejects duplicates.
public struct BSONDocument: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public struct Element: Hashable, Sendable {
        public var key: String
        public var value: BSONValue

        public init(key: String, value: BSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var elements: [Element]

    public init(_ elements: [Element] = []) {
        self.elements = elements
    }

    public init(dictionaryLiteral pairs: (String, BSONValue)...) {
        self.elements = pairs.map { Element(key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> BSONValue? {
        get { elements.first { $0.key == key }?.value }
        set {
            if let index = elements.firstIndex(where: { $0.key == key }) {
                if let newValue { elements[index].value = newValue } else { elements.remove(at: index) }
            } else if let newValue {
                elements.append(Element(key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { elements.map(\.key) }
    public var isEmpty: Bool { elements.isEmpty }
}

/// Why bytes are not a BSON document.
public struct BSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case truncated
        case lengthMismatch(declared: Int, available: Int)
        case unsupportedType(UInt8)
        case invalidUTF8
        case missingTerminator
        case invalidStringLength(Int32)
        case invalidBoolean(UInt8)
        case duplicateKey(String)
        case tooDeep(limit: Int)
        case trailingBytes(Int)
    }

    public var reason: Reason
    /// Byte offset where the problem is.
    public var offset: Int
    /// Keys from the root to the problem (`secondaryTransports.0`).
    public var path: String

    public var description: String {
        let place = path.isEmpty ? "at byte \(offset)" : "\(path) (byte \(offset))"
        switch reason {
        case .truncated: return "\(place): document ends early"
        case .lengthMismatch(let declared, let available):
            return "\(place): declared length \(declared) does not match the \(available) bytes available"
        case .unsupportedType(let code): return "\(place): unsupported BSON type 0x\(String(code, radix: 16))"
        case .invalidUTF8: return "\(place): string is not valid UTF-8"
        case .missingTerminator: return "\(place): missing NUL terminator"
        case .invalidStringLength(let length): return "\(place): invalid string length \(length)"
        case .invalidBoolean(let byte): return "\(place): boolean byte is 0x\(String(byte, radix: 16))"
        case .duplicateKey(let key): return "\(place): key \"\(key)\" appears more than once"
        case .tooDeep(let limit): return "\(place): nested deeper than \(limit) levels"
        case .trailingBytes(let count): return "\(place): \(count) bytes after the document"
        }
    }
}

// MARK: - Encoding

extension BSONDocument {
    /// The document's bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        BSONDocument.append(self.elements.lazy.map { ($0.key, $0.value) }, to: &out)
        return out
    }

    static func append<S: Sequence<(String, BSONValue)>>(_ elements: S, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0])
        for (key, value) in elements {
            out.append(value.typeCode)
            appendCString(key, to: &out)
            value.appendPayload(to: &out)
        }
        out.append(0)
        let length = Int32(truncatingIfNeeded: out.count - start)
        withUnsafeBytes(of: length.littleEndian) { raw in
            for index in 0..<4 { out[start + index] = raw[index] }
        }
    }

    /// A key: UTF-8 then NUL. An embedded NUL would end the key early, as in SDL's C library.
    static func appendCString(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            if byte == 0 { break }
            out.append(byte)
        }
        out.append(0)
    }
}

extension BSONValue {
    var typeCode: UInt8 {
        switch self {
        case .double: 0x01
        case .string: 0x02
        case .document: 0x03
        case .array: 0x04
        case .binary: 0x05
        case .bool: 0x08
        case .null: 0x0A
        case .int32: 0x10
        case .int64: 0x12
        }
    }

    func appendPayload(to out: inout [UInt8]) {
        switch self {
        case .double(let value):
            withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        case .string(let value):
            let utf8 = value.utf8
            withUnsafeBytes(of: Int32(truncatingIfNeeded: utf8.count + 1).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: utf8)
            out.append(0)
        case .document(let document):
            BSONDocument.append(document.elements.lazy.map { ($0.key, $0.value) }, to: &out)
        case .array(let values):
            BSONDocument.append(values.enumerated().lazy.map { (String($0.offset), $0.element) }, to: &out)
        case .binary(let subtype, let bytes):
            withUnsafeBytes(of: Int32(truncatingIfNeeded: bytes.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(subtype)
            out.append(contentsOf: bytes)
        case .bool(let value):
            out.append(value ? 1 : 0)
        case .null:
            break
        case .int32(let value):
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        case .int64(let value):
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
    }
}

// MARK: - Decoding

extension BSONDocument {
    /// The deepest nesting decoding accepts; SDL payloads nest a few levels at most.
    public static let defaultMaxDepth = 64

    /// Decodes exactly one document that fills `bytes`.
    public init(decoding bytes: [UInt8], maxDepth: Int = BSONDocument.defaultMaxDepth) throws(BSONError) {
        let result = bytes.withUnsafeBytes { raw -> Result<BSONDocument, BSONError> in
            var decoder = BSONDecoder(input: raw, maxDepth: maxDepth)
            do throws(BSONError) {
                let document = try decoder.document(depth: 1)
                if decoder.position != raw.count {
                    throw BSONError(reason: .trailingBytes(raw.count - decoder.position), offset: decoder.position, path: "")
                }
                return .success(document)
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }
}

private struct BSONDecoder {
    let input: UnsafeRawBufferPointer
    var position = 0
    let maxDepth: Int
    var path: [String] = []

    init(input: UnsafeRawBufferPointer, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    func error(_ reason: BSONError.Reason, at offset: Int? = nil) -> BSONError {
        BSONError(reason: reason, offset: offset ?? position, path: path.joined(separator: "."))
    }

    mutating func bytes(_ count: Int) throws(BSONError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= input.count - position else { throw error(.truncated) }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: input[position..<position + count])
    }

    mutating func int32() throws(BSONError) -> Int32 {
        Int32(littleEndian: try bytes(4).loadUnaligned(as: Int32.self))
    }

    mutating func int64() throws(BSONError) -> Int64 {
        Int64(littleEndian: try bytes(8).loadUnaligned(as: Int64.self))
    }

    mutating func byte() throws(BSONError) -> UInt8 {
        try bytes(1)[0]
    }

    mutating func cString() throws(BSONError) -> String {
        let start = position
        guard let end = input[position...].firstIndex(of: 0) else { throw error(.missingTerminator) }
        let raw = UnsafeRawBufferPointer(rebasing: input[start..<end])
        guard UTF8Validation.isValid(raw) else { throw error(.invalidUTF8, at: start) }
        position = end + 1
        return String(decoding: raw, as: UTF8.self)
    }

    /// The elements of one document, checked against its declared length.
    mutating func elements(depth: Int) throws(BSONError) -> [BSONDocument.Element] {
        guard depth <= maxDepth else { throw error(.tooDeep(limit: maxDepth)) }
        let start = position
        let declared = Int(try int32())
        guard declared >= 5, declared <= input.count - start else {
            throw error(.lengthMismatch(declared: declared, available: input.count - start), at: start)
        }
        let end = start + declared
        var elements: [BSONDocument.Element] = []
        var seen: Set<ExactKey> = []
        while true {
            guard position < end else { throw error(.truncated) }
            let typeOffset = position
            let type = try byte()
            if type == 0 { break }
            let key = try cString()
            guard position <= end else { throw error(.truncated) }
            path.append(key)
            guard seen.insert(ExactKey(scope: 0, text: key)).inserted else { throw error(.duplicateKey(key), at: typeOffset) }
            let value = try self.value(type: type, at: typeOffset, depth: depth)
            path.removeLast()
            elements.append(BSONDocument.Element(key: key, value: value))
        }
        guard position == end else {
            throw error(.lengthMismatch(declared: declared, available: position - start), at: start)
        }
        return elements
    }

    mutating func document(depth: Int) throws(BSONError) -> BSONDocument {
        BSONDocument(try elements(depth: depth))
    }

    /// The value of an element whose type byte is at `typeOffset`.
    mutating func value(type: UInt8, at typeOffset: Int, depth: Int) throws(BSONError) -> BSONValue {
        switch type {
        case 0x01:
            return .double(Double(bitPattern: UInt64(bitPattern: try int64())))
        case 0x02:
            let start = position
            let length = try int32()
            guard length >= 1 else { throw error(.invalidStringLength(length), at: start) }
            let raw = try bytes(Int(length))
            guard raw[raw.count - 1] == 0 else { throw error(.missingTerminator, at: start) }
            let text = UnsafeRawBufferPointer(rebasing: raw[0..<raw.count - 1])
            guard UTF8Validation.isValid(text) else { throw error(.invalidUTF8, at: start) }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x03:
            return .document(try document(depth: depth + 1))
        case 0x04:
            return .array(try elements(depth: depth + 1).map(\.value))
        case 0x05:
            let start = position
            let length = try int32()
            guard length >= 0 else { throw error(.lengthMismatch(declared: Int(length), available: input.count - position), at: start) }
            let subtype = try byte()
            return .binary(subtype: subtype, bytes: Array(try bytes(Int(length))))
        case 0x08:
            let start = position
            switch try byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let other: throw error(.invalidBoolean(other), at: start)
            }
        case 0x0A:
            return .null
        case 0x10:
            return .int32(try int32())
        case 0x12:
            return .int64(try int64())
        default:
            throw error(.unsupportedType(type), at: typeOffset)
        }
    }
}
