/// A byte stream to a peer. The SDL protocol needs nothing more: frames carry their own lengths.
/// TCP is built in (`SDLTCPTransport`); WebSocket, Bluetooth or an in-memory pipe plug in here.
public protocol SDLTransport: Sendable {
    /// Bytes from the peer in arrival order, for one reader. Finishes when the connection closes
    /// cleanly and throws `SDLTransportError` when it breaks. Bounded: the peer is slowed while
    /// the reader is behind.
    var inbound: SDLInboundBytes { get }
    /// Sends bytes; suspends while the peer reads slower than we write (back-pressure). A sender
    /// cancelled while it waits throws `CancellationError` having sent none of `bytes`.
    func send(_ bytes: [UInt8]) async throws
    /// Closes the connection; `inbound` then finishes.
    func close() async
    /// Moves bytes between the connection and `inbound`/`send` until the connection closes, for
    /// a transport that needs a task for that. Whoever reads `inbound` runs it as a child task
    /// beside its reading (the protocol session puts it in its owner's task scope, the emulator
    /// in its connection's group), so no transport keeps a task of its own; a second call
    /// returns at once. Transports with nothing to move (the
    /// memory pair, `SDLChannelTransport`, whose handler moves the bytes on the event loop)
    /// return at once.
    func run() async
}

public enum SDLTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    case connectFailed(host: String, port: Int, attempts: Int, reason: String)
    /// The connection was already closed, by this side or the peer.
    case closed
    /// The peer reset the connection (ECONNRESET, EPIPE).
    case connectionReset
    /// Any other I/O failure, with the system's words for it.
    case io(String)
    /// A second reader tried to read `inbound` while another was reading.
    case concurrentRead

    public var description: String {
        switch self {
        case .connectFailed(let host, let port, let attempts, let reason):
            "could not connect to \(host):\(port) after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(reason)"
        case .closed: "the connection is closed"
        case .connectionReset: "the peer reset the connection"
        case .io(let reason): "connection error: \(reason)"
        case .concurrentRead: "another task is already reading this connection"
        }
    }
}

/// When and how often to try connecting again.
public struct SDLReconnectPolicy: Sendable, Hashable {
    public var maxAttempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// Each failed attempt multiplies the delay by this.
    public var multiplier: Double

    public init(maxAttempts: Int, initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(5), multiplier: Double = 2) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
    }

    /// One attempt, no retry.
    public static let never = SDLReconnectPolicy(maxAttempts: 1)
    /// Five attempts over about four seconds: enough for a head unit that is still starting.
    public static let standard = SDLReconnectPolicy(maxAttempts: 5)

    /// The pause before attempt `attempt` (1-based; the first attempt has none).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        var delay = initialDelay
        for _ in 2..<attempt {
            delay = delay * multiplier
            if delay > maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }
}

/// Two transports joined back to back, for tests and for running an app and the emulator in one
/// process without sockets. Each direction holds at most `bufferSize` unread bytes; a sender
/// waits beyond that (generous by default, because an app and a head unit both write from their
/// read loops and a rendezvous would deadlock them).
public final class SDLMemoryTransport: SDLTransport {
    public let inbound: SDLInboundBytes
    private let ownInput: ByteQueue
    private let peerInput: ByteQueue

    private init(ownInput: ByteQueue, peerInput: ByteQueue) {
        self.inbound = SDLInboundBytes(queue: ownInput)
        self.ownInput = ownInput
        self.peerInput = peerInput
    }

    /// A connected pair: what one sends, the other receives.
    public static func pair(bufferSize: Int = 1 << 20) -> (SDLMemoryTransport, SDLMemoryTransport) {
        let a = ByteQueue(highWatermark: bufferSize)
        let b = ByteQueue(highWatermark: bufferSize)
        return (SDLMemoryTransport(ownInput: a, peerInput: b), SDLMemoryTransport(ownInput: b, peerInput: a))
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await peerInput.send(bytes)
    }

    /// Simulates the peer vanishing: both sides see the connection break.
    public func fail(_ error: any Error) {
        ownInput.finish(throwing: error)
        peerInput.finish(throwing: error)
    }

    public func close() async {
        ownInput.finish()
        peerInput.finish()
    }

    /// Nothing to move: the pair's queues are the connection.
    public func run() async {}
}
