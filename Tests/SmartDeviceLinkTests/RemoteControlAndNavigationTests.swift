import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Remote control, navigation, phone calls and closing the app against the stateful emulator.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct RemoteControlAndNavigationTests {
    static let appID = "car"

    static func sent(_ headUnit: SDLHeadUnitEmulator, _ function: String, appID: String = appID) async -> [SDLJSONValue] {
        await ScreenTestSupport.sent(headUnit, appID: appID, function)
    }

    @Test func climateIsReadSubscribedAndSetWithConsent() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.remoteControl]) { manager in
            let rc = manager.remoteControl
            let climates = try await rc.modules().filter { $0.type == .climate }
            #expect(climates.map(\.id) == ["C0A", "C1A"])

            let updates = try await rc.subscribe(to: .climate, moduleID: "C0A")
            var iterator = updates.makeAsyncIterator()
            let now = try #require(await iterator.next())
            #expect(now.climateControlData?.desiredTemperature?.value == 21)

            var change = ModuleData(moduleType: .climate, moduleId: "C0A")
            change.climateControlData = ClimateControlData(desiredTemperature: Temperature(unit: .celsius, value: 23))
            let after = try await rc.set(change)
            #expect(after.climateControlData?.desiredTemperature?.value == 23)
            let notified = try #require(await iterator.next())
            #expect(notified.climateControlData?.desiredTemperature?.value == 23)

            // The subscription is read from before its request; consent came before the set.
            #expect(
                await FeatureTestSupport.requests(
                    headUnit, appID: Self.appID, among: ["GetInteriorVehicleData", "GetInteriorVehicleDataConsent", "SetInteriorVehicleData"])
                    == ["GetInteriorVehicleData", "GetInteriorVehicleDataConsent", "SetInteriorVehicleData"])
            #expect(await Self.sent(headUnit, "GetInteriorVehicleData").first?["subscribe"] == .bool(true))
            #expect(await Self.sent(headUnit, "GetInteriorVehicleDataConsent").first?["moduleIds"] == .array([.string("C0A")]))

            try await rc.press(.acMax, on: .climate, moduleID: "C0A")
            #expect(await Self.sent(headUnit, "ButtonPress").first?["buttonName"] == .string("AC_MAX"))
            try await rc.release(.climate, moduleID: "C0A")
            #expect(await Self.sent(headUnit, "ReleaseInteriorVehicleDataModule").count == 1)
        }
    }

    @Test func theRulesOfTheGuideAreCheckedFirst() async throws {
        let headUnit = SDLHeadUnitEmulator()
        // Not a remote-control app.
        try await FeatureTestSupport.withManager(headUnit, appID: "plain", appTypes: [.default]) { plain in
            do throws(SDLFeatureError) {
                _ = try await detailed(SDLFeatureError.self) { try await plain.remoteControl.data(of: .climate) }
                Issue.record("a non-RC app read climate data")
            } catch {
                guard case .wrongAppType(_, needs: .remoteControl) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
        }

        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.remoteControl]) { manager in
            let rc = manager.remoteControl
            // The driver's seat is outside the rear climate module's service area.
            do throws(SDLFeatureError) {
                try await detailed(SDLFeatureError.self) {
                    try await rc.set(ModuleData(moduleType: .climate, moduleId: "C1A", climateControlData: ClimateControlData(fanSpeed: 10)))
                }
                Issue.record("the driver set the rear climate")
            } catch {
                guard case .invalid = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            // A button the module does not have.
            await expectSDLError(SDLFeatureError.self) { try await rc.press(.eject, on: .climate, moduleID: "C0A") }
            // Consent refused: nothing is set.
            await headUnit.setRemoteControlConsent(false)
            do throws(SDLFeatureError) {
                try await detailed(SDLFeatureError.self) {
                    try await rc.set(ModuleData(moduleType: .radio, moduleId: "R0A", radioControlData: RadioControlData(frequencyInteger: 99)))
                }
                Issue.record("set without consent")
            } catch {
                guard case .consentDenied(.radio, moduleID: "R0A") = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await Self.sent(headUnit, "SetInteriorVehicleData").isEmpty)
            #expect(await Self.sent(headUnit, "ButtonPress").isEmpty)

            // From the rear seat the rear climate is the user's.
            await headUnit.setRemoteControlConsent(true)
            try await rc.setSeat(SeatLocation(grid: SDLGrid(col: 0, row: 1, level: 0, colspan: 1, rowspan: 1, levelspan: 1)))
            let rear = try await rc.set(ModuleData(moduleType: .climate, moduleId: "C1A", climateControlData: ClimateControlData(fanSpeed: 10)))
            #expect(rear.climateControlData?.fanSpeed == 10)
            #expect(await Self.sent(headUnit, "SetGlobalProperties").last?["userLocation"]?["grid"]?["row"] == .integer(1))
        }
    }

    @Test func destinationsWaypointsCallsAndClosing() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.navigation]) { manager in
            let pin = SDLArtwork(bytes: Array(repeating: 3, count: 128), format: .png, name: "pin")
            try await manager.navigation.send(
                SDLDestination(
                    latitude: 42.3314, longitude: -83.0458, name: "Campus Martius", addressLines: ["800 Woodward Ave", "Detroit, MI"], image: pin,
                    deliveryMode: .prompt))
            #expect(await FeatureTestSupport.requests(headUnit, appID: Self.appID, among: ["PutFile", "SendLocation"]) == ["PutFile", "SendLocation"])
            let location = try #require(await Self.sent(headUnit, "SendLocation").first)
            #expect(location["locationName"] == .string("Campus Martius"))
            #expect(location["locationImage"]?["value"] == .string("pin"))

            let route = try await manager.navigation.wayPoints()
            #expect(route.count == 2)
            let changes = try await manager.navigation.wayPointChanges()
            var iterator = changes.makeAsyncIterator()
            await headUnit.setWayPoints([LocationDetails(coordinate: Coordinate(latitudeDegrees: 42.0, longitudeDegrees: -83.0), locationName: "Home")])
            #expect(await iterator.next()?.first?.locationName == "Home")
            #expect(await Self.sent(headUnit, "SubscribeWayPoints").count == 1)

            try await manager.phone.dial("+1 (313) 555-0100")
            #expect(await Self.sent(headUnit, "DialNumber").first?["number"] == .string("+13135550100"))
            await expectSDLError(SDLFeatureError.self) { try await manager.phone.dial("call me") }

            try await manager.closeApplication()
            // Safety timeout: bounds the wait for NONE, so a level that never comes ends in failed checks, not a hang.
            _ = await manager.waitForHMILevel(.none, timeout: .seconds(60))
            #expect(manager.hmiLevel == .none)
            #expect(manager.state == .ready)
        }
    }

    @Test func dialingWithoutABluetoothPhoneIsRefused() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.phoneConnected = false
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await FeatureTestSupport.withManager(headUnit, appID: Self.appID, appTypes: [.communication]) { manager in
            do throws(SDLFeatureError) {
                try await detailed(SDLFeatureError.self) { try await manager.phone.dial("911") }
                Issue.record("dialed without a phone")
            } catch {
                guard case .refused("DialNumber", .rejected, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
        }
    }
}
