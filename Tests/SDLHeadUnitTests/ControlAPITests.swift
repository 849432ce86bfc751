import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The control API's routes and errors, through its router without sockets (HummingbirdTesting).
@Suite(.timeLimit(.minutes(1))) struct ControlAPITests {
    @Test func listsActivatesAndShowsTheScreen() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, appID: "8675309", name: "Hello", activate: false)
            let apps = try await api.handle(method: "GET", path: "/apps")
            #expect(apps.status == 200)
            #expect(
                apps.jsonValue
                    == .array([
                        try SDLJSONValue(
                            parsing:
                                #"{"appID":"8675309","appTypes":["DEFAULT"],"hmiLevel":"NONE","isMedia":false,"name":"Hello","session":1,"systemContext":"MAIN"}"#
                        )
                    ]))
            #expect(try await api.handle(method: "POST", path: "/apps/8675309/activate").status == 200)
            #expect(await app.status { $0.hmiLevel == .full } != nil)
            _ = try await app.client.send(Show(mainField1: "Hello", softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 3)]))
            let screen = try await api.handle(method: "GET", path: "/apps/8675309/screen")
            #expect(screen.jsonValue?["mainField1"] == .string("Hello"))
            #expect(screen.jsonValue?["hmiLevel"] == .string("FULL"))
            let presses = app.client.notifications(OnButtonPress.self)
            #expect(try await api.handle(method: "POST", path: "/apps/8675309/softbuttons/3/press", body: Array(#"{"mode":"LONG"}"#.utf8)).status == 200)
            var iterator = presses.makeAsyncIterator()
            #expect(await iterator.next()?.buttonPressMode == .long)
            let log = try await api.handle(method: "GET", path: "/apps/8675309/log")
            #expect(log.contentType == "application/x-ndjson")
            #expect(String(decoding: log.body, as: UTF8.self).contains(#""name":"Show""#))
            await app.close()
        }
    }

    @Test func touchesDriverDistractionAndTheKeyboardMaskOverHTTP() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.policy = SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: "nav")
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await ControlClient.with(headUnit) { api in
            let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
            var touches = nav.client.notifications(OnTouchEvent.self).makeAsyncIterator()
            let touched = try await api.handle(method: "POST", path: "/apps/nav/touch", body: Array(#"{"type":"BEGIN","x":100,"y":200}"#.utf8))
            #expect(touched.jsonValue?["delivered"] == .bool(true))
            #expect(await touches.next()?.event.first?.c.first == TouchCoord(x: 100, y: 200))
            #expect(try await api.handle(method: "POST", path: "/apps/nav/touch", body: Array(#"{"type":"SWIPE","x":1,"y":1}"#.utf8)).status == 400)
            var distraction = nav.client.notifications(OnDriverDistraction.self).makeAsyncIterator()
            #expect(try await api.handle(method: "PUT", path: "/driver-distraction", body: Array(#"{"state":"DD_ON"}"#.utf8)).status == 200)
            #expect(await distraction.next()?.state == .ddOn)
            // No keyboard on top: the mask has nothing to hide.
            #expect(try await api.handle(method: "POST", path: "/apps/nav/keyboard/mask", body: Array(#"{"masked":true}"#.utf8)).status == 400)
            await nav.close()
        }
    }

    @Test(arguments: [
        ("GET", "/apps/nope/screen", "", 404),
        ("POST", "/apps/nope/activate", "", 404),
        ("POST", "/buttons/NOT_A_BUTTON/press", "", 404),
        ("POST", "/buttons/OK/press", #"{"mode":"SIDEWAYS"}"#, 400),
        ("POST", "/buttons/OK/press", "{not json", 400),
        ("DELETE", "/apps", "", 404),
        ("PUT", "/language", #"{"language":"KLINGON"}"#, 400),
        ("PUT", "/language", "[]", 400),
        ("POST", "/apps/x/faults/putfile", #"{"fault":"SOMETIMES"}"#, 400),
        ("POST", "/apps/x/faults/putfile", "{}", 400),
    ])
    func badRequestsAreJSONErrors(method: String, path: String, body: String, status: Int) async throws {
        try await ControlClient.with(TestApp.headUnit()) { api in
            let answer = try await api.handle(method: method, path: path, body: Array(body.utf8))
            #expect(answer.status == status)
            guard case .string(let message)? = answer.jsonValue?["error"] else {
                Issue.record("no error message for \(method) \(path)")
                return
            }
            #expect(!message.isEmpty)
        }
    }

    @Test func filesVehicleDataAndPolicy() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, appID: "data")
            _ = try await app.client.send(PutFile(syncFileName: "art.png", fileType: .graphicPng), bulkData: [1, 2, 3])
            // A graphic never uploaded is answered SUCCESS, as SDL Core does; the screen says so.
            #expect(
                try await app.client.send(
                    Show(graphic: SDLImage(value: "art.png", imageType: .dynamic), secondaryGraphic: SDLImage(value: "none.png", imageType: .dynamic))
                ).resultCode == .success)
            let images = try await api.handle(method: "GET", path: "/apps/data/screen").jsonValue?["images"]
            #expect(
                images
                    == (try SDLJSONValue(
                        parsing:
                            #"[{"name":"art.png","url":"/apps/data/files/art.png","uploaded":true},{"name":"none.png","url":"/apps/data/files/none.png","uploaded":false}]"#
                    )))
            let files = try await api.handle(method: "GET", path: "/apps/data/files")
            #expect(files.jsonValue == .array([try SDLJSONValue(parsing: #"{"name":"art.png","url":"/apps/data/files/art.png"}"#)]))
            let file = try await api.handle(method: "GET", path: "/apps/data/files/art.png")
            #expect(file.body == [1, 2, 3])
            // A fault for the next PutFile: the head unit answers it with the result code asked for.
            #expect(
                try await api.handle(method: "POST", path: "/apps/data/faults/putfile", body: Array(#"{"fault":"GENERIC_ERROR","chunk":1}"#.utf8)).status == 200
            )
            #expect(try await app.client.send(PutFile(syncFileName: "b.png", fileType: .graphicPng), bulkData: [4]).resultCode == .genericError)
            #expect(try await app.client.send(PutFile(syncFileName: "b.png", fileType: .graphicPng), bulkData: [4]).resultCode == .success)
            _ = try await app.client.send(DeleteFile(syncFileName: "b.png"))
            #expect(try await api.handle(method: "GET", path: "/apps/data/files/none.png").status == 404)
            let updates = app.client.notifications(OnVehicleData.self)
            _ = try await app.client.send(SubscribeVehicleData(rpm: true))
            #expect(try await api.handle(method: "PUT", path: "/vehicle-data", body: Array(#"{"rpm": 3000}"#.utf8)).status == 200)
            var iterator = updates.makeAsyncIterator()
            #expect(await iterator.next()?.rpm == 3000)
            #expect(try await api.handle(method: "GET", path: "/vehicle-data").jsonValue?["rpm"] == .integer(3000))
            #expect(try await api.handle(method: "PUT", path: "/vehicle-data", body: Array(#"{"rpm": "fast"}"#.utf8)).status == 400)
            #expect(try await api.handle(method: "PUT", path: "/policy", body: Array(#"{"functional_groupings": {}}"#.utf8)).status == 400)
            let permissions = app.client.notifications(OnPermissionsChange.self)
            #expect(
                try await api.handle(
                    method: "PUT", path: "/policy",
                    body: Array(
                        #"{"functional_groupings": {"G": {"rpcs": {"Show": {"hmi_levels": ["FULL"]}}}}, "app_policies": {"default": {"groups": ["G"]}}}"#.utf8)
                ).status == 200)
            var permissionIterator = permissions.makeAsyncIterator()
            #expect(await permissionIterator.next()?.permissionItem.map(\.rpcName) == ["Show"])
            await app.close()
        }
    }

    @Test func systemRequestsAndPolicyUpdatesOnDemand() async throws {
        let headUnit = TestApp.headUnit()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, appID: "sys")
            let requests = app.client.rawNotifications(OnSystemRequest.self)
            #expect(
                try await api.handle(method: "POST", path: "/apps/sys/policy-update", body: Array(#"{"url": "http://127.0.0.1:9/policy"}"#.utf8)).status == 200)
            #expect(
                try await api.handle(
                    method: "POST", path: "/apps/sys/system-request",
                    body: Array(#"{"requestType": "HTTP", "url": "http://x/y", "timeout": 7, "body": "hi"}"#.utf8)
                ).status == 200)
            #expect(try await api.handle(method: "POST", path: "/apps/sys/system-request", body: Array(#"{"requestType": "NOPE"}"#.utf8)).status == 400)
            #expect(try await api.handle(method: "POST", path: "/apps/nobody/policy-update", body: Array(#"{"url": "http://x"}"#.utf8)).status == 404)
            var iterator = requests.makeAsyncIterator()
            let policy = try #require(await iterator.next())
            let request = try SDLJSON.decode(OnSystemRequest.self, from: policy.payload.json).value
            #expect(request.requestType == .proprietary)
            #expect(request.url == "http://127.0.0.1:9/policy")
            // SDL Core's wrapper: headers for the HTTP client and the snapshot as the body.
            let wrapper = try SDLJSONValue(parsing: policy.payload.bulkData)
            #expect(wrapper["HTTPRequest"]?["headers"]?["RequestMethod"] == .string("POST"))
            guard case .string(let body)? = wrapper["HTTPRequest"]?["body"] else {
                Issue.record("no snapshot body")
                return
            }
            #expect(try SDLJSONValue(parsing: Array(body.utf8))["policy_table"]?["app_policies"]?["sys"] != nil)
            let http = try #require(await iterator.next())
            #expect(try SDLJSON.decode(OnSystemRequest.self, from: http.payload.json).value.timeout == 7)
            #expect(http.payload.bulkData == Array("hi".utf8))
            // An answer that is no policy table is refused.
            let refused = try await app.client.send(SystemRequest(requestType: .proprietary), bulkData: Array("nonsense".utf8))
            #expect(refused.resultCode == .invalidData)
            await app.close()
        }
    }

    @Test func answersWhatIsOnTop() async throws {
        let headUnit = TestApp.headUnit()
        let events = headUnit.events()
        try await ControlClient.with(headUnit) { api in
            let app = try await TestApp.register(to: headUnit, appID: "pick")
            #expect(try await api.handle(method: "POST", path: "/apps/pick/interaction", body: Array(#"{"choiceID":1}"#.utf8)).status == 409)
            async let slider = app.client.send(SDLSlider(numTicks: 3, position: 1, sliderHeader: "Fan"))
            for await event in events { if case .interactionStarted = event { break } }
            #expect(try await api.handle(method: "POST", path: "/apps/pick/interaction", body: Array(#"{"nonsense":1}"#.utf8)).status == 400)
            #expect(try await api.handle(method: "POST", path: "/apps/pick/interaction", body: Array(#"{"sliderPosition":2}"#.utf8)).status == 200)
            #expect(try await slider.sliderPosition == 2)
            await app.close()
        }
    }
}
