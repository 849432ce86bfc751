import SDLConcurrency
import SmartDeviceLink

/// Memory hand-back for servers of thousands of sessions: here, beside the server, so the app
/// library apps link (on a phone, too) carries no allocator tuning.
extension SDLCloudAppHost {
    /// While sessions start or end, hands the memory the allocator kept after they freed it back
    /// to the system (glibc's `malloc_trim`; nothing elsewhere) at most once per `interval`, and
    /// once more `interval` after the last of them, until cancelled. glibc returns only the top
    /// of its heaps by itself, so after a burst of set-ups (every vehicle of a fleet dialing at
    /// once) the space their registrations and uploads used between what the sessions keep
    /// would otherwise stay resident: 10,000 vehicles, 74 to 85 KB of RSS per idle session
    /// without it, about 64 KB with it (BENCHMARKS.md). A release takes the allocator's locks
    /// for some milliseconds (65 ms with 10,000 sessions), so it runs only after sessions came
    /// or went, never on the host's actor. `SDLWebSocketServer` runs this when given an interval
    /// (off by default); a server feeding the host its own connections runs it beside them.
    public nonisolated func releaseFreedMemory(every interval: Duration) async {
        let clock = await app.session.clock
        // Sessions are looked at five times per interval; the last release comes an interval
        // after the last session came or went, when its set-up (registration, uploads) is over.
        let check = interval / 5
        var lastRelease = clock.now
        var lastChurn: Duration?
        var churnSinceRelease = false
        var next = clock.now + check
        while !Task.isCancelled {
            do { try await clock.sleep(until: next) } catch { return }
            let now = clock.now
            next = now + check
            if await takeSessionsChanged() {
                lastChurn = now
                churnSinceRelease = true
            }
            guard let churned = lastChurn else { continue }
            let duringBurst = churnSinceRelease && now - lastRelease >= interval
            let afterBurst = now - churned >= interval && lastRelease < churned + interval
            guard duringBurst || afterBurst else { continue }
            lastRelease = now
            churnSinceRelease = false
            guard FreedMemory.release() else { return }
            logReleased(took: clock.now - now)
        }
    }
}
