/// The payload of RPC (0x07) and hybrid (0x0F) service messages: the 12-byte binary header,
/// the JSON parameters, then bulk data (protocol 2+); or the wrapped JSON of protocol 1.

/// The RPC type nibble of the binary header.
public struct SDLRPCType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

    public static let request = SDLRPCType(rawValue: 0)
    public static let response = SDLRPCType(rawValue: 1)
    public static let notification = SDLRPCType(rawValue: 2)
    /// Protocol spec only; not produced by the RPC spec's messages.
    public static let erroneousResponse = SDLRPCType(rawValue: 3)

    public var description: String {
        switch self {
        case .request: "request"
        case .response: "response"
        case .notification: "notification"
        case .erroneousResponse: "erroneousResponse"
        default: "rpcType(\(rawValue))"
        }
    }
}

/// An RPC message as carried by the protocol: the header fields, JSON bytes and bulk bytes.
public struct SDLRPCPayload: Hashable, Sendable {
    public var rpcType: SDLRPCType
    /// 28 bits.
    public var functionID: UInt32
    public var correlationID: UInt32
    public var json: [UInt8]
    public var bulkData: [UInt8]

    /// Notifications carry no correlation ID; SDL Core sends 0xFFFFFFFF, apps send 0.
    public init(rpcType: SDLRPCType, functionID: UInt32, correlationID: UInt32 = 0, json: [UInt8], bulkData: [UInt8] = []) {
        self.rpcType = rpcType
        self.functionID = functionID & 0x0FFF_FFFF
        self.correlationID = correlationID
        self.json = json
        self.bulkData = bulkData
    }

    public static let binaryHeaderSize = 12

    /// Protocol 2+: binary header, JSON, bulk.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize)
        append(to: &out)
        return out
    }

    /// The size of `bytes`.
    public var encodedSize: Int { Self.binaryHeaderSize + json.count + bulkData.count }

    /// Appends `bytes` to `out`, so a frame can be built in one buffer.
    public func append(to out: inout [UInt8]) {
        appendBigEndian(UInt32(rpcType.rawValue) << 28 | functionID & 0x0FFF_FFFF, to: &out)
        appendBigEndian(correlationID, to: &out)
        appendBigEndian(UInt32(truncatingIfNeeded: json.count), to: &out)
        out.append(contentsOf: json)
        out.append(contentsOf: bulkData)
    }

    /// Parses a protocol 2+ payload.
    public init(decoding payload: [UInt8]) throws(SDLProtocolError) {
        guard payload.count >= Self.binaryHeaderSize else {
            throw .invalidRPCPayload("\(payload.count) bytes, shorter than the 12-byte binary header")
        }
        let word0 = readBigEndian(payload, at: 0)
        let jsonSize = Int(readBigEndian(payload, at: 8))
        guard jsonSize <= payload.count - Self.binaryHeaderSize else {
            throw .invalidRPCPayload("jsonSize \(jsonSize) exceeds the \(payload.count - Self.binaryHeaderSize) bytes after the header")
        }
        let jsonEnd = Self.binaryHeaderSize + jsonSize
        self.init(
            rpcType: SDLRPCType(rawValue: UInt8(word0 >> 28)),
            functionID: word0 & 0x0FFF_FFFF,
            correlationID: readBigEndian(payload, at: 4),
            json: Array(payload[Self.binaryHeaderSize..<jsonEnd]),
            bulkData: Array(payload[jsonEnd...]))
    }
}
