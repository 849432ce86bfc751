/// H.264 Annex-B byte streams as apps send them on the video service: NAL units after 00 00 01
/// (or 00 00 00 01) start codes.
public enum SDLH264 {
    /// NAL unit types that matter to streaming.
    public enum NALType {
        /// A slice of an IDR picture: decoding can start here.
        public static let idr: UInt8 = 5
        /// Sequence parameter set.
        public static let sps: UInt8 = 7
        /// Picture parameter set.
        public static let pps: UInt8 = 8
    }

    /// The NAL units of an Annex-B access unit, without their start codes (bytes before the
    /// first start code are ignored).
    public static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int?
        // The unit that began at `start` ends at `end`; zeros before a start code are
        // trailing_zero_8bits (or its fourth byte), and zeros at the end too: not the unit's.
        func close(at end: Int) {
            guard let begin = start else { return }
            var end = end
            while end > begin, bytes[end - 1] == 0 { end -= 1 }
            if end > begin { units.append(bytes[begin..<end]) }
        }
        visitStartCodes(bytes) { startCode, unit in
            close(at: startCode)
            start = unit
            return true
        }
        close(at: bytes.count)
        return units
    }

    /// Whether the bytes begin as an Annex-B access unit does: with a 00 00 01 start code,
    /// after any zero bytes (an AVCC sample, with length prefixes instead, does not).
    public static func hasStartCode(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        return index >= 2 && index < bytes.count && bytes[index] == 1
    }

    /// An Annex-B stream (an encoder's `.h264` output) cut into access units, each with its
    /// start codes: a unit begins at an access unit delimiter, SEI or parameter set, or at a
    /// picture's first slice (one slice per picture, as x264 and VideoToolbox write by
    /// default).
    public static func accessUnits(in stream: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var current: [UInt8] = []
        var hasSlice = false
        for nal in nalUnits(in: stream) {
            guard let header = nal.first else { continue }
            let type = header & 0x1F
            let startsUnit = type == 9 || type == 6 || type == NALType.sps || type == NALType.pps
            let isSlice = type == 1 || type == NALType.idr
            // A prefix (SEI, parameter sets) after a slice, or a second slice, opens the next unit.
            if hasSlice, startsUnit || isSlice {
                units.append(current)
                current = []
                hasSlice = false
            }
            current += [0, 0, 0, 1]
            current += nal
            if isSlice { hasSlice = true }
        }
        if !current.isEmpty { units.append(current) }
        return units
    }

    /// The NAL unit types in Annex-B bytes, in order.
    public static func nalTypes(_ bytes: [UInt8]) -> [UInt8] {
        nalUnits(in: bytes).compactMap { $0.first.map { $0 & 0x1F } }
    }

    /// The types of the NAL units up to and including the access unit's first slice (1 or 5):
    /// every slice of a picture has the first one's type, and parameter sets come before it, so
    /// the rest of a large frame is not scanned.
    static func leadingNALTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        visitNALHeaders(bytes) { header in
            let type = header & 0x1F
            types.append(type)
            return type != 1 && type != NALType.idr
        }
        return types
    }

    /// Calls `visit` with the first byte of each NAL unit's header, in order, while it returns
    /// true (the scan stops early: a large frame's slice data is not read).
    static func visitNALHeaders(_ bytes: [UInt8], _ visit: (UInt8) -> Bool) {
        visitStartCodes(bytes) { _, unit in unit < bytes.count && visit(bytes[unit]) }
    }

    /// Calls `visit` at each 00 00 01 start code, in order, with where it begins and where its NAL
    /// unit begins (possibly the end of the bytes), while it returns true.
    static func visitStartCodes(_ bytes: [UInt8], _ visit: (_ startCode: Int, _ unit: Int) -> Bool) {
        var index = 0
        let count = bytes.count
        while index + 2 < count {
            // No start code can begin at index, index + 1 or index + 2 when that byte is above 1.
            if bytes[index + 2] > 1 {
                index += 3
            } else if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                guard visit(index, index + 3) else { return }
                index += 3
            } else {
                index += 1
            }
        }
    }

    /// Whether the access unit holds an IDR picture (its first slice is IDR).
    public static func containsIDR(_ bytes: [UInt8]) -> Bool { leadingNALTypes(bytes).contains(NALType.idr) }

    /// Whether the access unit must not be dropped: it holds an IDR picture or parameter sets,
    /// without which nothing after it decodes.
    public static func isEssential(_ bytes: [UInt8]) -> Bool {
        leadingNALTypes(bytes).contains { $0 == NALType.idr || $0 == NALType.sps || $0 == NALType.pps }
    }
}

