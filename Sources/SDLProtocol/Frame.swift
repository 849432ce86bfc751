/// SDL protocol frames (protocol spec 5.4.1): the 8-byte (v1) and 12-byte (v2+) headers,
/// frame and service types, control opcodes.

/// Why bytes are not a valid SDL frame or message. Each names the field that is wrong.
public enum SDLProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    case unsupportedVersion(UInt8)
    case reservedFrameType(UInt8)
    /// `dataSize` claims more than the configured limit; nothing is buffered for it.
    case frameTooLarge(dataSize: UInt32, limit: Int)
    case invalidFirstFrame(String)
    case consecutiveWithoutFirst(sessionID: UInt8, serviceType: UInt8, messageID: UInt32)
    case outOfOrder(messageID: UInt32, expected: UInt8, received: UInt8)
    case messageSizeMismatch(messageID: UInt32, declared: Int, received: Int)
    case messageTooLarge(declared: Int, limit: Int)
    case tooManyPendingMessages(limit: Int)
    case invalidRPCPayload(String)
    case invalidControlPayload(String)
    /// A StartServiceACK's `mtu` outside `SDLFramer.acceptedMTURange`: frames cannot be cut to it.
    case invalidMTU(Int64)

    public var description: String {
        switch self {
        case .unsupportedVersion(let version): "header.version: \(version) is not a protocol version (1...5)"
        case .reservedFrameType(let type): "header.frameType: \(type) is reserved"
        case .frameTooLarge(let size, let limit): "header.dataSize: \(size) bytes exceeds the limit of \(limit)"
        case .invalidFirstFrame(let reason): "first frame: \(reason)"
        case .consecutiveWithoutFirst(let session, let service, let message):
            "consecutive frame for session \(session), service 0x\(String(service, radix: 16)), message \(message) without a first frame"
        case .outOfOrder(let message, let expected, let received):
            "message \(message): consecutive frame \(received) arrived, expected \(expected)"
        case .messageSizeMismatch(let message, let declared, let received):
            "message \(message): first frame declared \(declared) bytes, frames carried \(received)"
        case .messageTooLarge(let declared, let limit): "first frame: total size \(declared) exceeds the limit of \(limit)"
        case .tooManyPendingMessages(let limit): "more than \(limit) multi-frame messages in progress"
        case .invalidRPCPayload(let reason): "RPC payload: \(reason)"
        case .invalidControlPayload(let reason): "control payload: \(reason)"
        case .invalidMTU(let mtu):
            "control payload: mtu \(mtu) is outside \(SDLFramer.acceptedMTURange.lowerBound)...\(SDLFramer.acceptedMTURange.upperBound) bytes"
        }
    }
}

public enum SDLFrameType: UInt8, Hashable, Sendable, CaseIterable {
    case control = 0
    case single = 1
    case first = 2
    case consecutive = 3
}

/// The service a frame belongs to. Open: a byte the spec reserves is kept, not rejected.
public struct SDLServiceType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let control = SDLServiceType(rawValue: 0x00)
    public static let rpc = SDLServiceType(rawValue: 0x07)
    public static let audio = SDLServiceType(rawValue: 0x0A)
    public static let video = SDLServiceType(rawValue: 0x0B)
    public static let hybrid = SDLServiceType(rawValue: 0x0F)

    public var description: String {
        switch self {
        case .control: "control"
        case .rpc: "rpc"
        case .audio: "audio"
        case .video: "video"
        case .hybrid: "hybrid"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}

/// Control opcodes: the frame info of a control frame. Open for reserved values.
public struct SDLControlFrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let heartbeat = SDLControlFrameType(rawValue: 0x00)
    public static let startService = SDLControlFrameType(rawValue: 0x01)
    public static let startServiceACK = SDLControlFrameType(rawValue: 0x02)
    public static let startServiceNAK = SDLControlFrameType(rawValue: 0x03)
    public static let endService = SDLControlFrameType(rawValue: 0x04)
    public static let endServiceACK = SDLControlFrameType(rawValue: 0x05)
    public static let endServiceNAK = SDLControlFrameType(rawValue: 0x06)
    public static let registerSecondaryTransport = SDLControlFrameType(rawValue: 0x07)
    public static let registerSecondaryTransportACK = SDLControlFrameType(rawValue: 0x08)
    public static let registerSecondaryTransportNAK = SDLControlFrameType(rawValue: 0x09)
    public static let transportEventUpdate = SDLControlFrameType(rawValue: 0xFD)
    public static let serviceDataACK = SDLControlFrameType(rawValue: 0xFE)
    public static let heartbeatACK = SDLControlFrameType(rawValue: 0xFF)

    public var description: String {
        switch self {
        case .heartbeat: "Heartbeat"
        case .startService: "StartService"
        case .startServiceACK: "StartServiceACK"
        case .startServiceNAK: "StartServiceNAK"
        case .endService: "EndService"
        case .endServiceACK: "EndServiceACK"
        case .endServiceNAK: "EndServiceNAK"
        case .registerSecondaryTransport: "RegisterSecondaryTransport"
        case .registerSecondaryTransportACK: "RegisterSecondaryTransportACK"
        case .registerSecondaryTransportNAK: "RegisterSecondaryTransportNAK"
        case .transportEventUpdate: "TransportEventUpdate"
        case .serviceDataACK: "ServiceDataACK"
        case .heartbeatACK: "HeartbeatACK"
        default: "Control(0x\(String(rawValue, radix: 16)))"
        }
    }
}

