import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The system capability manager against the stateful emulator: a current head unit (RPC 8.0,
/// pushes updates) and an old one (RPC 4.5, polled).
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SystemCapabilityTests {
    static let manifest = AppServiceManifest(serviceName: "Tunes", serviceType: "MEDIA", allowAppConsumers: true, mediaServiceManifest: MediaServiceManifest())

    /// GetSystemCapability requests the app sent, as (type, subscribe).
    static func capabilityRequests(_ headUnit: SDLHeadUnitEmulator, appID: String) async -> [String] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == "GetSystemCapability" }.map { rpc in
            let type = rpc.parameters?["systemCapabilityType"].flatMap { if case .string(let name) = $0 { name } else { nil } } ?? "?"
            let subscribe = rpc.parameters?["subscribe"].map { $0 == .bool(true) ? "+subscribe" : "-subscribe" } ?? ""
            return type + subscribe
        }
    }

    @Test func displaysAreSubscribedAndTheLegacyModelIsKeptOnACurrentHeadUnit() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "caps")) { manager in
            let capabilities = manager.systemCapabilities
            // Before Ready the DISPLAYS subscription was made.
            #expect(await Self.capabilityRequests(headUnit, appID: "caps") == ["DISPLAYS+subscribe"])
            let main = try #require(await capabilities.defaultMainWindowCapability)
            // The templates SDL's HMI gives this (non-media) app's type.
            #expect(main.templatesAvailable == ["DEFAULT", "NON-MEDIA"])
            #expect(main.imageTypeSupported?.contains(.dynamic) == true)
            #expect(main.softButtonCapabilities?.first?.imageSupported == true)
            #expect(await capabilities.displayCapabilities?.displayName == "GENERIC_DISPLAY")
            #expect(await capabilities.buttonCapabilities?.contains { $0.name == .playPause } == true)
            #expect(await capabilities.supportsSubscriptions)
            #expect(await capabilities.isSupported(.navigation))
            #expect(await capabilities.speechCapabilities?.first == .text)

            let navigation = try await capabilities.update(.navigation)
            #expect(navigation.navigationCapability?.sendLocationEnabled == true)
            #expect(await capabilities.navigationCapability?.getWayPointsEnabled == true)
            #expect(await capabilities.phoneCapability == nil)
            #expect(await Self.capabilityRequests(headUnit, appID: "caps") == ["DISPLAYS+subscribe", "NAVIGATION"])
        }
    }

    @Test func aSubscriptionFollowsAnotherAppsPublishedService() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "consumer")) { consumer in
            let services = try await consumer.systemCapabilities.subscribe(to: .appServices)
            var iterator = services.makeAsyncIterator()
            let initial = await iterator.next()
            #expect(initial?.appServicesCapabilities?.appServices ?? [] == [])
            try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "provider", media: true)) { provider in
                let published = try await provider.send(PublishAppService(appServiceManifest: Self.manifest))
                #expect(published.success)
                // PUBLISHED then ACTIVATED, merged into one record per service.
                var records: [AppServiceCapability] = []
                while let update = await iterator.next() {
                    records = update.appServicesCapabilities?.appServices ?? []
                    if records.first?.updatedAppServiceRecord.serviceActive == true { break }
                }
                #expect(records.count == 1)
                #expect(records.first?.updatedAppServiceRecord.serviceManifest.serviceName == "Tunes")
            }
            // The provider left: its record goes.
            while let update = await iterator.next() {
                if update.appServicesCapabilities?.appServices ?? [] == [] { break }
            }
            #expect(await consumer.systemCapabilities.appServicesCapabilities?.appServices == [])
            #expect(await Self.capabilityRequests(headUnit, appID: "consumer") == ["DISPLAYS+subscribe", "APP_SERVICES+subscribe"])
        }
    }

    @Test func anRPC45HeadUnitIsPolledAndItsDisplayConvertedFromTheLegacyModel() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 4, 5)
        let clock = ManualClock()
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: "old")
        configuration.session.clock = SDLClock(clock)
        configuration.capabilityPollInterval = .seconds(30)
        try await withSDLManager(configuration) { consumer in
            let capabilities = consumer.systemCapabilities
            #expect(await capabilities.supportsSubscriptions == false)
            // No GetSystemCapability(DISPLAYS) before 6.0: the registration's model, converted.
            #expect(await Self.capabilityRequests(headUnit, appID: "old") == [])
            let main = try #require(await capabilities.defaultMainWindowCapability)
            #expect(main.windowID == 0)
            #expect(main.templatesAvailable?.contains("NON-MEDIA") == true)
            #expect(main.imageTypeSupported == [.static, .dynamic])
            #expect(main.buttonCapabilities?.isEmpty == false)
            #expect(try await capabilities.update(.displays).displayCapabilities?.first?.displayName == "GENERIC_DISPLAY")

            let services = try await capabilities.subscribe(to: .appServices)
            var iterator = services.makeAsyncIterator()
            #expect(await iterator.next()?.appServicesCapabilities?.appServices ?? [] == [])
            #expect(await Self.capabilityRequests(headUnit, appID: "old") == ["APP_SERVICES"])
            // The provider speaks to the emulator directly: a manager's gate would refuse a 5.1
            // RPC on this head unit, which the emulator does not.
            let (app, car) = SDLMemoryTransport.pair()
            Task { await headUnit.serve(car) }
            let provider = try await Connection.over(app)
            _ = try await provider.client.send(
                RegisterAppInterface(
                    syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0), appName: "Provider", isMediaApplication: true,
                    languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "provider"))
            let published = try await provider.client.send(PublishAppService(appServiceManifest: Self.manifest))
            #expect(published.success)
            // Nothing is pushed to an app that could not subscribe: the next poll finds the change.
            clock.advance(by: .seconds(30))
            let polled = await iterator.next()
            #expect(polled?.appServicesCapabilities?.appServices?.count == 1)
            #expect(await Self.capabilityRequests(headUnit, appID: "old") == ["APP_SERVICES", "APP_SERVICES"])
        }
    }

    @Test func beforeRPC45NothingCanBeFetched() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 4, 4)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "older")) { manager in
            let capabilities = manager.systemCapabilities
            await expectSDLError(SDLCapabilityError.headUnitTooOld(.navigation, headUnit: .version(4, 4))) {
                try await capabilities.update(.navigation)
            }
            // hmiCapabilities still says what exists.
            #expect(await capabilities.isSupported(.navigation))
            #expect(await capabilities.defaultMainWindowCapability != nil)
        }
    }

    @Test func setDisplayLayoutUpdatesTheDisplaysBefore60() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 5, 0)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "layout")) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            let displays = try await manager.systemCapabilities.subscribe(to: .displays)
            var iterator = displays.makeAsyncIterator()
            let before = await iterator.next()
            #expect(before?.displayCapabilities?.first?.windowCapabilities?.first?.windowID == 0)
            let layout = try await manager.send(SetDisplayLayout(displayLayout: "NON-MEDIA"))
            #expect(layout.success)
            #expect(await manager.systemCapabilities.displayCapabilities == layout.displayCapabilities)
        }
    }

    @Test func legacyAndDisplaysConvertBothWays() throws {
        let legacy = DisplayCapabilities(
            displayType: .gen3_8Inch, displayName: "SYNC", textFields: [SDLTextField(name: .mainField1, characterSet: .utf8, width: 500, rows: 1)],
            imageFields: [], mediaClockFormats: [.clock1], graphicSupported: false, templatesAvailable: ["DEFAULT"], numCustomPresetsAvailable: 6)
        let buttons = [ButtonCapabilities(name: .ok, shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true)]
        let displays = SDLDisplayConversion.displays(from: legacy, buttons: buttons)
        #expect(displays.count == 1)
        let main = try #require(displays.first?.windowCapabilities?.first)
        #expect(main.imageTypeSupported == [.static])
        #expect(main.numCustomPresetsAvailable == 6)
        #expect(main.buttonCapabilities == buttons)
        let back = try #require(SDLDisplayConversion.legacy(from: displays, previous: legacy))
        #expect(back.displayCapabilities == legacy)
        #expect(back.buttonCapabilities == buttons)
        // Without the previous legacy value, what 6.0 does not carry takes its defaults.
        let fresh = try #require(SDLDisplayConversion.legacy(from: displays))
        #expect(fresh.displayCapabilities.displayType == .sdlGeneric)
        #expect(fresh.displayCapabilities.mediaClockFormats == [])
        #expect(fresh.displayCapabilities.textFields == legacy.textFields)
    }
}
