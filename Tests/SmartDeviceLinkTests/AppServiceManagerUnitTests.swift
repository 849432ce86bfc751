import Logging
import SDLRPC
import SDLRuntime
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The app-service manager against a fake context: what it publishes, the guide's rule that an
/// inactive service pushes no data, the answers it gives the head unit, and clean-up after a
/// refusal. No emulator.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct AppServiceManagerUnitTests {
    static let manifest = AppServiceManifest(
        serviceName: "Sky", serviceType: AppServiceType.weather.rawValue, weatherServiceManifest: WeatherServiceManifest())

    static func record(active: Bool) -> AppServiceRecord {
        AppServiceRecord(serviceID: "sky-1", serviceManifest: manifest, servicePublished: true, serviceActive: active)
    }

    static func published(_ context: FakeManagerContext, active: Bool = false) throws {
        let record = try SDLJSON.encode(record(active: active))
        context.answer("PublishAppService", json: #"{"success":true,"resultCode":"SUCCESS","appServiceRecord":\#(String(decoding: record, as: UTF8.self))}"#)
    }

    @Test func anInactiveServiceKeepsItsDataForTheHeadUnitAndPushesItOnlyOnceActive() async throws {
        let context = FakeManagerContext()
        try Self.published(context)
        let services = SDLAppServiceManager(context: context, logger: Logger(label: "test"))
        try await context.running {
            let service = try await services.publish(Self.manifest)
            #expect(context.sent.count == 1)
            #expect(context.sent.first?.hasPrefix(#"PublishAppService {"appServiceManifest":{"serviceName":"Sky""#) == true)
            #expect(await services.isActive(service) == false)

            let weather = WeatherServiceData(location: LocationDetails(locationName: "Detroit"))
            #expect(try await services.update(service, with: .weather(weather)) == false)
            #expect(context.sent.count == 1, "an inactive service sends no OnAppServiceData")
            // The head unit still gets the latest data when it asks.
            let answer = try await context.headUnitAsks(GetAppServiceData(serviceType: "WEATHER"))
            #expect(answer.resultCode == .success)
            #expect(answer.serviceData?.weatherServiceData?.location.locationName == "Detroit")

            var records = services.publishedRecords().makeAsyncIterator()
            context.push(
                SystemCapability(
                    systemCapabilityType: .appServices,
                    appServicesCapabilities: AppServicesCapabilities(appServices: [
                        AppServiceCapability(updateReason: .activated, updatedAppServiceRecord: Self.record(active: true))
                    ])))
            #expect(await records.next()?.serviceActive == true)
            #expect(await services.isActive(service))
            #expect(try await services.update(service, with: .weather(weather)))
            #expect(context.sent.last?.hasPrefix(#"OnAppServiceData {"serviceData":{"serviceID":"sky-1","serviceType":"WEATHER""#) == true)
        }
    }

    @Test func theHeadUnitsRequestsGetTheGuidesAnswers() async throws {
        let context = FakeManagerContext()
        try Self.published(context)
        let services = SDLAppServiceManager(context: context, logger: Logger(label: "test"))
        try await context.running {
            _ = try await services.publish(Self.manifest)
            let noData = await #expect(throws: SDLRequestRefusal.self) { try await context.headUnitAsks(GetAppServiceData(serviceType: "WEATHER")) }
            #expect(noData?.resultCode == .dataNotAvailable)
            let otherType = await #expect(throws: SDLRequestRefusal.self) { try await context.headUnitAsks(GetAppServiceData(serviceType: "MEDIA")) }
            #expect(otherType?.resultCode == .invalidId)
            let interaction = PerformAppServiceInteraction(serviceUri: "sky://now", serviceID: "sky-1", originApp: "other")
            let noHandler = await #expect(throws: SDLRequestRefusal.self) { try await context.headUnitAsks(interaction) }
            #expect(noHandler?.resultCode == .unsupportedRequest)
        }
    }

    @Test func aRefusedPublishRemovesItsRequestHandlers() async throws {
        let context = FakeManagerContext()
        context.answer("PublishAppService", with: .disallowed)
        let services = SDLAppServiceManager(context: context, logger: Logger(label: "test"))
        try await context.running {
            let handler = SDLAppServiceRequestHandler(ButtonPress.self) { _ in ButtonPressResponse(resultCode: .success, success: true) }
            let refusal = await #expect(throws: SDLError.self) { try await services.publish(Self.manifest, handling: [handler]) }
            #expect(refusal?.code == .refusedByHeadUnit)
            #expect(refusal?.resultCode == .disallowed)
            #expect(context.sent.first?.contains(#""handledRPCs":[\#(ButtonPress.wireFunctionID ?? 0)]"#) == true)
            // ButtonPress is no longer answered; the service's own requests stay for other services.
            #expect(
                context.handledRequests
                    == [GetAppServiceData.wireFunctionID, PerformAppServiceInteraction.wireFunctionID].compactMap { $0 }.reduce(into: []) { $0.insert($1) })
        }
    }

    @Test func aStoppedManagerIsNotReady() async throws {
        let context = FakeManagerContext()
        context.detach()
        let services = SDLAppServiceManager(context: context, logger: Logger(label: "test"))
        let error = await #expect(throws: SDLError.self) { try await services.publish(Self.manifest) }
        #expect(error?.code == .notReady)
        #expect(context.sent.isEmpty)
    }
}
