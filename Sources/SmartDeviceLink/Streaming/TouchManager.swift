import Logging
import SDLConcurrency
import SDLRPC

/// The driver's touches on a NAVIGATION or PROJECTION app's video, as gestures: tap, double
/// tap, long press, pan, pinch and cancel, in the app's video coordinates (the head unit's
/// divided by the stream's scale).
///
/// ```swift
/// for await gesture in await manager.touch.gestures() {
///     if case .tap(let point) = gesture { print("tapped at", point) }
/// }
/// ```
///
/// The head unit sends OnTouchEvent only to NAVIGATION and PROJECTION apps in FULL whose policy
/// grants it (SDL Core's `HapticGroup` or `OnTouchEventOnlyGroup`). The raw events stay
/// available through ``touchEvents()``.
public actor SDLTouchManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLStreamingContext
    private let logger: Logger
    private var recognizer = SDLTouchGestureRecognizer()
    private let gestureFanOut = StreamFanOut<SDLTouchGesture>(bufferLimit: 64)
    /// Whether the listener runs (a child of the manager's run, started on first use).
    private var listening = false
    private var deadlineChanged: AsyncStream<Void>.Continuation?

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// A touch manager on `context` alone, for tests without a manager.
    init(context: any SDLStreamingContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    /// When touches count as taps, double taps and long presses (the iOS library's defaults).
    public var thresholds: SDLTouchThresholds { recognizer.thresholds }

    /// Changes the thresholds for touches from now on.
    public func setThresholds(_ thresholds: SDLTouchThresholds) {
        recognizer.thresholds = thresholds
    }

    /// Gestures from now on, until the manager stops. A tap is reported once the double-tap
    /// window has passed without a second tap. A reader that falls 64 gestures behind loses the
    /// oldest.
    public func gestures() -> AsyncStream<SDLTouchGesture> {
        let stream = gestureFanOut.subscribe()
        startListening()
        return stream
    }

    /// The head unit's OnTouchEvent as they come, across reconnections, in its coordinates
    /// (not scaled).
    public nonisolated func touchEvents() -> AsyncStream<OnTouchEvent> {
        context.notifications(OnTouchEvent.self)
    }

    private func startListening() {
        guard !listening else { return }
        let events = context.notifications(OnTouchEvent.self)
        let clock = context.clock
        listening = context.spawn {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // Reports a tap once its double-tap window has passed, on the manager's clock.
                    // Every touch interrupts the wait: a second tap clears the deadline, a new one
                    // moves it. Each wait has its own signal (a timed-out wait ends its stream).
                    while !Task.isCancelled {
                        let (signal, deadline) = await self.armDeadlineSignal()
                        if let deadline {
                            await clock.sleep(until: deadline, interruptedBy: signal)
                            await self.flush()
                        } else {
                            for await _ in signal { break }
                        }
                    }
                }
                for await event in events { await self.received(event) }
                group.cancelAll()
            }
            await self.stoppedListening()
        }
    }

    /// A fresh signal for the tap timer's next wait, and the deadline to wait for.
    private func armDeadlineSignal() -> (AsyncStream<Void>, Duration?) {
        let (signal, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        deadlineChanged = changed
        return (signal, recognizer.tapDeadline)
    }

    private func stoppedListening() {
        listening = false
        deadlineChanged?.finish()
        deadlineChanged = nil
    }

    private func received(_ event: OnTouchEvent) async {
        if let scale = await context.videoParameters()?.scale { recognizer.scale = scale > 0 ? scale : 1 }
        for gesture in recognizer.receive(event, at: context.clock.now) { gestureFanOut.yield(gesture) }
        deadlineChanged?.yield()
    }

    private func flush() {
        for gesture in recognizer.flush(at: context.clock.now) { gestureFanOut.yield(gesture) }
    }

    func connectionReady(_ connection: SDLConnectionContext) async {
        // Subscribed before the manager ran: listen now.
        if gestureFanOut.subscriberCount > 0 { startListening() }
    }

    func connectionEnded() async {
        // A touch under way is lost with the connection.
        recognizer = SDLTouchGestureRecognizer(thresholds: recognizer.thresholds, scale: recognizer.scale)
    }

    func managerStopped() async {
        endStreams()
    }

    nonisolated func endStreams() {
        gestureFanOut.finish()
    }
}
