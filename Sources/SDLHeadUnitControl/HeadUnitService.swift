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
    }

    /// The head unit the service serves.
    public let emulator: SDLHeadUnitEmulator
    /// The address to listen on; loopback by default (the control API has no authentication).
    public let host: String
    /// The port apps connect to; 0 picks a free one.
    public let port: Int
    /// The control API's port (0 picks a free one); nil runs no control API.
    public let controlPort: Int?
    private let onListening: @Sendable (Endpoints) async -> Void

    /// A service for `emulator`; nothing listens until `run()`. `onListening` gets the ports once
    /// every listener is bound.
    public init(
        emulator: SDLHeadUnitEmulator, host: String = "127.0.0.1", port: Int = 12345, controlPort: Int? = nil,
        onListening: @escaping @Sendable (Endpoints) async -> Void = { _ in }
    ) {
        self.emulator = emulator
        self.host = host
        self.port = port
        self.controlPort = controlPort
        self.onListening = onListening
    }

    /// Serves until cancelled, the service group shuts down gracefully, or a listener fails
    /// (its error is thrown: a port in use fails at once, not later).
    public func run() async throws {
        // A head unit receives video: larger reads than a server of thousands of idle apps.
        let listener = try await SDLTCPListener.bind(host: host, port: port, maxReadSize: 256 * 1024)
        let emulator = self.emulator, onListening = self.onListening, appPort = listener.port
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await listener.run { transport in await emulator.serve(transport) } }
                if let controlPort {
                    let control = SDLHeadUnitControlServer(headUnit: emulator, host: host, port: controlPort) { bound in
                        await onListening(Endpoints(appPort: appPort, controlPort: bound))
                    }
                    group.addTask { try await control.run() }
                } else {
                    await onListening(Endpoints(appPort: appPort, controlPort: nil))
                }
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
