import SDLRuntime

/// The BSON payload of a protocol-5 control frame (protocol spec 5.4.1 §3.2). Every key is
/// optional; keys this version does not know are kept in `otherKeys` and ignored.
public struct SDLControlPayload: Hashable, Sendable {
    // RPC service
    public var protocolVersion: String?
    public var hashID: Int32?
    /// Sent as int64, the only int64 key.
    public var mtu: Int64?
    public var secondaryTransports: [String]?
    public var audioServiceTransports: [Int32]?
    public var videoServiceTransports: [Int32]?
    public var authToken: String?
    public var make: String?
    public var model: String?
    public var modelYear: String?
    public var trim: String?
    public var systemSoftwareVersion: String?
    public var systemHardwareVersion: String?
    // NAKs
    public var rejectedParams: [String]?
    public var reason: String?
    // Video
    public var height: Int32?
    public var width: Int32?
    public var videoProtocol: String?
    public var videoCodec: String?
    // TransportEventUpdate
    public var tcpIPAddress: String?
    public var tcpPort: Int32?

    public var otherKeys: BSONDocument = BSONDocument()

    public init() {}

    private enum Key {
        static let protocolVersion = "protocolVersion", hashID = "hashId", mtu = "mtu"
        static let secondaryTransports = "secondaryTransports", audioServiceTransports = "audioServiceTransports"
        static let videoServiceTransports = "videoServiceTransports", authToken = "authToken"
        static let make = "make", model = "model", modelYear = "modelYear", trim = "trim"
        static let systemSoftwareVersion = "systemSoftwareVersion", systemHardwareVersion = "systemHardwareVersion"
        static let rejectedParams = "rejectedParams", reason = "reason", height = "height", width = "width"
        static let videoProtocol = "videoProtocol", videoCodec = "videoCodec"
        static let tcpIPAddress = "tcpIpAddress", tcpPort = "tcpPort"
    }

    /// The document with each key in the type SDL's C library sends (only `mtu` is int64).
    public var document: BSONDocument {
        var document = BSONDocument()
        func put(_ key: String, _ value: BSONValue?) { if let value { document[key] = value } }
        put(Key.protocolVersion, protocolVersion.map(BSONValue.string))
        put(Key.hashID, hashID.map(BSONValue.int32))
        put(Key.mtu, mtu.map(BSONValue.int64))
        put(Key.secondaryTransports, secondaryTransports.map { .array($0.map(BSONValue.string)) })
        put(Key.audioServiceTransports, audioServiceTransports.map { .array($0.map(BSONValue.int32)) })
        put(Key.videoServiceTransports, videoServiceTransports.map { .array($0.map(BSONValue.int32)) })
        put(Key.authToken, authToken.map(BSONValue.string))
        put(Key.make, make.map(BSONValue.string))
        put(Key.model, model.map(BSONValue.string))
        put(Key.modelYear, modelYear.map(BSONValue.string))
        put(Key.trim, trim.map(BSONValue.string))
        put(Key.systemSoftwareVersion, systemSoftwareVersion.map(BSONValue.string))
        put(Key.systemHardwareVersion, systemHardwareVersion.map(BSONValue.string))
        put(Key.rejectedParams, rejectedParams.map { .array($0.map(BSONValue.string)) })
        put(Key.reason, reason.map(BSONValue.string))
        put(Key.height, height.map(BSONValue.int32))
        put(Key.width, width.map(BSONValue.int32))
        put(Key.videoProtocol, videoProtocol.map(BSONValue.string))
        put(Key.videoCodec, videoCodec.map(BSONValue.string))
        put(Key.tcpIPAddress, tcpIPAddress.map(BSONValue.string))
        put(Key.tcpPort, tcpPort.map(BSONValue.int32))
        for element in otherKeys.elements where document[element.key] == nil { document[element.key] = element.value }
        return document
    }

    public var bytes: [UInt8] { document.encoded() }

