import SDLRPC
import SDLRuntime

/// A media app's clock as the head unit runs it: where it stood when last set and which way it
/// moves, so the screen shows it running without the app sending every second (SDL Core's HMI
/// does the same from SetMediaClockTimer).
struct MediaClock: Sendable, Hashable {
    enum Motion: String, Sendable {
        case up = "UP"
        case down = "DOWN"
        case paused = "PAUSED"
    }

    /// The clock's reading at `since`, in seconds.
    var seconds: Int
    /// When it read `seconds`, on the emulator's clock.
    var since: Duration
    var motion: Motion
    /// Where counting stops (COUNTUP) or ends (COUNTDOWN; 0 without it).
    var endSeconds: Int?
    /// The direction RESUME continues in.
    var direction: Motion
    /// Clock seconds per real second (SetMediaClockTimer `countRate`, RPC 7.1; 1 without it).
    var rate: Double = 1

    /// The reading at `now`: counting up stops at the end time, counting down at the end time or 0.
    func reading(at now: Duration) -> Int {
        let elapsed = Int(((now - since) / .seconds(1)) * rate)
        switch motion {
        case .paused: return seconds
        case .up: return endSeconds.map { min(seconds + elapsed, max($0, seconds)) } ?? seconds + elapsed
        case .down: return max(seconds - elapsed, min(endSeconds ?? 0, seconds))
        }
    }

    /// The clock after `request` at `now`; nil once cleared. COUNTUP and COUNTDOWN start from
    /// their start time; PAUSE freezes the reading, RESUME continues in the last direction.
    static func applying(_ request: SetMediaClockTimer, to clock: MediaClock?, at now: Duration) -> MediaClock? {
        func seconds(_ time: StartTime?) -> Int? { time.map { $0.hours * 3600 + $0.minutes * 60 + $0.seconds } }
        switch request.updateMode {
        case .countup, .countdown:
            let direction: Motion = request.updateMode == .countup ? .up : .down
            return MediaClock(
                seconds: seconds(request.startTime) ?? 0, since: now, motion: direction, endSeconds: seconds(request.endTime), direction: direction,
                rate: request.countRate ?? 1)
        case .pause:
            guard var clock else { return nil }
            clock.seconds = seconds(request.startTime) ?? clock.reading(at: now)
            clock.since = now
            clock.motion = .paused
            if let end = seconds(request.endTime) { clock.endSeconds = end }
            return clock
        case .resume:
            guard var clock else { return nil }
            clock.seconds = clock.reading(at: now)
            clock.since = now
            clock.motion = clock.direction
            if let rate = request.countRate { clock.rate = rate }
            return clock
        default:
            return nil
        }
    }

    /// `{"seconds": 75, "counting": "UP", "endSeconds": 210, "rate": 2}`: the reading now, for the
    /// screen JSON (`rate` only when it is not 1).
    func json(at now: Duration) -> SDLJSONValue {
        .object(
            [.init(key: "seconds", value: .integer(reading(at: now))), .init(key: "counting", value: .string(motion.rawValue))]
                + (endSeconds.map { [.init(key: "endSeconds", value: .integer($0))] } ?? [])
                + (rate != 1 ? [.init(key: "rate", value: .float(rate))] : []))
    }
}
