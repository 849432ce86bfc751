import SDLRPC
import Testing

@testable import SmartDeviceLink

/// OnTouchEvent sequences (as the emulator's gestures send them) turned into gestures, with the
/// iOS library's thresholds and the video's scale. A pure value: no emulator, no clock. (Here the
/// head unit's timestamps and the arrival times agree; durations come from the timestamps.)
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct TouchGestureTests {
    /// An event stamped `ts` milliseconds on the head unit's clock.
    static func event(_ type: TouchType, _ points: [(id: Int, x: Int, y: Int)], ts: Int) -> OnTouchEvent {
        OnTouchEvent(type: type, event: points.map { TouchEvent(id: $0.id, ts: [ts], c: [TouchCoord(x: $0.x, y: $0.y)]) })
    }

    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func aTapIsReportedOnceTheDoubleTapWindowHasPassed() {
        var recognizer = SDLTouchGestureRecognizer()
        #expect(recognizer.receive(Self.event(.begin, [(0, 100, 100)], ts: 0), at: Self.ms(0)).isEmpty)
        #expect(recognizer.receive(Self.event(.end, [(0, 102, 101)], ts: 80), at: Self.ms(80)).isEmpty)
        #expect(recognizer.tapDeadline == Self.ms(480))
        #expect(recognizer.flush(at: Self.ms(300)).isEmpty)
        #expect(recognizer.flush(at: Self.ms(480)) == [.tap(SDLPoint(x: 100, y: 100))])
    }

    @Test func twoQuickTapsAreADoubleTapAndAHeldTouchALongPress() {
        var recognizer = SDLTouchGestureRecognizer()
        _ = recognizer.receive(Self.event(.begin, [(0, 100, 100)], ts: 0), at: Self.ms(0))
        _ = recognizer.receive(Self.event(.end, [(0, 100, 100)], ts: 50), at: Self.ms(50))
        _ = recognizer.receive(Self.event(.begin, [(0, 110, 105)], ts: 200), at: Self.ms(200))
        #expect(recognizer.receive(Self.event(.end, [(0, 110, 105)], ts: 250), at: Self.ms(250)) == [.doubleTap(SDLPoint(x: 100, y: 100))])
        #expect(recognizer.flush(at: Self.ms(2_000)).isEmpty)

        _ = recognizer.receive(Self.event(.begin, [(0, 300, 200)], ts: 3_000), at: Self.ms(3_000))
        #expect(recognizer.receive(Self.event(.end, [(0, 300, 200)], ts: 3_600), at: Self.ms(3_600)) == [.longPress(SDLPoint(x: 300, y: 200))])
    }

    @Test func aMovingFingerPansWithItsTranslation() {
        var recognizer = SDLTouchGestureRecognizer()
        _ = recognizer.receive(Self.event(.begin, [(0, 100, 100)], ts: 0), at: Self.ms(0))
        #expect(recognizer.receive(Self.event(.move, [(0, 120, 100)], ts: 10), at: Self.ms(10)).isEmpty, "within the tap distance")
        #expect(
            recognizer.receive(Self.event(.move, [(0, 200, 100)], ts: 20), at: Self.ms(20)) == [
                .panBegan(SDLPoint(x: 100, y: 100)), .panMoved(from: SDLPoint(x: 100, y: 100), to: SDLPoint(x: 200, y: 100)),
            ])
        #expect(
            recognizer.receive(Self.event(.move, [(0, 250, 130)], ts: 30), at: Self.ms(30)) == [
                .panMoved(from: SDLPoint(x: 200, y: 100), to: SDLPoint(x: 250, y: 130))
            ])
        #expect(recognizer.receive(Self.event(.end, [(0, 250, 130)], ts: 40), at: Self.ms(40)) == [.panEnded(SDLPoint(x: 250, y: 130))])
        #expect(recognizer.flush(at: Self.ms(5_000)).isEmpty, "a pan is no tap")
    }

    @Test func twoFingersPinchWithTheirScaleAroundTheirCentre() {
        var recognizer = SDLTouchGestureRecognizer()
        #expect(
            recognizer.receive(Self.event(.begin, [(0, 350, 200), (1, 450, 200)], ts: 0), at: Self.ms(0)) == [.pinchBegan(center: SDLPoint(x: 400, y: 200))])
        #expect(
            recognizer.receive(Self.event(.move, [(0, 300, 200), (1, 500, 200)], ts: 10), at: Self.ms(10)) == [
                .pinchMoved(center: SDLPoint(x: 400, y: 200), scale: 2)
            ])
        #expect(
            recognizer.receive(Self.event(.end, [(0, 300, 200), (1, 500, 200)], ts: 20), at: Self.ms(20)) == [.pinchEnded(center: SDLPoint(x: 400, y: 200))])
    }

    @Test func aCancelEndsAPanAndTheScaleConvertsCoordinates() {
        var recognizer = SDLTouchGestureRecognizer(scale: 2)
        _ = recognizer.receive(Self.event(.begin, [(0, 200, 200)], ts: 0), at: Self.ms(0))
        #expect(recognizer.receive(Self.event(.move, [(0, 400, 200)], ts: 10), at: Self.ms(10)).first == .panBegan(SDLPoint(x: 100, y: 100)))
        #expect(recognizer.receive(Self.event(.cancel, [(0, 400, 200)], ts: 20), at: Self.ms(20)) == [.cancelled(SDLPoint(x: 200, y: 100))])
    }

    @Test func durationsComeFromTheHeadUnitsTimestampsNotFromWhenEventsArrive() {
        var recognizer = SDLTouchGestureRecognizer()
        // Held 600 ms on the head unit, delivered 10 ms apart: a long press.
        _ = recognizer.receive(Self.event(.begin, [(0, 10, 10)], ts: 1_000), at: Self.ms(0))
        #expect(recognizer.receive(Self.event(.end, [(0, 10, 10)], ts: 1_600), at: Self.ms(10)) == [.longPress(SDLPoint(x: 10, y: 10))])
        // Two taps 700 ms apart on the head unit, arriving together: two taps, no double tap.
        _ = recognizer.receive(Self.event(.begin, [(0, 10, 10)], ts: 2_000), at: Self.ms(20))
        _ = recognizer.receive(Self.event(.end, [(0, 10, 10)], ts: 2_050), at: Self.ms(20))
        _ = recognizer.receive(Self.event(.begin, [(0, 10, 10)], ts: 2_750), at: Self.ms(21))
        #expect(recognizer.receive(Self.event(.end, [(0, 10, 10)], ts: 2_800), at: Self.ms(21)) == [.tap(SDLPoint(x: 10, y: 10))])
        #expect(recognizer.flush(at: Self.ms(1_000)) == [.tap(SDLPoint(x: 10, y: 10))], "the second tap, once its window passed")
    }

    @Test func fingersBeginningApartPinchAndAThirdFingerDoesNotRestartIt() {
        var recognizer = SDLTouchGestureRecognizer()
        _ = recognizer.receive(Self.event(.begin, [(0, 300, 200)], ts: 0), at: Self.ms(0))
        // The second finger's own BEGIN starts the pinch around both.
        #expect(recognizer.receive(Self.event(.begin, [(1, 500, 200)], ts: 5), at: Self.ms(5)) == [.pinchBegan(center: SDLPoint(x: 400, y: 200))])
        #expect(recognizer.receive(Self.event(.begin, [(2, 900, 900)], ts: 6), at: Self.ms(6)) == [], "a third finger")
        #expect(
            recognizer.receive(Self.event(.move, [(0, 250, 200), (1, 550, 200)], ts: 10), at: Self.ms(10)).first
                == .pinchMoved(center: SDLPoint(x: 400, y: 200), scale: 1.5))
        // One finger lifts: the pinch ends.
        #expect(
            recognizer.receive(Self.event(.end, [(1, 550, 200)], ts: 20), at: Self.ms(20)).first.map { if case .pinchEnded = $0 { true } else { false } }
                == true)
    }

    @Test func aCancelledPinchReportsItsCentreNotAnEarlierPan() {
        var recognizer = SDLTouchGestureRecognizer()
        _ = recognizer.receive(Self.event(.begin, [(0, 0, 0)], ts: 0), at: Self.ms(0))
        _ = recognizer.receive(Self.event(.move, [(0, 100, 0)], ts: 10), at: Self.ms(10))
        _ = recognizer.receive(Self.event(.end, [(0, 100, 0)], ts: 20), at: Self.ms(20))
        _ = recognizer.receive(Self.event(.begin, [(0, 300, 300), (1, 500, 300)], ts: 1_000), at: Self.ms(1_000))
        #expect(
            recognizer.receive(Self.event(.cancel, [(0, 300, 300), (1, 500, 300)], ts: 1_010), at: Self.ms(1_010)) == [.cancelled(SDLPoint(x: 400, y: 300))])
    }
}
