import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// App services between two apps on one emulator: a provider and a consumer.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct AppServiceTests {
    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String, types: [AppHMIType] = [.default]) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.appTypes = types
        let manager = SDLManager(configuration: configuration)
        try await startRunning(manager)
        return manager
    }

    /// `start`'s manager for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(
        _ headUnit: SDLHeadUnitEmulator, appID: String, types: [AppHMIType] = [.default], _ body: (SDLManager) async throws -> Void
    ) async throws {
        try await stopping(start(headUnit, appID: appID, types: types), body)
    }

    static let weatherManifest = AppServiceManifest(
        serviceName: "Sky", serviceType: AppServiceType.weather.rawValue, weatherServiceManifest: WeatherServiceManifest(currentForecastSupported: true))

    static func weather(_ place: String, _ summary: String) -> SDLAppServiceContent {
        .weather(WeatherServiceData(location: LocationDetails(locationName: place), currentForecast: WeatherData(weatherSummary: summary)))
    }

    static func records(_ headUnit: SDLHeadUnitEmulator, appID: String, _ function: String) async -> [SDLRecordedRPC] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.functionName == function }
    }

    /// RPC 6.0: the provider updates its manifest (same service, MANIFEST_UPDATE), and a
    /// consumer fetches a file of the provider's with GetFile(appServiceId).
    @Test func aManifestUpdateKeepsTheServiceAndAConsumerGetsTheProvidersFile() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "provider") { provider in
            try await Self.withManager(headUnit, appID: "consumer") { consumer in
                let service = try await provider.appServices.publish(Self.weatherManifest)
                let serviceID = try #require(await provider.appServices.record(of: service)?.serviceID)
                var renamed = Self.weatherManifest
                renamed.serviceName = "Sky Pro"
                try await provider.appServices.updateManifest(service, to: renamed)
                #expect(await provider.appServices.record(of: service)?.serviceID == serviceID)
                #expect(await provider.appServices.record(of: service)?.serviceManifest.serviceName == "Sky Pro")
                let listed = try await consumer.appServices.services(ofType: "WEATHER")
                #expect(listed.map(\.serviceID) == [serviceID])
                #expect(listed.first?.serviceManifest.serviceName == "Sky Pro")
                #expect(await Self.records(headUnit, appID: "provider", "PublishAppService").filter { $0.direction == "in" }.count == 2)
                // Another type is not an update.
                var media = Self.weatherManifest
                media.serviceType = AppServiceType.media.rawValue
                let wrong = await expectSDLError(SDLAppServiceError.self) { try await provider.appServices.updateManifest(service, to: media) }
                guard case .wrongContent("WEATHER", "MEDIA")? = wrong else {
                    Issue.record("expected wrongContent, got \(String(describing: wrong))")
                    return
                }

                // The provider's artwork, fetched by the consumer through the service.
                let icon = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
                _ = try await provider.files.upload(SDLFile(name: "sunny.png", bytes: icon, type: .graphicPng))
                #expect(try await consumer.appServices.file(named: "sunny.png", ofService: serviceID) == icon)
                await expectSDLError(SDLAppServiceError.self) { try await consumer.appServices.file(named: "none.png", ofService: serviceID) }
            }
        }
    }

    @Test func aProviderPublishesUpdatesAndAnswersAConsumer() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "provider") { provider in
            try await Self.withManager(headUnit, appID: "consumer") { consumer in
                let service = try await provider.appServices.publish(Self.weatherManifest)
                #expect(await provider.appServices.isActive(service))
                let serviceID = try #require(await provider.appServices.record(of: service)?.serviceID)

                // The consumer finds it in APP_SERVICES.
                let listed = try await consumer.appServices.services(ofType: "WEATHER")
                #expect(listed.map(\.serviceID) == [serviceID])
                #expect(listed.first?.serviceManifest.serviceName == "Sky")

                // No data yet: the provider's answer says so.
                var refusal: SDLResult?
                do throws(SDLAppServiceError) {
                    _ = try await detailed(SDLAppServiceError.self) { try await consumer.appServices.data(ofType: "WEATHER") }
                } catch {
                    if case .refused(_, let code, _) = error { refusal = code }
                }
                #expect(refusal == .dataNotAvailable)

                try await provider.appServices.update(service, with: Self.weather("Detroit", "Sunny"))
                // A notification: the head unit holds it once it recorded it (else it could reach
                // the consumer after its subscription, as a second "Sunny").
                try await until { await Self.records(headUnit, appID: "provider", "OnAppServiceData").count == 1 }
                let updates = try await consumer.appServices.subscribe(toType: "WEATHER")
                var iterator = updates.makeAsyncIterator()
                #expect(await iterator.next()?.weatherServiceData?.currentForecast?.weatherSummary == "Sunny")
                try await provider.appServices.update(service, with: Self.weather("Detroit", "Rain"))
                let second = await iterator.next()
                #expect(second?.weatherServiceData?.currentForecast?.weatherSummary == "Rain")
                #expect(second?.serviceID == serviceID)

                // The provider answered the forwarded GetAppServiceData under the head unit's
                // correlation IDs, with success and resultCode filled.
                let exchanges = await Self.records(headUnit, appID: "provider", "GetAppServiceData")
                let asked = exchanges.filter { $0.direction == "out" }
                let answered = exchanges.filter { $0.direction == "in" }
                #expect(asked.count == 2)
                #expect(answered.map(\.payload.correlationID) == asked.map(\.payload.correlationID))
                #expect(answered.map { $0.parameters?["resultCode"] } == [.string("DATA_NOT_AVAILABLE"), .string("SUCCESS")])
                #expect(answered.map { $0.parameters?["success"] } == [.bool(false), .bool(true)])
                #expect(await Self.records(headUnit, appID: "provider", "OnAppServiceData").count == 2)
            }
        }
    }

    @Test func aServiceThatIsNotActiveKeepsItsDataToItself() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "first") { first in
            try await Self.withManager(headUnit, appID: "second") { second in
                _ = try await first.appServices.publish(Self.weatherManifest)
                let standby = try await second.appServices.publish(Self.weatherManifest)
                #expect(await second.appServices.isActive(standby) == false)
                let sent = try await second.appServices.update(standby, with: Self.weather("Ann Arbor", "Snow"))
                #expect(sent == false)
                #expect(await Self.records(headUnit, appID: "second", "OnAppServiceData").isEmpty)
                await expectSDLError(SDLAppServiceError.self) { try await second.appServices.update(standby, with: .media(MediaServiceData())) }
            }
        }
    }

    @Test func interactionsAndHandledRPCsReachTheProvider() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "player", types: [.media]) { provider in
            try await Self.withManager(headUnit, appID: "remote", types: [.remoteControl]) { consumer in
                let presses = Locked<[ButtonName]>([])
                let service = try await provider.appServices.publish(
                    AppServiceManifest(serviceName: "Player", serviceType: AppServiceType.media.rawValue, mediaServiceManifest: MediaServiceManifest()),
                    handling: [
                        SDLAppServiceRequestHandler(ButtonPress.self) { press in
                            presses.withLock { $0.append(press.buttonName) }
                            return ButtonPressResponse(resultCode: .success, success: true)
                        }
                    ],
                    interactions: { request in SDLAppServiceInteractionResult(serviceSpecificResult: "playing \(request.serviceUri)") })
                let serviceID = try #require(await provider.appServices.record(of: service)?.serviceID)
                let published = await Self.records(headUnit, appID: "player", "PublishAppService").first { $0.direction == "in" }
                #expect(published?.parameters?["appServiceManifest"]?["handledRPCs"] == .array([.integer(Int(ButtonPress.wireFunctionID ?? 0))]))

                let answer = try await consumer.appServices.interact(serviceID: serviceID, uri: "player://song/42", originApp: "remote")
                #expect(answer.success)
                #expect(answer.serviceSpecificResult == "playing player://song/42")

                let pressed = try await consumer.send(ButtonPress(moduleType: .audio, buttonName: .playPause, buttonPressMode: .short))
                #expect(pressed.success)
                #expect(presses.withLock { $0 } == [.playPause])

                try await provider.appServices.unpublish(service)
                let remaining = try await consumer.appServices.services(ofType: "MEDIA")
                #expect(remaining.isEmpty)
            }
        }
    }

    @Test func servicesArePublishedAgainAfterAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "provider") { provider in
            let service = try await provider.appServices.publish(Self.weatherManifest)
            let before = await provider.appServices.record(of: service)?.serviceID
            let records = provider.appServices.publishedRecords()
            #expect(try await provider.dropAndReconnect(on: headUnit, appID: "provider"))
            for await record in records where record.serviceID != before && record.servicePublished { break }
            let after = await provider.appServices.record(of: service)
            #expect(after?.serviceID != before)
            #expect(after?.serviceActive == true)
            #expect(await Self.records(headUnit, appID: "provider", "PublishAppService").filter { $0.direction == "in" }.count == 2)
            try await provider.appServices.update(service, with: Self.weather("Detroit", "Fog"))
        }
    }

    @Test func aConsumersSubscriptionIsRenewedAfterItsReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, appID: "provider") { provider in
            try await Self.withManager(headUnit, appID: "consumer") { consumer in
                let service = try await provider.appServices.publish(Self.weatherManifest)
                try await provider.appServices.update(service, with: Self.weather("Detroit", "Sunny"))
                let updates = try await consumer.appServices.subscribe(toType: "WEATHER")
                var iterator = updates.makeAsyncIterator()
                #expect(await iterator.next()?.weatherServiceData?.currentForecast?.weatherSummary == "Sunny")
                let events = headUnit.events()
                #expect(try await consumer.dropAndReconnect(on: headUnit, appID: "consumer"))
                for await event in events {
                    if case .appServiceSubscribed("consumer", "WEATHER") = event { break }
                }
                // The head unit has the consumer's renewed subscription: the next update reaches it.
                try await provider.appServices.update(service, with: Self.weather("Detroit", "Hail"))
                #expect(await iterator.next()?.weatherServiceData?.currentForecast?.weatherSummary == "Hail")
            }
        }
    }
}
