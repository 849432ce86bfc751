import SDLTestSupport
@testable import SmartDeviceLink
import Synchronization
import Testing

/// The runner behind the manager's system requests: in order, one at a time, and a task only
/// while there is work.
@Suite(.timeLimit(.minutes(1)))
struct SerialRunnerTests {
    @Test func runsInOrderOneAtATimeAndAgainAfterIdling() async throws {
        let scope = TaskScope()
        let runner = SerialRunner(on: scope)
        let log = Mutex<[String]>([])
        let (gate, open) = AsyncStream<Void>.makeStream()
        let (done, finished) = AsyncStream<Void>.makeStream()
        runner.enqueue {
            log.withLock { $0.append("start 1") }
            for await _ in gate { break }
            log.withLock { $0.append("end 1") }
        }
        runner.enqueue { log.withLock { $0.append("2") } }
        runner.enqueue {
            log.withLock { $0.append("3") }
            finished.yield()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await scope.run() }
            try await until { log.withLock { $0 } == ["start 1"] }
            open.yield()
            var doneIterator = done.makeAsyncIterator()
            await doneIterator.next()
            #expect(log.withLock { $0 } == ["start 1", "end 1", "2", "3"])
            // Idle now; new work starts a runner again.
            runner.enqueue {
                log.withLock { $0.append("4") }
                finished.yield()
            }
            await doneIterator.next()
            #expect(log.withLock { $0 }.last == "4")
            group.cancelAll()
        }
    }
}
