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
