import Foundation
import SDLProtocol
import SDLRuntime
import Testing

private func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

private func message(_ size: Int, service: SDLServiceType = .rpc, messageID: UInt32 = 1) -> SDLProtocolMessage {
    SDLProtocolMessage(version: 5, serviceType: service, sessionID: 1, messageID: messageID, payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
}

/// Decodes `bytes` fed in pieces of `chunk` bytes and reassembles every message.
private func decodeAll(_ bytes: [UInt8], chunk: Int = .max) throws -> [SDLProtocolMessage] {
    var decoder = SDLFrameDecoder()
    var reassembler = SDLReassembler()
    var messages: [SDLProtocolMessage] = []
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        decoder.append(bytes[index..<end])
        index = end
        while let frame = try decoder.nextFrame() {
            if let message = try reassembler.receive(frame) { messages.append(message) }
        }
    }
    #expect(decoder.bufferedByteCount == 0)
    return messages
}

private func wire(_ frames: [SDLFrame]) -> [UInt8] {
    var out: [UInt8] = []
    for frame in frames { frame.append(to: &out) }
    return out
}

@Suite struct FramingTests {
    // MARK: Headers and the spec's worked examples

    @Test func startServiceWithProtocolVersionIsTheSpecsFortyBytes() {
        var payload = SDLControlPayload()
        payload.protocolVersion = "5.4.0"
        let frame = SDLFrame(
            header: SDLFrameHeader(version: 1, frameType: .control, serviceType: .rpc, frameInfo: SDLControlFrameType.startService.rawValue, sessionID: 0),
            payload: payload.bytes)
        #expect(frame.bytes == hex("10 07 01 00 00 00 00 20 20 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 30 00 00"))
    }

    @Test func headUnitAnswerFromTheSpecDecodes() throws {
        let bytes = hex(
            """
            50 07 02 01 00 00 00 39 00 00 00 01 39 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 30 00 \
            10 68 61 73 68 49 64 00 2A 00 00 00 12 6D 74 75 00 0C 00 02 00 00 00 00 00 00
            """.replacingOccurrences(of: "\\", with: ""))
        let messages = try decodeAll(bytes)
        let ack = try #require(messages.first)
        #expect(ack.controlFrameType == .startServiceACK)
        #expect(ack.version == 5)
        #expect(ack.sessionID == 1)
        let payload = try SDLControlPayload(decoding: ack.payload)
        #expect(payload.protocolVersion == "5.4.0")
        #expect(payload.hashID == 42)
        #expect(payload.mtu == 131_084)
        // Re-encoded, `mtu` stays int64 and `hashId` int32.
        #expect(payload.document["mtu"] == .int64(131_084))
        #expect(payload.document["hashId"] == .int32(42))
    }

    @Test func rpcBinaryHeaderWords() throws {
        let request = SDLRPCPayload(rpcType: .request, functionID: 1, correlationID: 1, json: Array("{}".utf8))
        #expect(Array(request.bytes.prefix(12)) == hex("00 00 00 01 00 00 00 01 00 00 00 02"))
        #expect(Array(SDLRPCPayload(rpcType: .response, functionID: 1, json: []).bytes.prefix(4)) == hex("10 00 00 01"))
        #expect(Array(SDLRPCPayload(rpcType: .notification, functionID: 0x8000, json: []).bytes.prefix(4)) == hex("20 00 80 00"))
        #expect(Array(SDLRPCPayload(rpcType: .notification, functionID: 0x18000, json: []).bytes.prefix(4)) == hex("20 01 80 00"))

        let withBulk = SDLRPCPayload(rpcType: .request, functionID: 32, correlationID: 7, json: Array(#"{"syncFileName":"a"}"#.utf8), bulkData: [1, 2, 3])
        let decoded = try SDLRPCPayload(decoding: withBulk.bytes)
        #expect(decoded == withBulk)
        #expect(decoded.bulkData == [1, 2, 3])
    }

    @Test func rpcPayloadRejectsLyingJSONSize() {
        var bytes = SDLRPCPayload(rpcType: .request, functionID: 13, correlationID: 1, json: Array("{}".utf8)).bytes
        bytes[11] = 200
        #expect(throws: SDLProtocolError.invalidRPCPayload("jsonSize 200 exceeds the 2 bytes after the header")) {
            try SDLRPCPayload(decoding: bytes)
        }
        #expect(throws: SDLProtocolError.self) { try SDLRPCPayload(decoding: [0, 0, 0]) }
    }

    @Test(arguments: [UInt8(1), 2, 3, 4, 5])
    func headersRoundTripInEveryVersion(_ version: UInt8) throws {
        let header = SDLFrameHeader(
            version: version, isEncrypted: version > 1, frameType: .single, serviceType: .hybrid,
            sessionID: 9, messageID: version == 1 ? 0 : 0xDEAD_BEEF)
        let frame = SDLFrame(header: header, payload: [1, 2, 3])
        #expect(frame.bytes.count == (version == 1 ? 8 : 12) + 3)
        let messages = try decodeAll(frame.bytes)
        #expect(
            messages == [
                SDLProtocolMessage(
                    version: version, serviceType: .hybrid, sessionID: 9, messageID: header.messageID,
                    isEncrypted: version > 1, payload: [1, 2, 3])
            ])
    }

