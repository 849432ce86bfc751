import Foundation
import SmartDeviceLink

/// A NAVIGATION app: the video stream is negotiated, a 6 s H.264 clip (ffmpeg's test pattern at
/// 800x380, 15 fps, committed under Resources/) is streamed in real time, haptic rectangles are
/// sent, and the driver's tap, pan and pinch, made through the emulator's control API, arrive as
/// gestures. Against SDL Core (no --control-url) the gestures are skipped with a note.
struct NavigationTour {
    let place: TourPlace

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: navigation")
        guard let manager = await place.start(place.configuration(name: "SDL Example Navigation", types: [.navigation]), steps: steps) else {
            return false
        }
        if await place.driver.activate(manager, steps: steps) {
            await navigation(manager, steps: steps)
        }
        return await place.finish("navigation", [manager], steps: steps)
    }

    private func navigation(_ manager: SDLManager, steps: Steps) async {
        guard let parameters = await streaming(manager, steps: steps) else { return }
        do {
            try await manager.haptics.setFocusableAreas([
                SDLHapticArea(id: 1, x: 20, y: 300, width: 160, height: 60),
                SDLHapticArea(id: 2, x: 620, y: 300, width: 160, height: 60),
            ])
            steps.pass("haptic rectangles sent (2)")
        } catch {
            parameters.hapticSpatialDataSupported ? steps.fail("SendHapticData: \(error)") : steps.note("no haptic data: \(error)")
        }
        guard let clip = Bundle.module.url(forResource: "navigation-800x380", withExtension: "h264"),
              let data = try? Data(contentsOf: clip)
        else {
            steps.fail("the clip is missing from the example's resources")
            return
        }
        let frames = SDLH264.accessUnits(in: Array(data))
        let gestures = await manager.touch.gestures()
        let log = GestureLog()
        let watcher = Task { for await gesture in gestures { await log.record(gesture) } }
        let driver = Task { await touches(steps: steps) }
        await stream(frames, to: manager, steps: steps)
        if await driver.value {
            let wanted: Set<String> = ["tap", "pan", "pinch"]
            _ = await within(5) { await log.wait(for: wanted) }
            let names = await log.seen
            for gesture in ["tap", "pan", "pinch"] {
                names.contains(gesture) ? steps.pass("the driver's \(gesture) arrived as a gesture") : steps.fail("no \(gesture) gesture arrived")
            }
        } else {
            steps.note("no --control-url: not waiting for a driver's touches")
        }
        watcher.cancel()
    }

    /// Waits for the stream to flow and reports what the head unit accepted.
    private func streaming(_ manager: SDLManager, steps: Steps) async -> SDLVideoStreamParameters? {
        let states = manager.videoStreaming.states()
        let outcome = await within(10) { () -> SDLVideoStreamState? in
            for await state in states {
                if state.parameters != nil { return state }
                if case .failed = state { return state }
            }
            return nil
        }
        guard let outcome, let parameters = outcome.parameters else {
            steps.fail("the video stream did not start: \(outcome.map { "\($0)" } ?? "no answer in 10 s")")
            return nil
        }
        let size = parameters.resolution.map { "\($0.resolutionWidth)x\($0.resolutionHeight)" } ?? "any size"
        steps.pass("video streaming \(parameters.format.protocol.rawValue)/\(parameters.format.codec.rawValue) \(size), scale \(parameters.scale), \(parameters.frameRate) fps, up to \(parameters.maxBitrate) kbit/s")
        return parameters
    }

    /// Sends the clip's frames at the clip's pace (15 fps), so the head unit plays it in real time.
    private func stream(_ frames: [[UInt8]], to manager: SDLManager, steps: Steps) async {
        let clock = ContinuousClock()
        let start = clock.now
        let interval = Duration.seconds(1) / 15
        var queued = 0
        for (index, bytes) in frames.enumerated() {
            let time = interval * index
            try? await clock.sleep(until: start + time, tolerance: .milliseconds(2))
            do {
                if try await manager.videoStreaming.send(SDLVideoFrame(annexB: bytes, presentationTime: time)) == .queued { queued += 1 }
            } catch {
                steps.fail("frame \(index) refused: \(error)")
                return
            }
        }
        let seconds = Double(frames.count) / 15
        let statistics = await manager.videoStreaming.statistics
        queued == frames.count
            ? steps.pass("streamed \(frames.count) frames (\(String(format: "%.1f", seconds)) s, \(statistics.bytesSent / 1024) KB, \(statistics.keyFramesSent) key frames)")
            : steps.fail("only \(queued) of \(frames.count) frames were queued")
    }

    /// The driver's gestures through the control API, while the clip plays; false without one.
    private func touches(steps: Steps) async -> Bool {
        guard place.driver.controlURL != nil else { return false }
        let path = "/apps/\(place.appID)/gestures"
        try? await Task.sleep(for: .seconds(1))
        await place.driver.control("POST", path, #"{"gesture": "tap", "x": 400, "y": 190}"#, steps: steps)
        try? await Task.sleep(for: .seconds(1))
        await place.driver.control("POST", path, #"{"gesture": "pan", "x": 100, "y": 100, "toX": 500, "toY": 250}"#, steps: steps)
        try? await Task.sleep(for: .seconds(1))
        await place.driver.control("POST", path, #"{"gesture": "pinch", "x": 400, "y": 190, "from": 100, "to": 300}"#, steps: steps)
        return true
    }
}

/// The kinds of gesture seen so far, and waiting for some (a wait ends when its task is
/// cancelled, so `within` can give up on it).
actor GestureLog {
    private var names: Set<String> = []
    private var waiters: [Int: (wanted: Set<String>, continuation: CheckedContinuation<Set<String>, Never>)] = [:]
    private var cancelled: Set<Int> = []
    private var nextID = 0

    func record(_ gesture: SDLTouchGesture) {
        switch gesture {
        case .tap: names.insert("tap")
        case .panEnded: names.insert("pan")
        case .pinchEnded: names.insert("pinch")
        default: return
        }
        for (id, waiter) in waiters where waiter.wanted.isSubset(of: names) {
            waiters[id] = nil
            waiter.continuation.resume(returning: names)
        }
    }

    func wait(for wanted: Set<String>) async -> Set<String> {
        if wanted.isSubset(of: names) { return names }
        let id = nextID
        nextID += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if cancelled.remove(id) != nil {
                    continuation.resume(returning: names)
                } else {
                    waiters[id] = (wanted, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        if let waiter = waiters.removeValue(forKey: id) {
            waiter.continuation.resume(returning: names)
        } else {
            cancelled.insert(id)
        }
    }

    var seen: Set<String> { names }
}
