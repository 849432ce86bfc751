import SDLHMIServer
import SDLHeadUnit
import SDLTransport
import ServiceLifecycle

/// `sdl headunit`'s assembly as a swift-service-lifecycle `Service`: the emulator listening for
/// apps over TCP (as SDL Core does on port 12345), and, with a control port, its control API and
/// web page over HTTP. The command-line tool runs it, and tests run the same wiring; a
/// developer's own tool can too. Graceful shutdown or cancellation stops it.
public struct SDLHeadUnitService: Service {
    /// Where the service listens once it runs (ports actually bound, useful with port 0).
    public struct Endpoints: Sendable, Hashable {
        /// The port apps connect to.
        public var appPort: Int
        /// The control API's port, when it runs.
        public var controlPort: Int?
        /// The HMI API's port, when it runs.
        public var hmiPort: Int?
    }

    /// The head unit the service serves.
    public let emulator: SDLHeadUnitEmulator
    /// The address to listen on; loopback by default (the control API has no authentication).
    public let host: String
    /// The port apps connect to; 0 picks a free one.
    public let port: Int
    /// The control API's port (0 picks a free one); nil runs no control API.
    public let controlPort: Int?
    /// The HMI API's port (SDL Core: 8087; 0 picks a free one); nil runs no HMI server.
    public let hmiPort: Int?
    private let onListening: @Sendable (Endpoints) async -> Void

    /// A service for `emulator`; nothing listens until `run()`. `onListening` gets the ports once
    /// every listener is bound.
    public init(
        emulator: SDLHeadUnitEmulator, host: String = "127.0.0.1", port: Int = 12345, controlPort: Int? = nil, hmiPort: Int? = nil,
        onListening: @escaping @Sendable (Endpoints) async -> Void = { _ in }
    ) {
        self.emulator = emulator
        self.host = host
        self.port = port
        self.controlPort = controlPort
        self.hmiPort = hmiPort
        self.onListening = onListening
    }

    /// Serves until cancelled, the service group shuts down gracefully, or a listener fails
    /// (its error is thrown: a port in use fails at once, not later).
    public func run() async throws {
        // A head unit receives video: larger reads than a server of thousands of idle apps.
        let listener = try await SDLTCPListener.bind(host: host, port: port, maxReadSize: 256 * 1024)
        let emulator = self.emulator
        let onListening = self.onListening
        let appPort = listener.port
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await listener.run { transport in await emulator.serve(transport) } }
                // Each server reports its port; the endpoints go out once all are bound.
                let bound = BoundPorts(expected: (controlPort == nil ? 0 : 1) + (hmiPort == nil ? 0 : 1), appPort: appPort, onListening)
                if let controlPort {
                    let control = SDLHeadUnitControlServer(headUnit: emulator, host: host, port: controlPort) { port in
                        await bound.bound(\.controlPort, port)
                    }
                    group.addTask { try await control.run() }
                }
                if let hmiPort {
                    let hmi = SDLHMIServer(headUnit: emulator, host: host, port: hmiPort) { port in await bound.bound(\.hmiPort, port) }
                    group.addTask { try await hmi.run() }
                }
                await bound.start()
                // The first to end (or fail) ends the service; cancellation ends the others.
                defer { group.cancelAll() }
                try await withTaskCancellationHandler {
                    try await group.next()
                } onCancel: {
                    listener.closeNow()
                }
            }
        }
        await listener.close()
    }
}

/// Collects the ports the service's servers bound and reports them once, when all have.
private actor BoundPorts {
    private var endpoints: SDLHeadUnitService.Endpoints
    private var missing: Int
    private let report: @Sendable (SDLHeadUnitService.Endpoints) async -> Void

    init(expected: Int, appPort: Int, _ report: @escaping @Sendable (SDLHeadUnitService.Endpoints) async -> Void) {
        endpoints = SDLHeadUnitService.Endpoints(appPort: appPort)
        missing = expected
        self.report = report
    }

    func bound(_ port: WritableKeyPath<SDLHeadUnitService.Endpoints, Int?>, _ value: Int) async {
        endpoints[keyPath: port] = value
        missing -= 1
        if missing == 0 { await report(endpoints) }
    }

    /// With no server to wait for, the app port alone is reported now.
    func start() async {
        if missing == 0 { await report(endpoints) }
    }
}