    // MARK: MTU edges

    @Test(arguments: [0, 1, 999, 1000, 1001, 2000, 2001, 5 * 1000 + 1])
    func splitsAtTheMTUAndJoinsAgain(_ size: Int) throws {
        let original = message(size)
        let frames = SDLFramer.frames(for: original, maxPayloadSize: 1000)
        if size <= 1000 {
            #expect(frames.count == 1)
            #expect(frames[0].header.frameType == .single)
        } else {
            let count = (size + 999) / 1000
            #expect(frames.count == count + 1)
            #expect(frames[0].header.frameType == .first)
            #expect(frames[0].payload.count == 8)
            #expect(frames.dropFirst().allSatisfy { $0.payload.count <= 1000 && $0.header.frameType == .consecutive })
            #expect(frames.last?.header.frameInfo == 0)
        }
        #expect(frames.allSatisfy { $0.header.messageID == 1 })
        // Fed one byte at a time and all at once, the same message comes out.
        #expect(try decodeAll(wire(frames)) == [original])
        #expect(try decodeAll(wire(frames), chunk: 1) == [original])
    }

    @Test func theSpecsThreeHundredThousandByteExample() {
        let frames = SDLFramer.frames(for: message(300_000), maxPayloadSize: SDLFramer.defaultMaxPayloadSize)
        #expect(frames[0].payload == hex("00 04 93 E0 00 00 00 03"))
        #expect(frames.dropFirst().map(\.header.frameInfo) == [1, 2, 0])
        #expect(frames.dropFirst().map(\.payload.count) == [131_072, 131_072, 37_856])
    }

    @Test func sequenceNumbersWrapAfter255() throws {
        let original = message(600)
        let frames = SDLFramer.frames(for: original, maxPayloadSize: 1)
        let infos = frames.dropFirst().map(\.header.frameInfo)
        #expect(Array(infos[253...256]) == [254, 255, 1, 2])
        #expect(infos.last == 0)
        #expect(!infos.dropLast().contains(0))
        #expect(try decodeAll(wire(frames)) == [original])
    }

    @Test func messagesOfDifferentServicesInterleave() throws {
        let rpc = message(3000, service: .rpc, messageID: 1)
        let video = message(2500, service: .video, messageID: 1)
        let hybrid = message(10, service: .hybrid, messageID: 2)
        let a = SDLFramer.frames(for: rpc, maxPayloadSize: 1000)
        let b = SDLFramer.frames(for: video, maxPayloadSize: 1000)
        var interleaved: [SDLFrame] = []
        for index in 0..<max(a.count, b.count) {
            if index < a.count { interleaved.append(a[index]) }
            if index == 1 { interleaved.append(contentsOf: SDLFramer.frames(for: hybrid, maxPayloadSize: 1000)) }
            if index < b.count { interleaved.append(b[index]) }
        }
        let messages = try decodeAll(wire(interleaved))
        #expect(messages.count == 3)
        #expect(Set(messages) == [rpc, video, hybrid])
    }

    // MARK: A hostile or broken peer

    @Test func anOversizedLengthClaimIsRefusedBeforeBuffering() {
        var decoder = SDLFrameDecoder(maxDataSize: 131_072)
        decoder.append(hex("51 07 00 01 7F FF FF FF 00 00 00 01"))
        #expect(throws: SDLProtocolError.frameTooLarge(dataSize: 0x7FFF_FFFF, limit: 131_072)) { try decoder.nextFrame() }
    }

    @Test func aFirstFrameClaimingTooMuchIsRefused() throws {
        var reassembler = SDLReassembler(maxMessageSize: 1 << 20)
        let first = SDLFrame(
            header: SDLFrameHeader(version: 5, frameType: .first, serviceType: .rpc, sessionID: 1, messageID: 1),
            payload: hex("FF FF FF FF 00 00 00 02"))
        #expect(throws: SDLProtocolError.messageTooLarge(declared: 0xFFFF_FFFF, limit: 1 << 20)) { try reassembler.receive(first) }
    }

