import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Remote control: one car shared by every app, with SDL Core's rules for app types, seats,
/// allocation, consent and read-only settings.
@Suite(.timeLimit(.minutes(1))) struct RemoteControlRuleTests {
    static func rcApp(_ headUnit: SDLHeadUnitEmulator, _ appID: String) async throws -> TestApp {
        try await TestApp.register(to: headUnit, appID: appID, name: "RC \(appID)", types: [.remoteControl])
    }

    static func fan(_ speed: Int, module: String? = "C0A") -> SetInteriorVehicleData {
        SetInteriorVehicleData(moduleData: ModuleData(moduleType: .climate, moduleId: module, climateControlData: ClimateControlData(fanSpeed: speed)))
    }

    @Test func onlyRemoteControlAppsMayUseIt() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let answers: [(SDLResult, String?)] = [
            try await app.client.send(GetInteriorVehicleData(moduleType: .climate)).pair,
            try await app.client.send(Self.fan(50)).pair,
            try await app.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C0A"])).pair,
            try await app.client.send(ReleaseInteriorVehicleDataModule(moduleType: .climate)).pair,
            try await app.client.send(ButtonPress(moduleType: .climate, buttonName: .ac, buttonPressMode: .short)).pair,
        ]
        for (code, info) in answers {
            #expect(code == .disallowed)
            #expect(info == "the app is not a remote-control app")
        }
        await app.close()
    }

    @Test func readingModulesAndSubscribing() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await Self.rcApp(headUnit, "reader")
        let front = try await app.client.send(GetInteriorVehicleData(moduleType: .climate))
        #expect(front.resultCode == .success)
        #expect(front.moduleData?.moduleId == "C0A")
        #expect(front.moduleData?.climateControlData?.currentTemperature == Temperature(unit: .celsius, value: 22.5))
        #expect(front.moduleData?.climateControlData?.desiredTemperature == Temperature(unit: .celsius, value: 21))
        #expect(front.moduleData?.climateControlData?.acEnable == true)
        #expect(front.moduleData?.climateControlData?.fanSpeed == 40)
        #expect(front.isSubscribed == nil)
        let rear = try await app.client.send(GetInteriorVehicleData(moduleType: .climate, moduleId: "C1A", subscribe: true))
        #expect(rear.moduleData?.moduleId == "C1A")
        #expect(rear.isSubscribed == true)
        #expect(try await app.client.send(GetInteriorVehicleData(moduleType: .climate, moduleId: "C1A", subscribe: false)).isSubscribed == false)
        #expect(try await app.client.send(GetInteriorVehicleData(moduleType: .climate, moduleId: "X9")).resultCode == .unsupportedResource)
        let radio = try await app.client.send(GetInteriorVehicleData(moduleType: .radio)).moduleData?.radioControlData
        #expect(radio?.band == .fm)
        #expect(radio?.frequencyInteger == 101)
        #expect(radio?.frequencyFraction == 1)
        #expect(radio?.radioEnable == true)
        #expect(radio?.state == .acquired)
        for type in [ModuleType.seat, .audio, .light, .hmiSettings] {
            #expect(try await app.client.send(GetInteriorVehicleData(moduleType: type)).resultCode == .success, "\(type)")
        }
        await app.close()
    }

    @Test func settingMergesAndRespectsReadOnlyItems() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await Self.rcApp(headUnit, "setter")
        let readOnly = SetInteriorVehicleData(
            moduleData: ModuleData(
                moduleType: .climate, climateControlData: ClimateControlData(currentTemperature: Temperature(unit: .celsius, value: 30))))
        let refused = try await app.client.send(readOnly)
        #expect(refused.resultCode == .readOnly)
        #expect(!refused.success)
        let set = try await app.client.send(Self.fan(70))
        #expect(set.resultCode == .success)
        #expect(set.moduleData?.climateControlData?.fanSpeed == 70)
        // The rest of the module's data is kept.
        #expect(set.moduleData?.climateControlData?.acEnable == true)
        #expect(set.moduleData?.climateControlData?.desiredTemperature?.value == 21)
        // Read-only items among settable ones are cut off.
        let mixed = try await app.client.send(
            SetInteriorVehicleData(
                moduleData: ModuleData(
                    moduleType: .climate, climateControlData: ClimateControlData(fanSpeed: 20, currentTemperature: Temperature(unit: .celsius, value: 30)))))
        #expect(mixed.resultCode == .success)
        #expect(mixed.moduleData?.climateControlData?.currentTemperature?.value == 22.5)
        // Control data of another module type: INVALID_DATA.
        let wrong = try await app.client.send(
            SetInteriorVehicleData(moduleData: ModuleData(moduleType: .climate, radioControlData: RadioControlData(frequencyInteger: 99))))
        #expect(wrong.resultCode == .invalidData)
        #expect(await headUnit.moduleData(.climate)?.climateControlData?.fanSpeed == 20)
        await app.close()
    }

    @Test func theUsersSeatMustBeInTheModulesServiceAreaButTheDriversControlsAll() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await Self.rcApp(headUnit, "seat")
        // The driver's seat by default, which SDL Core lets control every module: even the
        // rear climate, which serves row 1 only.
        #expect(try await app.client.send(Self.fan(60, module: "C1A")).resultCode == .success)
        #expect(try await app.client.send(SetGlobalProperties(userLocation: SeatLocation(grid: SDLGrid(col: 2, row: 0, level: 0)))).resultCode == .success)
        let rear = try await app.client.send(Self.fan(60, module: "C1A"))
        #expect(rear.resultCode == .rejected)
        #expect(rear.info?.contains("service area") == true)
        #expect(try await app.client.send(SetGlobalProperties(userLocation: SeatLocation(grid: SDLGrid(col: 1, row: 1, level: 0)))).resultCode == .success)
        #expect(try await app.client.send(Self.fan(60, module: "C1A")).resultCode == .success)
        #expect(try await app.client.send(Self.fan(60, module: "C0A")).resultCode == .rejected)
        // The driver's seat written out, without spans: still the driver, still everything.
        #expect(try await app.client.send(SetGlobalProperties(userLocation: SeatLocation(grid: SDLGrid(col: 0, row: 0, level: 0)))).resultCode == .success)
        #expect(try await app.client.send(Self.fan(60, module: "C1A")).resultCode == .success)
        // The radio serves the whole vehicle.
        let radio = SetInteriorVehicleData(
            moduleData: ModuleData(moduleType: .radio, radioControlData: RadioControlData(frequencyInteger: 99, frequencyFraction: 5)))
        #expect(try await app.client.send(radio).moduleData?.radioControlData?.frequencyInteger == 99)
        await app.close()
    }

    @Test func aModuleOfAnotherAppIsInUseUntilTheDriverConsents() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await Self.rcApp(headUnit, "first")
        let second = try await Self.rcApp(headUnit, "second")
        let firstStatus = first.client.notifications(OnRCStatus.self)
        #expect(try await first.client.send(Self.fan(50)).resultCode == .success)
        var statusIterator = firstStatus.makeAsyncIterator()
        let status = await statusIterator.next()
        #expect(status?.allocatedModules.map(\.moduleId) == ["C0A"])
        #expect(status?.freeModules.contains { $0.moduleId == "C0A" } == false)
        #expect(status?.freeModules.count == 7)

        let inUse = try await second.client.send(Self.fan(30))
        #expect(inUse.resultCode == .inUse)
        #expect(try await second.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C9Z"])).resultCode == .invalidData)
        await headUnit.setRemoteControlConsent(false)
        #expect(try await second.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C0A", "C1A"])).allowed == [false, false])
        #expect(try await second.client.send(Self.fan(30)).resultCode == .inUse)
        await headUnit.setRemoteControlConsent(true)
        #expect(try await second.client.send(GetInteriorVehicleDataConsent(moduleType: .climate, moduleIds: ["C0A"])).allowed == [true])
        #expect(try await second.client.send(Self.fan(30)).resultCode == .success)
        // It changed hands: the first app holds nothing now.
        let after = await statusIterator.next()
        #expect(after?.allocatedModules.isEmpty == true)

        // A seat cannot be shared, consent or not.
        let seat = SetInteriorVehicleData(
            moduleData: ModuleData(moduleType: .seat, moduleId: "S0A", seatControlData: SeatControlData(id: .driver, heatingEnabled: true)))
        #expect(try await first.client.send(seat).resultCode == .success)
        #expect(try await second.client.send(GetInteriorVehicleDataConsent(moduleType: .seat, moduleIds: ["S0A"])).allowed == [true])
        #expect(try await second.client.send(seat).resultCode == .inUse)

        // Released, the module is free for anyone again.
        #expect(try await first.client.send(ReleaseInteriorVehicleDataModule(moduleType: .seat, moduleId: "S0A")).resultCode == .success)
        #expect(try await first.client.send(ReleaseInteriorVehicleDataModule(moduleType: .seat, moduleId: "S0A")).resultCode == .ignored)
        #expect(try await second.client.send(seat).resultCode == .success)
        await first.close()
        await second.close()
    }

    @Test func subscribersHearEveryChange() async throws {
        let headUnit = TestApp.headUnit()
        let listener = try await Self.rcApp(headUnit, "listener")
        let setter = try await Self.rcApp(headUnit, "setter")
        let updates = listener.client.notifications(OnInteriorVehicleData.self)
        _ = try await listener.client.send(GetInteriorVehicleData(moduleType: .climate, moduleId: "C0A", subscribe: true))
        #expect(try await setter.client.send(Self.fan(80)).resultCode == .success)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next()?.moduleData.climateControlData?.fanSpeed == 80)
        // A button press changes the module too.
        #expect(
            try await setter.client.send(ButtonPress(moduleType: .climate, moduleId: "C0A", buttonName: .ac, buttonPressMode: .short)).resultCode == .success)
        #expect(await iterator.next()?.moduleData.climateControlData?.acEnable == false)
        // The driver turns the temperature up.
        try await headUnit.setModuleData(
            ModuleData(moduleType: .climate, climateControlData: ClimateControlData(desiredTemperature: Temperature(unit: .celsius, value: 23))))
        #expect(await iterator.next()?.moduleData.climateControlData?.desiredTemperature?.value == 23)
        #expect(await headUnit.moduleData(.climate, moduleID: "C0A")?.climateControlData?.desiredTemperature?.value == 23)
        await #expect(throws: SDLHeadUnitControlError.self) { try await headUnit.setModuleData(ModuleData(moduleType: .climate, moduleId: "C7Q")) }
        await listener.close()
        await setter.close()
    }

    @Test func buttonPressesBelongToTheirModule() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await Self.rcApp(headUnit, "buttons")
        #expect(try await app.client.send(ButtonPress(moduleType: .climate, buttonName: .volumeUp, buttonPressMode: .short)).resultCode == .invalidData)
        #expect(
            try await app.client.send(ButtonPress(moduleType: .radio, moduleId: "R0A", buttonName: .volumeUp, buttonPressMode: .long)).resultCode == .success)
        #expect(try await app.client.send(ButtonPress(moduleType: .climate, buttonName: .fanUp, buttonPressMode: .short)).resultCode == .success)
        #expect(await headUnit.moduleData(.climate)?.climateControlData?.fanSpeed == 50)
        // From the front passenger's seat the rear climate is out of reach (the driver's is not).
        #expect(try await app.client.send(SetGlobalProperties(userLocation: SeatLocation(grid: SDLGrid(col: 2, row: 0, level: 0)))).resultCode == .success)
        #expect(
            try await app.client.send(ButtonPress(moduleType: .climate, moduleId: "C1A", buttonName: .fanUp, buttonPressMode: .short)).resultCode == .rejected)
        await app.close()
    }

    @Test func capabilitiesListTheModulesAndSeats() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await Self.rcApp(headUnit, "caps")
        let rc = try await app.client.send(GetSystemCapability(systemCapabilityType: .remoteControl)).systemCapability?.remoteControlCapability
        #expect(rc?.climateControlCapabilities?.compactMap(\.moduleInfo?.moduleId) == ["C0A", "C1A"])
        #expect(rc?.climateControlCapabilities?.last?.moduleInfo?.serviceArea == SDLGrid(col: 0, row: 1, level: 0, colspan: 3, rowspan: 1, levelspan: 1))
        #expect(rc?.radioControlCapabilities?.first?.moduleInfo?.moduleId == "R0A")
        #expect(rc?.seatControlCapabilities?.compactMap(\.moduleInfo?.moduleId) == ["S0A", "S0C"])
        #expect(rc?.audioControlCapabilities?.first?.moduleInfo?.moduleId == "A0A")
        #expect(rc?.lightControlCapabilities?.moduleInfo?.moduleId == "L0A")
        #expect(rc?.hmiSettingsControlCapabilities?.moduleInfo?.moduleId == "H0A")
        let climateButtons = rc?.buttonCapabilities?.filter { $0.moduleInfo?.moduleId == "C0A" }.map(\.name)
        #expect(climateButtons == [.ac, .acMax, .recirculate, .fanUp, .fanDown, .tempUp, .tempDown])
        #expect(
            rc?.buttonCapabilities?.filter { $0.moduleInfo?.moduleId == "R0A" }.map(\.name) == [.volumeUp, .volumeDown, .eject, .source, .shuffle, .repeat])
        let seats = try await app.client.send(GetSystemCapability(systemCapabilityType: .seatLocation)).systemCapability?.seatLocationCapability
        #expect(seats?.rows == 2)
        #expect(seats?.columns == 3)
        #expect(seats?.levels == 1)
        #expect(seats?.seats?.compactMap { $0.grid.map { [$0.col, $0.row] } } == [[0, 0], [2, 0], [0, 1], [1, 1], [2, 1]])
        await app.close()
    }

    @Test func controlRoutes() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let app = try await Self.rcApp(headUnit, "routes")
            #expect(try await api.handle(method: "GET", path: "/rc/CLIMATE").jsonValue?["moduleId"] == .string("C0A"))
            #expect(try await api.handle(method: "GET", path: "/rc/CLIMATE?moduleId=C1A").jsonValue?["moduleId"] == .string("C1A"))
            #expect(try await api.handle(method: "GET", path: "/rc/CLIMATE/C1A").jsonValue?["moduleId"] == .string("C1A"))
            #expect(try await api.handle(method: "GET", path: "/rc/CLIMATE/NOPE").status == 404)
            #expect(try await api.handle(method: "GET", path: "/rc/SPACESHIP").status == 404)
            let updates = app.client.notifications(OnInteriorVehicleData.self)
            _ = try await app.client.send(GetInteriorVehicleData(moduleType: .radio, subscribe: true))
            let put = try await api.handle(
                method: "PUT", path: "/rc", body: Array(#"{"moduleType":"RADIO","radioControlData":{"frequencyInteger":95,"frequencyFraction":5}}"#.utf8))
            #expect(put.status == 200)
            #expect(put.jsonValue?["radioControlData"]?["frequencyInteger"] == .integer(95))
            #expect(put.jsonValue?["radioControlData"]?["band"] == .string("FM"))
            var iterator = updates.makeAsyncIterator()
            #expect(await iterator.next()?.moduleData.radioControlData?.frequencyInteger == 95)
            #expect(
                try await api.handle(method: "PUT", path: "/rc", body: Array(#"{"moduleType":"RADIO","radioControlData":{"frequencyInteger":"x"}}"#.utf8))
                    .status == 400)
            #expect(try await api.handle(method: "PUT", path: "/rc/consent", body: Array(#"{"allowed":false}"#.utf8)).status == 200)
            #expect(try await app.client.send(GetInteriorVehicleDataConsent(moduleType: .radio, moduleIds: ["R0A"])).allowed == [false])
            #expect(try await api.handle(method: "PUT", path: "/rc/consent", body: Array(#"{"allowed":"no"}"#.utf8)).status == 400)
            await app.close()
        }
    }
}

extension SDLResponse {
    /// The result code and info, for comparing answers of different types.
    var pair: (SDLResult, String?) {
        let json = (try? SDLJSON.encode(self)).flatMap { try? SDLJSONValue(parsing: $0) }
        var code = SDLResult.genericError
        if case .string(let name)? = json?["resultCode"] { code = SDLResult(rawValue: name) }
        var info: String?
        if case .string(let text)? = json?["info"] { info = text }
        return (code, info)
    }
}
