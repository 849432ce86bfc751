import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Requests the head unit sends to the app (app services): routed to handlers, answered with the
/// head unit's correlation ID, and never left unanswered.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct HeadUnitRequestTests {
    static func request<R: SDLRequest>(_ request: R, correlationID: UInt32) throws -> SDLRPCPayload {
        SDLRPCPayload(rpcType: .request, functionID: R.wireFunctionID!, correlationID: correlationID, json: try SDLJSON.encode(request))
    }

    @Test func aTypedHandlerAnswersWithTheHeadUnitsCorrelationID() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let asked = Locked<[String]>([])
        try await connection.client.handleRequests(GetAppServiceData.self) { request in
            asked.withLock { $0.append(request.serviceType) }
            return GetAppServiceDataResponse(
                success: true, resultCode: .success,
                serviceData: AppServiceData(serviceType: request.serviceType, serviceID: "weather-1"))
        }
        try await headUnit.send(try Self.request(GetAppServiceData(serviceType: "WEATHER"), correlationID: 4242))
        var requests = headUnit.requests.makeAsyncIterator()
        let response = try #require(await requests.next())
        #expect(response.rpcType == .response)
        #expect(response.correlationID == 4242)
        #expect(response.functionID == GetAppServiceData.wireFunctionID)
        let decoded = try SDLJSON.decode(GetAppServiceDataResponse.self, from: response.json).value
        #expect(decoded.success)
        #expect(decoded.serviceData?.serviceID == "weather-1")
        #expect(asked.current == ["WEATHER"])
        await connection.client.close()
    }

    @Test func aRequestNobodyHandlesIsAnsweredUnsupported() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        try await headUnit.send(try Self.request(PerformAppServiceInteraction(serviceUri: "x", serviceID: "y", originApp: "z"), correlationID: 7))
        var requests = headUnit.requests.makeAsyncIterator()
        let response = try #require(await requests.next())
        #expect(response.correlationID == 7)
        #expect(response.functionID == PerformAppServiceInteraction.wireFunctionID)
        let decoded = try SDLJSON.decode(PerformAppServiceInteractionResponse.self, from: response.json).value
        #expect(!decoded.success)
        #expect(decoded.resultCode == .unsupportedRequest)
        await connection.client.close()
    }

    @Test func refusalsErrorsAndBadRequestsGetTheirResultCodes() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        struct Broken: Error {}
        try await connection.client.handleRequests(GetAppServiceData.self) { request in
            if request.serviceType == "MEDIA" { throw SDLRequestRefusal(.rejected, info: "not now") }
            throw Broken()
        }
        var requests = headUnit.requests.makeAsyncIterator()
        try await headUnit.send(try Self.request(GetAppServiceData(serviceType: "MEDIA"), correlationID: 1))
        let refused = try SDLJSON.decode(GetAppServiceDataResponse.self, from: try #require(await requests.next()).json).value
        #expect(refused.resultCode == .rejected)
        #expect(refused.info == "not now")
        try await headUnit.send(try Self.request(GetAppServiceData(serviceType: "NAVIGATION"), correlationID: 2))
        #expect(try SDLJSON.decode(GetAppServiceDataResponse.self, from: try #require(await requests.next()).json).value.resultCode == .genericError)
        // Missing its mandatory serviceType.
        try await headUnit.send(SDLRPCPayload(rpcType: .request, functionID: GetAppServiceData.wireFunctionID!, correlationID: 3, json: Array("{}".utf8)))
        let invalid = try #require(await requests.next())
        #expect(invalid.correlationID == 3)
        #expect(try SDLJSON.decode(GetAppServiceDataResponse.self, from: invalid.json).value.resultCode == .invalidData)
        await connection.client.close()
    }

    @Test func theRawFormAndHandlerRemoval() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        let functionID = try #require(ButtonPress.wireFunctionID)
        let token = try await client.handleRawRequests(functionID: functionID) { request in
            SDLRawResponse(json: Array(#"{"success":true,"resultCode":"SUCCESS","info":"pressed"}"#.utf8))
        }
        await #expect(throws: SDLRPCError.self) { try await client.handleRawRequests(functionID: functionID) { _ in SDLRawResponse(json: []) } }
        var requests = headUnit.requests.makeAsyncIterator()
        let press = ButtonPress(moduleType: .radio, buttonName: .volumeUp, buttonPressMode: .short)
        try await headUnit.send(try Self.request(press, correlationID: 11))
        let answered = try #require(await requests.next())
        #expect(try SDLJSON.decode(ButtonPressResponse.self, from: answered.json).value.info == "pressed")
        await client.removeRequestHandler(token)
        try await headUnit.send(try Self.request(press, correlationID: 12))
        let unhandled = try #require(await requests.next())
        #expect(try SDLJSON.decode(ButtonPressResponse.self, from: unhandled.json).value.resultCode == .unsupportedRequest)
        await client.close()
    }

    @Test func aHandlerMaySendItsOwnRequestsWhileAnswering() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let client = connection.client
        try await client.handleRequests(GetAppServiceData.self) { request in
            // Reading goes on while the handler waits for its own response.
            _ = try await client.send(ListFiles())
            return GetAppServiceDataResponse(success: true, resultCode: .success)
        }
        var requests = headUnit.requests.makeAsyncIterator()
        try await headUnit.send(try Self.request(GetAppServiceData(serviceType: "MEDIA"), correlationID: 5))
        let listFiles = try #require(await requests.next())
        #expect(listFiles.functionID == ListFiles.wireFunctionID)
        try await headUnit.respond(to: listFiles, with: ListFilesResponse(success: true, resultCode: .success))
        let answer = try #require(await requests.next())
        #expect(answer.correlationID == 5)
        #expect(answer.rpcType == .response)
        await client.close()
    }
}