    @Test func malformedHeaders() {
        var decoder = SDLFrameDecoder()
        decoder.append([0x61, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: SDLProtocolError.unsupportedVersion(6)) { try decoder.nextFrame() }
        var reserved = SDLFrameDecoder()
        reserved.append([0x54, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: SDLProtocolError.reservedFrameType(4)) { try reserved.nextFrame() }
        var badFirst = SDLFrameDecoder()
        badFirst.append([0x52, 7, 0, 1, 0, 0, 0, 9, 0, 0, 0, 1])
        #expect(throws: SDLProtocolError.self) { try badFirst.nextFrame() }
    }

    @Test func aTruncatedStreamWaitsForMoreBytes() throws {
        let bytes = wire(SDLFramer.frames(for: message(50), maxPayloadSize: 1000))
        var decoder = SDLFrameDecoder()
        decoder.append(bytes.dropLast())
        #expect(try decoder.nextFrame() == nil)
        decoder.append(bytes.suffix(1))
        #expect(try decoder.nextFrame() != nil)
    }

    @Test func consecutiveFramesOutOfOrderOrMissing() throws {
        let frames = SDLFramer.frames(for: message(3000), maxPayloadSize: 1000)
        // Swapped: frame 2 before frame 1.
        var swapped = SDLReassembler()
        _ = try swapped.receive(frames[0])
        #expect(throws: SDLProtocolError.outOfOrder(messageID: 1, expected: 1, received: 2)) { try swapped.receive(frames[2]) }
        // Missing middle frame: the last one arrives in its place.
        var missing = SDLReassembler()
        _ = try missing.receive(frames[0])
        _ = try missing.receive(frames[1])
        #expect(throws: SDLProtocolError.outOfOrder(messageID: 1, expected: 2, received: 0)) { try missing.receive(frames[3]) }
        // No first frame at all.
        var orphan = SDLReassembler()
        #expect(throws: SDLProtocolError.consecutiveWithoutFirst(sessionID: 1, serviceType: 7, messageID: 1)) { try orphan.receive(frames[1]) }
    }

    @Test func framesCarryingMoreOrLessThanDeclared() throws {
        var frames = SDLFramer.frames(for: message(2000), maxPayloadSize: 1000)
        frames[2].payload.append(0)
        var tooMuch = SDLReassembler()
        _ = try tooMuch.receive(frames[0])
        _ = try tooMuch.receive(frames[1])
        #expect(throws: SDLProtocolError.messageSizeMismatch(messageID: 1, declared: 2000, received: 2001)) { try tooMuch.receive(frames[2]) }

        frames[2].payload.removeLast(2)
        var tooLittle = SDLReassembler()
        _ = try tooLittle.receive(frames[0])
        _ = try tooLittle.receive(frames[1])
        #expect(throws: SDLProtocolError.messageSizeMismatch(messageID: 1, declared: 2000, received: 1999)) { try tooLittle.receive(frames[2]) }
    }

    @Test func pendingMessagesAreBounded() throws {
        var reassembler = SDLReassembler(maxPendingMessages: 2)
        for id in UInt32(1)...2 {
            _ = try reassembler.receive(SDLFramer.frames(for: message(2000, messageID: id), maxPayloadSize: 1000)[0])
        }
        #expect(throws: SDLProtocolError.tooManyPendingMessages(limit: 2)) {
            try reassembler.receive(SDLFramer.frames(for: message(2000, messageID: 3), maxPayloadSize: 1000)[0])
        }
    }

    @Test func controlPayloadKeysHaveTheirSpecTypes() throws {
        var payload = SDLControlPayload()
        payload.hashID = 65537
        payload.mtu = 131_072
        payload.secondaryTransports = ["TCP_WIFI"]
        payload.audioServiceTransports = [1, 2]
        payload.rejectedParams = ["protocolVersion"]
        payload.reason = "no"
        payload.height = 480
        payload.width = 800
        payload.videoProtocol = "RAW"
        payload.videoCodec = "H264"
        payload.tcpIPAddress = "192.168.1.1"
        payload.tcpPort = 12345
        let decoded = try SDLControlPayload(decoding: payload.bytes)
        #expect(decoded == payload)
        // The spec's 42-byte array element.
        var transports = SDLControlPayload()
        transports.secondaryTransports = ["TCP_WIFI"]
        #expect(
            Array(transports.bytes.dropFirst(4).dropLast())
                == hex("04 73 65 63 6F 6E 64 61 72 79 54 72 61 6E 73 70 6F 72 74 73 00 15 00 00 00 02 30 00 09 00 00 00 54 43 50 5F 57 49 46 49 00 00"))
        #expect(throws: SDLProtocolError.self) {
            try SDLControlPayload(document: ["hashId": .string("x")])
        }
    }
}

@Suite struct FramerEncodeTests {
    /// The send path's direct encoding writes exactly the frames `frames(for:)` describes.
    @Test(arguments: [0, 1, 999, 1000, 1001, 300_000])
    func encodeIntoMatchesTheFrames(_ size: Int) {
        let message = SDLProtocolMessage(
            version: 5, serviceType: .hybrid, sessionID: 3, messageID: 7, payload: (0..<size).map { UInt8(truncatingIfNeeded: $0) })
        var direct: [UInt8] = []
        SDLFramer.encode(message, maxPayloadSize: 1000, into: &direct)
        var viaFrames: [UInt8] = []
        for frame in SDLFramer.frames(for: message, maxPayloadSize: 1000) { frame.append(to: &viaFrames) }
        #expect(direct == viaFrames)
        var control = SDLProtocolMessage(version: 5, serviceType: .rpc, sessionID: 1, controlFrameType: .heartbeat, payload: [])
        control.messageID = 2
        var controlBytes: [UInt8] = []
        SDLFramer.encode(control, maxPayloadSize: 1000, into: &controlBytes)
        #expect(controlBytes == SDLFramer.frames(for: control, maxPayloadSize: 1000)[0].bytes)
    }
}
