import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SDLConcurrency
import SDLProtocol
import SDLWebSocket
import ServiceLifecycle
import SmartDeviceLink
import Synchronization

/// A cloud app's server: head units (SDL Core with cloud-app support) open a WebSocket to the
/// URL in their policy table, and each connection becomes a session with its own `SDLManager`.
///
/// ```swift
/// let server = SDLWebSocketServer(
///     listening: .init(host: "0.0.0.0", port: 8080, path: "/sdl"),
///     app: SDLManager.Configuration(appName: "Weather", appID: "4b2a6c"))
/// try await server.run { manager in
///     try await manager.waitUntilReady()
///     guard manager.authToken != nil else { return await manager.stop() }
///     guard await manager.waitForHMILevel(.full, timeout: .seconds(30)) else { return }
///     _ = try await manager.send(Show(mainField1: "Hello"))
/// }
/// ```
///
/// A `Service`: in a `ServiceGroup`, graceful shutdown stops accepting, unregisters the app from
/// every vehicle and closes the connections.
public final class SDLWebSocketServer: Service, Sendable {
    /// Where it listens (host, port, path), its TLS and its limits.
    public let listenerConfiguration: SDLWebSocketListener.Configuration
    /// The sessions: counts, managers, events.
    public let host: SDLCloudAppHost
    private let handler: SDLCloudAppHost.SessionHandler?
    private let logger: Logger
    private let listener = StreamFanOut<SDLWebSocketListener?>(bufferLimit: 1, replaysLatest: true)
    private let shuttingDown = Mutex(false)
    /// How often freed memory goes back to the system while sessions come and go.
    private let memoryRelease: Duration?

    /// - Parameters:
    ///   - listening: host, port, path, TLS and the connections' limits.
    ///   - app: the configuration each session's manager starts from (its transport is the
    ///     connection; it never reconnects: the head unit does).
    ///   - handler: what `run()` does with each session (the `run(_:)` form takes it there instead).
    ///   - releasingFreedMemoryEvery: how often, while sessions start or end, the memory they
    ///     freed goes back to the system (``SDLCloudAppHost/releaseFreedMemory(every:)``);
    ///     nil (the default) never: a server of thousands of vehicles sets it (10 s measured well,
    ///     BENCHMARKS.md), most servers need not.
    public init(
        listening: SDLWebSocketListener.Configuration, app: SDLManager.Configuration,
        logger: Logger = Logger(label: "SmartDeviceLink.cloud"), handler: SDLCloudAppHost.SessionHandler? = nil,
        releasingFreedMemoryEvery memoryRelease: Duration? = nil
    ) {
        self.listenerConfiguration = listening
        self.host = SDLCloudAppHost(app: app, logger: logger)
        self.handler = handler
        self.logger = logger
        self.memoryRelease = memoryRelease
    }

    /// Serves with the handler given at initialisation (the `Service` entry point).
    public func run() async throws {
        try await run(handler ?? { _ in })
    }

    /// Listens and serves every head unit that connects with `handler` until `shutdown()` or
    /// graceful shutdown of the service group.
    public func run(_ handler: @escaping SDLCloudAppHost.SessionHandler) async throws {
        let bound: SDLWebSocketListener
        var configuration = listenerConfiguration
        // A head unit turned away (a path Core dials differently, a full server) is worth a line.
        let logger = self.logger
        let forward = configuration.onRefusal
        configuration.onRefusal = { refusal in
            logger.warning("refused a head unit's connection: \(refusal)", metadata: ["path": "\(refusal.path)", "status": "\(refusal.status)"])
            forward?(refusal)
        }
        do {
            bound = try await SDLWebSocketListener.bind(configuration)
        } catch {
            throw SDLError(.io, "the cloud app cannot listen on \(listenerConfiguration.host):\(listenerConfiguration.port): \(error)", underlying: error)
        }
        listener.yield(bound)
        // A shutdown that came while binding.
        if shuttingDown.withLock({ $0 }) { await bound.close() }
        logger.info(
            "cloud app listening",
            metadata: [
                "host": "\(listenerConfiguration.host)", "port": "\(bound.port)", "path": "\(listenerConfiguration.path ?? "*")",
                "tls": "\(listenerConfiguration.tls != nil)",
            ])
        let host = self.host
        defer { listener.finish(with: nil) }
        do {
            let memoryRelease = self.memoryRelease
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    if let memoryRelease { group.addTask { await host.releaseFreedMemory(every: memoryRelease) } }
                    try await bound.run { connection in
                        await host.serve(connection.transport, remoteAddress: connection.remoteAddress, uri: connection.uri, handler: handler)
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                Task { await self.shutdown() }
            }
        } catch {
            throw SDLError(error)
        }
    }

    /// The port the server listens on, once it does (nil if it stopped first).
    public func port() async -> Int? {
        for await bound in listener.subscribe() {
            if let bound { return bound.port }
        }
        return nil
    }

    /// Connections open now, handshakes included.
    public var openConnections: Int { listener.latest??.openConnections ?? 0 }

    /// Stops accepting, unregisters the app from every vehicle, closes the connections; `run`
    /// then returns.
    public func shutdown() async {
        shuttingDown.withLock { $0 = true }
        if let bound = listener.latest ?? nil { await bound.close() }
        await host.shutdown()
    }
}
