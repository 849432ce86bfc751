import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Notifications by type and head-unit requests at the manager level: they outlive a connection.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ManagerRoutingTests {
    static let manifest = AppServiceManifest(serviceName: "Tunes", serviceType: "MEDIA", allowAppConsumers: true, mediaServiceManifest: MediaServiceManifest())

    @Test func aNotificationStreamGoesOnAcrossAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "again")) { manager in
            let statuses = manager.notifications(OnHMIStatus.self)
            var iterator = statuses.makeAsyncIterator()
            for await level in manager.hmiLevels() where level == .full { break }
            // One status from the first connection...
            _ = try await manager.send(ShowAppMenu())
            while let status = await iterator.next(), status.systemContext != .menu {}
            let sawReconnecting = try await manager.dropAndReconnect(on: headUnit, appID: "again")
            #expect(sawReconnecting)
            // ...and the same stream hears the new connection's: NONE, then FULL again.
            var levels: [HMILevel] = []
            while let status = await iterator.next() {
                levels.append(status.hmiLevel)
                if status.hmiLevel == .full { break }
            }
            #expect(levels == [HMILevel.none, .full])
        }
    }

    @Test func headUnitRequestsArriveAsAStreamAndAreAnsweredWithTheirCorrelationID() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "provider", media: true)) { provider in
            let requests = try await provider.requests(GetAppServiceData.self)
            #expect(try await provider.send(PublishAppService(appServiceManifest: Self.manifest)).success)
            let answering = Task {
                var correlationIDs: [UInt32] = []
                for await pending in requests {
                    correlationIDs.append(pending.correlationID)
                    if correlationIDs.count == 1 {
                        pending.respond(
                            GetAppServiceDataResponse(
                                success: true, resultCode: .success,
                                serviceData: AppServiceData(serviceType: "MEDIA", serviceID: "x", mediaServiceData: MediaServiceData(mediaTitle: "Song"))))
                    } else {
                        // Dropped without an answer: the library answers for the app.
                        break
                    }
                }
                return correlationIDs
            }
            try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "consumer")) { consumer in
                let first = try await consumer.send(GetAppServiceData(serviceType: "MEDIA"))
                #expect(first.success)
                #expect(first.serviceData?.mediaServiceData?.mediaTitle == "Song")
                let second = try await consumer.send(GetAppServiceData(serviceType: "MEDIA"))
                #expect(second.resultCode == .genericError)
                #expect(second.info == "the app did not answer")
            }
            let correlationIDs = await answering.value
            #expect(correlationIDs.count == 2)
            #expect(Set(correlationIDs).count == 2)
            // What reached the wire echoed the head unit's correlation IDs.
            let answered = await headUnit.recordedRPCs(appID: "provider").filter { $0.direction == "in" && $0.functionName == "GetAppServiceData" }
            #expect(answered.map(\.payload.correlationID) == correlationIDs)
        }
    }

    @Test func aClosureHandlerStaysAcrossAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "provider", media: true)) { provider in
            try await provider.handleRequests(PerformAppServiceInteraction.self) { request in
                PerformAppServiceInteractionResponse(success: true, resultCode: .success, serviceSpecificResult: "did \(request.serviceUri)")
            }
            let second = await expectSDLError(SDLRPCError.self) {
                try await provider.handleRequests(PerformAppServiceInteraction.self) { _ in
                    PerformAppServiceInteractionResponse(success: true, resultCode: .success)
                }
            }
            #expect(second?.description == "a handler for PerformAppServiceInteraction requests is already registered")
            let sawReconnecting = try await provider.dropAndReconnect(on: headUnit, appID: "provider")
            #expect(sawReconnecting)
            // The service went with the old connection; published again, the old handler answers.
            let published = try await provider.send(PublishAppService(appServiceManifest: Self.manifest))
            let serviceID = try #require(published.appServiceRecord?.serviceID)
            try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "consumer")) { consumer in
                let answer = try await consumer.send(PerformAppServiceInteraction(serviceUri: "play", serviceID: serviceID, originApp: "consumer"))
                #expect(answer.serviceSpecificResult == "did play")
                await provider.removeRequestHandler(PerformAppServiceInteraction.self)
                let refused = try await consumer.send(PerformAppServiceInteraction(serviceUri: "play", serviceID: serviceID, originApp: "consumer"))
                #expect(refused.resultCode == .unsupportedRequest)
            }
        }
    }
}