/// Packs H.264 access units into RTP (RFC 6184, packetization mode 1: single NAL unit packets
/// and FU-A fragments), each packet preceded by its 2-byte length (RFC 4571), as SDL libraries
/// send RTP on the video service. Packets are grouped into messages of at most `mtu` bytes, so
/// every SDL frame holds whole packets.
public struct SDLRTPH264Packetizer: Sendable {
    /// Dynamic payload type, as the SDL libraries use.
    public static let payloadType: UInt8 = 96
    /// RTP's clock for video.
    public static let clockRate = 90_000

    /// The largest message (the sum of length-prefixed packets); the negotiated MTU.
    public let mtu: Int
    /// The largest RTP packet: what fits in a message and in the 2-byte length.
    public let maxPacketSize: Int
    private let ssrc: UInt32
    private var sequenceNumber: UInt16

    /// A packetizer for messages of at most `mtu` bytes (at least 64).
    public init(mtu: Int, ssrc: UInt32 = UInt32.random(in: 1...UInt32.max), firstSequenceNumber: UInt16 = UInt16.random(in: 0...UInt16.max)) {
        self.mtu = max(64, mtu)
        self.maxPacketSize = min(Int(UInt16.max), self.mtu - 2)
        self.ssrc = ssrc
        self.sequenceNumber = firstSequenceNumber
    }

    /// The messages carrying one access unit shown at `presentationTime`; the last packet has
    /// the marker bit.
    public mutating func packetize(_ accessUnit: [UInt8], presentationTime: Duration) -> [[UInt8]] {
        let units = SDLH264.nalUnits(in: accessUnit)
        let components = presentationTime.components
        let ticks = components.seconds &* Int64(Self.clockRate) &+ components.attoseconds / (1_000_000_000_000_000_000 / Int64(Self.clockRate))
        let timestamp = UInt32(truncatingIfNeeded: ticks)
        var messages: [[UInt8]] = []
        var message: [UInt8] = []
        message.reserveCapacity(min(mtu, accessUnit.count + 64))
        let maxPayload = maxPacketSize - 12
        for (position, unit) in units.enumerated() {
            let lastUnit = position == units.count - 1
            if unit.count <= maxPayload {
                append(packet: unit, prefix: [], marker: lastUnit, timestamp: timestamp, to: &message, messages: &messages)
                continue
            }
            // FU-A: the NAL header's F and NRI bits with type 28, then S/E and the unit's type.
            let header = unit[unit.startIndex]
            let indicator = (header & 0xE0) | 28
            var offset = unit.startIndex + 1
            let chunk = maxPayload - 2
            while offset < unit.endIndex {
                let end = min(unit.endIndex, offset + chunk)
                var fuHeader = header & 0x1F
                if offset == unit.startIndex + 1 { fuHeader |= 0x80 }
                if end == unit.endIndex { fuHeader |= 0x40 }
                append(
                    packet: unit[offset..<end], prefix: [indicator, fuHeader], marker: lastUnit && end == unit.endIndex, timestamp: timestamp, to: &message,
                    messages: &messages)
                offset = end
            }
        }
        if !message.isEmpty { messages.append(message) }
        return messages
    }

    private mutating func append(
        packet payload: ArraySlice<UInt8>, prefix: [UInt8], marker: Bool, timestamp: UInt32, to message: inout [UInt8], messages: inout [[UInt8]]
    ) {
        let size = 12 + prefix.count + payload.count
        if message.count + 2 + size > mtu, !message.isEmpty {
            messages.append(message)
            message = []
            message.reserveCapacity(mtu)
        }
        message.append(UInt8(size >> 8))
        message.append(UInt8(size & 0xFF))
        message.append(0x80)
        message.append((marker ? 0x80 : 0) | Self.payloadType)
        message.append(UInt8(sequenceNumber >> 8))
        message.append(UInt8(sequenceNumber & 0xFF))
        sequenceNumber &+= 1
        for shift in stride(from: 24, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: timestamp >> UInt32(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: ssrc >> UInt32(shift))) }
        message += prefix
        message += payload
    }
}

