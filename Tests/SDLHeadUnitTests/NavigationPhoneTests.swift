import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// DialNumber, SendLocation, way points and CloseApplication, as SDL Core answers them.
@Suite(.timeLimit(.minutes(1))) struct NavigationPhoneTests {
    @Test func dialNumberStripsTheNumberAndNeedsAPhone() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(try await app.client.send(DialNumber(number: "+1 (313) 555-0100 ext;2")).resultCode == .success)
        #expect(try await app.client.send(DialNumber(number: "call me")).resultCode == .invalidData)
        #expect(await headUnit.dialedNumbers(appID: app.appID) == ["+13135550100;2"])
        await app.close()

        let noPhone = TestApp.headUnit { $0.phoneConnected = false }
        let lonely = try await TestApp.register(to: noPhone)
        let refused = try await lonely.client.send(DialNumber(number: "911"))
        #expect(refused.resultCode == .rejected)
        #expect(refused.info == "no phone is connected over Bluetooth")
        #expect(await noPhone.dialedNumbers(appID: lonely.appID).isEmpty)
        await lonely.close()
    }

    @Test func sendLocationIsRecorded() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        // An image never uploaded is still SUCCESS: SDL Core leaves it to the HMI.
        let location = SendLocation(
            longitudeDegrees: -83.0458, latitudeDegrees: 42.3314, locationName: "Campus Martius",
            locationImage: SDLImage(value: "pin.png", imageType: .dynamic))
        #expect(try await app.client.send(location).resultCode == .success)
        let sent = await headUnit.sentLocations(appID: app.appID)
        #expect(sent.count == 1)
        #expect(sent.first?["locationName"] == .string("Campus Martius"))
        await app.close()
    }

    @Test func wayPointsFollowTheRoute() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, types: [.navigation])
            let all = try await app.client.send(GetWayPoints(wayPointType: .all))
            #expect(all.wayPoints?.map(\.locationName) == ["Fuel stop", "Destination"])
            #expect(all.wayPoints?.first?.coordinate != nil)
            #expect(all.wayPoints?.last?.searchAddress?.locality == "Detroit")
            #expect(try await app.client.send(GetWayPoints(wayPointType: .destination)).wayPoints?.map(\.locationName) == ["Destination"])
            #expect(try await app.client.send(UnsubscribeWayPoints()).resultCode == .ignored)
            #expect(try await app.client.send(SubscribeWayPoints()).resultCode == .success)
            #expect(try await app.client.send(SubscribeWayPoints()).resultCode == .ignored)
            let changes = app.client.notifications(OnWayPointChange.self)
            var iterator = changes.makeAsyncIterator()
            await headUnit.setWayPoints([LocationDetails(coordinate: Coordinate(latitudeDegrees: 42.0, longitudeDegrees: -83.0), locationName: "Detour")])
            #expect(await iterator.next()?.wayPoints.map(\.locationName) == ["Detour"])
            let put = try await api.handle(
                method: "PUT", path: "/waypoints",
                body: Array(#"{"wayPoints":[{"locationName":"Home","coordinate":{"latitudeDegrees":42.5,"longitudeDegrees":-83.5}}]}"#.utf8))
            #expect(put.status == 200)
            #expect(await iterator.next()?.wayPoints.first?.locationName == "Home")
            #expect(
                try await api.handle(method: "GET", path: "/waypoints").jsonValue?["wayPoints"]
                    == (try SDLJSONValue(parsing: #"[{"coordinate":{"latitudeDegrees":42.5,"longitudeDegrees":-83.5},"locationName":"Home"}]"#)))
            #expect(
                try await api.handle(method: "PUT", path: "/waypoints", body: Array(#"{"wayPoints":[{"coordinate":{"latitudeDegrees":"north"}}]}"#.utf8)).status
                    == 400)
            #expect(try await api.handle(method: "PUT", path: "/waypoints", body: Array("{}".utf8)).status == 400)
            #expect(try await app.client.send(UnsubscribeWayPoints()).resultCode == .success)
            #expect(try await app.client.send(UnsubscribeWayPoints()).resultCode == .ignored)
            await app.close()
        }
    }

    @Test func closeApplicationSendsTheAppToNone() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        #expect(try await app.client.send(CloseApplication()).resultCode == .success)
        let status = await app.status { $0.hmiLevel == .none }
        #expect(status?.audioStreamingState == .notAudible)
        #expect(status?.systemContext == .main)
        #expect(await headUnit.registeredApps().map(\.appID) == [app.appID])
        await app.close()
    }

    @Test func subtleAlertPressRoute() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, appID: "tap")
            #expect(try await api.handle(method: "POST", path: "/apps/tap/subtle-alert/press").status == 409)
            async let subtle = app.client.send(SubtleAlert(alertText1: "Parking nearby"))
            await Wait.interaction(events, kind: "subtleAlert")
            #expect(try await api.handle(method: "POST", path: "/apps/tap/subtle-alert/press").status == 200)
            #expect(try await subtle.resultCode == .success)
            #expect(try await api.handle(method: "POST", path: "/apps/nobody/subtle-alert/press").status == 404)
            await app.close()
        }
    }
}
