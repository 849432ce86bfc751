/// Time as sessions see it: offsets from an arbitrary origin on an injected clock, so tests drive
/// timeouts and heartbeats by advancing a clock instead of waiting.
public struct SDLClock: Sendable {
    private let currentOffset: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// The clock this one wraps, for code that needs it back (a test advancing its clock).
    public let base: any Clock<Duration>

    /// Wraps any clock that measures in `Duration` (`ContinuousClock`, a test clock...).
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        base = clock
        let origin = clock.now
        currentOffset = { origin.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// The real clock; keeps running while the machine sleeps, as a head unit's timers do.
    public static let continuous = SDLClock(ContinuousClock())

    /// Now, as an offset from this clock's origin.
    public var now: Duration { currentOffset() }

    /// Suspends until `deadline` (an offset from `now`'s origin); throws on cancellation.
    public func sleep(until deadline: Duration) async throws {
        try await sleeper(deadline)
    }

    /// Returns at `deadline` (never, when nil), as soon as `interruption` yields or finishes, or
    /// when the task is cancelled: how a timer loop waits for its earliest deadline while staying
    /// ready for an earlier one.
    public func sleep(until deadline: Duration?, interruptedBy interruption: AsyncStream<Void>) async {
        guard let deadline else {
            // Nothing to time: wait on the calling task, no child (an idle session's loops wait here).
            for await _ in interruption { return }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.sleep(until: deadline) }
            group.addTask {
                for await _ in interruption { return }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
