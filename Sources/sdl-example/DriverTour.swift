import SDLRPC
import SmartDeviceLink

/// Waits for a person to play the driver, on the emulator's web page or on a real head unit:
/// each step says what to do and reports what the app heard (the browser test drives it). After
/// the last step the app stays on screen, counting the presses of its Count button, until
/// Ctrl-C or SIGTERM.
struct DriverTour {
    let place: TourPlace
    /// How long each step waits for the driver.
    var patience: Double { place.driver.activationTimeout }
    /// How long a popup waits: the patience, within what the spec allows (a slider 65 s).
    var popupTimeout: Duration { .milliseconds(Int(min(patience, 60) * 1000)) }

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: driver")
        let name = "Driver tour \(place.appID)"
        guard let manager = await place.start(place.configuration(name: name), steps: steps) else { return false }
        let screen = manager.screen
        let presses = Presses()
        await steps.run("screen") {
            try await screen.update {
                $0.textField1 = "Driver tour"
                $0.textField2 = "Count 0"
            }
            try await screen.setSoftButtons([
                SDLSoftButton(
                    name: "like",
                    states: [
                        SDLSoftButtonState(name: "off", text: "Like"), SDLSoftButtonState(name: "on", text: "Liked", isHighlighted: true),
                    ]
                ) { _ in presses.yield("like") },
                SDLSoftButton(name: "count", text: "Count") { _ in presses.yield("count") },
            ])
            try await screen.setMenu([
                SDLMenuCell(title: "Play") { _ in presses.yield("menu Play") },
                SDLMenuCell(
                    title: "Settings",
                    subCells: [
                        SDLMenuCell(title: "Audio") { _ in presses.yield("menu Audio") },
                        SDLMenuCell(title: "Display") { _ in presses.yield("menu Display") },
                    ]),
            ])
            return "text, Like and Count soft buttons, a menu (Play, Settings › Audio, Display)"
        }
        let ok: SDLButtonObserver
        let speed: SDLVehicleDataSubscription
        do {
            ok = try await manager.buttons.subscribe(.ok) { input in if case .press = input { presses.yield("OK") } }
            speed = try await manager.vehicleData.subscribe(\.speed)
            steps.pass("subscribed to the OK button and to speed")
        } catch {
            steps.fail("subscriptions: \(error)")
            return await place.finish("driver", [manager], steps: steps)
        }
        // Show is allowed from FULL on: the driver activates the app first.
        steps.note("waiting: activate “\(name)”")
        guard await manager.waitForHMILevel(.full, timeout: popupTimeout) else {
            steps.fail("the app was not activated")
            return await place.finish("driver", [manager], steps: steps)
        }
        steps.pass("HMI level FULL")

        await step("press the Like soft button", expecting: "like", presses, steps) {
            try await screen.transition("like", to: "on")
            return "soft button: Like pressed (OnButtonPress); now Liked"
        }
        await step("press OK on the wheel", expecting: "OK", presses, steps) { "button: OK pressed (OnButtonPress)" }
        await step("open the menu and choose Settings › Audio", expecting: "menu Audio", presses, steps) { "menu: Audio chosen (OnCommand)" }
        await steps.run("slider") {
            steps.note("waiting: move the slider and press OK")
            let slider = SDLSliderView(ticks: 10, position: 1, header: "Volume", footer: .single("1 to 10"), timeout: popupTimeout)
            guard case .selected(let position) = try await screen.presentSlider(slider) else { throw TourError("the slider was not answered") }
            return "slider: \(position) (the response's sliderPosition)"
        }
        await steps.run("keyboard") {
            steps.note("waiting: type a city on the keyboard and press Enter")
            let keyboard = SDLKeyboard(initialText: "City", timeout: popupTimeout) { entry in
                steps.note("keypress: \(entry)")
                return ["\(entry)ston", "\(entry)troit"]
            }
            guard case .entered(let text) = try await screen.presentKeyboard(keyboard) else { throw TourError("no entry") }
            return "keyboard: \(text) entered"
        }
        steps.note("waiting: change the car's speed")
        let heard = await within(patience) {
            for await update in speed.updates { if let value = update.speed { return value } }
            return nil
        }
        if let heard { steps.pass("vehicle data: speed \(heard) (OnVehicleData)") } else { steps.fail("no speed change arrived") }
        await steps.run("choice set") {
            steps.note("waiting: choose a colour, by touch or by voice")
            let cells = ["Red", "Green", "Blue"].map { SDLChoiceCell(text: $0, voiceCommands: [$0]) }
            let set = SDLChoiceSet(title: "Colour", cells: cells, timeout: popupTimeout)
            guard case .selected(let cell, _, let trigger) = try await screen.present(set, mode: .both) else { throw TourError("nothing was chosen") }
            return "choice: \(cell.text) by \(trigger == .vr ? "VR" : trigger.rawValue)"
        }
        await steps.run("search") {
            steps.note("waiting: search the stations (type on the search field) and pick one")
            let stations = ["Jazz FM", "Jazz Classics", "Rock 101"].map { SDLChoiceCell(text: $0) }
            let search = SDLKeyboard { entry in stations.map(\.text).filter { $0.lowercased().contains(entry.lowercased()) } }
            switch try await screen.presentSearchable(SDLChoiceSet(title: "Station", cells: stations, timeout: popupTimeout), keyboard: search) {
            case .selected(let cell, _, _): return "search: \(cell.text) chosen"
            case .searched(let text): return "search: \(text) submitted"
            case .timedOut, .cancelled: throw TourError("nothing was chosen")
            }
        }
        await steps.run("alert") {
            steps.note("waiting: press Got it on the alert")
            let alert = SDLAlertView(text: "Road works ahead", buttons: [SDLSoftButton(name: "got-it", text: "Got it")], duration: .seconds(10))
            let outcome = try await screen.presentAlert(alert)
            guard outcome == .buttonPressed("got-it") else { throw TourError("expected Got it, got \(outcome)") }
            return "alert: Got it pressed"
        }
        // Until interrupted: each press of Count shows the count (the browser test times these).
        steps.note("staying: press Count; Ctrl-C ends")
        let counting = Task {
            var count = 0
            for await press in presses.stream where press == "count" {
                count += 1
                let text = "Count \(count)"
                _ = try? await screen.update { $0.textField2 = text }
            }
        }
        await place.keeper.holdUntilInterrupted(always: [manager])
        counting.cancel()
        await manager.buttons.unsubscribe(ok)
        say(steps.failed ? "Tour driver: FAILED" : "Tour driver: OK")
        return !steps.failed
    }

    /// Asks the driver for something and waits for the app to hear it.
    private func step(_ ask: String, expecting press: String, _ presses: Presses, _ steps: Steps, then report: () async throws -> String) async {
        steps.note("waiting: \(ask)")
        let stream = presses.stream
        guard
            await within(
                patience,
                {
                    for await seen in stream where seen == press { return true }
                    return nil
                }) == true
        else {
            steps.fail("\(ask): nothing arrived")
            return
        }
        await steps.run(press) { try await report() }
    }
}

/// What the driver pressed, in order, for one reader at a time.
private final class Presses: Sendable {
    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (stream, continuation) = AsyncStream<String>.makeStream()
    }

    func yield(_ press: String) { continuation.yield(press) }
}
