import SDLRPC
import SmartDeviceLink

/// Vehicle data: speed and RPM once, a subscription with three updates (made through the
/// emulator's control API), and the unsubscription. Vehicle data is granted by the head unit's
/// policy update after the first activation, so the tour waits for that permission, not only
/// for FULL.
struct VehicleTour {
    let place: TourPlace

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: vehicle")
        guard let manager = await place.start(place.configuration(), steps: steps) else { return false }
        let vehicle = manager.vehicleData
        if await place.driver.activate(manager, steps: steps) {
            let timeout = place.driver.activationTimeout
            let allowed = await within(timeout) { await vehicle.waitUntilAllowed(\.speed, \.rpm) ? true : nil } ?? false
            if allowed {
                steps.pass("permissions: speed and rpm allowed")
                await readAndSubscribe(vehicle, steps: steps)
            } else {
                steps.fail("speed and rpm were not allowed within \(Int(timeout)) s (has the head unit's policy update run?)")
            }
        }
        return await place.finish("vehicle", [manager], steps: steps)
    }

    func readAndSubscribe(_ vehicle: SDLVehicleDataManager, steps: Steps) async {
        do {
            let reading = try await vehicle.get(\.speed, \.rpm)
            steps.pass("GetVehicleData: speed \(reading.speed.map { "\($0) km/h" } ?? "-"), rpm \(reading.rpm.map(String.init) ?? "-")")
        } catch {
            steps.fail("GetVehicleData: \(error)")
        }
        let subscription: SDLVehicleDataSubscription
        do {
            subscription = try await vehicle.subscribe(\.speed, \.rpm)
        } catch {
            steps.fail("SubscribeVehicleData: \(error)")
            return
        }
        let results = subscription.results
        if results.isComplete {
            steps.pass("SubscribeVehicleData: \(results.succeeded.sorted().joined(separator: ", ")) subscribed (\(results.resultCode.rawValue))")
        } else {
            steps.fail("SubscribeVehicleData: \(results.failed.map { "\($0.key) \($0.value.rawValue)" }.sorted().joined(separator: ", "))")
        }

        if place.driver.controlURL != nil {
            let changes = [#"{"speed": 61.5}"#, #"{"rpm": 2400}"#, #"{"speed": 72.25, "rpm": 2600}"#]
            let updates = subscription.updates
            let received = Task {
                var seen: [String] = []
                for await update in updates {
                    seen.append([update.speed.map { "speed \($0)" }, update.rpm.map { "rpm \($0)" }].compactMap { $0 }.joined(separator: ", "))
                    if seen.count == 3 { break }
                }
                return seen
            }
            for change in changes { await place.driver.control("PUT", "/vehicle-data", change, steps: steps) }
            let seen = await within(10) { await received.value }
            received.cancel()
            if let seen, seen.count == 3 {
                for line in seen { steps.pass("OnVehicleData: \(line)") }
            } else {
                steps.fail("expected 3 OnVehicleData, got \(seen?.count ?? 0)")
            }
        } else {
            steps.note("no --control-url: not waiting for updates (the car decides when they come)")
        }

        do {
            let results = try await vehicle.unsubscribe(\.speed, \.rpm)
            results.isComplete ? steps.pass("UnsubscribeVehicleData: \(results.resultCode.rawValue)") : steps.fail("UnsubscribeVehicleData: \(results.failed)")
        } catch {
            steps.fail("UnsubscribeVehicleData: \(error)")
        }
    }
}
