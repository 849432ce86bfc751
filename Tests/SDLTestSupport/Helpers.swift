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

/// A test helper's failure (a dial, a bind, a relay), so that waits for what the helper was to
/// bring end at once with its reason instead of waiting for an event that can no longer come.
public final class HelperFailure: Sendable {
    private struct State {
        var error: (any Error)?
        var waiters: [Int: CheckedContinuation<(any Error)?, Never>] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// The first failure reported, if any.
    public var error: (any Error)? { state.withLock { $0.error } }

    /// Reports a failure; the first one counts, and every wait on it ends.
    public func fail(_ error: any Error) {
        let waiters = state.withLock { state -> [CheckedContinuation<(any Error)?, Never>] in
            guard state.error == nil else { return [] }
            state.error = error
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    /// Returns the failure once there is one, or nil when the waiting task is cancelled first.
    func failure() async -> (any Error)? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                let now = state.withLock { state -> (any Error)?? in
                    if let error = state.error { return .some(error) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }
}

/// A helper's failure, with what it was doing: "the vehicle's dial to ws://... failed: ...".
public struct HelperFailed: Error, CustomStringConvertible {
    public let description: String
    public init(_ what: String, _ error: any Error) { description = "\(what) failed: \(error)" }
}

/// `waitFor(_:count:_:)`, ended at once by `failure`: throws the helper's error when it fails
/// before `count` matching elements went by.
public func waitFor<Element: Sendable>(
    _ events: AsyncStream<Element>, count: Int = 1, unless failure: HelperFailure, _ match: @escaping @Sendable (Element) -> Bool
) async throws {
    if let error = failure.error { throw error }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await waitFor(events, count: count, match) }
        group.addTask { if let error = await failure.failure() { throw error } }
        // The first to end decides: the events, or the failure (whose wait is then cancelled).
        defer { group.cancelAll() }
        try await group.next()
    }
}
