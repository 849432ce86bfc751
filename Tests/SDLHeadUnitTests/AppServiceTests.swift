import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// App services across apps: the provider answers through the library's request handlers, the
/// head unit routes requests and answers between the two apps.
@Suite(.timeLimit(.minutes(1))) struct AppServiceTests {
    static let manifest = AppServiceManifest(
        serviceName: "Tunes", serviceType: "MEDIA", allowAppConsumers: true, handledRPCs: [ButtonPress.functionIDValue],
        mediaServiceManifest: MediaServiceManifest())

    @Test func publishConsumeInteractAndUnpublish() async throws {
        let headUnit = TestApp.headUnit()
        let provider = try await TestApp.register(to: headUnit, appID: "provider", media: true)
        let consumer = try await TestApp.register(to: headUnit, appID: "consumer")
        let updates = consumer.client.notifications(OnSystemCapabilityUpdated.self)
        _ = try await consumer.client.send(GetSystemCapability(systemCapabilityType: .appServices, subscribe: true))

        try await provider.client.handleRequests(GetAppServiceData.self) { request in
            GetAppServiceDataResponse(
                success: true, resultCode: .success,
                serviceData: AppServiceData(serviceType: request.serviceType, serviceID: "tunes", mediaServiceData: MediaServiceData(mediaTitle: "Song")))
        }
        try await provider.client.handleRequests(PerformAppServiceInteraction.self) { request in
            PerformAppServiceInteractionResponse(success: true, resultCode: .success, serviceSpecificResult: "played \(request.serviceUri)")
        }
        try await provider.client.handleRequests(ButtonPress.self) { _ in ButtonPressResponse(resultCode: .success, info: "provider", success: true) }

        let published = try await provider.client.send(PublishAppService(appServiceManifest: Self.manifest))
        let record = try #require(published.appServiceRecord)
        #expect(record.serviceActive)
        var updateIterator = updates.makeAsyncIterator()
        #expect(await updateIterator.next()?.systemCapability.appServicesCapabilities?.appServices?.first?.updateReason == .published)
        #expect(await updateIterator.next()?.systemCapability.appServicesCapabilities?.appServices?.first?.updateReason == .activated)
        let listed = try await consumer.client.send(GetSystemCapability(systemCapabilityType: .appServices))
        #expect(listed.systemCapability?.appServicesCapabilities?.appServices?.first?.updatedAppServiceRecord.serviceID == record.serviceID)

        // The consumer's request reaches the provider and its answer comes back.
        let data = try await consumer.client.send(GetAppServiceData(serviceType: "MEDIA", subscribe: true))
        #expect(data.resultCode == .success)
        #expect(data.serviceData?.mediaServiceData?.mediaTitle == "Song")
        let interaction = try await consumer.client.send(
            PerformAppServiceInteraction(serviceUri: "play://1", serviceID: record.serviceID, originApp: "consumer"))
        #expect(interaction.serviceSpecificResult == "played play://1")
        // An RPC the manifest handles goes to the provider.
        let press = try await consumer.client.send(ButtonPress(moduleType: .audio, buttonName: .playPause, buttonPressMode: .short))
        #expect(press.info == "provider")

        // The provider's data reaches the subscriber.
        let serviceData = consumer.client.notifications(OnAppServiceData.self)
        try await provider.client.sendNotification(
            OnAppServiceData(serviceData: AppServiceData(serviceType: "MEDIA", serviceID: "tunes", mediaServiceData: MediaServiceData(mediaTitle: "Next"))))
        var dataIterator = serviceData.makeAsyncIterator()
        #expect(await dataIterator.next()?.serviceData.mediaServiceData?.mediaTitle == "Next")

        #expect(try await provider.client.send(UnpublishAppService(serviceID: record.serviceID)).success)
        #expect(await updateIterator.next()?.systemCapability.appServicesCapabilities?.appServices?.first?.updateReason == .removed)
        #expect(try await consumer.client.send(GetAppServiceData(serviceType: "MEDIA")).resultCode == .dataNotAvailable)
        await provider.close()
        await consumer.close()
    }

    /// GetAppServiceData with `subscribe` subscribes only when the provider succeeds, and the
    /// OnHashChange for it follows the response, as SDL Core does it.
    @Test func aSubscriptionTakesEffectOnlyWhenTheProviderSucceeds() async throws {
        let headUnit = TestApp.headUnit()
        let provider = try await TestApp.register(to: headUnit, appID: "provider", media: true)
        let consumer = try await TestApp.register(to: headUnit, appID: "consumer")
        let succeed = Locked(false)
        try await provider.client.handleRequests(GetAppServiceData.self) { request in
            succeed.withLock { $0 }
                ? GetAppServiceDataResponse(
                    success: true, resultCode: .success, serviceData: AppServiceData(serviceType: request.serviceType, serviceID: "tunes"))
                : GetAppServiceDataResponse(success: false, resultCode: .rejected)
        }
        _ = try await provider.client.send(PublishAppService(appServiceManifest: Self.manifest))

        #expect(try await consumer.client.send(GetAppServiceData(serviceType: "MEDIA", subscribe: true)).resultCode == .rejected)
        var sent = await headUnit.recordedRPCs(appID: "consumer").filter { $0.direction == "out" }.map(\.functionName)
        #expect(sent.last == "GetAppServiceData" && !sent.contains("OnHashChange"))

        succeed.withLock { $0 = true }
        let hashes = consumer.client.notifications(OnHashChange.self)
        #expect(try await consumer.client.send(GetAppServiceData(serviceType: "MEDIA", subscribe: true)).resultCode == .success)
        for await _ in hashes { break }
        sent = await headUnit.recordedRPCs(appID: "consumer").filter { $0.direction == "out" }.map(\.functionName)
        #expect(Array(sent.suffix(2)) == ["GetAppServiceData", "OnHashChange"])

        // Subscribed now: the provider's data reaches the consumer.
        let serviceData = consumer.client.notifications(OnAppServiceData.self)
        try await provider.client.sendNotification(OnAppServiceData(serviceData: AppServiceData(serviceType: "MEDIA", serviceID: "tunes")))
        for await data in serviceData {
            #expect(data.serviceData.serviceID == "tunes")
            break
        }
        await provider.close()
        await consumer.close()
    }
}
