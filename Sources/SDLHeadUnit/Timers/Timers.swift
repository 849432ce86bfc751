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
    /// The HMI's answer to request `id` is overdue (SDL Core's DefaultTimeout).
    case hmiRequest(id: Int)
}

/// Every timer of the head unit on one deadline schedule, fired by one loop that sleeps until
/// the earliest deadline on `Configuration.clock` (a manual clock in tests). The loop is a child
/// task of one connection's `serve` (the timer owner's): timers belong to apps, and apps live
/// on connections. When that connection ends, another connection being served takes the loop
/// over; with no connection there is no app and nothing to time.
struct HeadUnitTimers: Sendable {
    var schedule = SDLDeadlineSchedule<TimerKey>()
    /// The connection whose serve runs the loop.
    var owner: Int?
    /// What tells each served connection's serve to run the loop (when it becomes the owner).
    var duties: [Int: AsyncStream<Void>.Continuation] = [:]
    /// What the loop sleeps until; nil while it fires timers or has nothing to wait for.
    var target: Duration?
    /// Wakes the loop's sleep when an earlier deadline arrives.
    var wake: AsyncStream<Void>.Continuation?
}

extension SDLHeadUnitEmulator {
    /// Sets (or moves) a timer `delay` from now.
    func schedule(_ key: TimerKey, after delay: Duration) {
        schedule(key, at: configuration.clock.now + delay)
    }

    func schedule(_ key: TimerKey, at deadline: Duration) {
        timers.schedule.schedule(key, at: deadline)
        if timers.target.map({ deadline < $0 }) ?? true { timers.wake?.yield() }
    }

    func cancelTimer(_ key: TimerKey) {
        timers.schedule.cancel(key)
    }

    /// The timer loop, run by the owning connection's serve until its connection ends (the
    /// task is cancelled): sleeps until the earliest deadline or an earlier one arrives, fires
    /// what is due, and sleeps again.
    func runTimers() async {
        let clock = configuration.clock
        while !Task.isCancelled {
            let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let target = timers.schedule.earliest()
            timers.target = target
            timers.wake = wake
            await clock.sleep(until: target, interruptedBy: signal)
            timers.wake = nil
            timers.target = nil
            if Task.isCancelled { return }
            await fireDueTimers()
        }
    }

    /// Fires the timers that are due.
    private func fireDueTimers() async {
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
            case .hmiRequest(let id):
                await perform(hmiRequestTimedOut(id))
            }
        }
    }
}
