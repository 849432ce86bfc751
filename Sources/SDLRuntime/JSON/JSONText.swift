/// JSON's spelling of strings and numbers (RFC 8259), shared by the typed reader and writer and
/// by `SDLJSONValue`, so all of them accept, refuse and write exactly the same text.
enum JSONText {
    /// Decodes the escape whose letter is at `position` (just after the backslash), appends its
    /// UTF-8 to `bytes` and moves past it. Returns what is wrong instead when it is invalid.
    static func decodeEscape(_ input: UnsafeRawBufferPointer, at position: inout Int, into bytes: inout [UInt8]) -> String? {
        guard position < input.count else { return "unterminated escape" }
        let escape = input[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar: UInt32 = 0
            if let problem = hex4(input, at: &position, into: &scalar) { return problem }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"), input[position + 1] == UInt8(ascii: "u") else {
                    return "unpaired surrogate"
                }
                position += 2
                var low: UInt32 = 0
                if let problem = hex4(input, at: &position, into: &low) { return problem }
                guard (0xDC00...0xDFFF).contains(low) else { return "unpaired surrogate" }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                return "unpaired surrogate"
            }
            guard let unicode = Unicode.Scalar(scalar) else { return "invalid \\u escape" }
            bytes.append(contentsOf: String(Character(unicode)).utf8)
        default:
            return "invalid escape"
        }
        return nil
    }

    /// Reads four hex digits into `value`; returns what is wrong instead.
    private static func hex4(_ input: UnsafeRawBufferPointer, at position: inout Int, into value: inout UInt32) -> String? {
        guard position + 4 <= input.count else { return "truncated \\u escape" }
        value = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return "invalid \\u escape"
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return nil
    }

    /// Appends `utf8` as a quoted JSON string, escaping quotes, backslashes and control characters.
    static func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        out.append(UInt8(ascii: "\""))
    }

    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted($0, to: &out) }
    }

    /// Decimal digits without going through `String`.
    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
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
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index..<20]))
        }
    }

    /// The shortest text that reads back as the same Double, always with a fraction or exponent
    /// so it reads back as a Float. JSON has no NaN or infinity: they are written `null` (the
    /// validator refuses them before a message is encoded).
    static func appendFloat(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if value == 0 {
            out.append(contentsOf: value.sign == .minus ? "-0.0".utf8 : "0.0".utf8)
            return
        }
        if value.rounded() == value, abs(value) < 1e15 {
            appendInteger(Int(value), to: &out)
            out.append(contentsOf: ".0".utf8)
            return
        }
        out.append(contentsOf: value.description.utf8)
    }
}
