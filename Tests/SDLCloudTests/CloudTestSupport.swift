import Logging
import NIOCore
import NIOPosix
import SDLCloudServer
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTestSupport
import SDLTransport
import SDLWebSocket
import SmartDeviceLink

/// A cloud-app server on a free loopback port, and emulated vehicles that dial it.
struct CloudFixture {
    let server: SDLWebSocketServer
    let port: Int
    let runTask: Task<Void, any Error>
    /// The first failure of one of its vehicles' dials or relays: waits for what they were to bring
    /// end with it at once.
    let helpers = HelperFailure()

    static func app(_ name: String = "Cloud") -> SDLManager.Configuration {
        var app = SDLManager.Configuration(appName: name, appID: "cloud-\(name.lowercased())")
        app.appTypes = [.default]
        app.capabilityPollInterval = nil
        return app
    }

    static func start(
        path: String = "/sdl", limits: SDLWebSocketLimits = SDLWebSocketLimits(), app: SDLManager.Configuration = app(),
        handler: @escaping SDLCloudAppHost.SessionHandler
    ) async throws -> CloudFixture {
        let server = SDLWebSocketServer(listening: .init(port: 0, path: path, limits: limits), app: app)
        let runTask = Task { try await server.run(handler) }
        guard let port = await server.port() else {
            _ = await runTask.result
            throw SDLTransportError.closed
        }
        return CloudFixture(server: server, port: port, runTask: runTask)
    }

    var url: SDLWebSocketURL { try! SDLWebSocketURL("ws://127.0.0.1:\(port)/sdl") }

    /// Waits for `count` events `match` accepts, or throws at once when a vehicle's dial or relay fails.
    func waitFor<Element: Sendable>(_ events: AsyncStream<Element>, count: Int = 1, _ match: @escaping @Sendable (Element) -> Bool) async throws {
        try await SDLTestSupport.waitFor(events, count: count, unless: helpers, match)
    }

    func stop() async {
        await server.shutdown()
        _ = await runTask.result
    }

    /// A vehicle that dials once (no redial), serving the session until the server ends it.
    func vehicle(authToken: String? = nil, configure: (inout SDLHeadUnitEmulator.Configuration) -> Void = { _ in }) -> Vehicle {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configure(&configuration)
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        let events = emulator.events()
        let url = self.url
        let connected = Locked<SDLChannelTransport?>(nil)
        let dials = Locked(0)
        let helpers = self.helpers
        let task = Task {
            // One connection: a second dial (after a drop) fails, and one failure ends it.
            // One attempt: the retry delay is never waited for.
            await emulator.runCloudApp(
                SDLCloudAppEndpoint(authToken: authToken, retryDelay: .milliseconds(10), maxAttempts: 1, redialsAfterDrop: true) {
                    guard
                        dials.withLock({ count in
                            count += 1
                            return count
                        }) == 1
                    else { throw SDLTransportError.closed }
                    let transport: SDLChannelTransport
                    do {
                        transport = try await SDLChannelTransport.connectWebSocket(to: url)
                    } catch {
                        helpers.fail(HelperFailed("the vehicle's dial to \(url)", error))
                        throw error
                    }
                    connected.withLock { $0 = transport }
                    return transport
                })
        }
        return Vehicle(emulator: emulator, events: events, task: task, transport: connected, helpers: helpers)
    }

    /// A vehicle whose WebSocket goes through a `Relay`.
    func relayedVehicle(pieceSize: Int, authToken: String? = nil) -> (Vehicle, Task<Relay, any Error>) {
        let emulator = SDLHeadUnitEmulator()
        let events = emulator.events()
        let url = self.url
        let helpers = self.helpers
        let relay = Task<Relay, any Error> {
            do {
                return Relay(webSocket: try await SDLChannelTransport.connectWebSocket(to: url), pieceSize: pieceSize, failures: helpers)
            } catch {
                let failure = HelperFailed("the relay's dial to \(url)", error)
                helpers.fail(failure)
                throw failure
            }
        }
        let task = Task {
            guard let relay = try? await relay.value else { return }
            await emulator.serve(relay.headUnitSide, authToken: authToken)
        }
        return (Vehicle(emulator: emulator, events: events, task: task, transport: Locked(nil), helpers: helpers), relay)
    }

    struct Vehicle {
        let emulator: SDLHeadUnitEmulator
        let events: AsyncStream<SDLHeadUnitEvent>
        let task: Task<Void, Never>
        let transport: Locked<SDLChannelTransport?>
        let helpers: HelperFailure

        /// Returns once the head unit saw `function` from the app (RegisterAppInterface, Show...);
        /// throws at once when the vehicle's dial or relay failed.
        func waitForRequest(_ function: String, count: Int = 1) async throws {
            try await SDLTestSupport.waitFor(events, count: count, unless: helpers) { event in
                if case .requestReceived(_, function) = event { true } else { false }
            }
        }

        func functions(appID: String = "cloud-cloud", direction: String = "in") async -> [String] {
            await emulator.recordedRPCs(appID: appID).filter { $0.direction == direction }.map(\.functionName)
        }
    }
}

func isReady(_ event: SDLCloudSessionEvent) -> Bool {
    if case .ready = event { true } else { false }
}

func isEnded(_ event: SDLCloudSessionEvent) -> Bool {
    if case .ended = event { true } else { false }
}

/// A WebSocket peer that writes frames by hand: for hostile and unusual input.
final class RawWebSocketPeer: Sendable {
    let transport: SDLChannelTransport

    private init(transport: SDLChannelTransport) {
        self.transport = transport
    }

