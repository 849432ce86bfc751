/// Splits a message into frames at the MTU and puts multi-frame messages back together.

/// One complete message of a service: a control frame's payload, or a single frame's, or the
/// joined payloads of a first frame's consecutive frames.
public struct SDLProtocolMessage: Hashable, Sendable {
    public var version: UInt8
    public var serviceType: SDLServiceType
    public var sessionID: UInt8
    public var messageID: UInt32
    /// Set when the frames carried the E flag (their payloads were decrypted before joining).
    public var isEncrypted: Bool
    /// For control frames: the opcode.
    public var controlFrameType: SDLControlFrameType?
    public var payload: [UInt8]

    public init(
        version: UInt8, serviceType: SDLServiceType, sessionID: UInt8, messageID: UInt32 = 0,
        isEncrypted: Bool = false, controlFrameType: SDLControlFrameType? = nil, payload: [UInt8]
    ) {
        self.version = version
        self.serviceType = serviceType
        self.sessionID = sessionID
        self.messageID = messageID
        self.isEncrypted = isEncrypted
        self.controlFrameType = controlFrameType
        self.payload = payload
    }
}

public enum SDLFramer {
    /// Protocol 3–5 default: 131,072 payload bytes per frame.
    public static let defaultMaxPayloadSize = 131_072
    /// Protocol 1–2: 1,500-byte frames.
    public static let legacyMaxPayloadSize = 1_488
    /// MTUs a session accepts from a head unit. Below 64 bytes a PutFile's JSON alone would not
    /// fit a frame; above 16 MiB one frame would be a memory risk for both sides.
    public static let acceptedMTURange: ClosedRange<Int64> = 64...16_777_216

    /// Appends the frames that carry `message` to `out` as wire bytes, copying the payload once
    /// (the send path; `frames(for:maxPayloadSize:)` gives the same frames as values).
    public static func encode(_ message: SDLProtocolMessage, maxPayloadSize: Int, into out: inout [UInt8]) {
        precondition(maxPayloadSize > 0, "maxPayloadSize must be positive")
        func header(_ type: SDLFrameType, info: UInt8, encrypted: Bool, size: Int) -> SDLFrameHeader {
            SDLFrameHeader(
                version: message.version, isEncrypted: encrypted, frameType: type, serviceType: message.serviceType,
                frameInfo: info, sessionID: message.sessionID, dataSize: UInt32(truncatingIfNeeded: size), messageID: message.messageID)
        }
        let total = message.payload.count
        if message.controlFrameType != nil || total <= maxPayloadSize {
            let type: SDLFrameType = message.controlFrameType == nil ? .single : .control
            header(type, info: message.controlFrameType?.rawValue ?? 0, encrypted: message.isEncrypted, size: total).append(to: &out)
            out.append(contentsOf: message.payload)
            return
        }
        let count = (total + maxPayloadSize - 1) / maxPayloadSize
        out.reserveCapacity(out.count + total + (count + 1) * 12 + 8)
        header(.first, info: 0, encrypted: false, size: 8).append(to: &out)
        appendBigEndian(UInt32(truncatingIfNeeded: total), to: &out)
        appendBigEndian(UInt32(truncatingIfNeeded: count), to: &out)
        message.payload.withUnsafeBufferPointer { payload in
            for index in 0..<count {
                let start = index * maxPayloadSize
                let end = min(total, start + maxPayloadSize)
                let info: UInt8 = index == count - 1 ? 0 : UInt8(index % 255 + 1)
                header(.consecutive, info: info, encrypted: message.isEncrypted, size: end - start).append(to: &out)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: payload[start..<end]))
            }
        }
    }

    /// The frames that carry `message`: one single (or control) frame when its payload fits in
    /// `maxPayloadSize`, else a first frame and consecutive frames numbered 1...255, wrapping,
    /// with 0 on the last.
    public static func frames(for message: SDLProtocolMessage, maxPayloadSize: Int) -> [SDLFrame] {
        precondition(maxPayloadSize > 0, "maxPayloadSize must be positive")
        func header(_ type: SDLFrameType, info: UInt8, encrypted: Bool) -> SDLFrameHeader {
            SDLFrameHeader(
                version: message.version, isEncrypted: encrypted, frameType: type, serviceType: message.serviceType,
                frameInfo: info, sessionID: message.sessionID, messageID: message.messageID)
        }
        if let control = message.controlFrameType {
            return [SDLFrame(header: header(.control, info: control.rawValue, encrypted: message.isEncrypted), payload: message.payload)]
        }
        let total = message.payload.count
        if total <= maxPayloadSize {
            return [SDLFrame(header: header(.single, info: 0, encrypted: message.isEncrypted), payload: message.payload)]
        }
        let count = (total + maxPayloadSize - 1) / maxPayloadSize
        var firstPayload: [UInt8] = []
        appendBigEndian(UInt32(truncatingIfNeeded: total), to: &firstPayload)
        appendBigEndian(UInt32(truncatingIfNeeded: count), to: &firstPayload)
        var frames = [SDLFrame(header: header(.first, info: 0, encrypted: false), payload: firstPayload)]
        frames.reserveCapacity(count + 1)
        for index in 0..<count {
            let start = index * maxPayloadSize
            let end = min(total, start + maxPayloadSize)
            let info: UInt8 = index == count - 1 ? 0 : UInt8(index % 255 + 1)
            frames.append(SDLFrame(header: header(.consecutive, info: info, encrypted: message.isEncrypted), payload: Array(message.payload[start..<end])))
        }
        return frames
    }
}

