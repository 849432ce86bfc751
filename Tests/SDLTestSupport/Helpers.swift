import Synchronization

/// The result of an async call, for checking errors after the fact.
public func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// Collects values from callbacks that may run on any thread.
public final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    public init(_ value: Value) { self.value = Mutex(value) }
    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    public var current: Value { value.withLock { $0 } }
}

/// Returns once `condition` holds, yielding to the tasks that make it hold; throws when the task
/// is cancelled (a test's time limit) instead of spinning on.
public func until(_ condition: () async -> Bool) async throws {
    while await !condition() {
        try Task.checkCancellation()
        await Task.yield()
    }
}

/// Runs `body`, then `cleanup`, also when `body` throws: `defer` cannot await.
public func run<T>(_ body: () async throws -> T, thenAlways cleanup: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}

/// Returns once `count` elements `match` accepts went by (or the stream ended): for tests that
/// synchronise on events rather than sleeps.
public func waitFor<Element>(_ events: AsyncStream<Element>, count: Int = 1, _ match: (Element) -> Bool) async {
    var seen = 0
    for await event in events where match(event) {
        seen += 1
        if seen == count { return }
    }
}