    /// Reads a control payload. Integers are accepted in either width; a key with the wrong
    /// type is an error naming the key.
    public init(decoding bytes: [UInt8]) throws(SDLProtocolError) {
        let document: BSONDocument
        do {
            document = try BSONDocument(decoding: bytes)
        } catch {
            throw .invalidControlPayload(error.description)
        }
        try self.init(document: document)
    }

    public init(document: BSONDocument) throws(SDLProtocolError) {
        self.init()
        for element in document.elements {
            let key = element.key
            let value = element.value
            switch key {
            case Key.protocolVersion: protocolVersion = try Self.string(value, key)
            case Key.hashID: hashID = try Self.int32(value, key)
            case Key.mtu: mtu = try Self.int64(value, key)
            case Key.secondaryTransports: secondaryTransports = try Self.strings(value, key)
            case Key.audioServiceTransports: audioServiceTransports = try Self.int32s(value, key)
            case Key.videoServiceTransports: videoServiceTransports = try Self.int32s(value, key)
            case Key.authToken: authToken = try Self.string(value, key)
            case Key.make: make = try Self.string(value, key)
            case Key.model: model = try Self.string(value, key)
            case Key.modelYear: modelYear = try Self.string(value, key)
            case Key.trim: trim = try Self.string(value, key)
            case Key.systemSoftwareVersion: systemSoftwareVersion = try Self.string(value, key)
            case Key.systemHardwareVersion: systemHardwareVersion = try Self.string(value, key)
            case Key.rejectedParams: rejectedParams = try Self.strings(value, key)
            case Key.reason: reason = try Self.string(value, key)
            case Key.height: height = try Self.int32(value, key)
            case Key.width: width = try Self.int32(value, key)
            case Key.videoProtocol: videoProtocol = try Self.string(value, key)
            case Key.videoCodec: videoCodec = try Self.string(value, key)
            case Key.tcpIPAddress: tcpIPAddress = try Self.string(value, key)
            case Key.tcpPort: tcpPort = try Self.int32(value, key)
            default: otherKeys[key] = value
            }
        }
    }

    private static func wrong(_ key: String, _ expected: String, _ value: BSONValue) -> SDLProtocolError {
        .invalidControlPayload("\(key): expected \(expected), found \(value)")
    }

    private static func string(_ value: BSONValue, _ key: String) throws(SDLProtocolError) -> String {
        guard case .string(let text) = value else { throw wrong(key, "string", value) }
        return text
    }

    private static func int64(_ value: BSONValue, _ key: String) throws(SDLProtocolError) -> Int64 {
        switch value {
        case .int32(let number): return Int64(number)
        case .int64(let number): return number
        default: throw wrong(key, "integer", value)
        }
    }

    private static func int32(_ value: BSONValue, _ key: String) throws(SDLProtocolError) -> Int32 {
        guard let number = Int32(exactly: try int64(value, key)) else { throw wrong(key, "int32", value) }
        return number
    }

    private static func strings(_ value: BSONValue, _ key: String) throws(SDLProtocolError) -> [String] {
        guard case .array(let items) = value else { throw wrong(key, "array of strings", value) }
        var result: [String] = []
        for item in items { result.append(try string(item, key)) }
        return result
    }

    private static func int32s(_ value: BSONValue, _ key: String) throws(SDLProtocolError) -> [Int32] {
        guard case .array(let items) = value else { throw wrong(key, "array of int32", value) }
        var result: [Int32] = []
        for item in items { result.append(try int32(item, key)) }
        return result
    }
}

extension SDLControlPayload {
    /// The session hash as protocols 1–4 carry it: the 4 raw big-endian bytes of the RPC
    /// StartServiceACK's payload, echoed in EndService(RPC).
    public static func legacyHashBytes(_ hash: Int32) -> [UInt8] {
        withUnsafeBytes(of: UInt32(bitPattern: hash).bigEndian) { Array($0) }
    }

    /// The session hash in a protocol 1–4 payload; nil unless it is exactly 4 bytes.
    public static func legacyHash(from payload: [UInt8]) -> Int32? {
        payload.count == 4 ? Int32(bitPattern: payload.reduce(0) { $0 << 8 | UInt32($1) }) : nil
    }
}