/// Joins first and consecutive frames by (session, service, message ID), so messages of
/// different services may interleave. Memory is bounded: a message may declare at most
/// `maxMessageSize` bytes and at most `maxPendingMessages` may be in progress at once.
public struct SDLReassembler: Sendable {
    public var maxMessageSize: Int
    public var maxPendingMessages: Int

    private struct Key: Hashable {
        var sessionID: UInt8
        var serviceType: UInt8
        var messageID: UInt32
    }

    private struct Pending {
        var header: SDLFrameHeader
        var declaredSize: Int
        var declaredFrames: Int
        var receivedFrames = 0
        var isEncrypted = false
        var payload: [UInt8]
    }

    private var pending: [Key: Pending] = [:]

    public static let defaultMaxMessageSize = 64 << 20

    public init(maxMessageSize: Int = SDLReassembler.defaultMaxMessageSize, maxPendingMessages: Int = 16) {
        self.maxMessageSize = maxMessageSize
        self.maxPendingMessages = maxPendingMessages
    }

    /// Messages still waiting for frames.
    public var pendingCount: Int { pending.count }

    /// Takes the next frame (already decrypted); returns a message when one is complete.
    public mutating func receive(_ frame: SDLFrame) throws(SDLProtocolError) -> SDLProtocolMessage? {
        let header = frame.header
        switch header.frameType {
        case .control, .single:
            return SDLProtocolMessage(
                version: header.version, serviceType: header.serviceType, sessionID: header.sessionID,
                messageID: header.messageID, isEncrypted: header.isEncrypted, controlFrameType: header.controlFrameType,
                payload: frame.payload)
        case .first:
            guard frame.payload.count == 8 else {
                throw .invalidFirstFrame("payload has \(frame.payload.count) bytes, expected 8")
            }
            let size = Int(readBigEndian(frame.payload, at: 0))
            let count = Int(readBigEndian(frame.payload, at: 4))
            guard size <= maxMessageSize else { throw .messageTooLarge(declared: size, limit: maxMessageSize) }
            guard count >= 1, count <= max(1, size) else {
                throw .invalidFirstFrame("\(count) consecutive frames cannot carry \(size) bytes")
            }
            let key = Key(sessionID: header.sessionID, serviceType: header.serviceType.rawValue, messageID: header.messageID)
            guard pending[key] != nil || pending.count < maxPendingMessages else {
                throw .tooManyPendingMessages(limit: maxPendingMessages)
            }
            var payload: [UInt8] = []
            payload.reserveCapacity(size)
            pending[key] = Pending(header: header, declaredSize: size, declaredFrames: count, payload: payload)
            return nil
        case .consecutive:
            let key = Key(sessionID: header.sessionID, serviceType: header.serviceType.rawValue, messageID: header.messageID)
            guard var message = pending.removeValue(forKey: key) else {
                throw .consecutiveWithoutFirst(sessionID: header.sessionID, serviceType: header.serviceType.rawValue, messageID: header.messageID)
            }
            message.receivedFrames += 1
            let isLast = message.receivedFrames == message.declaredFrames
            let expected: UInt8 = isLast ? 0 : UInt8((message.receivedFrames - 1) % 255 + 1)
            guard header.frameInfo == expected else {
                throw .outOfOrder(messageID: header.messageID, expected: expected, received: header.frameInfo)
            }
            guard message.payload.count + frame.payload.count <= message.declaredSize else {
                throw .messageSizeMismatch(
                    messageID: header.messageID, declared: message.declaredSize, received: message.payload.count + frame.payload.count)
            }
            message.payload.append(contentsOf: frame.payload)
            message.isEncrypted = message.isEncrypted || header.isEncrypted
            guard isLast else {
                pending[key] = message
                return nil
            }
            guard message.payload.count == message.declaredSize else {
                throw .messageSizeMismatch(messageID: header.messageID, declared: message.declaredSize, received: message.payload.count)
            }
            return SDLProtocolMessage(
                version: message.header.version, serviceType: header.serviceType, sessionID: header.sessionID,
                messageID: header.messageID, isEncrypted: message.isEncrypted, payload: message.payload)
        }
    }
}
