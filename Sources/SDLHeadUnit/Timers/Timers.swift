import SDLConcurrency
import SDLProtocol

/// What a head-unit timer ends or moves on. Serials tell apart the registration, interaction or
/// Speak a timer was set for, so a stale timer cannot act on a newer one.
enum TimerKey: Hashable, Sendable {
    /// The activation `Configuration.activationDelay` after a registration.
    case activation(appID: String, serial: Int)
    /// The timeout of the interaction on top.
    case interaction(appID: String, serial: Int)
    /// The end of a Speak's speaking time.
    case speech(appID: String, serial: Int)
    /// The next chunk of an audio pass-thru.
    case audioChunk(appID: String, serial: Int)
    /// A service provider's answer to a forwarded request is overdue.
    case forward(correlationID: UInt32)
}

/// Every timer of the head unit on one deadline schedule, run by one loop task that sleeps
/// until the earliest deadline on `Configuration.clock` (a manual clock in tests).
struct HeadUnitTimers: Sendable {
    var schedule = SDLDeadlineSchedule<TimerKey>()
    /// The loop task, while deadlines are pending.
    var loop: Task<Void, Never>?
    /// What the loop sleeps until; nil while it fires timers (it looks again afterwards).
    var target: Duration?
    /// Tells the current loop from one an earlier deadline replaced.
    var generation = 0
}

extension SDLHeadUnitEmulator {
    /// Sets (or moves) a timer `delay` from now.
    func schedule(_ key: TimerKey, after delay: Duration) {
        schedule(key, at: configuration.clock.now + delay)
    }

    func schedule(_ key: TimerKey, at deadline: Duration) {
        timers.schedule.schedule(key, at: deadline)
        if timers.loop == nil || timers.target.map({ deadline < $0 }) == true { startTimerLoop(until: deadline) }
    }

    func cancelTimer(_ key: TimerKey) {
        timers.schedule.cancel(key)
    }

    /// A loop sleeps on the clock itself (a manual clock wakes it as soon as it is advanced, as
    /// it woke the per-timer tasks this loop replaces); an earlier deadline cancels its sleep and
    /// takes over. It holds the emulator only while it fires timers.
    private func startTimerLoop(until first: Duration) {
        timers.loop?.cancel()
        timers.generation += 1
        timers.target = first
        let generation = timers.generation
        let clock = configuration.clock
        timers.loop = Task { [weak self] in
            var target = first
            while true {
                do { try await clock.sleep(until: target) } catch { return }
                guard let self, let next = await self.fireDueTimers(generation: generation) else { return }
                target = next
            }
        }
    }

    /// Fires the timers that are due; returns the next deadline to sleep until, or nil when the
    /// loop ends (nothing pending, or a newer loop took over).
    private func fireDueTimers(generation: Int) async -> Duration? {
        guard generation == timers.generation else { return nil }
        timers.target = nil
        for key in timers.schedule.popExpired(now: configuration.clock.now) {
            switch key {
            case .activation(let appID, _):
                if apps[appID] != nil { await perform(activationEffects(appID)) }
            case .interaction(let appID, let serial):
                await interactionTimedOut(appID: appID, serial: serial)
            case .speech(let appID, let serial):
                await speechEnded(appID: appID, serial: serial)
            case .audioChunk(let appID, let serial):
                await audioChunkDue(appID: appID, serial: serial)
            case .forward(let correlationID):
                await forwardTimedOut(correlationID)
            }
        }
        guard let next = timers.schedule.earliest() else {
            timers.loop = nil
            return nil
        }
        timers.target = next
        return next
    }
}
