/// Runs `work` on a child task and returns what it returns. A task keeps the memory its deepest
/// call needed until it ends (Swift's async frames come from a per-task allocator that keeps
/// its slabs), so one-off deep work (a registration, an upload, a sub-manager's start) on a
/// long-lived task would otherwise stay with every idle session of a server.
/// Never inlined: its task group would otherwise take room in the caller's frame for good,
/// when the caller is a long-lived loop.
@inline(never)
func onOwnTask<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
    await withTaskGroup(of: T.self) { group in
        group.addTask(operation: work)
        // The one child always returns a value.
        return await group.next()!
    }
}

/// `onOwnTask(_:)` for work that throws.
@inline(never)
func onOwnTask<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(operation: work)
        return try await group.next()!
    }
}
