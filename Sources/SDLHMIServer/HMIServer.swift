import Hummingbird
import HummingbirdWebSocket
import Logging
import SDLHeadUnit
import ServiceLifecycle

/// Listens for HMIs as SDL Core does (`ServerAddress`/`ServerPort` in its ini: 127.0.0.1:8087,
/// path `/`): each WebSocket connection is an HMI speaking the HMI API's JSON-RPC, one message
/// per text message, served by the emulator (`SDLHeadUnitEmulator.serveHMI(_:)`). SDL's own
/// HMI (sdl_hmi, opened from the file system) and any HMI written for SDL Core connect to it.
///
/// A swift-service-lifecycle `Service`: run it in a `ServiceGroup` or a task of your own;
/// cancellation or graceful shutdown stops it.
public struct SDLHMIServer: Service {
    /// The head unit the HMIs are the screen of.
    public let headUnit: SDLHeadUnitEmulator
    /// The address to listen on; loopback by default, as Core's (the HMI API has no authentication).
    public let host: String
    /// The port to listen on (SDL Core: 8087); 0 picks a free one, which `onBound` reports.
    public let port: Int
    /// The largest message taken from an HMI (a longer one closes its connection).
    public let maxMessageSize: Int
    /// Hummingbird's logger (the server's start, failed upgrades).
    public let logger: Logger
    private let onBound: @Sendable (Int) async -> Void

    /// A server for `headUnit`'s HMIs on `host:port`; nothing listens until `run()`.
    public init(
        headUnit: SDLHeadUnitEmulator, host: String = "127.0.0.1", port: Int = 8087, maxMessageSize: Int = 4 * 1024 * 1024,
        logger: Logger = Logger(label: "SDLHMIServer"), onBound: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.logger = logger
        self.headUnit = headUnit
        self.host = host
        self.port = port
        self.maxMessageSize = maxMessageSize
        self.onBound = onBound
    }

    /// Serves until cancelled or the service group shuts down gracefully; a port in use fails at once.
    public func run() async throws {
        let (headUnit, maxMessageSize, onBound) = (self.headUnit, self.maxMessageSize, self.onBound)
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.ws("/") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, _ in
            await headUnit.serveHMI(WebSocketHMIConnection(inbound: inbound, outbound: outbound, maxMessageSize: maxMessageSize))
        }
        let application = Application(
            router: Router(),
            // A frame as large as a message: HMIs send each message in one frame, and sdl_hmi's
            // RC.GetCapabilities answer alone is larger than the 16 KB default.
            server: .http1WebSocketUpgrade(
                webSocketRouter: sockets, configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: maxMessageSize))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "sdl-headunit-hmi"),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await application.run()
    }
}

/// One HMI's WebSocket: its text (or binary) messages in, text messages out.
struct WebSocketHMIConnection: SDLHMIConnection {
    let inbound: WebSocketInboundStream
    let outbound: WebSocketOutboundWriter
    let maxMessageSize: Int

    var messages: AsyncThrowingMapSequence<WebSocketInboundMessageStream, [UInt8]> {
        inbound.messages(maxSize: maxMessageSize).map { message in
            switch message {
            case .text(let text): Array(text.utf8)
            case .binary(let buffer): Array(buffer.readableBytesView)
            }
        }
    }

    func send(_ message: [UInt8]) async {
        // A closed connection drops what is sent after it: the emulator hears of the close from
        // the inbound side and answers what waited for this HMI.
        try? await outbound.write(.text(String(decoding: message, as: UTF8.self)))
    }
}
