import SDLRPC

/// A point in the app's video, in its pixels (the head unit's coordinates divided by the
/// negotiated scale).
public struct SDLPoint: Sendable, Hashable, CustomStringConvertible {
    /// Horizontal position, from the left.
    public var x: Double
    /// Vertical position, from the top.
    public var y: Double

    /// A point at (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// `(x, y)`.
    public var description: String { "(\(x), \(y))" }

    func distance(to other: SDLPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// What the driver did on the app's video, recognised from OnTouchEvent as the iOS library's
/// touch manager does.
public enum SDLTouchGesture: Sendable, Hashable {
    /// One short touch that did not move; reported once the double-tap window has passed.
    case tap(SDLPoint)
    /// Two taps close in time and place.
    case doubleTap(SDLPoint)
    /// One touch held without moving for the long-press time, reported when lifted.
    case longPress(SDLPoint)
    /// One finger started to move beyond the tap distance (from where it touched down).
    case panBegan(SDLPoint)
    /// The finger moved: the translation is `to - from`.
    case panMoved(from: SDLPoint, to: SDLPoint)
    /// The finger was lifted.
    case panEnded(SDLPoint)
    /// A second finger touched down: a pinch around the fingers' centre.
    case pinchBegan(center: SDLPoint)
    /// The fingers moved: `scale` is their distance over the distance when the pinch began.
    case pinchMoved(center: SDLPoint, scale: Double)
    /// A finger was lifted.
    case pinchEnded(center: SDLPoint)
    /// The head unit cancelled the touch (a dialog came over the video): a pan or pinch under way
    /// ends here.
    case cancelled(SDLPoint)
}

/// When touches count as taps, double taps and long presses. The defaults are the iOS
/// library's.
public struct SDLTouchThresholds: Sendable, Hashable {
    /// How far (in the head unit's pixels) a touch may move and still be a tap; also how close
    /// the two taps of a double tap must be.
    public var tapDistance: Double = 50
    /// How soon after the first tap the second must come for a double tap.
    public var doubleTapTime: Duration = .milliseconds(400)
    /// How long a touch must be held, without moving, to be a long press.
    public var longPressTime: Duration = .milliseconds(500)

    /// The iOS library's thresholds: 50 px, 0.4 s, and 0.5 s for a long press.
    public init() {}
}

/// Turns OnTouchEvent into gestures. A value: feed it events with the time they arrived and it
/// returns the gestures they complete; `flush(at:)` reports a tap once its double-tap window has
/// passed (`tapDeadline` says when). How long a touch was held and how far apart two taps were
/// come from the head unit's timestamps (`ts`), as in the iOS library, so a late delivery does not
/// turn a tap into a long press; the arrival times only time the wait for a second tap.
public struct SDLTouchGestureRecognizer: Sendable {
    public var thresholds: SDLTouchThresholds
    /// The head unit's scale for the video (VIDEO_STREAMING `scale`): points are divided by it.
    public var scale: Double

    private enum Mode: Sendable { case idle, touching, panning, pinching }
    private var mode = Mode.idle
    private var fingers: [Int: SDLPoint] = [:]
    private var touchDown: (point: SDLPoint, at: Duration, stamp: Duration)?
    private var lastPan: SDLPoint?
    private var pinchStartDistance: Double = 1
    private var pendingTap: (point: SDLPoint, at: Duration, stamp: Duration)?

    /// A recognizer with these thresholds, for a video shown at `scale`.
    public init(thresholds: SDLTouchThresholds = SDLTouchThresholds(), scale: Double = 1) {
        self.thresholds = thresholds
        self.scale = scale > 0 ? scale : 1
    }

    /// When a tap waiting for a possible second one is due, if one is.
    public var tapDeadline: Duration? { pendingTap.map { $0.at + thresholds.doubleTapTime } }

    /// Reports the waiting tap if its double-tap window has passed by `now`.
    public mutating func flush(at now: Duration) -> [SDLTouchGesture] {
        guard let tap = pendingTap, now >= tap.at + thresholds.doubleTapTime else { return [] }
        pendingTap = nil
        return [.tap(tap.point)]
    }

    /// One OnTouchEvent, received at `now`: the gestures it completes (a waiting tap whose
    /// window has passed comes first).
    public mutating func receive(_ event: OnTouchEvent, at now: Duration) -> [SDLTouchGesture] {
        var gestures = flush(at: now)
        // The head unit's time of the event (milliseconds), or the arrival time without one.
        let stamp = event.event.compactMap { $0.ts.last }.max().map { Duration.milliseconds($0) } ?? now
        for touch in event.event {
            guard let coordinate = touch.c.last else { continue }
            fingers[touch.id] = SDLPoint(x: Double(coordinate.x) / scale, y: Double(coordinate.y) / scale)
        }
        switch event.type {
        case .begin: gestures += began(at: now, stamp: stamp)
        case .move: gestures += moved()
        case .end: gestures += ended(event, at: now, stamp: stamp)
        case .cancel: gestures += cancelled()
        default: break
        }
        return gestures
    }

    /// The centre of the first two fingers (the pinch's), or of the one finger.
    private var center: SDLPoint {
        let points = fingers.sorted { $0.key < $1.key }.prefix(2).map(\.value)
        guard !points.isEmpty else { return SDLPoint(x: 0, y: 0) }
        return SDLPoint(x: points.map(\.x).reduce(0, +) / Double(points.count), y: points.map(\.y).reduce(0, +) / Double(points.count))
    }

    private var spread: Double {
        let points = fingers.sorted { $0.key < $1.key }.map(\.value)
        guard points.count >= 2 else { return 1 }
        return max(1, points[0].distance(to: points[1]))
    }

    private mutating func began(at now: Duration, stamp: Duration) -> [SDLTouchGesture] {
        // A third finger during a pinch is followed, but the pinch goes on around the first two.
        if mode == .pinching { return [] }
        if fingers.count >= 2 {
            var gestures: [SDLTouchGesture] = []
            if mode == .panning, let last = lastPan { gestures.append(.panEnded(last)) }
            mode = .pinching
            pinchStartDistance = spread
            touchDown = nil
            lastPan = nil
            gestures.append(.pinchBegan(center: center))
            return gestures
        }
        guard mode == .idle, let point = fingers.values.first else { return [] }
        mode = .touching
        touchDown = (point, now, stamp)
        return []
    }

    private mutating func moved() -> [SDLTouchGesture] {
        switch mode {
        case .pinching:
            return [.pinchMoved(center: center, scale: spread / pinchStartDistance)]
        case .touching:
            guard let down = touchDown, let point = fingers.values.first,
                point.distance(to: down.point) * scale > thresholds.tapDistance
            else { return [] }
            mode = .panning
            lastPan = point
            return [.panBegan(down.point), .panMoved(from: down.point, to: point)]
        case .panning:
            guard let from = lastPan, let point = fingers.values.first, point != from else { return [] }
            lastPan = point
            return [.panMoved(from: from, to: point)]
        case .idle:
            return []
        }
    }

    private mutating func ended(_ event: OnTouchEvent, at now: Duration, stamp: Duration) -> [SDLTouchGesture] {
        let lifted = event.event.compactMap { fingers[$0.id] }
        defer { for touch in event.event { fingers[touch.id] = nil } }
        switch mode {
        case .pinching:
            // The pinch is over when a finger leaves; the rest of the touch is ignored.
            mode = .idle
            return [.pinchEnded(center: center)]
        case .panning:
            mode = .idle
            let point = lifted.first ?? lastPan ?? center
            lastPan = nil
            return [.panEnded(point)]
        case .touching:
            mode = .idle
            guard let down = touchDown else { return [] }
            touchDown = nil
            var gestures: [SDLTouchGesture] = []
            if stamp - down.stamp >= thresholds.longPressTime {
                if let first = pendingTap { gestures.append(.tap(first.point)) }
                pendingTap = nil
                return gestures + [.longPress(down.point)]
            }
            if let first = pendingTap {
                if stamp - first.stamp <= thresholds.doubleTapTime, first.point.distance(to: down.point) * scale <= thresholds.tapDistance {
                    pendingTap = nil
                    return [.doubleTap(first.point)]
                }
                // Too late or too far for a double tap: the first was a tap of its own.
                gestures.append(.tap(first.point))
            }
            pendingTap = (down.point, now, stamp)
            return gestures
        case .idle:
            return []
        }
    }

    private mutating func cancelled() -> [SDLTouchGesture] {
        let point = mode == .pinching ? center : lastPan ?? touchDown?.point ?? center
        let wasGesture = mode == .panning || mode == .pinching
        mode = .idle
        touchDown = nil
        lastPan = nil
        fingers = [:]
        return wasGesture ? [.cancelled(point)] : []
    }
}
