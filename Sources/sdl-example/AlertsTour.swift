import Foundation
import SDLRPC
import SDLRuntime
import SmartDeviceLink

/// What a media and remote-control app puts in front of the driver: an alert with soft buttons
/// answered through the emulator, a subtle alert, a slider, a scrollable message, Speak, the
/// media clock, 2 s of audio pass-thru written to a WAV file, and climate read and set. Without
/// `--control-url` (SDL Core) the steps that need a driver are skipped with a note.
struct AlertsTour {
    let place: TourPlace
    let wavPath: String

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: alerts")
        let configuration = place.configuration(types: [.media, .remoteControl])
        guard let manager = await place.start(configuration, steps: steps) else { return false }
        if await place.driver.activate(manager, steps: steps) {
            await popups(manager.screen, rpcVersion: manager.negotiatedRPCVersion, steps: steps)
            await speechAndClock(manager, steps: steps)
            await microphone(manager.screen, steps: steps)
            await climate(manager.remoteControl, steps: steps)
        }
        return await place.finish("alerts", [manager], steps: steps)
    }

    private var hasDriver: Bool { place.driver.controlURL != nil }

    private func popups(_ screen: SDLScreenManager, rpcVersion: SDLSpecVersion, steps: Steps) async {
        let (presses, pressed) = AsyncStream<String>.makeStream()
        await steps.run("alert") {
            let alert = SDLAlertView(
                text: "Traffic ahead", secondaryText: "20 min delay",
                buttons: [
                    SDLSoftButton(name: "reroute", text: "Reroute") { _ in pressed.yield("reroute") },
                    SDLSoftButton(name: "ignore", text: "Ignore") { _ in pressed.yield("ignore") },
                ], audio: "Traffic ahead", duration: .seconds(10))
            let shown = Task { try await screen.presentAlert(alert) }
            guard hasDriver else {
                steps.note("no --control-url: the alert closes after its 10 s")
                return "\(try await shown.value)"
            }
            guard let id = await softButtonID(of: "Alert", text: "Reroute") else { throw TourError("the alert did not show") }
            await place.driver.control("POST", "/apps/\(place.appID)/softbuttons/\(id)/press", steps: steps)
            let outcome = try await shown.value
            guard outcome == .buttonPressed("reroute"),
                await within(
                    5,
                    {
                        for await name in presses { return name }
                        return nil
                    }) == "reroute"
            else {
                throw TourError("expected the Reroute press, got \(outcome)")
            }
            return "Reroute pressed, its handler ran"
        }
        if rpcVersion >= .version(7, 0) {
            await steps.run("subtle alert") {
                let shown = Task {
                    try await screen.presentSubtleAlert(SDLSubtleAlertView(text: "New message", secondaryText: "From Ann", duration: .seconds(5)))
                }
                guard hasDriver else { return "\(try await shown.value)" }
                await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/subtle-alert/press", steps: steps)
                guard try await shown.value == .pressed else { throw TourError("the tap was not reported") }
                return "the driver tapped it"
            }
        } else {
            steps.note("RPC \(rpcVersion): no subtle alerts before 7.0")
        }
        guard hasDriver else {
            steps.note("no --control-url: no slider or scrollable message nobody would answer")
            return
        }
        await steps.run("slider") {
            let slider = SDLSliderView(
                ticks: 5, position: 1, header: "Fan speed", footer: .perPosition(["Off", "Low", "Mid", "High", "Max"]), timeout: .seconds(30))
            let shown = Task { try await screen.presentSlider(slider) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/interaction", #"{"sliderPosition": 4}"#, steps: steps)
            guard case .selected(let position) = try await shown.value, position == 4 else { throw TourError("position 4 was not returned") }
            return "position 4 (High)"
        }
        await steps.run("scrollable message") {
            let message = SDLScrollableMessage(
                text: "Swift SDL toolkit.\n\nThis message scrolls; the driver closes it.", buttons: [SDLSoftButton(name: "ok", text: "OK")],
                timeout: .seconds(30))
            let shown = Task { try await screen.presentScrollableMessage(message) }
            await place.driver.controlWhenShown("POST", "/apps/\(place.appID)/interaction", #"{"dismiss": true}"#, steps: steps)
            return "\(try await shown.value)"
        }
    }

    func speechAndClock(_ manager: SDLManager, steps: Steps) async {
        let screen = manager.screen
        await steps.run("speak") {
            let first = try await screen.speak("Welcome to the Swift SDL tour")
            let second = try await screen.speak(SDLSpeech([.text("one"), .silence, .text("two")]))
            guard first == .spoken, second == .spoken else { throw TourError("\(first), \(second)") }
            // SDL Core's default configuration speaks TEXT only: the pause is left out there.
            let speaks = await manager.systemCapabilities.speechCapabilities
            let pause =
                speaks.map { $0.contains(.silence) } ?? true
                ? "with a pause" : "its pause left out (the head unit speaks \(speaks?.map(\.rawValue).joined(separator: ", ") ?? "?") only)"
            return "two prompts, the second after the first's answer, \(pause)"
        }
        await steps.run("media clock") {
            try await screen.setMediaClock(.countUp(from: .seconds(30), to: .seconds(253), indicator: .pause))
            try await screen.setMediaClock(.pause(indicator: .play))
            try await screen.setMediaClock(.resume(indicator: .pause))
            // RPC 7.1: the seek buttons jump 30 s forward, 10 s back; the clock runs at 1.5x.
            try await screen.setMediaClock(
                .countUp(from: .zero, to: .seconds(600), indicator: .pause).seeking(forward: .seconds(30), back: .seconds(10)).counting(atRate: 1.5))
            try await screen.setMediaClock(.clear())
            return "count up 0:30 → 4:13, paused, resumed; seek ±30/10 s at 1.5x; cleared"
        }
    }

    private func microphone(_ screen: SDLScreenManager, steps: Steps) async {
        await steps.run("audio pass-thru") {
            let capture = try await screen.startAudioPassThru(SDLAudioPassThru(maxDuration: .seconds(2), text: "Listening…"))
            var pcm: [UInt8] = []
            for await chunk in capture { pcm += chunk }
            let end = try await capture.result()
            let expected = capture.format.byteRate * 2
            guard end == .finished, pcm.count == expected else {
                throw TourError("\(end), \(pcm.count) bytes where 2 s of \(capture.format) are \(expected)")
            }
            try SDLWAV.write(pcm, format: capture.format, to: wavPath)
            return "2 s of \(capture.format), \(pcm.count) bytes, written to \(wavPath)"
        }
    }

    private func climate(_ remoteControl: SDLRemoteControlManager, steps: Steps) async {
        await steps.run("climate") {
            let now = try await remoteControl.data(of: .climate)
            let before = now.climateControlData?.desiredTemperature?.value ?? 0
            var change = ModuleData(moduleType: .climate, moduleId: now.moduleId)
            change.climateControlData = ClimateControlData(desiredTemperature: Temperature(unit: .celsius, value: before + 1))
            let after = try await remoteControl.set(change)
            guard after.climateControlData?.desiredTemperature?.value == before + 1 else { throw TourError("the head unit kept \(before)") }
            try await remoteControl.release(.climate, moduleID: now.moduleId)
            return "desired temperature \(before) → \(before + 1) °C, module released"
        }
    }

    /// The ID of the soft button reading `text` in the latest `function` request, as the driver
    /// sees it on the screen (the emulator's log), once the popup is up.
    private func softButtonID(of function: String, text: String) async -> Int? {
        for _ in 0..<50 {
            if let log = await place.driver.fetch("/apps/\(place.appID)/log") {
                for line in log.split(separator: UInt8(ascii: "\n")).reversed() {
                    guard let entry = try? SDLJSONValue(parsing: Array(line)), entry["direction"] == .string("in"),
                        entry["name"] == .string(function), case .array(let buttons)? = entry["params"]?["softButtons"]
                    else { continue }
                    for button in buttons where button["text"] == .string(text) {
                        if case .integer(let id)? = button["softButtonID"] { return id }
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
