import Hummingbird
import SDLHeadUnit
import ServiceLifecycle

/// Serves the emulator's control API (``SDLHeadUnitControlAPI``) over HTTP with Hummingbird, so a
/// developer can play the driver with `curl`. A module of its own: only the `sdl` tool and
/// those who want HTTP pay for the server.
///
/// A swift-service-lifecycle `Service`: run it in a `ServiceGroup` (graceful shutdown stops it) or
/// in a task of your own (cancellation stops it). It installs no signal handlers itself.
public struct SDLHeadUnitControlServer: Service {
    /// The control API the server serves; tests can drive its router and skip sockets.
    public let api: SDLHeadUnitControlAPI
    /// The address to listen on; loopback by default, as the API has no authentication.
    public let host: String
    /// The port to listen on; 0 picks a free one, which `onBound` reports.
    public let port: Int
    private let onBound: @Sendable (Int) async -> Void

    /// A server for `headUnit`'s control API on `host:port`; nothing listens until `run()`.
    /// `onBound` gets the port actually bound (useful with port 0).
    public init(
        headUnit: SDLHeadUnitEmulator, host: String = "127.0.0.1", port: Int, onBound: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.api = SDLHeadUnitControlAPI(headUnit: headUnit)
        self.host = host
        self.port = port
        self.onBound = onBound
    }

    /// Serves until cancelled or the service group shuts down gracefully.
    public func run() async throws {
        let onBound = self.onBound
        let application = Application(
            router: api.router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "sdl-headunit"),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? 0) })
        // The Application's own Service run, inside whatever runs this one (not runService(),
        // which would install signal handlers and a service group of its own).
        try await application.run()
    }
}
