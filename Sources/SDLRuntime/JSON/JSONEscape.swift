/// The escape sequences of JSON strings (RFC 8259 §7), shared by the typed reader and the tree
/// parser so both accept and refuse exactly the same text.
enum JSONEscape {
    /// Decodes the escape whose letter is at `position` (just after the backslash), appends its
    /// UTF-8 to `bytes` and moves past it. Returns what is wrong instead when it is invalid.
    static func decode(_ input: UnsafeRawBufferPointer, at position: inout Int, into bytes: inout [UInt8]) -> String? {
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
}
