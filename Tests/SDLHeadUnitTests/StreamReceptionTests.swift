import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// What the emulator does with a navigation app's stream: statistics, the consumer's bytes (RTP
/// depacketised), SDL Core's protocol violation, the second of grace after STREAMABLE is gone,
/// and the driver's gestures.
@Suite(.timeLimit(.minutes(1))) struct StreamReceptionTests {
    static let sps: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E]
    static let pps: [UInt8] = [0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80]
    static let idr: [UInt8] = [0, 0, 0, 1, 0x65] + Array(repeating: 0xAB, count: 40)
    static let slice: [UInt8] = [0, 0, 0, 1, 0x41] + Array(repeating: 0xCD, count: 20)

    static func headUnit(_ chunks: Locked<[UInt8]>, clock: ManualClock? = nil) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        if let clock { configuration.clock = SDLClock(clock) }
        configuration.streamSink = { chunk in if chunk.service == 11 { chunks.withLock { $0 += chunk.bytes } } }
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    static func video(_ protocolName: String) -> SDLControlPayload {
        var video = SDLControlPayload()
        video.videoProtocol = protocolName
        video.videoCodec = "H264"
        return video
    }

    @Test func rawAccessUnitsAreCountedAndPassedOnAsSent() async throws {
        let received = Locked<[UInt8]>([])
        let headUnit = Self.headUnit(received)
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        _ = try await nav.session.startService(.video, parameters: Self.video("RAW"))
        let units: [[UInt8]] = [Self.sps + Self.pps + Self.idr, Self.slice, Self.slice]
        for unit in units { try await nav.session.sendMedia(unit, service: .video) }
        try await nav.settle()
        let stats = try #require(await headUnit.streamStatistics(appID: "nav")[11])
        #expect(stats.frames == 3 && stats.keyframes == 1)
        #expect(stats.bytes == units.reduce(0) { $0 + $1.count })
        #expect(received.current == Array(units.joined()))
        await nav.close()
    }

    /// One RTP packet (RFC 4571 length first) carrying `payload`.
    static func rtp(_ payload: [UInt8], sequence: UInt16, marker: Bool) -> [UInt8] {
        let header: [UInt8] = [0x80, (marker ? 0x80 : 0) | 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 0, 0, 0, 0, 1]
        let packet = header + payload
        return [UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
    }

    @Test func rtpIsDepacketisedIntoAnnexB() async throws {
        let received = Locked<[UInt8]>([])
        let headUnit = Self.headUnit(received)
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        _ = try await nav.session.startService(.video, parameters: Self.video("RTP"))
        // SPS and PPS in one STAP-A; the IDR in two FU-A fragments, the marker on the last.
        let sps = Array(Self.sps.dropFirst(4))
        let pps = Array(Self.pps.dropFirst(4))
        let idr = Array(Self.idr.dropFirst(4))
        let stap: [UInt8] = [24, 0, UInt8(sps.count)] + sps + [0, UInt8(pps.count)] + pps
        let indicator = (idr[0] & 0xE0) | 28
        let first: [UInt8] = [indicator, 0x80 | (idr[0] & 0x1F)] + idr[1..<20]
        let last: [UInt8] = [indicator, 0x40 | (idr[0] & 0x1F)] + idr[20...]
        try await nav.session.sendMedia(Self.rtp(stap, sequence: 1, marker: false) + Self.rtp(first, sequence: 2, marker: false), service: .video)
        try await nav.session.sendMedia(Self.rtp(last, sequence: 3, marker: true), service: .video)
        try await nav.settle()
        let expected: [UInt8] = Self.sps + Self.pps + Self.idr
        #expect(received.current == expected)
        let stats = try #require(await headUnit.streamStatistics(appID: "nav")[11])
        #expect(stats.frames == 1 && stats.keyframes == 1)
        await nav.close()
    }

    @Test func dataOnAServiceNeverStartedUnregistersTheApp() async throws {
        let headUnit = Self.headUnit(Locked<[UInt8]>([]))
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        var gone = nav.client.notifications(OnAppInterfaceUnregistered.self).makeAsyncIterator()
        try await nav.session.sendMedia(Self.slice, service: .video)
        #expect(await gone.next()?.reason == .protocolViolation)
        await #expect(throws: (any Error).self) { try await nav.running.value }
    }

    /// Frames after leaving STREAMABLE are dropped; a second after leaving (counted from the
    /// change, not from the first dropped frame), a frame ends the service. `firstFrameLate`: the
    /// app sends nothing until two seconds later, and that frame ends it at once.
    @Test(arguments: [false, true])
    func aSecondAfterLeavingStreamableTheServiceEnds(firstFrameLate: Bool) async throws {
        let clock = ManualClock()
        let headUnit = Self.headUnit(Locked<[UInt8]>([]), clock: clock)
        let events = headUnit.events()
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        _ = try await nav.session.startService(.video, parameters: Self.video("RAW"))
        try await headUnit.background(appID: "nav")
        if firstFrameLate {
            clock.advance(by: .seconds(2))
        } else {
            try await nav.session.sendMedia(Self.slice, service: .video)
            try await nav.settle()
            #expect(await headUnit.streamStatistics(appID: "nav")[11]?.dropped == 1)
            clock.advance(by: .seconds(1))
        }
        try await nav.session.sendMedia(Self.slice, service: .video)
        for await event in events { if case .streamingEnded("nav", 11) = event { break } }
        #expect(await headUnit.streamStatistics(appID: "nav")[11]?.frames ?? 0 == 0)
        await nav.close()
    }

    @Test func gesturesArriveAsTouchSequences() async throws {
        let headUnit = Self.headUnit(Locked<[UInt8]>([]))
        await headUnit.setPolicy(SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: "nav"))
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        var touches = nav.client.notifications(OnTouchEvent.self).makeAsyncIterator()
        #expect(try await headUnit.tap(appID: "nav", x: 5, y: 6))
        #expect(await touches.next()?.type == TouchType.begin)
        #expect(await touches.next()?.type == TouchType.end)
        #expect(try await headUnit.pinch(appID: "nav", center: (x: 400, y: 200), fromDistance: 100, toDistance: 200, steps: 2))
        let begin = try #require(await touches.next())
        #expect(begin.type == TouchType.begin && begin.event.map(\.id) == [0, 1])
        #expect(begin.event.map { $0.c[0].x } == [350, 450])
        _ = await touches.next()
        let wider = try #require(await touches.next())
        #expect(wider.type == TouchType.move && wider.event.map { $0.c[0].x } == [300, 500])
        #expect(await touches.next()?.type == TouchType.end)
        await nav.close()
    }
}
