import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Validation SDL Core does on requests the library's open types would let through (issue 46,
/// item 5): values outside an enum, unknown vehicle-data items, diagnostic modes, QUERY_APPS
/// data, buttons by app type and the ones every app has, mixed subscription results.
@Suite(.timeLimit(.minutes(1))) struct CoreValidationTests {
    /// A head unit whose policy lets the test app use everything in FULL, so each rule below is
    /// reached (SDL Core's policy would refuse DiagnosticMessage before the update).
    static func headUnit() async -> SDLHeadUnitEmulator {
        let headUnit = TestApp.headUnit()
        var policy = SDLHeadUnitPolicy.sdlCoreDefault
        policy.groups["Everything"] = Dictionary(
            uniqueKeysWithValues: MobileAPI.requests.map {
                ($0.functionName, SDLHeadUnitPolicy.Permission(levels: [.full, .limited, .background, .none]))
            })
        policy.appGroups["validating"] = ["Base-4", "Everything"]
        policy.appGroups["pre_DataConsent"] = (policy.appGroups["pre_DataConsent"] ?? []) + ["Everything"]
        await headUnit.setPolicy(policy)
        return headUnit
    }

    static func send(_ app: TestApp, _ function: String, _ json: String, bulkData: [UInt8] = []) async throws -> Reply {
        let id = try #require(MobileAPI.requests.first { $0.functionName == function }?.functionIDValue)
        let response = try await app.client.sendRaw(functionName: function, functionID: UInt32(id), json: Array(json.utf8), bulkData: bulkData)
        let value = try SDLJSONValue(parsing: response.payload.json)
        guard case .bool(let success)? = value["success"], case .string(let code)? = value["resultCode"] else { return Reply(success: false, code: "?") }
        return Reply(success: success, code: code)
    }

    struct Reply: Equatable {
        var success: Bool
        var code: String
    }

    @Test func aValueOutsideAnEnumIsInvalidData() async throws {
        let headUnit = await Self.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "validating", media: true)
        // 12KHZ is no SamplingRate of the spec: the library keeps it, Core refuses it.
        let reply = try await Self.send(
            app, "PerformAudioPassThru",
            #"{"samplingRate":"12KHZ","maxDuration":2000,"bitsPerSample":"16_BIT","audioType":"PCM"}"#)
        #expect(reply == Reply(success: false, code: "INVALID_DATA"))
        #expect(try await Self.send(app, "SubscribeButton", #"{"buttonName":"WARP"}"#) == Reply(success: false, code: "INVALID_DATA"))
        await app.close()
    }

    @Test func vehicleDataNamingOnlyUnknownItemsIsInvalidData() async throws {
        let headUnit = await Self.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "validating")
        #expect(try await Self.send(app, "GetVehicleData", #"{"warpDrive":true}"#) == Reply(success: false, code: "INVALID_DATA"))
        #expect(try await Self.send(app, "SubscribeVehicleData", #"{"warpDrive":true}"#) == Reply(success: false, code: "INVALID_DATA"))
        // One known item among unknown ones is a request.
        #expect(try await Self.send(app, "GetVehicleData", #"{"warpDrive":true,"speed":true}"#).success)
        await app.close()
    }

    @Test func aSubscriptionWhoseItemsEndedDifferentlyIsIgnoredButSuccessful() async throws {
        let headUnit = await Self.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "validating")
        #expect(try await app.client.send(SubscribeVehicleData(speed: true)).resultCode == .success)
        let mixed = try await app.client.send(SubscribeVehicleData(speed: true, rpm: true))
        #expect(mixed.success && mixed.resultCode == .ignored)
        #expect(mixed.speed?.resultCode == .dataAlreadySubscribed && mixed.rpm?.resultCode == .success)
        let unsubscribed = try await app.client.send(UnsubscribeVehicleData(speed: true, fuelLevel: true))
        #expect(unsubscribed.success && unsubscribed.resultCode == .ignored)
        // All the same way: SUCCESS, or IGNORED with success false.
        #expect(try await app.client.send(UnsubscribeVehicleData(rpm: true)).resultCode == .success)
        let none = try await app.client.send(UnsubscribeVehicleData(rpm: true))
        #expect(!none.success && none.resultCode == .ignored)
        await app.close()
    }

    @Test func aDiagnosticModeTheHeadUnitDoesNotListIsRejected() async throws {
        let headUnit = await Self.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "validating")
        #expect(
            try await Self.send(app, "DiagnosticMessage", #"{"targetID":2024,"messageLength":2,"messageData":[4,0]}"#)
                == Reply(success: false, code: "REJECTED"))
        #expect(try await Self.send(app, "DiagnosticMessage", #"{"targetID":2024,"messageLength":2,"messageData":[1,0]}"#).success)
        await app.close()
    }

    @Test func queryAppsNeedsJSONData() async throws {
        let headUnit = await Self.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "validating")
        #expect(try await Self.send(app, "SystemRequest", #"{"requestType":"QUERY_APPS"}"#) == Reply(success: false, code: "INVALID_DATA"))
        #expect(
            try await Self.send(app, "SystemRequest", #"{"requestType":"QUERY_APPS"}"#, bulkData: Array("not json".utf8))
                == Reply(success: false, code: "INVALID_DATA"))
        #expect(try await Self.send(app, "SystemRequest", #"{"requestType":"QUERY_APPS"}"#, bulkData: Array(#"{"response":[]}"#.utf8)).success)
        await app.close()
    }

    @Test func buttonsByAppTypeAndTheOneEveryAppHas() async throws {
        let headUnit = await Self.headUnit()
        let plain = try await TestApp.register(to: headUnit, appID: "plain", name: "Plain")
        // Media buttons are for media apps.
        #expect(try await plain.client.send(SubscribeButton(buttonName: .playPause)).resultCode == .rejected)
        // Every app has CUSTOM_BUTTON from its registration (its soft buttons' presses).
        #expect(try await plain.client.send(SubscribeButton(buttonName: .customButton)).resultCode == .ignored)
        #expect(try await headUnit.screen(appID: "plain")["subscribedButtons"] == .array([.string("CUSTOM_BUTTON")]))
        // A media app of RPC 4.5 asking for OK gets PLAY_PAUSE, as before 5.0.
        let old = try await TestApp.register(
            to: headUnit, appID: "old", name: "Old", media: true, version: SyncMsgVersion(majorVersion: 4, minorVersion: 5, patchVersion: 0))
        #expect(try await old.client.send(SubscribeButton(buttonName: .ok)).resultCode == .success)
        #expect(try await headUnit.screen(appID: "old")["subscribedButtons"] == .array([.string("CUSTOM_BUTTON"), .string("PLAY_PAUSE")]))
        await plain.close()
        await old.close()
    }
}
