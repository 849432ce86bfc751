import Logging
import SDLRPC
import SDLRuntime

/// A change of the media clock (progress bar, position and remaining time) and of the
/// play/pause indicator, for media apps on a media template.
///
/// ```swift
/// try await manager.screen.setMediaClock(.countUp(from: .seconds(30), to: .seconds(253), indicator: .pause))
/// try await manager.screen.setMediaClock(.pause(indicator: .play))
/// // RPC 7.1: the seek buttons say how far they jump; an audiobook at 1.5x.
/// try await manager.screen.setMediaClock(
///     .countUp(from: .zero, to: .seconds(3_600), indicator: .pause)
///         .seeking(forward: .seconds(30), back: .seconds(10)).counting(atRate: 1.5))
/// ```
public struct SDLMediaClock: Sendable, Hashable {
    /// What the clock does: count up, count down, pause, resume or clear.
    public var mode: UpdateMode
    /// The time the clock starts from (or is moved to while paused); nil keeps it.
    public var start: Duration?
    /// The time the progress bar ends at; nil leaves it open.
    public var end: Duration?
    /// The play/pause button's icon (RPC 5.0+; left out with a log line before).
    public var indicator: AudioStreamingIndicator?
    /// What the seek-forward button shows: a track skip, or a jump of 1–99 seconds (RPC 7.1+;
    /// left out with a log line before).
    public var forwardSeekIndicator: SeekStreamingIndicator?
    /// What the seek-back button shows (RPC 7.1+; left out with a log line before).
    public var backSeekIndicator: SeekStreamingIndicator?
    /// How fast the clock runs: clock seconds per real second, 0.1–100 (RPC 7.1+; 1 before).
    public var countRate: Double?

    init(mode: UpdateMode, start: Duration? = nil, end: Duration? = nil, indicator: AudioStreamingIndicator?) {
        self.mode = mode
        self.start = start
        self.end = end
        self.indicator = indicator
    }

    /// Counts up from `start` towards `end` (open-ended when nil) every second.
    public static func countUp(from start: Duration, to end: Duration? = nil, indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .countup, start: start, end: end, indicator: indicator)
    }

    /// Counts down from `start` to `end` (0:00 when nil).
    public static func countDown(from start: Duration, to end: Duration = .zero, indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .countdown, start: start, end: end, indicator: indicator)
    }

    /// Stops the clock where it is.
    public static func pause(indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .pause, indicator: indicator)
    }

    /// Stops the clock and moves it to new times, still paused.
    public static func pause(newStart: Duration, newEnd: Duration, indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .pause, start: newStart, end: newEnd, indicator: indicator)
    }

    /// Runs the clock again from where it was paused.
    public static func resume(indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .resume, indicator: indicator)
    }

    /// Removes the clock from the screen.
    public static func clear(indicator: AudioStreamingIndicator? = nil) -> Self {
        Self(mode: .clear, indicator: indicator)
    }

    /// The same with the seek buttons' indicators: a jump of `forward`/`back` (whole seconds,
    /// 1–99), or nil for a track skip (the head unit's default).
    public func seeking(forward: Duration?, back: Duration?) -> Self {
        func indicator(_ jump: Duration?) -> SeekStreamingIndicator {
            jump.map { SeekStreamingIndicator(type: .time, seekTime: Int($0.components.seconds)) } ?? SeekStreamingIndicator(type: .track)
        }
        var clock = self
        clock.forwardSeekIndicator = indicator(forward)
        clock.backSeekIndicator = indicator(back)
        return clock
    }

    /// The same running at `rate` clock seconds per real second (0.1–100), such as 1.5 for an
    /// audiobook played faster.
    public func counting(atRate rate: Double) -> Self {
        var clock = self
        clock.countRate = rate
        return clock
    }

    static func time(_ duration: Duration) -> StartTime {
        let seconds = max(0, Int(duration.components.seconds))
        return StartTime(hours: seconds / 3_600, minutes: seconds / 60 % 60, seconds: seconds % 60)
    }
}

extension SDLScreenManager {
    /// Sets the media clock through the screen queue. Refused before sending for apps without
    /// the MEDIA type (SDL Core answers REJECTED) and for a count that runs the wrong way.
    public func setMediaClock(_ clock: SDLMediaClock) async throws {
        do throws(SDLScreenError) {
            guard let manager = current else { throw .stopped }
            guard (await manager.appTypes).contains(.media) else { throw .invalid(.notMediaApp) }
            for seek in [clock.forwardSeekIndicator, clock.backSeekIndicator].compactMap({ $0 }) {
                if let time = seek.seekTime, !(1...99).contains(time) || seek.type != .time { throw .invalid(.seekTime(time)) }
            }
            if let rate = clock.countRate, !(0.1...100).contains(rate) { throw .invalid(.countRate(rate)) }
            if let start = clock.start, let end = clock.end {
                if clock.mode == .countup && start > end || clock.mode == .countdown && start < end {
                    throw .invalid(.mediaClockRange(start: start, end: end, counting: clock.mode))
                }
            }
            _ = try await enqueue(.mediaClock(clock))
        } catch {
            throw SDLError(error)
        }
    }

    func apply(_ clock: SDLMediaClock) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        var indicator = clock.indicator
        if indicator != nil, await manager.rpcVersion() < .version(5, 0) {
            logger.info("the head unit's RPC version has no audio streaming indicator; the media clock is sent without it")
            indicator = nil
        }
        var forward = clock.forwardSeekIndicator
        var back = clock.backSeekIndicator
        var rate = clock.countRate
        if forward != nil || back != nil || rate != nil, await manager.rpcVersion() < .version(7, 1) {
            logger.info("the head unit's RPC version has no seek indicators or count rate (7.1); the media clock is sent without them")
            (forward, back, rate) = (nil, nil, nil)
        }
        _ = try await request(
            SetMediaClockTimer(
                startTime: clock.start.map(SDLMediaClock.time), endTime: clock.end.map(SDLMediaClock.time), updateMode: clock.mode,
                audioStreamingIndicator: indicator, forwardSeekIndicator: forward, backSeekIndicator: back, countRate: rate), manager: manager)
    }
}