    /// Opens TCP and performs the upgrade on `path`; returns the HTTP status line's code.
    static func connect(port: Int, path: String = "/sdl") async throws -> (RawWebSocketPeer, status: Int, rest: [UInt8]) {
        let transport = try await SDLChannelTransport.connect(host: "127.0.0.1", port: port)
        // The raw peer reads the transport itself, so it runs it; the run ends with the connection.
        Task { await transport.run() }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try await transport.send(Array(request.utf8))
        var received: [UInt8] = []
        var iterator = transport.inbound.makeAsyncIterator()
        while let chunk = try await iterator.next() {
            received += chunk
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                return (RawWebSocketPeer(transport: transport), status, Array(received[end.upperBound...]))
            }
        }
        return (RawWebSocketPeer(transport: transport), 0, [])
    }

    /// A masked frame, as clients send them.
    static func frame(opcode: UInt8, fin: Bool = true, payload: [UInt8], claimedLength: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let length = claimedLength ?? UInt64(payload.count)
        if length < 126 {
            bytes.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(0x80 | 126)
            bytes += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8((length >> (UInt64($0) * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    func send(_ bytes: [UInt8]) async throws {
        try await transport.send(bytes)
    }

    /// Reads until the server closes; returns the close frame's code if one came.
    func readUntilClosed(after initial: [UInt8] = []) async -> (closeCode: UInt16?, bytes: [UInt8]) {
        var received = initial
        do {
            for try await chunk in transport.inbound { received += chunk }
        } catch {}
        return (Self.closeCode(in: received), received)
    }

    /// The code of the first unmasked close frame (server frames are unmasked) in `bytes`.
    static func closeCode(in bytes: [UInt8]) -> UInt16? {
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard index + 4 <= bytes.count else { return nil }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard index + 10 <= bytes.count else { return nil }
                length = bytes[(index + 2)..<(index + 10)].reduce(0) { $0 << 8 | Int($1) }
                header = 10
            }
            if opcode == 0x8 {
                guard length >= 2, index + header + 2 <= bytes.count else { return nil }
                return UInt16(bytes[index + header]) << 8 | UInt16(bytes[index + header + 1])
            }
            index += header + length
        }
        return nil
    }
}

/// Between a vehicle's WebSocket and its emulator: re-cuts what the emulator writes (frames
/// written together go in one message, each message at most `pieceSize` bytes, so a frame
/// spans messages) and can stop reading the server (a slow head unit).
final class Relay: Sendable {
    let headUnitSide: SDLMemoryTransport
    private let appSide: SDLMemoryTransport
    private let paused = Locked(false)
    private let resumed = Locked<[CheckedContinuation<Void, Never>]>([])
    /// Messages that carried bytes of more than one write of the emulator, and writes cut in pieces.
    let merged = Locked(0)
    let split = Locked(0)

    /// `failures` hears of a relay that fails while the connection is open.
    init(webSocket: SDLChannelTransport, pieceSize: Int, failures: HelperFailure) {
        (headUnitSide, appSide) = SDLMemoryTransport.pair(bufferSize: 64 << 10)
        let (appSide, paused, resumed, merged, split) = (self.appSide, self.paused, self.resumed, self.merged, self.split)
        // The relay reads the WebSocket itself, so it runs it; the run ends with the connection.
        Task { await webSocket.run() }
        // Server → head unit, unless paused.
        Task {
            do {
                for try await chunk in webSocket.inbound {
                    if paused.current { await withCheckedContinuation { continuation in resumed.withLock { $0.append(continuation) } } }
                    try await appSide.send(chunk)
                }
            } catch {
                failures.fail(HelperFailed("the relay, server to head unit,", error))
            }
            await appSide.close()
        }
        // Head unit → server: what piled up while the last message went out, in one go.
        let pile = Locked<[[UInt8]]>([])
        let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        Task {
            do {
                for try await chunk in appSide.inbound {
                    pile.withLock { $0.append(chunk) }
                    wake.yield()
                }
            } catch {
                failures.fail(HelperFailed("the relay, reading the head unit,", error))
            }
            wake.finish()
        }
        Task {
            do {
                var batches = 0
                for await _ in signal {
                    // The second batch (the registration's response) waits for the emulator's
                    // next frame (OnHMIStatus follows at once): at least one message then
                    // carries two frames, however fast the WebSocket drains. Frames, not reads:
                    // on a loaded machine one read may already hold both.
                    if batches == 1, Self.frameCount(pile.withLock { $0.flatMap { $0 } }) < 2 { continue }
                    batches += 1
                    let chunks = pile.withLock { list in
                        defer { list = [] }
                        return list
                    }
                    let bytes = chunks.flatMap { $0 }
                    if Self.frameCount(bytes) > 1 { merged.withLock { $0 += 1 } }
                    if bytes.count > pieceSize { split.withLock { $0 += 1 } }
                    var offset = 0
                    while offset < bytes.count {
                        let end = min(offset + pieceSize, bytes.count)
                        try await webSocket.send(Array(bytes[offset..<end]))
                        offset = end
                    }
                }
            } catch {
                failures.fail(HelperFailed("the relay, head unit to server,", error))
            }
            await webSocket.close()
        }
    }

    /// The whole SDL frames at the start of `bytes`.
    static func frameCount(_ bytes: [UInt8]) -> Int {
        var decoder = SDLFrameDecoder()
        decoder.append(bytes)
        var count = 0
        while (try? decoder.nextFrame()) != nil { count += 1 }
        return count
    }

    func pause() { paused.withLock { $0 = true } }

    func resume() {
        paused.withLock { $0 = false }
        for continuation in resumed.withLock({ list in
            defer { list = [] }
            return list
        }) { continuation.resume() }
    }
}

/// Keeps every log line, "LEVEL message", for tests that check what was logged.
struct CapturingLogHandler: LogHandler {
    let lines: Locked<[String]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}
