import SDLTransport
import Testing

@Suite struct MemoryTransportTests {
    @Test func whatOneSideSendsTheOtherReceives() async throws {
        let (a, b) = SDLMemoryTransport.pair()
        try await a.send([1, 2, 3])
        var inbound = b.inbound.makeAsyncIterator()
        #expect(try await inbound.next() == [1, 2, 3])
    }
}
