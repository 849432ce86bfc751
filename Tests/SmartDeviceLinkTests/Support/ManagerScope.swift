import SmartDeviceLink
import Synchronization
import Testing

/// Each test's managers run as child tasks of the test itself: a suite with `.runsManagers`
/// gives every test a scope, `startRunning(_:)` hands a manager to it, and when the test ends
/// the scope stops every manager it ran and waits for their runs, so no manager outlives its test.
struct ManagerScopeTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope would hold its tests' managers together; each test gets its own.
        guard !test.isSuite else { return try await function() }
        try await TestManagerScope.run(function)
    }
}

extension Trait where Self == ManagerScopeTrait {
    /// Every test of the suite runs its managers in a scope of its own (see `startRunning`).
    static var runsManagers: Self { ManagerScopeTrait() }
}

/// Runs `manager` as a child of the test's scope and returns once it is Ready; throws why it
/// could not get there. Fails at once in a suite without `.runsManagers`.
func startRunning(_ manager: SDLManager) async throws {
    guard let scope = TestManagerScope.current else {
        throw SDLError(.notReady, "the test runs no manager scope: give its suite the .runsManagers trait")
    }
    try await scope.start(manager)
}

final class TestManagerScope: Sendable {
    @TaskLocal static var current: TestManagerScope?

    private let queue: AsyncStream<SDLManager>
    private let intake: AsyncStream<SDLManager>.Continuation
    /// Weakly: a test may check that a stopped manager is freed.
    private let started = Mutex<[WeakManager]>([])

    private init() {
        (queue, intake) = AsyncStream.makeStream()
    }

    static func run(_ function: @Sendable () async throws -> Void) async throws {
        let scope = TestManagerScope()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withDiscardingTaskGroup { runs in
                    for await manager in scope.queue {
                        // Its failure is what `start` (through `waitUntilReady`) throws.
                        runs.addTask { try? await manager.run() }
                    }
                }
            }
            do {
                try await $current.withValue(scope) { try await function() }
            } catch {
                await scope.end()
                throw error
            }
            await scope.end()
            try await group.waitForAll()
        }
    }

    func start(_ manager: SDLManager) async throws {
        started.withLock { $0.append(WeakManager(manager: manager)) }
        intake.yield(manager)
        try await manager.waitUntilReady()
    }

    /// Stops what the test left running; the runs then end.
    private func end() async {
        intake.finish()
        for manager in started.withLock({ $0 }).compactMap(\.manager) { await manager.stop() }
    }
}

private struct WeakManager: Sendable {
    weak var manager: SDLManager?
}
