/// What one WebSocket connection may cost. Every limit has a safe default; none is unbounded.
public struct SDLWebSocketLimits: Sendable, Hashable {
    /// Connections at once, handshakes included; the next is answered HTTP 503 and closed
    /// within `refusalTimeout`.
    public var maxConnections: Int
    /// Bytes in one message, all its fragments together; a larger one (a fragmented message
    /// that goes on past it included) drops the connection with close code 1009. SDL frames are
    /// at most the MTU plus a 12-byte header, so 1 MiB leaves room for a peer that packs several
    /// frames into one message.
    public var maxMessageSize: Int
    /// Received bytes the session has not read yet (each piece counted at 64 bytes at least);
    /// beyond them the socket is not read, so a peer sending faster than its session handles is
    /// slowed (TCP back-pressure), not buffered. A connection holds at most about this plus
    /// one message of `maxMessageSize` being decoded and one burst of reads.
    public var inboundBufferSize: Int
    /// A peer silent this long is pinged.
    public var pingInterval: Duration?
    /// A peer silent this long (no data, no pong) is dropped: it vanished without a close frame,
    /// or the connection is half open.
    public var idleTimeout: Duration?
    /// The HTTP upgrade must finish this soon after the TCP connection opens.
    public var handshakeTimeout: Duration
    /// A connection over `maxConnections` is closed this soon after it opens, answered or not:
    /// a flood beyond the limit holds each socket this long at most.
    public var refusalTimeout: Duration

    public init(
        maxConnections: Int = 10_000, maxMessageSize: Int = 1 << 20, inboundBufferSize: Int = 256 << 10,
        pingInterval: Duration? = .seconds(20), idleTimeout: Duration? = .seconds(60), handshakeTimeout: Duration = .seconds(10),
        refusalTimeout: Duration = .seconds(1)
    ) {
        self.maxConnections = max(1, maxConnections)
        self.maxMessageSize = min(max(1, maxMessageSize), Int(UInt32.max))
        self.inboundBufferSize = max(1, inboundBufferSize)
        self.pingInterval = pingInterval
        self.idleTimeout = idleTimeout
        self.handshakeTimeout = handshakeTimeout
        self.refusalTimeout = refusalTimeout
    }
}

extension SDLWebSocketLimits {
    /// The limits as used, whatever was set: within what NIO's codec takes.
    var messageSize: Int { min(max(1, maxMessageSize), Int(UInt32.max)) }
    var bufferSize: Int { max(1, inboundBufferSize) }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var seconds: Double { Double(nanoseconds) / 1e9 }
}
