import NIOCore
import Testing

@testable import SDLTransport

/// Waits, yielding, until `condition` holds: for states another task reaches without an event
/// to await (a producer parked on a full queue). Bounded, so a bug fails instead of hanging.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<100_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

@Suite(.timeLimit(.minutes(1))) struct ByteQueueTests {
    @Test func chunksArriveInOrder() async throws {
        let queue = ByteQueue(highWatermark: 1 << 20)
        for index in 0..<100 { try await queue.send([UInt8(index)]) }
        queue.finish()
        var seen: [UInt8] = []
        for try await chunk in SDLInboundBytes(queue: queue) { seen += chunk }
        #expect(seen == (0..<100).map { UInt8($0) })
    }

    @Test func aProducerWaitsWhileTheReaderIsBehind() async throws {
        let queue = ByteQueue(highWatermark: 10)
        try await queue.send(Array(repeating: 1, count: 8))
        let blocked = Task { try await queue.send(Array(repeating: 2, count: 8)) }
        #expect(await eventually { queue.waitingProducerCount == 1 })
        #expect(queue.bufferedByteCount == 8)
        // Reading makes room: the producer's bytes go in.
        #expect(try await queue.next() == Array(repeating: 1, count: 8))
        try await blocked.value
        #expect(try await queue.next() == Array(repeating: 2, count: 8))
    }

    @Test func aChunkLargerThanTheLimitPassesWhenTheQueueIsEmpty() async throws {
        let queue = ByteQueue(highWatermark: 4)
        try await queue.send(Array(repeating: 7, count: 100))
        #expect(try await queue.next()?.count == 100)
    }

    @Test func finishDeliversWhatIsBufferedFirst() async throws {
        let queue = ByteQueue(highWatermark: 100)
        try await queue.send([1])
        queue.finish()
        #expect(try await queue.next() == [1])
        #expect(try await queue.next() == nil)
        await #expect(throws: SDLTransportError.closed) { try await queue.send([2]) }

        let broken = ByteQueue(highWatermark: 100)
        try await broken.send([1])
        broken.finish(throwing: SDLTransportError.connectionReset)
        #expect(try await broken.next() == [1])
        await #expect(throws: SDLTransportError.connectionReset) { try await broken.next() }
    }

    @Test func aWaitingProducerLearnsOfTheEnd() async throws {
        let queue = ByteQueue(highWatermark: 1)
        try await queue.send([1, 2])
        let blocked = Task { try await queue.send([3]) }
        #expect(await eventually { queue.waitingProducerCount == 1 })
        queue.finish()
        await #expect(throws: SDLTransportError.closed) { try await blocked.value }
    }

    @Test func cancellationOnBothSides() async throws {
        let queue = ByteQueue(highWatermark: 1)
        try await queue.send([1, 2])
        let producer = Task { try await queue.send([3]) }
        #expect(await eventually { queue.waitingProducerCount == 1 })
        producer.cancel()
        await #expect(throws: CancellationError.self) { try await producer.value }
        #expect(try await queue.next() == [1, 2])
        // The cancelled producer's bytes never went in; a cancelled reader gets nil.
        let reader = Task { try await queue.next() }
        reader.cancel()
        #expect(try await reader.value == nil)
        #expect(queue.bufferedByteCount == 0)
    }

    @Test func aSecondReaderIsAnErrorNotATrap() async throws {
        let queue = ByteQueue(highWatermark: 10)
        let first = Task { try await queue.next() }
        let second = Task { try await queue.next() }
        // Two chunks: whether the readers overlapped (one parks, the other is refused) or came
        // one after the other (each gets a chunk), nobody waits for ever.
        try await queue.send([9])
        try await queue.send([10])
        let results = [await Result { try await first.value }, await Result { try await second.value }]
        let chunks = results.compactMap { try? $0.get() }
        #expect(chunks.contains([9]))
        for case .failure(let error) in results {
            #expect(error as? SDLTransportError == .concurrentRead)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct MemoryTransportTests {
    @Test func whatOneSideSendsTheOtherReceives() async throws {
        let (a, b) = SDLMemoryTransport.pair()
        try await a.send([1, 2, 3])
        var inbound = b.inbound.makeAsyncIterator()
        #expect(try await inbound.next() == [1, 2, 3])
    }

    @Test func aSenderWaitsForASlowPeer() async throws {
        let (a, b) = SDLMemoryTransport.pair(bufferSize: 16)
        try await a.send(Array(repeating: 0, count: 16))
        let sender = Task { try await a.send(Array(repeating: 1, count: 16)) }
        var inbound = b.inbound.makeAsyncIterator()
        #expect(try await inbound.next()?.count == 16)
        try await sender.value
        #expect(try await inbound.next() == Array(repeating: 1, count: 16))
    }

    @Test func closeAndFailReachBothSides() async throws {
        let (a, b) = SDLMemoryTransport.pair()
        await a.close()
        var inbound = b.inbound.makeAsyncIterator()
        #expect(try await inbound.next() == nil)
        await #expect(throws: SDLTransportError.closed) { try await b.send([1]) }

        let (c, d) = SDLMemoryTransport.pair()
        c.fail(SDLTransportError.io("cable pulled"))
        var other = d.inbound.makeAsyncIterator()
        await #expect(throws: SDLTransportError.io("cable pulled")) { try await other.next() }
    }
}

@Suite(.timeLimit(.minutes(2))) struct TCPTransportTests {
    @Test func fourMegabytesThroughASlowReaderArriveIntact() async throws {
        let listener = try await SDLTCPListener.bind(port: 0)
        let (received, sink) = AsyncStream<[UInt8]>.makeStream()
        let server = Task {
            try await listener.run { transport in
                var bytes: [UInt8] = []
                var count = 0
                do {
                    for try await chunk in transport.inbound {
                        bytes += chunk
                        count += 1
                        // A slow reader: the sender must wait, not the memory grow.
                        if count % 8 == 0 { await Task.yield() }
                        if bytes.count >= 4 << 20 { break }
                    }
                } catch {}
                sink.yield(bytes)
            }
        }
        let client = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for start in stride(from: 0, to: payload.count, by: 64 << 10) {
            try await client.send(Array(payload[start..<min(payload.count, start + (64 << 10))]))
        }
        var results = received.makeAsyncIterator()
        let bytes = await results.next() ?? []
        await client.close()
        await listener.close()
        server.cancel()
        #expect(bytes.count == payload.count)
        #expect(bytes == payload)
    }

    @Test func sendingAfterThePeerClosedIsATypedError() async throws {
        let listener = try await SDLTCPListener.bind(port: 0)
        let server = Task { try await listener.run { transport in await transport.close() } }
        let client = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        let running = Task { await client.run() }
        defer { running.cancel() }
        // The peer closes at once; reading sees the end.
        var inbound = client.inbound.makeAsyncIterator()
        _ = try? await inbound.next()
        var failure: SDLTransportError?
        for _ in 0..<100 {
            do {
                try await client.send(Array(repeating: 1, count: 1024))
            } catch let error as SDLTransportError {
                failure = error
                break
            }
        }
        #expect(failure == .closed || failure == .connectionReset)
        await client.close()
        await listener.close()
        server.cancel()
    }

    @Test func theChannelLivesInsideRun() async throws {
        let listener = try await SDLTCPListener.bind(port: 0)
        let (received, sink) = AsyncStream<[UInt8]>.makeStream()
        let server = Task {
            try await listener.run { transport in
                do { for try await chunk in transport.inbound { sink.yield(chunk) } } catch {}
            }
        }
        let client = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.send([1, 2, 3]) }  // waits until the run opens the channel
            group.addTask { await client.run() }
            var chunks = received.makeAsyncIterator()
            #expect(await chunks.next() == [1, 2, 3])
            await client.close()  // the run ends with it
            try await group.waitForAll()
        }
        await client.run()  // over: returns at once
        await #expect(throws: SDLTransportError.closed) { try await client.send([4]) }

        // Closed before it ever ran: nothing to run, nothing to send.
        let unused = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        await unused.close()
        await unused.run()
        await #expect(throws: SDLTransportError.closed) { try await unused.send([5]) }
        var inbound = unused.inbound.makeAsyncIterator()
        #expect(try await inbound.next() == nil)
        await listener.close()
        server.cancel()
    }
}
