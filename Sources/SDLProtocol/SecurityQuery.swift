/// Security queries: what carries the SDL security handshake (TLS records) and security errors
/// on the control service (type 0), in single frames of type `.single`. A 12-byte big-endian
/// header (query type, 3-byte query ID, sequence number, JSON size), the JSON, then binary data.
public struct SDLSecurityQuery: Sendable, Hashable {
    /// Byte 0 of the header.
    public struct QueryType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The header byte.
        public var rawValue: UInt8
        /// A query type from its header byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Asks for an answer (the head unit's ClientHello comes as one).
        public static let request = QueryType(rawValue: 0x00)
        /// Answers a request, with its sequence number.
        public static let response = QueryType(rawValue: 0x10)
        /// Needs no answer (internal errors).
        public static let notification = QueryType(rawValue: 0x20)

        public var description: String {
            switch self {
            case .request: "request"
            case .response: "response"
            case .notification: "notification"
            default: "query type 0x\(String(rawValue, radix: 16))"
            }
        }
    }

    /// Bytes 1–3 of the header.
    public struct QueryID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The 24-bit ID.
        public var rawValue: UInt32
        /// A query ID (its low 24 bits).
        public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }
        /// TLS handshake bytes in the binary part.
        public static let sendHandshakeData = QueryID(rawValue: 0x01)
        /// A security error: JSON `{"id": code, "text": "..."}` and the code as one binary byte.
        public static let sendInternalError = QueryID(rawValue: 0x02)

        public var description: String {
            switch self {
            case .sendHandshakeData: "handshake data"
            case .sendInternalError: "internal error"
            default: "query ID 0x\(String(rawValue, radix: 16))"
            }
        }
    }

    /// The size of the header before the JSON.
    public static let headerSize = 12

    /// Request, response or notification.
    public var type: QueryType
    /// What the query carries: handshake data or an internal error.
    public var id: QueryID
    /// The request's number, which its response repeats.
    public var sequenceNumber: UInt32
    /// The JSON part (empty for handshake data).
    public var json: [UInt8]
    /// The binary part: TLS records for handshake data, the error code for an internal error.
    public var binary: [UInt8]

    /// A query of `type` and `id` with its parts.
    public init(type: QueryType, id: QueryID, sequenceNumber: UInt32, json: [UInt8] = [], binary: [UInt8] = []) {
        self.type = type
        self.id = id
        self.sequenceNumber = sequenceNumber
        self.json = json
        self.binary = binary
    }

    /// Handshake bytes: a request (the side that starts a flight) or the response to one.
    public static func handshake(_ data: [UInt8], type: QueryType = .request, sequenceNumber: UInt32) -> SDLSecurityQuery {
        SDLSecurityQuery(type: type, id: .sendHandshakeData, sequenceNumber: sequenceNumber, binary: data)
    }

    /// An internal error notification, as SDL Core sends it: `{"id":10,"text":"..."}` and the
    /// code in one binary byte.
    public static func internalError(_ code: SDLSecurityErrorCode, text: String, sequenceNumber: UInt32 = 0) -> SDLSecurityQuery {
        let escaped = text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case _ where scalar.value < 0x20:
                return "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: return String(scalar)
            }
        }.joined()
        return SDLSecurityQuery(
            type: .notification, id: .sendInternalError, sequenceNumber: sequenceNumber,
            json: Array("{\"id\":\(code.rawValue),\"text\":\"\(escaped)\"}".utf8), binary: [code.rawValue])
    }

    /// The error code of an internal error: the binary byte, else nil.
    public var errorCode: SDLSecurityErrorCode? {
        guard id == .sendInternalError, let byte = binary.first else { return nil }
        return SDLSecurityErrorCode(rawValue: byte)
    }

    /// The query's bytes: header, JSON, binary.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + json.count + binary.count)
        bytes.append(type.rawValue)
        bytes += [UInt8(truncatingIfNeeded: id.rawValue >> 16), UInt8(truncatingIfNeeded: id.rawValue >> 8), UInt8(truncatingIfNeeded: id.rawValue)]
        bytes += Self.bigEndian(sequenceNumber)
        bytes += Self.bigEndian(UInt32(json.count))
        bytes += json
        bytes += binary
        return bytes
    }

    /// Decodes a query; a header that does not fit, or a JSON size beyond the bytes, is an
    /// error naming the field.
    public init(decoding bytes: some Collection<UInt8>) throws(SDLSecurityQueryError) {
        let bytes = Array(bytes)
        guard bytes.count >= Self.headerSize else { throw .tooShort(bytes.count) }
        let type = QueryType(rawValue: bytes[0])
        guard [QueryType.request, .response, .notification].contains(type) else { throw .unknownQueryType(bytes[0]) }
        let id = QueryID(rawValue: UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
        let sequence = Self.uint32(bytes, at: 4)
        let jsonSize = Self.uint32(bytes, at: 8)
        guard UInt64(jsonSize) <= UInt64(bytes.count - Self.headerSize) else {
            throw .jsonSizeBeyondData(declared: jsonSize, available: bytes.count - Self.headerSize)
        }
        let jsonEnd = Self.headerSize + Int(jsonSize)
        self.init(type: type, id: id, sequenceNumber: sequence, json: Array(bytes[Self.headerSize..<jsonEnd]), binary: Array(bytes[jsonEnd...]))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}

/// Why bytes are not a security query; each names the header field that is wrong.
public enum SDLSecurityQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than the 12 header bytes.
    case tooShort(Int)
    /// Byte 0 is not request (0x00), response (0x10) or notification (0x20).
    case unknownQueryType(UInt8)
    /// The header's JSON size is more than the bytes after the header.
    case jsonSizeBeyondData(declared: UInt32, available: Int)

    public var description: String {
        switch self {
        case .tooShort(let count): "security query: \(count) bytes, shorter than the 12-byte header"
        case .unknownQueryType(let type): "security query header.queryType: 0x\(String(type, radix: 16)) is not request, response or notification"
        case .jsonSizeBeyondData(let declared, let available):
            "security query header.jsonSize: \(declared) bytes declared, \(available) after the header"
        }
    }
}

