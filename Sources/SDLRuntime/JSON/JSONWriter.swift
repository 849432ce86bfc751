/// Writes generated types as compact JSON, straight into a byte buffer.
public struct SDLJSONWriter: SDLWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// `{...}` for `value`'s parameters.
    public mutating func writeObject<T: SDLCodable>(_ value: T) {
        bytes.append(UInt8(ascii: "{"))
        value.encode(to: &self)
        bytes.append(UInt8(ascii: "}"))
    }

    // MARK: Envelopes

    /// `value`'s parameters as members of the object the caller opened and has written members
    /// to (a JSON-RPC `result` after its `code` and `method`); the caller closes it.
    mutating func writeMembers<T: SDLCodable>(of value: T) {
        value.encode(to: &self)
    }

    /// Appends `json` as is: JSON the caller spelled (an envelope's fixed keys and punctuation).
    mutating func appendRaw(_ json: StaticString) {
        json.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends an integer value.
    mutating func appendIntegerValue(_ value: Int) {
        appendInteger(value)
    }

    /// Appends a string value, quoted and escaped.
    mutating func appendStringValue(_ value: String) {
        writeString(value)
    }

    // MARK: Keys and separators

    @inline(__always)
    private mutating func separator() {
        if let last = bytes.last, last != UInt8(ascii: "{") && last != UInt8(ascii: "[") {
            bytes.append(UInt8(ascii: ","))
        }
    }

    @inline(__always)
    private mutating func key(_ key: StaticString) {
        separator()
        if key.hasPointerRepresentation {
            writeString(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        } else {
            writeString(key.description)
        }
        bytes.append(UInt8(ascii: ":"))
    }

    // MARK: Scalars

    private mutating func appendInteger(_ value: Int) {
        JSONText.appendInteger(value, to: &bytes)
    }

    private mutating func appendFloat(_ value: Double) {
        JSONText.appendFloat(value, to: &bytes)
    }

    private mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { writeString($0) }
    }

    /// Most strings (every key, nearly every value) need no escape: that is found eight bytes at
    /// a time and such a string is copied at once; the others are written by `JSONText`.
    private mutating func writeString(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard Self.needsNoEscape(utf8) else {
            JSONText.appendQuoted(utf8, to: &bytes)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `utf8` holds no quote, backslash or control character.
    @inline(__always)
    private static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = utf8.count
        var index = 0
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                ((quote &- 0x0101_0101_0101_0101) & ~quote)
                | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                | ((word &- 0x2020_2020_2020_2020) & ~word)
            if special & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            index += 1
        }
        return true
    }

    private mutating func array<C: Collection>(_ values: C, forKey key: StaticString, _ element: (inout SDLJSONWriter, C.Element) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: SDLWriter

    public mutating func writeBool(_ value: Bool, forKey key: StaticString) {
        self.key(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func writeInteger(_ value: Int, forKey key: StaticString) {
        self.key(key)
        appendInteger(value)
    }

    public mutating func writeFloat(_ value: Double, forKey key: StaticString) {
        self.key(key)
        appendFloat(value)
    }

    public mutating func writeString(_ value: String, forKey key: StaticString) {
        self.key(key)
        writeString(value)
    }

    public mutating func writeEnum<E: SDLEnumeration>(_ value: E, forKey key: StaticString) {
        self.key(key)
        writeString(value.rawValue)
    }

    public mutating func writeStruct<T: SDLCodable>(_ value: T, forKey key: StaticString) {
        self.key(key)
        writeObject(value)
    }

    public mutating func writeBoolArray(_ value: [Bool], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.bytes.append(contentsOf: element ? "true".utf8 : "false".utf8) }
    }

    public mutating func writeIntegerArray(_ value: [Int], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.appendInteger(element) }
    }

    public mutating func writeFloatArray(_ value: [Double], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.appendFloat(element) }
    }

    public mutating func writeStringArray(_ value: [String], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.writeString(element) }
    }

    // The generated types call these through `SDLWriter`, unspecialized: iterating `[E]` there
    // costs a witness call and metadata lookups per element, going through its buffer nothing.

    public mutating func writeEnumArray<E: SDLEnumeration>(_ value: [E], forKey key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        value.withUnsafeBufferPointer { elements in
            for index in 0..<elements.count {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(elements[index].rawValue)
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func writeStructArray<T: SDLCodable>(_ value: [T], forKey key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        value.withUnsafeBufferPointer { elements in
            for index in 0..<elements.count {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeObject(elements[index])
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
