import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTestSupport
import SDLTransport
import Testing

@testable import SmartDeviceLink

/// Video streaming, touches and haptics against the in-process emulator: negotiation, the HMI
/// state's effects, frames on the wire (RAW and RTP, through the emulator's depacketiser),
/// back-pressure, reconnection.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct VideoStreamingTests {
    static let appID = "nav"

    /// A NAVIGATION app's manager, started and in FULL.
    static func start(
        _ headUnit: SDLHeadUnitEmulator, appID: String = appID, configure: (inout SDLManager.Configuration) -> Void = { _ in },
        transport wrap: (@Sendable (any SDLTransport) -> any SDLTransport)? = nil
    ) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.appTypes = [.navigation]
        configuration.capabilityPollInterval = nil
        if let wrap {
            configuration.transport = .custom {
                let (app, car) = SDLMemoryTransport.pair()
                Task { await headUnit.serve(car) }
                return wrap(app)
            }
        }
        configure(&configuration)
        let manager = SDLManager(configuration: configuration)
        try await startRunning(manager)
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// An emulator that hands the test every chunk of every stream.
    static func emulator(
        sink: Locked<[UInt8]>? = nil, _ configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { _ in }
    ) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        if let sink { configuration.streamSink = { chunk in sink.withLock { $0 += chunk.bytes } } }
        configure(&configuration)
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    /// The first state `match` accepts (or the last one if the stream ends).
    static func state(_ manager: SDLManager, _ match: (SDLVideoStreamState) -> Bool) async -> SDLVideoStreamState? {
        for await state in manager.videoStreaming.states() where match(state) { return state }
        return nil
    }

    static func isStreaming(_ state: SDLVideoStreamState) -> Bool { state.parameters != nil }

    static func isSuspended(_ reason: SDLStreamSuspension) -> (SDLVideoStreamState) -> Bool {
        { if case .suspended(reason) = $0 { true } else { false } }
    }

    /// Annex-B: SPS, PPS and an IDR slice of `size` bytes, or a non-IDR slice.
    static func frame(key: Bool, size: Int = 200, seed: UInt8 = 1, at time: Duration = .zero) -> SDLVideoFrame {
        var bytes: [UInt8] = []
        if key {
            bytes += [0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1F, 0xE9]
            bytes += [0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80]
        }
        bytes += [0, 0, 0, 1, key ? 0x65 : 0x41]
        // No zero bytes in the slice, so no start code appears inside it.
        bytes += (0..<size).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0) | 0x10 }
        return SDLVideoFrame(annexB: bytes, presentationTime: time)
    }

    static func startedServices(_ events: [SDLHeadUnitEvent]) -> Int {
        events.filter { if case .streamingStarted(_, 11) = $0 { true } else { false } }.count
    }

    // MARK: Negotiation

    @Test func theFirstFormatIsAcceptedAndFramesArriveThroughRTP() async throws {
        let received = Locked<[UInt8]>([])
        let headUnit = Self.emulator(sink: received)
        try await stopping(Self.start(headUnit)) { manager in
            let state = await Self.state(manager, Self.isStreaming)
            let parameters = try #require(state?.parameters)
            #expect(parameters.format == VideoStreamingFormat(protocol: .rtp, codec: .h264))
            #expect(parameters.resolution == ImageResolution(resolutionWidth: 800, resolutionHeight: 380))
            #expect(parameters.scale == 1 && parameters.frameRate == 15 && parameters.maxBitrate == 20_000)
            #expect(parameters.mtu == Int(SDLProtocolVersion.latest.defaultMTU) && parameters.hapticSpatialDataSupported)

            // A frame before a key frame is dropped; then a key frame and a frame larger than
            // the MTU, packetised (FU-A) and joined again by the emulator.
            #expect(try await manager.videoStreaming.send(Self.frame(key: false)) == .droppedUntilKeyFrame)
            // An AVCC sample (a length prefix, no start code) is refused, not dropped in silence.
            do {
                try await manager.videoStreaming.send(SDLVideoFrame(annexB: [0, 0, 0, 9, 0x65, 1, 2, 3, 4, 5, 6, 7, 8], presentationTime: .zero))
                Issue.record("an AVCC sample was taken")
            } catch {
                #expect((error as? SDLError)?.code == .invalidArgument)
            }
            let key = Self.frame(key: true, size: 1_000)
            let large = Self.frame(key: false, size: 300_000, seed: 7, at: .milliseconds(66))
            #expect(try await manager.videoStreaming.send(key) == .queued)
            #expect(try await manager.videoStreaming.send(large) == .queued)
            try await until { await headUnit.streamStatistics(appID: Self.appID)[11]?.frames == 2 }
            let statistics = try #require(await headUnit.streamStatistics(appID: Self.appID)[11])
            #expect(statistics.keyframes == 1)
            #expect(received.withLock { $0 } == key.data + large.data)
            let sent = await manager.videoStreaming.statistics
            #expect(sent.framesSent == 2 && sent.keyFramesSent == 1 && sent.framesDropped == 1)
        }
    }

    @Test func aRefusedFormatIsFollowedByTheNextAndEveryRefusalFails() async throws {
        let offers = Locked<[String]>([])
        let headUnit = Self.emulator { configuration in
            // The HMI's SetVideoConfig takes no RTP.
            configuration.videoConfigurationRefusal = { request in
                offers.withLock { $0.append("\(request.videoProtocol ?? "?") \(request.width ?? 0)x\(request.height ?? 0)") }
                return request.videoProtocol == "RTP" ? ["videoProtocol"] : nil
            }
        }
        try await stopping(Self.start(headUnit)) { manager in
            // SDL Core takes a refused app to NONE: it streams RAW once the driver comes back.
            _ = await Self.state(manager, Self.isSuspended(.hmiLevelNone))
            try await headUnit.activate(appID: Self.appID)
            let parameters = try #require(await Self.state(manager, Self.isStreaming)?.parameters)
            #expect(parameters.format == VideoStreamingFormat(protocol: .raw, codec: .h264))
            #expect(offers.withLock { $0 } == ["RTP 800x380", "RAW 800x380"])
        }

        let refusing = Self.emulator { $0.videoConfigurationRefusal = { _ in ["videoProtocol", "videoCodec"] } }
        try await stopping(Self.start(refusing) { $0.videoStreaming.resolution = .exactly([ImageResolution(resolutionWidth: 640, resolutionHeight: 480)]) }) {
            manager in
            _ = await Self.state(manager, Self.isSuspended(.hmiLevelNone))
            try await refusing.activate(appID: Self.appID)
            let failed = await Self.state(manager) { if case .failed = $0 { true } else { false } }
            guard case .failed(let error) = failed else {
                Issue.record("not failed: \(String(describing: failed))")
                return
            }
            #expect(error.code == .refusedByHeadUnit)
            #expect(
                error.underlying as? SDLVideoStreamingError
                    == .everyFormatRefused(tried: ["RTP/H264 640x480", "RAW/H264 640x480"], reason: "Received SetVideoConfig failure response"))
            await #expect(throws: SDLError.self) { try await manager.videoStreaming.send(Self.frame(key: true)) }
        }
    }

    // MARK: The HMI state

    @Test func itSuspendsWhenNotStreamableEndsOnNoneAndStartsAgain() async throws {
        let headUnit = Self.emulator()
        let events = headUnit.events()
        try await stopping(Self.start(headUnit) { $0.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)] }) { manager in
            _ = await Self.state(manager, Self.isStreaming)
            try await headUnit.background(appID: Self.appID)
            _ = await Self.state(manager, Self.isSuspended(.notStreamable))
            // Refused, never sent: SDL Core unregisters an app streaming when it may not.
            do {
                try await manager.videoStreaming.send(Self.frame(key: true))
                Issue.record("a frame went out while not streamable")
            } catch {
                #expect((error as? SDLError)?.code == .notReady)
            }
            try await headUnit.activate(appID: Self.appID)
            _ = await Self.state(manager, Self.isStreaming)
            // The service stayed open: one start so far. After a resume a key frame comes first.
            #expect(try await manager.videoStreaming.send(Self.frame(key: false)) == .droppedUntilKeyFrame)
            #expect(try await manager.videoStreaming.send(Self.frame(key: true)) == .queued)
            try await until { await headUnit.streamStatistics(appID: Self.appID)[11]?.frames == 1 }
            #expect(await headUnit.streamStatistics(appID: Self.appID)[11]?.dropped == 0, "nothing came while it was not streamable")

            try await headUnit.exit(appID: Self.appID)
            _ = await Self.state(manager, Self.isSuspended(.hmiLevelNone))
            try await headUnit.activate(appID: Self.appID)
            _ = await Self.state(manager, Self.isStreaming)
        }
        var seen: [SDLHeadUnitEvent] = []
        for await event in events {
            seen.append(event)
            if case .appUnregistered = event { break }
        }
        // Started, ended by NONE, started again, ended when the app stopped.
        #expect(Self.startedServices(seen) == 2)
        #expect(seen.filter { if case .streamingEnded(_, 11) = $0 { true } else { false } }.count == 2)
    }

    @Test func aRawFrameLargerThanTheMTUGoesAsOneMultiFrameMessage() async throws {
        let received = Locked<[[UInt8]]>([])
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.streamSink = { chunk in received.withLock { $0.append(chunk.bytes) } }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await stopping(Self.start(headUnit) { $0.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)] }) { manager in
            let parameters = try #require(await Self.state(manager, Self.isStreaming)?.parameters)
            let large = Self.frame(key: true, size: parameters.mtu * 2 + 1_234)
            #expect(try await manager.videoStreaming.send(large) == .queued)
            try await until { await headUnit.streamStatistics(appID: Self.appID)[11]?.frames == 1 }
            // The head unit's consumer got the access unit whole: the frames were joined again.
            #expect(received.withLock { $0 } == [large.data])
            #expect(await headUnit.streamStatistics(appID: Self.appID)[11]?.bytes == large.data.count)
        }
    }

    @Test func theStreamStartsAgainAfterAReconnection() async throws {
        let headUnit = Self.emulator()
        try await stopping(Self.start(headUnit)) { manager in
            _ = await Self.state(manager, Self.isStreaming)
            let states = manager.videoStreaming.states()
            #expect(try await manager.dropAndReconnect(on: headUnit, appID: Self.appID))
            var sawLost = false
            for await state in states {
                if case .suspended(.connectionLost) = state { sawLost = true }
                if sawLost, state.parameters != nil { break }
                // The emulator resumes the app in NONE: the driver activates it.
                if case .suspended(.hmiLevelNone) = state { try await headUnit.activate(appID: Self.appID) }
            }
            #expect(sawLost)
            #expect(try await manager.videoStreaming.send(Self.frame(key: true)) == .queued)
            try await until { await headUnit.streamStatistics(appID: Self.appID)[11]?.frames == 1 }
        }
    }

    @Test func stoppingTheManagerEndsTheServiceAndClearsTheHapticAreas() async throws {
        let headUnit = Self.emulator()
        let events = headUnit.events()
        let manager = try await Self.start(headUnit)
        _ = await Self.state(manager, Self.isStreaming)
        try await manager.haptics.setFocusableAreas([SDLHapticArea(id: 1, x: 10, y: 20, width: 100, height: 50)])
        await manager.stop()
        var seen: [String] = []
        for await event in events {
            switch event {
            case .streamingEnded(_, 11): seen.append("video ended")
            case .appUnregistered: seen.append("unregistered")
            default: break
            }
            if seen.last == "unregistered" { break }
        }
        #expect(seen == ["video ended", "unregistered"])
        let haptics = await FeatureTestSupport.requests(headUnit, appID: Self.appID, among: ["SendHapticData"])
        #expect(haptics.count == 2)
        #expect(await headUnit.hapticRects(appID: Self.appID).isEmpty)
        #expect(manager.videoStreaming.state.description == "stopped")
    }

    // MARK: Back-pressure

    @Test func whenTheConnectionIsBehindNonKeyFramesAreDroppedAndKeyFramesWait() async throws {
        let gate = VideoGate()
        let headUnit = Self.emulator()
        try await stopping(
            Self.start(
                headUnit,
                configure: {
                    $0.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)]
                    $0.videoStreaming.maxQueuedFrames = 2
                }, transport: { GatedTransport(inner: $0, gate: gate) })
        ) { manager in
            _ = await Self.state(manager, Self.isStreaming)
            let video = manager.videoStreaming
            await gate.close()
            #expect(try await video.send(Self.frame(key: true, seed: 1)) == .queued)
            await gate.waitUntilBlocked()  // the first frame is being written: the queue is empty
            #expect(try await video.send(Self.frame(key: false, seed: 2)) == .queued)
            #expect(try await video.send(Self.frame(key: false, seed: 3)) == .queued)
            #expect(try await video.send(Self.frame(key: false, seed: 4)) == .droppedUntilKeyFrame, "the queue is full")
            // Once one is dropped, the frames after it would not decode: dropped until a key frame.
            #expect(try await video.send(Self.frame(key: false, seed: 5)) == .droppedUntilKeyFrame)
            let key = Task { try await video.send(Self.frame(key: true, seed: 6)) }
            try await until { await video.framesWaitingForRoom == 1 }
            await gate.open()
            #expect(try await key.value == .queued, "a key frame waits for room, never dropped")
            try await until { await headUnit.streamStatistics(appID: Self.appID)[11]?.frames == 4 }
            #expect(await headUnit.streamStatistics(appID: Self.appID)[11]?.keyframes == 2)
            #expect(await video.statistics.framesDropped == 2)
        }
    }

    // MARK: Touch and haptics

    @Test func touchesBecomeGesturesScaledToTheVideo() async throws {
        var capability = SDLHeadUnitEmulator.Configuration.sdlCoreVideoStreaming
        capability.scale = 2
        capability.preferredResolution = ImageResolution(resolutionWidth: 1600, resolutionHeight: 760)
        capability.additionalVideoStreamingCapabilities = nil
        // The emulator's clock stamps the touches (`ts`): a held touch is a long press.
        let headUnitClock = ManualClock()
        let headUnit = Self.emulator {
            $0.videoStreaming = capability
            $0.policy = SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: Self.appID)
            $0.clock = SDLClock(headUnitClock)
        }
        try await stopping(Self.start(headUnit)) { manager in
            let parameters = try #require(await Self.state(manager, Self.isStreaming)?.parameters)
            #expect(parameters.resolution == ImageResolution(resolutionWidth: 800, resolutionHeight: 380) && parameters.scale == 2)
            let gestures = await manager.touch.gestures()
            var iterator = gestures.makeAsyncIterator()

            #expect(try await headUnit.doubleTap(appID: Self.appID, x: 400, y: 200))
            #expect(await iterator.next() == .doubleTap(SDLPoint(x: 200, y: 100)))

            #expect(try await headUnit.pan(appID: Self.appID, from: (100, 100), to: (500, 300), steps: 2))
            #expect(await iterator.next() == .panBegan(SDLPoint(x: 50, y: 50)))
            #expect(await iterator.next() == .panMoved(from: SDLPoint(x: 50, y: 50), to: SDLPoint(x: 150, y: 100)))
            #expect(await iterator.next() == .panMoved(from: SDLPoint(x: 150, y: 100), to: SDLPoint(x: 250, y: 150)))
            #expect(await iterator.next() == .panEnded(SDLPoint(x: 250, y: 150)))

            #expect(try await headUnit.pinch(appID: Self.appID, center: (800, 400), fromDistance: 200, toDistance: 400, steps: 1))
            #expect(await iterator.next() == .pinchBegan(center: SDLPoint(x: 400, y: 200)))
            #expect(await iterator.next() == .pinchMoved(center: SDLPoint(x: 400, y: 200), scale: 2))
            #expect(await iterator.next() == .pinchEnded(center: SDLPoint(x: 400, y: 200)))

            #expect(try await headUnit.touch(appID: Self.appID, .begin, [.init(x: 300, y: 100)]))
            headUnitClock.advance(by: .milliseconds(600))
            #expect(try await headUnit.touch(appID: Self.appID, .end, [.init(x: 300, y: 100)]))
            #expect(await iterator.next() == .longPress(SDLPoint(x: 150, y: 50)))

            // A dialog comes over the video while the driver drags: the pan is cancelled.
            #expect(try await headUnit.touch(appID: Self.appID, .begin, [.init(x: 100, y: 100)]))
            #expect(try await headUnit.touch(appID: Self.appID, .move, [.init(x: 300, y: 100)]))
            #expect(try await headUnit.touch(appID: Self.appID, .cancel, [.init(x: 300, y: 100)]))
            #expect(await iterator.next() == .panBegan(SDLPoint(x: 50, y: 50)))
            #expect(await iterator.next() == .panMoved(from: SDLPoint(x: 50, y: 50), to: SDLPoint(x: 150, y: 50)))
            #expect(await iterator.next() == .cancelled(SDLPoint(x: 150, y: 50)))

            // A tap is reported once the double-tap window has passed on the manager's clock.
            let clock = try #require(manager.manualClock)
            let sleepers = clock.sleeperCount
            #expect(try await headUnit.tap(appID: Self.appID, x: 40, y: 60))
            await clock.waitForSleepers(sleepers + 1)
            clock.advance(by: .seconds(1))
            #expect(await iterator.next() == .tap(SDLPoint(x: 20, y: 30)))
            // And the next one: the tap timer waits again after its wait timed out.
            #expect(try await headUnit.tap(appID: Self.appID, x: 80, y: 60))
            await clock.waitForSleepers(sleepers + 1)
            clock.advance(by: .seconds(1))
            #expect(await iterator.next() == .tap(SDLPoint(x: 40, y: 30)))
        }
    }

    @Test func hapticAreasAreScaledSentOnceAndChecked() async throws {
        var capability = SDLHeadUnitEmulator.Configuration.sdlCoreVideoStreaming
        capability.scale = 1.5
        let headUnit = Self.emulator { $0.videoStreaming = capability }
        try await stopping(Self.start(headUnit)) { manager in
            _ = await Self.state(manager, Self.isStreaming)
            let areas = [SDLHapticArea(id: 1, x: 10, y: 20, width: 100, height: 40), SDLHapticArea(id: 2, x: 200, y: 20, width: 100, height: 40)]
            try await manager.haptics.setFocusableAreas(areas)
            try await manager.haptics.setFocusableAreas(areas)
            #expect(await FeatureTestSupport.requests(headUnit, appID: Self.appID, among: ["SendHapticData"]).count == 1, "unchanged areas are not sent again")
            #expect(
                await headUnit.hapticRects(appID: Self.appID) == [
                    HapticRect(id: 1, rect: SDLRectangle(x: 15, y: 30, width: 150, height: 60)),
                    HapticRect(id: 2, rect: SDLRectangle(x: 300, y: 30, width: 150, height: 60)),
                ])
            await #expect(throws: SDLError.self) {
                try await manager.haptics.setFocusableAreas([
                    SDLHapticArea(id: 1, x: 0, y: 0, width: 1, height: 1), SDLHapticArea(id: 1, x: 5, y: 0, width: 1, height: 1),
                ])
            }
            try await manager.haptics.clear()
            #expect(await headUnit.hapticRects(appID: Self.appID).isEmpty)
        }
        // Not a navigation app: refused before sending.
        try await FeatureTestSupport.withManager(headUnit, appID: "plain", appTypes: [.default]) { plain in
            do {
                try await plain.haptics.setFocusableAreas([SDLHapticArea(id: 1, x: 0, y: 0, width: 1, height: 1)])
                Issue.record("a plain app sent haptic data")
            } catch {
                #expect((error as? SDLError)?.code == .wrongAppType)
            }
            #expect(await FeatureTestSupport.requests(headUnit, appID: "plain", among: ["SendHapticData"]).isEmpty)
            #expect(plain.videoStreaming.state.description == "stopped")
            do {
                try await plain.videoStreaming.send(Self.frame(key: true))
                Issue.record("a plain app streamed")
            } catch {
                #expect((error as? SDLError)?.code == .wrongAppType)
            }
        }
    }
}

/// Holds the app's video writes while closed, to make the connection fall behind.
actor VideoGate {
    private var closed = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var blockedWaiters: [CheckedContinuation<Void, Never>] = []

    func close() { closed = true }

    func open() {
        closed = false
        let waiting = held
        held = []
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once a video write is held.
    func waitUntilBlocked() async {
        if !held.isEmpty { return }
        await withCheckedContinuation { blockedWaiters.append($0) }
    }

    func pass(_ bytes: [UInt8]) async {
        // Byte 1 of a frame header is the service type: 11 is video.
        guard closed, bytes.count > 1, bytes[1] == 11 else { return }
        await withCheckedContinuation { continuation in
            held.append(continuation)
            let waiters = blockedWaiters
            blockedWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}

/// A transport whose video writes go through a gate.
struct GatedTransport: SDLTransport {
    let inner: any SDLTransport
    let gate: VideoGate

    var inbound: SDLInboundBytes { inner.inbound }

    func send(_ bytes: [UInt8]) async throws {
        await gate.pass(bytes)
        try await inner.send(bytes)
    }

    func close() async { await inner.close() }
    func run() async { await inner.run() }
}
