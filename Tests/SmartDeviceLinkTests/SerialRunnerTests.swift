import SDLTestSupport
import Synchronization
import Testing

@testable import SmartDeviceLink

/// The runner behind the manager's system requests: in order, one at a time, and a task only
/// while there is work.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
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

extension SerialRunnerTests {
    @Test func lateWorkIsKeptForTheOwnerToRunWhenAsked() async {
        let scope = TaskScope()
        scope.finish()
        let runner = SerialRunner(on: scope, keepsLateWork: true)
        let log = Mutex<[Int]>([])
        runner.enqueue { log.withLock { $0.append(1) } }
        runner.enqueue { log.withLock { $0.append(2) } }
        await runner.drainHere()
        #expect(log.withLock { $0 } == [1, 2])
        // Without keeping, late work is dropped.
        let dropping = SerialRunner(on: scope)
        dropping.enqueue { log.withLock { $0.append(3) } }
        await dropping.drainHere()
        #expect(log.withLock { $0 } == [1, 2])
    }
}

/// The one cancellation idiom: a cancelled waiter is resumed by its cancellation handler under
/// the lock, at once, with nobody else's help (no task hop to an actor).
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct PendingRepliesTests {
    struct Cancelled: Error, Equatable {}
    struct Missing: Error, Equatable {}

    @Test func aCancelledWaiterEndsAtOnceWithItsError() async throws {
        let replies = PendingReplies<Int, String>()
        replies.expect(7)
        let waiter = Task { try await replies.wait(for: 7, missing: Missing(), cancelled: Cancelled()) }
        try await until { replies.count == 1 }
        waiter.cancel()
        await #expect(throws: Cancelled.self) { try await waiter.value }
        // The entry is gone; a late answer finds nobody.
        #expect(!replies.complete(7, .success("late")))
    }

    @Test func anAnswerBeforeTheWaitIsKeptAndAnythingUnexpectedIsMissing() async throws {
        let replies = PendingReplies<Int, String>()
        replies.expect(1)
        #expect(replies.complete(1, .success("early")))
        #expect(try await replies.wait(for: 1, missing: Missing(), cancelled: Cancelled()) == "early")
        await #expect(throws: Missing.self) { try await replies.wait(for: 2, missing: Missing(), cancelled: Cancelled()) }
    }

    @Test func completingAllFailsEveryWaiter() async throws {
        let replies = PendingReplies<Int, String>()
        replies.expect(1)
        replies.expect(2)
        let waiters = [1, 2].map { id in Task { try await replies.wait(for: id, missing: Missing(), cancelled: Cancelled()) } }
        replies.completeAll(.failure(Missing()))
        for waiter in waiters { await #expect(throws: Missing.self) { try await waiter.value } }
        #expect(replies.count == 0)
    }
}
