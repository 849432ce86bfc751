import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The driver's touches on the video of a navigation or projection app, as SDL Core passes the
/// HMI's touches on: OnTouchEvent to a NAVIGATION or PROJECTION app in FULL, when its policy
/// grants OnTouchEvent (SDL Core's HapticGroup or OnTouchEventOnlyGroup; its default group does
/// not). Coordinates are the video's pixels, unscaled.
extension SDLHeadUnitEmulator {
    /// One finger of a touch: its ID (0–9) and where it is.
    public struct TouchPoint: Sendable, Hashable {
        /// The finger, 0–9; BEGIN adds it, END and CANCEL end it.
        public var id: Int
        /// Horizontal position in the video's pixels.
        public var x: Int
        /// Vertical position in the video's pixels.
        public var y: Int

        /// A finger at (`x`, `y`).
        public init(id: Int = 0, x: Int, y: Int) {
            self.id = id
            self.x = x
            self.y = y
        }
    }

    /// The driver touches the app's video: BEGIN, MOVE, END or CANCEL with the fingers' points,
    /// time-stamped in milliseconds on the emulator's clock. Returns whether the app got it (it
    /// must be a navigation or projection app in FULL whose policy grants OnTouchEvent).
    @discardableResult
    public func touch(appID: String, _ type: TouchType, _ points: [TouchPoint]) async throws(SDLHeadUnitControlError) -> Bool {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        guard !points.isEmpty, points.allSatisfy({ (0...9).contains($0.id) && $0.x >= 0 && $0.y >= 0 && $0.x <= 10_000 && $0.y <= 10_000 }) else {
            throw .invalidAnswer("a touch needs 1 or more points with IDs 0–9 and coordinates 0–10000")
        }
        if let hmiDriver { return try await hmiDriver.touch(appID: appID, type, points) }
        guard Self.isVideoApp(app), app.hmiLevel == .full,
            case .allowed = policy.decide("OnTouchEvent", level: app.hmiLevel, appID: appID, updated: app.policyUpdated, parameters: [])
        else { return false }
        let milliseconds = Int(configuration.clock.now / .milliseconds(1)) % 2_000_000_000
        let events = points.map { TouchEvent(id: $0.id, ts: [milliseconds], c: [TouchCoord(x: $0.x, y: $0.y)]) }
        await perform([notification(OnTouchEvent(type: type, event: events), to: appID)])
        return true
    }

    /// The driver turns driver distraction on (the car moves) or off: every app gets
    /// OnDriverDistraction, as SDL Core sends it.
    public func setDriverDistraction(_ on: Bool) async {
        if let hmiDriver { return await hmiDriver.setDriverDistraction(on) }
        await driverDistractionChanged(on)
    }

    /// The HMI reports driver distraction (UI.OnDriverDistraction): every app hears it.
    func driverDistractionChanged(_ on: Bool) async {
        driverDistracted = on
        await perform(apps.keys.sorted().map { notification(Self.driverDistraction(on: on, dismissalEnabled: on), to: $0) })
        emit(.driverDistractionChanged(on: on))
    }

    /// OnDriverDistraction as SDL Core 8.2 words it: a lock screen the passenger may dismiss
    /// always comes with Core's warning text. Core sends dismissal enabled while the car moves
    /// and disabled once it stops (`state` DD_OFF); right after registration it sends the state
    /// twice, first with dismissal enabled, then as the HMI reports it (both recorded sessions).
    static func driverDistraction(on: Bool, dismissalEnabled: Bool) -> OnDriverDistraction {
        OnDriverDistraction(
            state: on ? .ddOn : .ddOff, lockScreenDismissalEnabled: dismissalEnabled,
            lockScreenDismissalWarning: dismissalEnabled ? "Swipe down to dismiss, acknowledging that you are not the driver" : nil)
    }

    /// Whether driver distraction is on now.
    public var isDriverDistracted: Bool { driverDistracted }
}

/// Gestures the driver makes on a navigation app's video, as BEGIN/MOVE/END sequences of
/// OnTouchEvent, for tests and the control API.
extension SDLHeadUnitEmulator {
    /// A tap at (`x`, `y`): BEGIN then END.
    @discardableResult
    public func tap(appID: String, x: Int, y: Int) async throws(SDLHeadUnitControlError) -> Bool {
        let point = TouchPoint(x: x, y: y)
        guard try await touch(appID: appID, .begin, [point]) else { return false }
        return try await touch(appID: appID, .end, [point])
    }

    /// Two taps at the same place.
    @discardableResult
    public func doubleTap(appID: String, x: Int, y: Int) async throws(SDLHeadUnitControlError) -> Bool {
        guard try await tap(appID: appID, x: x, y: y) else { return false }
        return try await tap(appID: appID, x: x, y: y)
    }

    /// One finger from `from` to `to` in `steps` MOVE events.
    @discardableResult
    public func pan(appID: String, from: (x: Int, y: Int), to: (x: Int, y: Int), steps: Int = 5) async throws(SDLHeadUnitControlError) -> Bool {
        let count = max(1, steps)
        guard try await touch(appID: appID, .begin, [TouchPoint(x: from.x, y: from.y)]) else { return false }
        for step in 1...count {
            let x = from.x + (to.x - from.x) * step / count
            let y = from.y + (to.y - from.y) * step / count
            try await touch(appID: appID, .move, [TouchPoint(x: x, y: y)])
        }
        return try await touch(appID: appID, .end, [TouchPoint(x: to.x, y: to.y)])
    }

    /// Two fingers on a horizontal line through `center`, from `fromDistance` apart to
    /// `toDistance` apart (wider: zoom in), in `steps` MOVE events.
    @discardableResult
    public func pinch(
        appID: String, center: (x: Int, y: Int), fromDistance: Int, toDistance: Int, steps: Int = 5
    ) async throws(SDLHeadUnitControlError) -> Bool {
        func fingers(_ distance: Int) -> [TouchPoint] {
            [TouchPoint(id: 0, x: max(0, center.x - distance / 2), y: center.y), TouchPoint(id: 1, x: center.x + distance / 2, y: center.y)]
        }
        let count = max(1, steps)
        guard try await touch(appID: appID, .begin, fingers(fromDistance)) else { return false }
        for step in 1...count {
            try await touch(appID: appID, .move, fingers(fromDistance + (toDistance - fromDistance) * step / count))
        }
        return try await touch(appID: appID, .end, fingers(toDistance))
    }
}