/// Turns RTP carrying H.264 (RFC 6184: single NAL units, STAP-A and FU-A), each packet preceded
/// by its 2-byte length (RFC 4571), back into Annex-B. Packets may be cut across messages.
public struct SDLRTPH264Depacketizer: Sendable {
    private var pending: [UInt8] = []
    private var fragment: [UInt8]?
    private static let startCode: [UInt8] = [0, 0, 0, 1]

    /// A depacketizer with nothing pending.
    public init() {}

    /// Takes the bytes of one message; returns the Annex-B bytes completed and how many access
    /// units ended (RTP marker bit).
    public mutating func receive(_ bytes: [UInt8]) -> (annexB: [UInt8], accessUnits: Int) {
        // Whole packets are the rule: then the message is read where it is, not copied.
        if pending.isEmpty { pending = bytes } else { pending += bytes }
        var output: [UInt8] = []
        output.reserveCapacity(pending.count)
        var units = 0
        var index = 0
        while pending.count - index >= 2 {
            let length = Int(pending[index]) << 8 | Int(pending[index + 1])
            guard pending.count - index >= 2 + length else { break }
            let packet = pending[(index + 2)..<(index + 2 + length)]
            index += 2 + length
            let base = packet.startIndex
            guard packet.count > 12, packet[base] >> 6 == 2 else { continue }
            let csrcCount = Int(packet[base] & 0x0F)
            var offset = base + 12 + 4 * csrcCount
            if packet[base] & 0x10 != 0, packet.endIndex >= offset + 4 {
                offset += 4 + 4 * (Int(packet[offset + 2]) << 8 | Int(packet[offset + 3]))
            }
            guard offset < packet.endIndex else { continue }
            appendNALUnits(packet[offset...], to: &output)
            if packet[base + 1] & 0x80 != 0 { units += 1 }
        }
        if index == pending.count { pending = [] } else { pending.removeFirst(index) }
        return (output, units)
    }

    /// Appends the packet's NAL units, each after a start code, to `output`.
    private mutating func appendNALUnits(_ payload: ArraySlice<UInt8>, to output: inout [UInt8]) {
        let first = payload.startIndex
        switch payload[first] & 0x1F {
        case 24:  // STAP-A: 16-bit sizes, then the units
            var index = first + 1
            while index + 2 <= payload.endIndex {
                let size = Int(payload[index]) << 8 | Int(payload[index + 1])
                index += 2
                guard index + size <= payload.endIndex else { break }
                output += Self.startCode
                output += payload[index..<(index + size)]
                index += size
            }
        case 28:  // FU-A: a unit in fragments
            guard payload.count > 2 else { return }
            let header = payload[first + 1]
            if header & 0x80 != 0 { fragment = [(payload[first] & 0xE0) | (header & 0x1F)] }
            fragment? += payload[(first + 2)...]
            guard header & 0x40 != 0, let unit = fragment else { return }
            fragment = nil
            output += Self.startCode
            output += unit
        default:
            output += Self.startCode
            output += payload
        }
    }
}

/// H.265 (HEVC) Annex-B access units: what the streaming manager needs to know of them.
public enum SDLH265 {
    /// Whether the access unit must not be dropped: it holds parameter sets (VPS, SPS, PPS) or
    /// an IRAP picture (IDR, CRA, BLA), without which nothing after it decodes. Scans the NAL
    /// units up to the first slice, as for H.264.
    public static func isEssential(_ bytes: [UInt8]) -> Bool {
        var essential = false
        SDLH264.visitNALHeaders(bytes) { header in
            let type = (header >> 1) & 0x3F
            if (32...34).contains(type) || (16...23).contains(type) {
                essential = true
                return false
            }
            // The first slice (VCL, 0–31) that is not IRAP: not a key frame.
            return type >= 32
        }
        return essential
    }
}
