import SDLConcurrency
import Testing

@Suite(.timeLimit(.minutes(1))) struct StreamFanOutTests {
    @Test func everySubscriberGetsEveryElementInOrder() async {
        let fanOut = StreamFanOut<Int>(bufferLimit: 8)
        let first = fanOut.subscribe()
        let second = fanOut.subscribe()
        for value in 1...3 { #expect(fanOut.yield(value) == 0) }
        fanOut.finish()
        #expect(await Array(first) == [1, 2, 3])
        #expect(await Array(second) == [1, 2, 3])
    }

    @Test func aSlowReaderDropsItsOldestAndTheDropsAreCounted() async {
        let fanOut = StreamFanOut<Int>(bufferLimit: 2)
        let slow = fanOut.subscribe()
        let drops = (1...5).map { fanOut.yield($0) }
        fanOut.finish()
        #expect(drops == [0, 0, 1, 1, 1])
        #expect(await Array(slow) == [4, 5])
    }

    @Test func aLateSubscriberGetsTheLatestWhenReplaying() async {
        let fanOut = StreamFanOut<String>(bufferLimit: 4, replaysLatest: true, initial: "none")
        fanOut.yield("full")
        let late = fanOut.subscribe()
        fanOut.finish(with: "ended")
        #expect(await Array(late) == ["full", "ended"])
        // After the end a subscriber still learns the last state, then its stream ends.
        #expect(await Array(fanOut.subscribe()) == ["ended"])
    }

    @Test func aFanOutThatDoesNotReplayKeepsNothing() async {
        let fanOut = StreamFanOut<[UInt8]>(bufferLimit: 4)
        let reader = fanOut.subscribe()
        fanOut.yield(Array(repeating: 1, count: 1_000))
        #expect(fanOut.latest == nil)
        fanOut.finish()
        #expect(await Array(reader).count == 1)
        #expect(await Array(fanOut.subscribe()).isEmpty)
    }

    @Test func aCancelledReaderIsForgotten() async {
        let fanOut = StreamFanOut<Int>(bufferLimit: 1)
        var stream: AsyncStream<Int>? = fanOut.subscribe()
        #expect(fanOut.subscriberCount == 1)
        stream = nil
        _ = stream
        #expect(fanOut.subscriberCount == 0)
    }
}

extension Array {
    fileprivate init<S: AsyncSequence>(_ sequence: S) async where S.Element == Element, S.Failure == Never {
        var elements: [Element] = []
        for await element in sequence { elements.append(element) }
        self = elements
    }
}
