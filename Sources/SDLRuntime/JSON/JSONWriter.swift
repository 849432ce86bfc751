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
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var index = 20
            while magnitude > 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index..<20]))
        }
    }

    /// The shortest text that reads back as the same Double. JSON has no NaN or infinity; the
    /// validator rejects them before encoding, and `null` keeps the output well-formed.
    private mutating func appendFloat(_ value: Double) {
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        if value == 0 {
            bytes.append(contentsOf: value.sign == .minus ? "-0.0".utf8 : "0.0".utf8)
            return
        }
        if value.rounded() == value, abs(value) < 1e15 {
            appendInteger(Int(value))
            bytes.append(contentsOf: ".0".utf8)
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    private mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { writeString($0) }
    }

    private mutating func writeString(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        bytes.append(UInt8(ascii: "\""))
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

    public mutating func writeEnumArray<E: SDLEnumeration>(_ value: [E], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.writeString(element.rawValue) }
    }

    public mutating func writeStructArray<T: SDLCodable>(_ value: [T], forKey key: StaticString) {
        array(value, forKey: key) { writer, element in writer.writeObject(element) }
    }
}
