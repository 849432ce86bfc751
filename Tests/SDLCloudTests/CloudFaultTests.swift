import SDLCloudServer
import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SDLWebSocket
import Testing

@testable import SmartDeviceLink

/// Head units that misbehave or vanish: each is dropped alone, the other sessions go on.
@Suite("Cloud app server faults", .timeLimit(.minutes(3)))
struct CloudFaultTests {
    /// What a hostile head unit sends after the upgrade, and the close code it should get
    /// (nil: the connection just ends, because the SDL session gave up on it).
    struct Hostile: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let closeCodes: Set<UInt16>?
        var testDescription: String { name }
    }

    static let limit = 64 << 10

    static let hostileInputs: [Hostile] = {
        let frame = RawWebSocketPeer.frame
        // An SDL v5 frame header claiming 4 GB of data: the frame decoder's limit refuses it.
        var hugeSDLFrame: [UInt8] = [0x50, 0x07, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1]
        hugeSDLFrame += [UInt8](repeating: 0x41, count: 64)
        let chunk = [UInt8](repeating: 0x42, count: 16 << 10)
        // An SDL frame of 1,000,000 bytes (within the frame limit) whose message never ends.
        var neverEnding = frame(0x2, false, [0x50, 0x07, 0x00, 0x00, 0x00, 0x0F, 0x42, 0x40, 0, 0, 0, 1] + chunk, nil)
        for _ in 0..<6 { neverEnding += frame(0x0, false, chunk, nil) }
        // RSV1 set: no extension was agreed, so the frame is a protocol error.
        var reservedBits = frame(0x2, true, [1, 2, 3], nil)
        reservedBits[0] |= 0x40
        return [
            Hostile(name: "a frame with reserved bits set", bytes: reservedBits, closeCodes: [1002]),
            Hostile(name: "an unmasked frame from the head unit (clients must mask)", bytes: [0x82, 0x03, 1, 2, 3], closeCodes: [1002]),
            Hostile(name: "a message over the size limit", bytes: frame(0x2, true, [UInt8](repeating: 7, count: limit + 1), nil), closeCodes: [1009]),
            Hostile(name: "a fragmented message that never ends", bytes: neverEnding, closeCodes: [1009]),
            Hostile(name: "a WebSocket frame claiming 4 GB", bytes: frame(0x2, true, [1, 2, 3], 1 << 32), closeCodes: [1009, 1002]),
            Hostile(name: "a text message", bytes: frame(0x1, true, Array("hello".utf8), nil), closeCodes: [1003]),
            Hostile(name: "a continuation with no message", bytes: frame(0x0, true, [1, 2, 3], nil), closeCodes: [1002]),
            Hostile(name: "an SDL frame claiming 4 GB", bytes: frame(0x2, true, hugeSDLFrame, nil), closeCodes: nil),
            Hostile(
                name: "garbage instead of SDL frames", bytes: frame(0x2, true, (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }, nil),
                closeCodes: nil),
        ]
    }()

    @Test("a hostile head unit is dropped alone", arguments: hostileInputs)
    func hostileHeadUnitDroppedAlone(_ input: Hostile) async throws {
        var limits = SDLWebSocketLimits()
        limits.maxMessageSize = Self.limit
        let managers = Locked<[SDLManager]>([])
        let fixture = try await CloudFixture.start(limits: limits) { manager in
            managers.withLock { $0.append(manager) }
            try await manager.waitUntilReady()
        }
        let events = fixture.server.host.events()
        let good = fixture.vehicle()
        try await fixture.waitFor(events, isReady)
        let (peer, status, rest) = try await RawWebSocketPeer.connect(port: fixture.port)
        #expect(status == 101)
        try await peer.send(input.bytes)
        let (code, _) = await peer.readUntilClosed(after: rest)
        if let expected = input.closeCodes {
            #expect(code.map { expected.contains($0) } == true, "close code \(code.map(String.init) ?? "none")")
        }
        try await fixture.waitFor(events, isEnded)
        // The well-behaved vehicle's session is untouched.
        #expect(await fixture.server.host.openSessions == 1)
        let manager = try #require(managers.current.first)
        let shown = try await manager.send(Show(mainField1: "still here"))
        #expect(shown.success)
        await fixture.stop()
        await good.task.value
    }

    @Test("a half-open connection (silent, not even answering pings) is dropped; a quiet healthy one stays")
    func halfOpenDropped() async throws {
        var limits = SDLWebSocketLimits()
        // Real time: the WebSocket's pings and idle timeout run on NIO's event-loop timers, which a
        // test clock cannot drive; 100 ms and 3 s keep the wait short, and leave a loaded machine
        // (a build beside the tests) time to answer the healthy one's pings.
        limits.pingInterval = .milliseconds(100)
        limits.idleTimeout = .seconds(3)
        let fixture = try await CloudFixture.start(limits: limits) { manager in try await manager.waitUntilReady() }
        let events = fixture.server.host.events()
        // Connected first and then as quiet as the other, but its WebSocket answers pings.
        let healthy = fixture.vehicle()
        try await fixture.waitFor(events, isReady)
        let (silent, status, rest) = try await RawWebSocketPeer.connect(port: fixture.port)
        #expect(status == 101)
        let (code, _) = await silent.readUntilClosed(after: rest)
        #expect(code == 1001)
        let reason = Locked("")
        try await fixture.waitFor(events) { event in
            guard case .ended(_, let why, _) = event else { return false }
            reason.withLock { $0 = why }
            return true
        }
        #expect(reason.current.contains("nothing received"))
        #expect(await fixture.server.host.openSessions == 1)
        #expect(await healthy.emulator.registeredApps().count == 1)
        await fixture.stop()
        await healthy.task.value
    }

    @Test("a head unit vanishing without a close frame fails the app's pending request at once")
    func vanishFailsPendingRequests() async throws {
        let failure = Locked<String?>(nil)
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            do {
                _ = try await manager.send(Speak(ttsChunks: [TTSChunk(text: "a very long announcement", type: .text)]))
                failure.withLock { $0 = "answered" }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        let events = fixture.server.host.events()
        // The head unit takes ten minutes to speak: the request stays pending.
        let vehicle = fixture.vehicle { $0.speakingTime = .seconds(600) }
        try await vehicle.waitForRequest("Speak")
        await vehicle.transport.current?.abort()
        try await fixture.waitFor(events, isEnded)
        let error = try #require(failure.current)
        #expect(error != "answered")
        #expect(!error.contains("time"), "failed at once, not by a timeout: \(error)")
        await fixture.stop()
        await vehicle.task.value
    }

    @Test("a session whose head unit vanished is freed: its manager, session and connection go once it ends")
    func aVanishedSessionIsFreed() async throws {
        final class Weak: @unchecked Sendable {
            weak var manager: SDLManager?
            weak var client: SDLRPCClient?
        }
        let held = Weak()
        let fixture = try await CloudFixture.start { manager in
            held.manager = manager
            try await manager.waitUntilReady()
            held.client = manager.client
            _ = await manager.waitForHMILevel(.full, timeout: .seconds(30))
            _ = try await manager.send(Show(mainField1: "before the tunnel"))
            _ = try await manager.files.upload(SDLFile(name: "cargo.bin", bytes: Array(repeating: 7, count: 65_536), type: .binary))
            // A Show now and then until the session ends, as a cloud app between updates.
            while true {
                try? await Task.sleep(for: .milliseconds(20))
                do { _ = try await manager.send(Show(mainField1: "tick")) } catch { return }
            }
        }
        let events = fixture.server.host.events()
        let vehicle = fixture.vehicle()
        try await vehicle.waitForRequest("Show", count: 3)
        await vehicle.transport.current?.abort()
        try await fixture.waitFor(events, isEnded)
        // The RPC client and its protocol session too: they once kept each other after the end.
        let freed = await firstOf(timeout: .seconds(20), on: .continuous) { (try? await until { held.manager == nil && held.client == nil }) != nil }
        #expect(freed, "manager freed: \(held.manager == nil), RPC client freed: \(held.client == nil)")
        #expect(await fixture.server.host.openSessions == 0)
        await fixture.stop()
        await vehicle.task.value
    }

    @Test("a slow head unit holds up only its own session: its upload waits, completes when it reads again, and the other vehicle is served meanwhile")
    func slowReader() async throws {
        let size = 6 << 20
        let uploaded = Locked<String?>(nil)
        let (outcomes, outcome) = AsyncStream<String>.makeStream()
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            // Show needs FULL, as on SDL Core; a safety bound on the manager's clock, not a synchronisation.
            guard await manager.waitForHMILevel(.full, timeout: .seconds(30)) else { return }
            guard manager.authToken == "slow" else {
                _ = try await manager.send(Show(mainField1: "served"))
                return
            }
            let file = SDLFile(name: "big.bin", bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0 >> 8) }, type: .binary)
            do {
                let result = try await manager.files.upload(file)
                uploaded.withLock { $0 = "\(result)" }
            } catch {
                uploaded.withLock { $0 = "\(error)" }
            }
            outcome.yield(uploaded.current ?? "")
        }
        let (slow, relayTask) = fixture.relayedVehicle(pieceSize: 1 << 16, authToken: "slow")
        let relay = try await relayTask.value
        try await slow.waitForRequest("PutFile")
        relay.pause()
        // Another vehicle is served while the slow one reads nothing.
        let fast = fixture.vehicle(authToken: "fast")
        try await fast.waitForRequest("Show")
        #expect(uploaded.current == nil, "the upload cannot be done while the head unit reads nothing")
        relay.resume()
        var results = outcomes.makeAsyncIterator()
        let result = await results.next()
        #expect(result?.hasPrefix("uploaded") == true, "\(result ?? "-")")
        #expect(await slow.emulator.file(appID: "cloud-cloud", name: "big.bin")?.count == size)
        await fixture.stop()
        await slow.task.value
        await fast.task.value
    }
}
