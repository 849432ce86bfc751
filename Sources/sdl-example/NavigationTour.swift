import Foundation
import SDLRPC
import SmartDeviceLink

/// A NAVIGATION app: the video stream is negotiated, a 6 s H.264 clip (ffmpeg's test pattern at
/// 800x380, 15 fps, committed under Resources/) is streamed in real time, haptic rectangles are
/// sent, and the driver's tap, pan and pinch, made through the emulator's control API, arrive as
/// gestures; then two prompts are spoken over the audio stream, and a maneuver, its alert and a
/// turn list are shown. Against SDL Core (no --control-url) the steps that need the emulator's
/// control API are skipped with a note.
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
        await speak(manager, steps: steps)
        await turnByTurn(manager, steps: steps)
    }

    /// Two spoken prompts over the audio stream, made here as tones in another format than the
    /// head unit's (22.05 kHz stereo), which the manager converts and paces to real time.
    private func speak(_ manager: SDLManager, steps: Steps) async {
        let audio = manager.audioStreaming
        let started = await within(10) { () -> SDLAudioStreamState? in
            for await state in audio.states() {
                if case .streaming = state { return state }
                if case .failed = state { return state }
            }
            return nil
        }
        guard case .streaming(let format)? = started else {
            steps.fail("the audio stream did not start: \(started.map { "\($0)" } ?? "no answer in 10 s")")
            return
        }
        steps.pass("audio streaming \(format)")
        for (seconds, frequency) in [(1.0, 440.0), (1.5, 660.0)] {
            let prompt = SDLAudioPrompt(Self.tone(seconds: seconds, frequency: frequency))
            // Bounded: a prompt that never plays fails the step instead of hanging the tour.
            let outcome = await within(seconds + 10) { await audio.play(prompt) }
            outcome == .played
                ? steps.pass("spoke a \(seconds) s prompt") : steps.fail("the \(seconds) s prompt was \(outcome.map { "\($0)" } ?? "not played in time")")
        }
        if let data = await place.driver.fetch("/apps/\(place.appID)/streams"),
            let streams = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bytes = (streams["audio"] as? [String: Any])?["bytes"] as? Int
        {
            let seconds = Double(bytes) / Double(format.byteRate)
            abs(seconds - 2.5) <= 2.5 * 0.05
                ? steps.pass("the head unit received \(String(format: "%.2f", seconds)) s of audio (2.5 s spoken)")
                : steps.fail("the head unit received \(String(format: "%.2f", seconds)) s of audio, not 2.5 s")
        }
    }

    /// A sine tone at 22,050 Hz, 16-bit stereo.
    static func tone(seconds: Double, frequency: Double) -> SDLPCMBuffer {
        let rate = 22_050
        var bytes: [UInt8] = []
        for index in 0..<Int(Double(rate) * seconds) {
            let value = Int16(sin(2 * .pi * frequency * Double(index) / Double(rate)) * 8_000)
            for _ in 0..<2 { bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        }
        // The format is valid by construction.
        return try! SDLPCMBuffer(sampleRate: rate, bitsPerSample: 16, channels: 2, bytes: bytes)
    }

    /// The next maneuver with its icon, the spoken maneuver alert and a turn list, read back
    /// from the emulator's screen.
    private func turnByTurn(_ manager: SDLManager, steps: Steps) async {
        let navigation = manager.navigation
        let right = SDLArtwork(bytes: Self.arrowPNG, format: .png, name: "tour-turn-right")
        do {
            var maneuver = SDLManeuver(text1: "Turn right", text2: "300 m", icon: right)
            maneuver.eta = "12:30"
            try await navigation.showManeuver(maneuver)
            steps.pass("maneuver shown: Turn right, 300 m")
            try await navigation.alertManeuver("In 300 meters, turn right")
            steps.pass("maneuver alert spoken")
            try await navigation.updateTurnList([SDLTurn(text: "Turn right onto Main St", icon: right), SDLTurn(text: "Arrive")])
            steps.pass("turn list of 2 sent")
        } catch {
            steps.fail("turn-by-turn: \(error)")
            return
        }
        guard let data = await place.driver.fetch("/apps/\(place.appID)/screen") else {
            steps.note("no --control-url: not reading the head unit's screen")
            return
        }
        let screen = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let tbt = screen?["turnByTurn"] as? [String: Any]
        let text = (tbt?["maneuver"] as? [String: Any])?["navigationText1"] as? String
        let alerted = tbt?["alertManeuver"] != nil
        let turns = ((tbt?["turnList"] as? [String: Any])?["turnList"] as? [Any])?.count ?? 0
        text == "Turn right" && alerted && turns == 2
            ? steps.pass("the head unit shows the maneuver, its alert and 2 turns")
            : steps.fail("the head unit's screen shows maneuver \(text ?? "none"), alert \(alerted), \(turns) turns")
        do {
            try await navigation.clearManeuver()
            steps.pass("maneuver cleared")
        } catch {
            steps.fail("clearing the maneuver: \(error)")
        }
    }

    /// A 1x1 PNG: what the head unit shows does not matter here, that it was uploaded does.
    static let arrowPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
        0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63,
        0x60, 0x60, 0xF8, 0x0F, 0x00, 0x01, 0x04, 0x01, 0x00, 0x5F, 0xE5, 0xC3, 0x4B, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
        0x42, 0x60, 0x82,
    ]

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
        steps.pass(
            "video streaming \(parameters.format.protocol.rawValue)/\(parameters.format.codec.rawValue) \(size), scale \(parameters.scale), \(parameters.frameRate) fps, up to \(parameters.maxBitrate) kbit/s"
        )
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
            ? steps.pass(
                "streamed \(frames.count) frames (\(String(format: "%.1f", seconds)) s, \(statistics.bytesSent / 1024) KB, \(statistics.keyFramesSent) key frames)"
            )
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
