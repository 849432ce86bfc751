import Dispatch
import NIOCore
import NIOSSL

/// swift-nio-ssl's handler driven in memory by one owner that serialises every use (the
/// ``SDLTLSSecurity`` actor): bytes in, bytes out, no socket and no thread of its own.
///
/// NIO's `EmbeddedChannel` does the same but must stay on the thread that made it, which would
/// force the owner onto a fixed thread and cost two thread hops per record (measured: 57 µs
/// against 9.5 µs for a protected round trip's four records). The owner's isolation gives the
/// ordering NIO's event loop would, so this loop is always "current" and runs queued work when
/// the owner drains it.
final class RecordEngine: @unchecked Sendable {
    private let loop = OwnerLoop()
    private let channel: OwnerChannel

    /// An engine whose pipeline holds `handler` (swift-nio-ssl's) and then `observer`.
    init(handler: any ChannelHandler, observer: any ChannelHandler) throws {
        channel = OwnerChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.pipeline.syncOperations.addHandler(observer)
    }

    deinit {
        channel.tearDown()
    }

    /// Starts the connection once: a TLS client then writes its ClientHello.
    func activate() throws {
        if channel.isClosed { throw ChannelError.ioOnClosedChannel }
        guard !channel.isActive else { return }
        channel.isActive = true
        channel.pipeline.fireChannelRegistered()
        channel.pipeline.fireChannelActive()
        loop.drain()
    }

    /// Bytes from the peer into the pipeline (handshake data or records). Once the TLS session
    /// has ended (a fatal alert, the peer's close_notify) every call throws.
    func receive(_ bytes: [UInt8]) throws {
        if channel.isClosed { throw ChannelError.ioOnClosedChannel }
        // Nothing to read: BoringSSL would take an empty read for the peer's end of stream (a
        // TLS 1.3 client is done before the server's last, empty, handshake answer).
        guard !bytes.isEmpty else { return }
        channel.pipeline.fireChannelRead(channel.allocator.buffer(bytes: bytes))
        channel.pipeline.fireChannelReadComplete()
        loop.drain()
        try channel.throwIfFailed()
    }

    /// Plaintext for the peer: the pipeline seals it into a record. The write's own outcome
    /// counts too: a closed TLS session fails writes only through their promise.
    func send(_ plaintext: [UInt8]) throws {
        if channel.isClosed { throw ChannelError.ioOnClosedChannel }
        let written = loop.makePromise(of: Void.self)
        channel.pipeline.writeAndFlush(channel.allocator.buffer(bytes: plaintext), promise: written)
        loop.drain()
        try channel.throwIfFailed()
        var outcome: Result<Void, any Error>?
        written.futureResult.whenComplete { outcome = $0 }
        switch outcome {
        case .success?: break
        case .failure(let error)?: throw channel.failed(error)
        // Not completed at all means the handler kept the write back: nothing went out.
        case nil: throw channel.failed(ChannelError.ioOnClosedChannel)
        }
    }

    /// What the pipeline wrote for the peer since the last call.
    func takeOutbound() -> [UInt8] { channel.takeOutbound() }

    /// Plaintext the pipeline read since the last call.
    func takeInbound() -> [UInt8] { channel.takeInbound() }

    /// The TLS version the handshake settled on; nil before.
    var tlsVersion: TLSVersion? { try? channel.pipeline.syncOperations.nioSSL_tlsVersion() }
}

/// The loop of an owner-driven channel: always current (the owner serialises every use), work
/// queued by handlers runs when the owner drains it, and timers never fire (a TLS endpoint's
/// only timer is a close's grace period; the owner ends the engine by dropping it).
private final class OwnerLoop: EventLoop, @unchecked Sendable {
    private var queued: [@Sendable () -> Void] = []

    var inEventLoop: Bool { true }

    func execute(_ task: @escaping @Sendable () -> Void) { queued.append(task) }

    /// Runs queued work, and work that work queues, until none is left.
    func drain() {
        while !queued.isEmpty {
            let tasks = queued
            queued = []
            for task in tasks { task() }
        }
    }

