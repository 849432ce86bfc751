import SDLAsyncHTTPClient
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The head unit's HTTP and PROPRIETARY system requests, forwarded by the library through
/// AsyncHTTPClient to a loopback HTTP server playing the policy server.
@Suite(.timeLimit(.minutes(2)), .runsManagers) struct SystemRequestTests {
    /// A policy server's answer, as sdl_server gives it: the table inside `data`.
    static let policyTableUpdate = Array(
        #"""
        {"data":[{"policy_table":{
          "functional_groupings":{
            "Base-4":{"rpcs":{"Show":{"hmi_levels":["BACKGROUND","FULL","LIMITED"]},
                              "SystemRequest":{"hmi_levels":["BACKGROUND","FULL","LIMITED","NONE"]}}},
            "VehicleInfo-3":{"rpcs":{"GetVehicleData":{"hmi_levels":["BACKGROUND","FULL","LIMITED"],"parameters":["rpm","speed"]}}}},
          "app_policies":{"default":{"groups":["Base-4","VehicleInfo-3"]},"pre_DataConsent":{"groups":["Base-4"]}}}}]}
        """#.utf8)

    static func start(_ headUnit: SDLHeadUnitEmulator, appID: String, http: (any SDLHTTPClient)? = SDLAsyncHTTPClient()) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.httpClient = http
        return SDLManager(configuration: configuration)
    }

    static func headUnit(policyServer url: String) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.policyServerURL = url
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    @Test func thePolicyUpdateGoesThroughTheAppToThePolicyServerAndGrantsVehicleData() async throws {
        try await LoopbackHTTPServer.serving(answer: { _ in (200, Self.policyTableUpdate) }) { server in
            let url = server.url("/api/1/policies/proprietary")
            let headUnit = Self.headUnit(policyServer: url)
            let manager = try await Self.start(headUnit, appID: "ptu")
            let outcomes = manager.systemRequestOutcomes()
            try await startRunning(manager)
            try await stopping(manager) { manager in
                var iterator = outcomes.makeAsyncIterator()
                let outcome = await iterator.next()
                #expect(outcome == .forwarded(.proprietary, url: url, httpStatus: 200, bytes: Self.policyTableUpdate.count))
                #expect(await manager.vehicleData.waitUntilAllowed(\.speed, \.rpm))
                #expect(try await manager.vehicleData.get(\.speed).speed == 50.5)

                // The server got the snapshot SDL Core wrapped, posted as JSON.
                let posted = try #require(server.requests.first)
                #expect(server.requests.count == 1)
                #expect(posted.method == "POST")
                #expect(posted.path == "/api/1/policies/proprietary")
                #expect(posted.contentType?.hasPrefix("application/json") == true)
                let snapshot = try SDLJSONValue(parsing: posted.body)
                #expect(snapshot["policy_table"]?["app_policies"]?["ptu"] != nil)
                // The answer went back whole in SystemRequest(PROPRIETARY).
                let answered = await headUnit.recordedRPCs(appID: "ptu").filter { $0.direction == "in" && $0.functionName == "SystemRequest" }
                #expect(answered.map(\.bulkDataSize) == [Self.policyTableUpdate.count])
                #expect(answered.first?.parameters?["requestType"] == .string("PROPRIETARY"))
            }
        }
    }

    @Test func aFailingPolicyServerIsReportedAndTheAppGoesOn() async throws {
        try await LoopbackHTTPServer.serving(answer: { _ in (500, Array(#"{"error":"down"}"#.utf8)) }) { server in
            let headUnit = Self.headUnit(policyServer: server.url("/policy"))
            let manager = try await Self.start(headUnit, appID: "ptu-fails")
            let outcomes = manager.systemRequestOutcomes()
            try await startRunning(manager)
            try await stopping(manager) { manager in
                var iterator = outcomes.makeAsyncIterator()
                guard case .failed(.proprietary, _, let reason)? = await iterator.next() else {
                    Issue.record("the failure was not reported")
                    return
                }
                #expect(reason.contains("500"))
                // Nothing was sent back, vehicle data stays refused, and the app still works.
                #expect(await headUnit.recordedRPCs(appID: "ptu-fails").filter { $0.functionName == "SystemRequest" }.isEmpty)
                await expectSDLError(SDLVehicleDataError.self) { _ = try await manager.vehicleData.get(\.speed) }
                let value7 = try await manager.send(Show(mainField1: "still here")).success
                #expect(value7)
            }
        }
    }

    @Test func anUnreachableServerOrNoHTTPClientIsReportedNotFatal() async throws {
        // A port nothing listens on: the server is stopped before the request.
        let server = try await LoopbackHTTPServer.start { _ in (200, []) }
        let url = server.url("/gone")
        await server.stop()
        let headUnit = SDLHeadUnitEmulator()
        let manager = try await Self.start(headUnit, appID: "ptu-unreachable")
        let outcomes = manager.systemRequestOutcomes()
        try await startRunning(manager)
        try await stopping(manager) { manager in
            // AsyncHTTPClient retries a refused connection until the head unit's timeout: keep it short.
            // Real time: the failure comes when that 1 s runs out on AsyncHTTPClient's own clock, which a test cannot drive.
            let snapshot = SDLHeadUnitEmulator.wrappedSnapshot(.object([.init(key: "policy_table", value: .object([]))]))
            try await headUnit.sendSystemRequest(appID: "ptu-unreachable", type: .proprietary, url: url, timeout: 1, bulkData: snapshot)
            var iterator = outcomes.makeAsyncIterator()
            guard case .failed(.proprietary, url, let reason)? = await iterator.next() else {
                Issue.record("the failure was not reported")
                return
            }
            #expect(reason.contains("HTTP exchange failed"))
        }

        let bare = try await Self.start(Self.headUnit(policyServer: url), appID: "no-http", http: nil)
        let bareOutcomes = bare.systemRequestOutcomes()
        try await startRunning(bare)
        try await stopping(bare) { bare in
            var bareIterator = bareOutcomes.makeAsyncIterator()
            guard case .failed(_, _, let why)? = await bareIterator.next() else {
                Issue.record("the missing HTTP client was not reported")
                return
            }
            #expect(why.contains("no HTTP client"))
        }
    }

    @Test func anHTTPRequestPostsItsBytesAndReturnsTheAnswer() async throws {
        try await LoopbackHTTPServer.serving(answer: { received in (200, Array("echo:".utf8) + received.body) }) { server in
            let headUnit = SDLHeadUnitEmulator()
            let manager = try await Self.start(headUnit, appID: "http")
            let outcomes = manager.systemRequestOutcomes()
            try await startRunning(manager)
            try await stopping(manager) { manager in
                // Safety timeout: 5 s bounds the HTTP exchange so a stuck server fails the test; the answer ends the wait.
                try await headUnit.sendSystemRequest(appID: "http", type: .http, url: server.url("/exchange"), timeout: 5, bulkData: Array("ping".utf8))
                var iterator = outcomes.makeAsyncIterator()
                #expect(await iterator.next() == .forwarded(.http, url: server.url("/exchange"), httpStatus: 200, bytes: 9))
                #expect(server.requests.map(\.body) == [Array("ping".utf8)])
                let answered = await headUnit.recordedRPCs(appID: "http").filter { $0.direction == "in" && $0.functionName == "SystemRequest" }
                #expect(answered.map(\.bulkDataSize) == [9])
            }
        }
    }

    @Test func coresWrapperBecomesThePostedBodyWithItsHeaders() {
        let snapshot = SDLJSONValue.object([.init(key: "policy_table", value: .object([]))])
        let wrapped = SDLHeadUnitEmulator.wrappedSnapshot(snapshot)
        let request = SystemRequests.httpRequest(
            for: OnSystemRequest(requestType: .proprietary, url: "http://policy", timeout: 30), url: "http://policy", bulkData: wrapped)
        #expect(request.method == "POST")
        #expect(request.body == snapshot.jsonBytes)
        #expect(request.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(request.timeout == .seconds(30))
        let bare = SystemRequests.httpRequest(for: OnSystemRequest(requestType: .http, url: "http://x"), url: "http://x", bulkData: [])
        #expect(bare.method == "GET")
        #expect(bare.timeout == SystemRequests.defaultTimeout)
    }
}
