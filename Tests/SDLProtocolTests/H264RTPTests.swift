import SDLProtocol
import Testing

/// H.264 Annex-B splitting and RTP (RFC 6184 over RFC 4571) packetising, round-tripped through
/// the depacketiser the emulator uses.
@Suite struct H264RTPTests {
    static func unit(_ type: UInt8, _ size: Int, seed: Int = 0) -> [UInt8] {
        [type] + (0..<size).map { UInt8(truncatingIfNeeded: seed &+ $0) | 0x10 }
    }

    @Test func annexBSplitsOnThreeAndFourByteStartCodes() {
        let sps = Self.unit(0x67, 5)
        let pps = Self.unit(0x68, 3)
        let idr = Self.unit(0x65, 20)
        let bytes = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 0, 1] + idr
        #expect(SDLH264.nalUnits(in: bytes).map(Array.init) == [sps, pps, idr])
        #expect(SDLH264.nalTypes(bytes) == [7, 8, 5])
        #expect(SDLH264.isEssential(bytes) && SDLH264.containsIDR(bytes))
        #expect(!SDLH264.isEssential([0, 0, 1] + Self.unit(0x41, 10)))
        #expect(SDLH264.nalUnits(in: [1, 2, 3]).isEmpty, "no start code, no unit")
        // trailing_zero_8bits belong to no unit, before a start code or at the end.
        #expect(SDLH264.nalUnits(in: [0, 0, 1] + sps + [0, 0, 0, 0, 0, 1] + pps + [0, 0]).map(Array.init) == [sps, pps])
        #expect(SDLH264.hasStartCode([0, 0, 1, 0x65]) && SDLH264.hasStartCode([0, 0, 0, 1, 0x65]))
        #expect(!SDLH264.hasStartCode([0, 0, 0, 9, 0x65]) && !SDLH264.hasStartCode([]))
    }

    @Test func fuAFragmentsCarryTheUnitsHeaderBitsAndOneMarker() {
        var packetizer = SDLRTPH264Packetizer(mtu: 1_000, ssrc: 1, firstSequenceNumber: 65_535)
        // An IDR (NRI 3) of 2,500 bytes: three FU-A packets.
        let messages = packetizer.packetize([0, 0, 0, 1] + Self.unit(0x65, 2_500), presentationTime: .zero)
        var packets: [[UInt8]] = []
        for message in messages {
            var index = 0
            while index + 2 <= message.count {
                let length = Int(message[index]) << 8 | Int(message[index + 1])
                packets.append(Array(message[(index + 2)..<(index + 2 + length)]))
                index += 2 + length
            }
        }
        #expect(packets.count == 3)
        // FU indicator: F and NRI of the unit (0x60), type 28; FU header: S, E and type 5.
        #expect(packets.map { $0[12] } == [0x7C, 0x7C, 0x7C])
        #expect(packets.map { $0[13] } == [0x85, 0x05, 0x45])
        // The marker bit on the last packet only; sequence numbers wrap from 65,535 to 0.
        #expect(packets.map { $0[1] & 0x80 } == [0, 0, 0x80])
        #expect(packets.map { Int($0[2]) << 8 | Int($0[3]) } == [65_535, 0, 1])
    }

    @Test(arguments: [64, 1_500, 131_072])
    func accessUnitsRoundTripWithinTheMTU(mtu: Int) {
        var packetizer = SDLRTPH264Packetizer(mtu: mtu, ssrc: 0x1234_5678, firstSequenceNumber: 65_534)
        var depacketizer = SDLRTPH264Depacketizer()
        let frames: [[UInt8]] = [
            [0, 0, 0, 1] + Self.unit(0x67, 9) + [0, 0, 0, 1] + Self.unit(0x68, 4) + [0, 0, 0, 1] + Self.unit(0x65, 70_000, seed: 3),
            [0, 0, 0, 1] + Self.unit(0x41, 40, seed: 9),
            [0, 0, 0, 1] + Self.unit(0x41, 200_000, seed: 5),
        ]
        var output: [UInt8] = []
        var units = 0
        for (index, frame) in frames.enumerated() {
            let messages = packetizer.packetize(frame, presentationTime: .milliseconds(33 * index))
            #expect(messages.allSatisfy { $0.count <= mtu && !$0.isEmpty })
            // The last packet of the access unit has the marker bit, no other.
            for message in messages {
                let received = depacketizer.receive(message)
                output += received.annexB
                units += received.accessUnits
            }
        }
        #expect(units == frames.count)
        #expect(output == frames.flatMap { $0 })
    }

    @Test func timestampsRunAt90kHzAndPacketsMayBeCutAnywhere() {
        var packetizer = SDLRTPH264Packetizer(mtu: 1_000, ssrc: 1, firstSequenceNumber: 7)
        let messages = packetizer.packetize([0, 0, 0, 1] + Self.unit(0x41, 2_500), presentationTime: .seconds(2))
        let first = messages[0]
        // Length, then the RTP header: version 2, payload type 96, sequence 7, timestamp 180,000.
        #expect(first[2] == 0x80 && first[3] & 0x7F == 96)
        #expect(Int(first[4]) << 8 | Int(first[5]) == 7)
        #expect(first[6...9].reduce(0) { $0 << 8 | Int($1) } == 180_000)
        var depacketizer = SDLRTPH264Depacketizer()
        let all = messages.flatMap { $0 }
        var output: [UInt8] = []
        var units = 0
        for start in stride(from: 0, to: all.count, by: 333) {
            let received = depacketizer.receive(Array(all[start..<min(all.count, start + 333)]))
            output += received.annexB
            units += received.accessUnits
        }
        #expect(units == 1 && output == [0, 0, 0, 1] + Self.unit(0x41, 2_500))
    }

    @Test func h265KeyFramesAreParameterSetsOrIRAPPictures() {
        // NAL header: type in bits 1-6 of the first byte.
        func nal(_ type: UInt8) -> [UInt8] { [0, 0, 0, 1, type << 1, 1, 0x42] }
        #expect(SDLH265.isEssential(nal(32) + nal(33) + nal(34) + nal(19)), "VPS, SPS, PPS, IDR_W_RADL")
        #expect(SDLH265.isEssential(nal(21)), "CRA")
        #expect(!SDLH265.isEssential(nal(1)), "a trailing picture")
        #expect(!SDLH265.isEssential(nal(39) + nal(1)), "SEI before a trailing picture")
    }
}
