import SDLRPC
import SDLRuntime
import SmartDeviceLink

/// App services: this app publishes a weather service and updates it; a second connection, a
/// consumer, finds it, asks for its data (the head unit forwards the GetAppServiceData to the
/// provider, which answers) and receives the next update.
struct ServicesTour {
    let place: TourPlace
    var driver: Driver { place.driver }

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: services")
        guard let provider = await place.start(place.configuration(name: "SDL Weather", types: [.information]), steps: steps, label: "provider ready")
        else { return false }
        guard
            let consumer = await place.start(
                place.configuration(appID: place.appID + "-consumer", name: "SDL Consumer", types: [.default]), steps: steps, label: "consumer ready")
        else { return await place.finish("services", [provider], steps: steps) }
        await services(provider: provider, consumer: consumer, steps: steps)
        return await place.finish("services", [consumer, provider], steps: steps)
    }

    private func services(provider: SDLManager, consumer: SDLManager, steps: Steps) async {
        let manifest = AppServiceManifest(
            serviceName: "SDL Weather", serviceType: AppServiceType.weather.rawValue,
            weatherServiceManifest: WeatherServiceManifest(currentForecastSupported: true, weatherForLocationSupported: true))
        let service: SDLAppService
        do {
            service = try await provider.appServices.publish(manifest)
            let record = await provider.appServices.record(of: service)
            steps.pass("published \(record?.serviceID ?? "?") (active: \(record?.serviceActive ?? false))")
        } catch {
            steps.fail("PublishAppService: \(error)")
            return
        }
        do {
            try await provider.appServices.update(service, with: Self.forecast("Sunny", 21.5))
            steps.pass("service data updated: Sunny")
        } catch {
            steps.fail("OnAppServiceData: \(error)")
        }
        do {
            let found = try await consumer.appServices.services(ofType: AppServiceType.weather.rawValue)
            found.isEmpty
                ? steps.fail("the consumer found no weather service")
                : steps.pass("consumer found \(found.map { $0.serviceManifest.serviceName ?? $0.serviceID })")
            let data = try await consumer.appServices.data(ofType: AppServiceType.weather.rawValue)
            let summary = data.weatherServiceData?.currentForecast?.weatherSummary
            summary == "Sunny"
                ? steps.pass("consumer's GetAppServiceData answered by the provider: \(summary ?? "-")") : steps.fail("consumer got \(summary ?? "nothing")")
            let updates = try await consumer.appServices.subscribe(toType: AppServiceType.weather.rawValue)
            try await provider.appServices.update(service, with: Self.forecast("Rain", 14.0))
            let next = await within(10) {
                for await data in updates where data.weatherServiceData?.currentForecast?.weatherSummary == "Rain" { return data }
                return nil
            }
            next != nil ? steps.pass("consumer received the update: Rain") : steps.fail("the consumer did not receive the update")
        } catch {
            steps.fail("consumer: \(error)")
        }
        if provider.negotiatedRPCVersion >= .version(6, 0) {
            do {
                // RPC 6.0: the manifest changes in place; the consumer hears MANIFEST_UPDATE.
                let heard = try await consumer.systemCapabilities.subscribe(to: .appServices)
                var renamed = manifest
                renamed.serviceName = "SDL Weather Pro"
                try await provider.appServices.updateManifest(service, to: renamed)
                let update = await within(10) {
                    for await capability in heard {
                        for service in capability.appServicesCapabilities?.appServices ?? [] where service.updateReason == .manifestUpdate {
                            return service.updatedAppServiceRecord.serviceManifest.serviceName
                        }
                    }
                    return nil
                }
                update == "SDL Weather Pro"
                    ? steps.pass("manifest updated: the consumer heard MANIFEST_UPDATE for \(update ?? "-")")
                    : steps.fail("the consumer heard no manifest update")
            } catch {
                steps.fail("manifest update: \(error)")
            }
            // GetFile and SetCloudAppProperties need the consumer on screen (BACKGROUND or more).
            await driver.control("POST", "/apps/\(place.appID)-consumer/activate", steps: steps)
            guard await consumer.waitForHMILevel(.full, timeout: .seconds(Int(driver.activationTimeout))) else {
                steps.fail("the consumer was not activated")
                return
            }
            do {
                // The consumer fetches the provider's artwork through the service.
                let icon = (0..<2_048).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                _ = try await provider.files.upload(SDLFile(name: "sunny.png", bytes: icon, type: .graphicPng))
                if let serviceID = await provider.appServices.record(of: service)?.serviceID {
                    let fetched = try await consumer.appServices.file(named: "sunny.png", ofService: serviceID)
                    fetched == icon
                        ? steps.pass("consumer fetched the provider's sunny.png (\(fetched.count) bytes, CRC checked)")
                        : steps.fail("the provider's file came back different")
                }
            } catch {
                steps.fail("the provider's file: \(error)")
            }
            do {
                // The companion-app side of cloud apps: an entry in the head unit's policy table.
                let entry = CloudAppProperties(
                    nicknames: ["SDL Weather Cloud"], appID: "weather-cloud", enabled: true, cloudTransportType: "WS",
                    hybridAppPreference: .cloud, endpoint: "ws://weather.example.com:5432/sdl")
                try await consumer.setCloudAppProperties(entry)
                let held = try await consumer.cloudAppProperties(of: "weather-cloud")
                held?.endpoint == entry.endpoint
                    ? steps.pass("cloud app entry set and read back: \(held?.endpoint ?? "-")")
                    : steps.fail("cloud app entry read back as \(String(describing: held))")
            } catch {
                steps.fail("SetCloudAppProperties / GetCloudAppProperties: \(error)")
            }
            do {
                try await provider.appServices.unpublish(service)
                steps.pass("unpublished")
            } catch {
                steps.fail("UnpublishAppService: \(error)")
            }
        }
    }

    static func forecast(_ summary: String, _ celsius: Double) -> SDLAppServiceContent {
        .weather(
            WeatherServiceData(
                location: LocationDetails(locationName: "Detroit"),
                currentForecast: WeatherData(currentTemperature: Temperature(unit: .celsius, value: celsius), weatherSummary: summary)))
    }
}