    func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        let promise = makePromise(of: T.self)
        return Scheduled(promise: promise) { promise.fail(EventLoopError.cancelled) }
    }

    func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        scheduleTask(deadline: .now() + delay, task)
    }

    func preconditionInEventLoop(file: StaticString, line: UInt) {}

    func preconditionNotInEventLoop(file: StaticString, line: UInt) {
        preconditionFailure("a TLS engine's loop is always current", file: file, line: line)
    }

    func next() -> any EventLoop { self }

    func makeIterator() -> EventLoopIterator { EventLoopIterator([self]) }

    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        queue.async { callback(nil) }
    }
}

/// A channel with no socket: writes collect for the owner to take, reads come from the owner.
private final class OwnerChannel: Channel, ChannelCore, @unchecked Sendable {
    private let loop: OwnerLoop
    let allocator = ByteBufferAllocator()
    private var _pipeline: ChannelPipeline!
    private let closePromise: EventLoopPromise<Void>
    private var pendingWrites: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var outbound: [UInt8] = []
    private var inbound: [UInt8] = []
    private var caught: (any Error)?
    var isActive = false
    /// The TLS session ended (the handler closed the channel): nothing more goes in or out.
    private(set) var isClosed = false

    init(loop: OwnerLoop) {
        self.loop = loop
        closePromise = loop.makePromise()
        _pipeline = ChannelPipeline(channel: self)
    }

    /// Ends the channel: the pipeline lets go of its handlers and of the channel (they hold
    /// each other until then).
    func tearDown() {
        isActive = false
        removeHandlers(pipeline: pipeline)
        closePromise.succeed()
        loop.drain()
    }

    func takeOutbound() -> [UInt8] {
        defer { outbound = [] }
        return outbound
    }

    func takeInbound() -> [UInt8] {
        defer { inbound = [] }
        return inbound
    }

    /// Throws what the pipeline reported, or that the session ended, dropping any bytes the
    /// failed call left behind (a fatal alert) so they never reach the next answer.
    func throwIfFailed() throws {
        if let error = caught {
            caught = nil
            throw failed(error)
        }
        if isClosed { throw failed(ChannelError.ioOnClosedChannel) }
    }

    /// `error`, after dropping what a failed call left in the buffers.
    func failed(_ error: any Error) -> any Error {
        outbound = []
        inbound = []
        return error
    }

    // MARK: Channel

    var eventLoop: any EventLoop { loop }
    var pipeline: ChannelPipeline { _pipeline }
    var closeFuture: EventLoopFuture<Void> { closePromise.futureResult }
    var localAddress: SocketAddress? { nil }
    var remoteAddress: SocketAddress? { nil }
    var parent: (any Channel)? { nil }
    var isWritable: Bool { true }
    var _channelCore: any ChannelCore { self }

    func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value) -> EventLoopFuture<Void> {
        loop.makeSucceededVoidFuture()
    }

    func getOption<Option: ChannelOption>(_ option: Option) -> EventLoopFuture<Option.Value> {
        loop.makeFailedFuture(ChannelError.operationUnsupported)
    }

    // MARK: ChannelCore

    func localAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }
    func remoteAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }
    func register0(promise: EventLoopPromise<Void>?) { promise?.succeed() }
    func registerAlreadyConfigured0(promise: EventLoopPromise<Void>?) { promise?.succeed() }
    func bind0(to: SocketAddress, promise: EventLoopPromise<Void>?) { promise?.fail(ChannelError.operationUnsupported) }
    func connect0(to: SocketAddress, promise: EventLoopPromise<Void>?) { promise?.fail(ChannelError.operationUnsupported) }

    func write0(_ data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !isClosed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pendingWrites.append((unwrapData(data, as: ByteBuffer.self), promise))
    }

    func flush0() {
        let writes = pendingWrites
        pendingWrites = []
        for (buffer, promise) in writes {
            outbound += buffer.readableBytesView
            promise?.succeed()
        }
    }

    func read0() {}

    func close0(error: any Error, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        isClosed = true
        for (_, promise) in pendingWrites { promise?.fail(error) }
        pendingWrites = []
        if isActive {
            isActive = false
            pipeline.fireChannelInactive()
        }
        promise?.succeed()
    }

    func triggerUserOutboundEvent0(_ event: Any, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    func channelRead0(_ data: NIOAny) {
        inbound += unwrapData(data, as: ByteBuffer.self).readableBytesView
    }

    func errorCaught0(error: any Error) {
        if caught == nil { caught = error }
    }
}
