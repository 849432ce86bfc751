import SDLRPC
import SmartDeviceLink

/// Subscription buttons: OK with a closure, PRESET_1 as a stream, a press of each made through
/// the emulator's control API (against SDL Core the tour does not wait for a driver), then
/// the unsubscriptions.
struct ButtonsTour {
    let place: TourPlace

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: buttons")
        guard let manager = await place.start(place.configuration(), steps: steps) else { return false }
        if await place.driver.activate(manager, steps: steps) {
            await buttons(manager, steps: steps)
        }
        return await place.finish("buttons", [manager], steps: steps)
    }

    private func buttons(_ manager: SDLManager, steps: Steps) async {
        let buttons = manager.buttons
        let (okPresses, okSink) = AsyncStream<ButtonPressMode>.makeStream()
        let ok: SDLButtonObserver
        let preset: SDLButtonSubscription
        do {
            ok = try await buttons.subscribe(.ok) { input in
                if case .press(let press) = input { okSink.yield(press.buttonPressMode) }
            }
            steps.pass("subscribed OK (closure)")
            preset = try await buttons.subscribe(.preset1)
            steps.pass("subscribed PRESET_1 (stream)")
        } catch {
            steps.fail("SubscribeButton: \(error)")
            return
        }
        if place.driver.controlURL != nil {
            let presses = preset.presses
            let presetPress = Task { () -> ButtonPressMode? in
                for await press in presses { return press.buttonPressMode }
                return nil
            }
            await place.driver.control("POST", "/buttons/OK/press", #"{"mode": "SHORT"}"#, steps: steps)
            await place.driver.control("POST", "/buttons/PRESET_1/press", #"{"mode": "LONG"}"#, steps: steps)
            if let mode = await within(
                10,
                {
                    for await mode in okPresses { return mode }
                    return nil
                })
            {
                steps.pass("OK pressed (\(mode.rawValue))")
            } else {
                steps.fail("no OK press arrived")
            }
            if let mode = await within(10, { await presetPress.value }) {
                steps.pass("PRESET_1 pressed (\(mode.rawValue))")
            } else {
                steps.fail("no PRESET_1 press arrived")
            }
            presetPress.cancel()
        } else {
            steps.note("no --control-url: not waiting for a driver to press OK or PRESET_1")
        }
        await buttons.unsubscribe(ok)
        await buttons.unsubscribe(preset.observer)
        let left = await buttons.subscribedButtons
        left.isEmpty ? steps.pass("unsubscribed OK and PRESET_1") : steps.fail("still subscribed: \(left.map(\.rawValue))")
    }
}