/// The error codes of security internal errors (SDL Core's security manager).
public struct SDLSecurityErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code byte.
    public var rawValue: UInt8
    /// An error code from its byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No error.
    public static let success = SDLSecurityErrorCode(rawValue: 0x00)
    /// The query's size is wrong.
    public static let invalidQuerySize = SDLSecurityErrorCode(rawValue: 0x01)
    /// The query ID is unknown.
    public static let invalidQueryID = SDLSecurityErrorCode(rawValue: 0x02)
    /// Encryption is not supported.
    public static let notSupported = SDLSecurityErrorCode(rawValue: 0x03)
    /// The service was protected already.
    public static let serviceAlreadyProtected = SDLSecurityErrorCode(rawValue: 0x04)
    /// Handshake or encrypted data for a service that is not protected.
    public static let serviceNotProtected = SDLSecurityErrorCode(rawValue: 0x05)
    public static let decryptionFailed = SDLSecurityErrorCode(rawValue: 0x06)
    public static let encryptionFailed = SDLSecurityErrorCode(rawValue: 0x07)
    public static let sslInvalidData = SDLSecurityErrorCode(rawValue: 0x08)
    /// Any other handshake failure.
    public static let handshakeFailed = SDLSecurityErrorCode(rawValue: 0x09)
    /// The certificate is not valid (wrong CA, wrong serialNumber...).
    public static let invalidCertificate = SDLSecurityErrorCode(rawValue: 0x0A)
    /// The certificate's dates do not include now.
    public static let expiredCertificate = SDLSecurityErrorCode(rawValue: 0x0B)
    public static let unknownInternalError = SDLSecurityErrorCode(rawValue: 0xFE)
    public static let internalError = SDLSecurityErrorCode(rawValue: 0xFF)

    public var description: String {
        switch self {
        case .success: "success"
        case .invalidQuerySize: "invalid query size"
        case .invalidQueryID: "invalid query ID"
        case .notSupported: "encryption not supported"
        case .serviceAlreadyProtected: "service already protected"
        case .serviceNotProtected: "service not protected"
        case .decryptionFailed: "decryption failed"
        case .encryptionFailed: "encryption failed"
        case .sslInvalidData: "invalid TLS data"
        case .handshakeFailed: "handshake failed"
        case .invalidCertificate: "invalid certificate"
        case .expiredCertificate: "expired certificate"
        case .unknownInternalError: "unknown internal error"
        case .internalError: "internal error"
        default: "security error 0x\(String(rawValue, radix: 16))"
        }
    }
}