/// A frame header. Version 1 has 8 bytes and no message ID; versions 2–5 have 12.
public struct SDLFrameHeader: Hashable, Sendable {
    public var version: UInt8
    /// v2+: E, the payload is encrypted. (v1's C, compression, is never set in practice.)
    public var isEncrypted: Bool
    public var frameType: SDLFrameType
    public var serviceType: SDLServiceType
    /// Control opcode, or consecutive frame sequence number; 0 otherwise.
    public var frameInfo: UInt8
    public var sessionID: UInt8
    public var dataSize: UInt32
    /// v2+ only; 0 for v1.
    public var messageID: UInt32

    public init(
        version: UInt8, isEncrypted: Bool = false, frameType: SDLFrameType, serviceType: SDLServiceType,
        frameInfo: UInt8 = 0, sessionID: UInt8, dataSize: UInt32 = 0, messageID: UInt32 = 0
    ) {
        self.version = version
        self.isEncrypted = isEncrypted
        self.frameType = frameType
        self.serviceType = serviceType
        self.frameInfo = frameInfo
        self.sessionID = sessionID
        self.dataSize = dataSize
        self.messageID = messageID
    }

    public var size: Int { Self.size(forVersion: version) }

    public static func size(forVersion version: UInt8) -> Int { version == 1 ? 8 : 12 }

    public var controlFrameType: SDLControlFrameType? {
        frameType == .control ? SDLControlFrameType(rawValue: frameInfo) : nil
    }

    public func append(to out: inout [UInt8]) {
        out.append(version << 4 | (isEncrypted ? 0x08 : 0) | frameType.rawValue)
        out.append(serviceType.rawValue)
        out.append(frameInfo)
        out.append(sessionID)
        appendBigEndian(dataSize, to: &out)
        if version != 1 { appendBigEndian(messageID, to: &out) }
    }

    /// Reads a header from the start of `bytes`; nil when fewer bytes than the header has.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(SDLProtocolError) -> SDLFrameHeader? {
        guard let first = bytes.first else { return nil }
        let version = first >> 4
        guard (1...5).contains(version) else { throw .unsupportedVersion(version) }
        guard bytes.count >= size(forVersion: version) else { return nil }
        guard let frameType = SDLFrameType(rawValue: first & 0x07) else { throw .reservedFrameType(first & 0x07) }
        return SDLFrameHeader(
            version: version,
            isEncrypted: first & 0x08 != 0,
            frameType: frameType,
            serviceType: SDLServiceType(rawValue: bytes[1]),
            frameInfo: bytes[2],
            sessionID: bytes[3],
            dataSize: readBigEndian(bytes, at: 4),
            messageID: version == 1 ? 0 : readBigEndian(bytes, at: 8))
    }
}

/// A header and exactly `dataSize` payload bytes.
public struct SDLFrame: Hashable, Sendable {
    public var header: SDLFrameHeader
    public var payload: [UInt8]

    /// A frame whose header's `dataSize` is set from `payload`.
    public init(header: SDLFrameHeader, payload: [UInt8] = []) {
        self.header = header
        self.header.dataSize = UInt32(truncatingIfNeeded: payload.count)
        self.payload = payload
    }

    public func append(to out: inout [UInt8]) {
        header.append(to: &out)
        out.append(contentsOf: payload)
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(header.size + payload.count)
        append(to: &out)
        return out
    }
}

@inline(__always)
func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
    out.append(UInt8(truncatingIfNeeded: value >> 24))
    out.append(UInt8(truncatingIfNeeded: value >> 16))
    out.append(UInt8(truncatingIfNeeded: value >> 8))
    out.append(UInt8(truncatingIfNeeded: value))
}

@inline(__always)
func readBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}

func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    bytes.withUnsafeBytes { readBigEndian($0, at: offset) }
}
