import Foundation
import Logging
import SDLCloudServer
import SDLHeadUnit
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import ServiceLifecycle
import SmartDeviceLink
import Testing

@testable import SDLWebSocket

@Suite("Cloud app server", .timeLimit(.minutes(3)))
struct CloudServerTests {
    @Test("a head unit dials in: the app registers over the WebSocket, sees its auth token and shows text")
    func vehicleDialsIn() async throws {
        let tokens = Locked<[String?]>([])
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            let token = manager.authToken
            tokens.withLock { $0.append(token) }
            _ = try await manager.send(Show(mainField1: "Hello from the cloud"))
        }
        let vehicle = fixture.vehicle(authToken: "account-42")
        try await vehicle.waitForRequest("Show")
        #expect(tokens.current == ["account-42"])
        #expect(await fixture.server.host.openSessions == 1)
        let functions = await vehicle.functions()
        #expect(functions.first == "RegisterAppInterface")
        #expect(functions.contains("Show"))
        let show = await vehicle.emulator.recordedRPCs(appID: "cloud-cloud").last { $0.functionName == "Show" && $0.direction == "in" }
        #expect(show?.parameters?["mainField1"] == .string("Hello from the cloud"))
        await fixture.stop()
        await vehicle.task.value
    }

    @Test("sessions share nothing: each vehicle gets its own manager, token and screen")
    func sessionsAreSeparate() async throws {
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            let token = manager.authToken ?? "none"
            _ = try await manager.send(Show(mainField1: "for \(token)"))
        }
        let vehicles = (1...4).map { fixture.vehicle(authToken: "vehicle-\($0)") }
        for vehicle in vehicles { try await vehicle.waitForRequest("Show") }
        #expect(await fixture.server.host.openSessions == 4)
        for (index, vehicle) in vehicles.enumerated() {
            let shows = await vehicle.emulator.recordedRPCs(appID: "cloud-cloud").filter { $0.functionName == "Show" && $0.direction == "in" }
            #expect(shows.map { $0.parameters?["mainField1"] } == [.string("for vehicle-\(index + 1)")])
            #expect(await vehicle.emulator.registeredApps().count == 1)
        }
        await fixture.stop()
        for vehicle in vehicles { await vehicle.task.value }
    }

    @Test("shutdown stops accepting, unregisters the app from every vehicle and closes; run returns")
    func shutdownUnregistersEveryApp() async throws {
        let fixture = try await CloudFixture.start { manager in try await manager.waitUntilReady() }
        let events = fixture.server.host.events()
        let vehicles = (1...3).map { _ in fixture.vehicle() }
        try await fixture.waitFor(events, count: 3, isReady)
        await fixture.server.shutdown()
        try await fixture.runTask.value
        for vehicle in vehicles {
            await vehicle.task.value
            #expect(await vehicle.functions().last == "UnregisterAppInterface")
        }
        #expect(await fixture.server.host.openSessions == 0)
        // Nobody listens any more.
        let late = await outcome { try await SDLChannelTransport.connectWebSocket(to: fixture.url) }
        #expect(throws: (any Error).self) { try late.get() }
    }

    @Test("in a ServiceGroup, graceful shutdown (SIGTERM) unregisters every vehicle's app")
    func serviceGroupGracefulShutdown() async throws {
        let server = SDLWebSocketServer(listening: .init(port: 0, path: "/sdl"), app: CloudFixture.app()) { manager in
            try await manager.waitUntilReady()
        }
        let group = ServiceGroup(services: [server], logger: .init(label: "test"))
        let running = Task { try await group.run() }
        let port = try #require(await server.port())
        let fixture = CloudFixture(server: server, port: port, runTask: Task {})
        let events = server.host.events()
        let vehicles = (1...2).map { _ in fixture.vehicle() }
        try await fixture.waitFor(events, count: 2, isReady)
        await group.triggerGracefulShutdown()
        try await running.value
        for vehicle in vehicles {
            await vehicle.task.value
            #expect(await vehicle.functions().last == "UnregisterAppInterface")
        }
    }

    @Test("a wrong path gets HTTP 404 and a full server HTTP 503; neither is upgraded")
    func refusedUpgrades() async throws {
        var limits = SDLWebSocketLimits()
        limits.maxConnections = 1
        // Time for a loaded machine to send the refused request and read the 503.
        limits.refusalTimeout = .seconds(30)
        let fixture = try await CloudFixture.start(limits: limits) { manager in try await manager.waitUntilReady() }
        let events = fixture.server.host.events()
        let (wrongPath, wrongStatus, _) = try await RawWebSocketPeer.connect(port: fixture.port, path: "/other")
        #expect(wrongStatus == 404)
        await wrongPath.transport.close()
        // Its place is free once the server saw it close.
        try await until { fixture.server.openConnections == 0 }
        let vehicle = fixture.vehicle()
        try await fixture.waitFor(events, isReady)
        let (full, fullStatus, _) = try await RawWebSocketPeer.connect(port: fixture.port)
        #expect(fullStatus == 503)
        await full.transport.close()
        let refused = await outcome { try await SDLChannelTransport.connectWebSocket(to: fixture.url) }
        #expect(throws: SDLWebSocketError.upgradeRefused) { try refused.get() }
        #expect(await fixture.server.host.openSessions == 1)
        await fixture.stop()
        await vehicle.task.value
    }

    @Test("the path is taken with or without a trailing slash (SDL Core dials /sdl as /sdl/), the query ignored")
    func trailingSlash() async throws {
        for (listening, asked) in [("/sdl", "/sdl/"), ("/sdl", "/sdl"), ("/sdl/", "/sdl"), ("/sdl", "/sdl/?vin=1")] {
            let fixture = try await CloudFixture.start(path: listening) { manager in try await manager.waitUntilReady() }
            let (peer, status, _) = try await RawWebSocketPeer.connect(port: fixture.port, path: asked)
            #expect(status == 101, "\(asked) asked of a listener on \(listening)")
            await peer.transport.close()
            await fixture.stop()
        }
        #expect(SDLWebSocketListener.accepts("/", path: "/"))
        #expect(!SDLWebSocketListener.accepts("/sdlx", path: "/sdl"))
        #expect(!SDLWebSocketListener.accepts("/sdl//", path: "/sdl"))
        #expect(!SDLWebSocketListener.accepts("/", path: "/sdl"))
        #expect(SDLWebSocketListener.accepts("/anything", path: nil))
    }

    @Test("a refused upgrade is logged by the server with the path asked for, and handed to onRefusal")
    func refusalsAreLogged() async throws {
        let lines = Locked<[String]>([])
        let logger = Logger(label: "cloud-test") { _ in CapturingLogHandler(lines: lines) }
        let refusals = Locked<[SDLWebSocketRefusal]>([])
        var limits = SDLWebSocketLimits()
        limits.maxConnections = 1
        // Time for a loaded machine to send the refused request and read the 503.
        limits.refusalTimeout = .seconds(30)
        let listening = SDLWebSocketListener.Configuration(port: 0, path: "/sdl", limits: limits) { refusal in refusals.withLock { $0.append(refusal) } }
        let server = SDLWebSocketServer(listening: listening, app: CloudFixture.app(), logger: logger)
        let run = Task { try await server.run { manager in try await manager.waitUntilReady() } }
        let port = try #require(await server.port())

        let (wrong, wrongStatus, _) = try await RawWebSocketPeer.connect(port: port, path: "/cloud?vin=7")
        #expect(wrongStatus == 404)
        await wrong.transport.close()
        try await until { server.openConnections == 0 }
        #expect(refusals.current.first?.reason == .unknownPath(listening: "/sdl"))
        #expect(refusals.current.first?.path == "/cloud")
        #expect(lines.current.contains { $0.contains("GET /cloud?vin=7") && $0.contains("refused (404)") })

        // A connection that has not asked for anything yet holds the one place: admitted in the
        // order the listener accepts, it comes before the next one whatever event loop runs it.
        let held = try await SDLChannelTransport.connect(host: "127.0.0.1", port: port)
        Task { await held.run() }
        let (full, fullStatus, _) = try await RawWebSocketPeer.connect(port: port, path: "/sdl/")
        #expect(fullStatus == 503)
        #expect(refusals.current.last?.reason == .connectionLimit(1))
        #expect(lines.current.contains { $0.contains("refused (503)") })
        await full.transport.close()
        await held.close()
        await server.shutdown()
        _ = await run.result
    }

    @Test("wss: a head unit that trusts the server's certificate registers over TLS; one that does not is refused")
    func tls() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let context = try SDLWebSocketTLS.server(
            certificateChainPath: fixtures.appendingPathComponent("cert.pem").path, privateKeyPath: fixtures.appendingPathComponent("key.pem").path)
        let server = SDLWebSocketServer(listening: .init(port: 0, path: "/sdl", tls: context), app: CloudFixture.app())
        let running = Task {
            try await server.run { manager in
                try await manager.waitUntilReady()
                _ = try await manager.send(Show(mainField1: "over TLS"))
            }
        }
        let port = try #require(await server.port())
        let url = try SDLWebSocketURL("wss://localhost:\(port)/sdl")
        let trusting = try SDLWebSocketTLS.client(trustingPEMFile: fixtures.appendingPathComponent("cert.pem").path)
        // The system's roots do not know a self-signed certificate.
        let untrusted = await outcome { try await SDLChannelTransport.connectWebSocket(to: url) }
        #expect(throws: (any Error).self) { try untrusted.get() }
        let emulator = SDLHeadUnitEmulator()
        let events = emulator.events()
        let transport = try await SDLChannelTransport.connectWebSocket(to: url, tls: trusting)
        let serving = Task { await emulator.serve(transport) }
        for await event in events {
            if case .requestReceived(_, "Show") = event { break }
        }
        let show = await emulator.recordedRPCs(appID: "cloud-cloud").last { $0.functionName == "Show" && $0.direction == "in" }
        #expect(show?.parameters?["mainField1"] == .string("over TLS"))
        await server.shutdown()
        try await running.value
        await serving.value
    }

    @Test("a session handler that throws stops its session, and its error is the session's end reason")
    func failingHandler() async throws {
        struct NotOurUser: Error, CustomStringConvertible { var description: String { "not our user" } }
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            throw NotOurUser()
        }
        let events = fixture.server.host.events()
        let vehicle = fixture.vehicle()
        let reason = Locked("")
        try await fixture.waitFor(events) { event in
            guard case .ended(_, let why, _) = event else { return false }
            reason.withLock { $0 = why }
            return true
        }
        #expect(reason.current == "the session handler failed: not our user")
        await vehicle.task.value
        #expect(await vehicle.functions().last == "UnregisterAppInterface")
        await fixture.stop()
    }

    @Test("a server that accepts the connection but never answers the upgrade fails the dial with a handshake timeout")
    func clientHandshakeDeadline() async throws {
        let silent = try await SDLTCPListener.bind(port: 0)
        let serving = Task { try await silent.run { transport in _ = try? await transport.inbound.reduce(0) { $0 + $1.count } } }
        var limits = SDLWebSocketLimits()
        // Real time: the handshake deadline is a NIO event-loop timer (the behaviour under test).
        limits.handshakeTimeout = .milliseconds(200)
        let dial = await outcome { try await SDLChannelTransport.connectWebSocket(to: SDLWebSocketURL("ws://127.0.0.1:\(silent.port)/"), limits: limits) }
        #expect(throws: SDLWebSocketError.handshakeTimeout(seconds: 0.2)) { try dial.get() }
        await silent.close()
        _ = await serving.result
    }

    @Test("a vehicle whose dial fails ends the test's wait at once with the reason, instead of leaving it to wait for a request that cannot come")
    func failedDialEndsTheWait() async throws {
        let fixture = try await CloudFixture.start { manager in try await manager.waitUntilReady() }
        await fixture.stop()
        let vehicle = fixture.vehicle()
        let wait = await outcome { try await vehicle.waitForRequest("Show") }
        #expect(throws: HelperFailed.self) { try wait.get() }
        #expect("\(fixture.helpers.error.map { "\($0)" } ?? "")".hasPrefix("the vehicle's dial to ws://127.0.0.1:\(fixture.port)/sdl failed: "))
        let (relayed, relay) = fixture.relayedVehicle(pieceSize: 7)
        await #expect(throws: HelperFailed.self) { try await relay.value }
        await #expect(throws: HelperFailed.self) { try await relayed.waitForRequest("Show") }
        await vehicle.task.value
        await relayed.task.value
    }

    @Test("SDL frames split across messages and several frames in one message make the same session")
    func framesCutAnyhow() async throws {
        let fixture = try await CloudFixture.start { manager in
            try await manager.waitUntilReady()
            _ = try await manager.send(Show(mainField1: "cut"))
        }
        let (vehicle, relay) = fixture.relayedVehicle(pieceSize: 7)
        try await vehicle.waitForRequest("Show")
        let cuts = try await relay.value
        #expect(cuts.split.current > 0)
        #expect(cuts.merged.current > 0)
        #expect(await vehicle.functions().contains("Show"))
        await fixture.stop()
        await vehicle.task.value
    }
}
