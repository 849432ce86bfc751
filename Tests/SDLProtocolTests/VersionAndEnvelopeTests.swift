import SDLProtocol
import SDLRPC
import SDLRuntime
import Testing

@Suite struct ProtocolVersionTests {
    @Test func parsesWhatStartServiceCarries() {
        #expect(SDLProtocolVersion("5.4.0") == SDLProtocolVersion(5, 4, 0))
        #expect(SDLProtocolVersion("5") == SDLProtocolVersion(5))
        #expect(SDLProtocolVersion("4.2") == SDLProtocolVersion(4, 2, 0))
        #expect(SDLProtocolVersion("5.4.0")!.description == "5.4.0")
        for bad in ["", "6.0.0", "0.1", "5..0", "5.4.0.1", "a.b", "5.300", "-1", " 5"] {
            #expect(SDLProtocolVersion(bad) == nil, "\(bad)")
        }
        #expect(SDLProtocolVersion(4) < SDLProtocolVersion(5, 1))
        #expect(SDLProtocolVersion(1).defaultMTU == 1_488)
        #expect(SDLProtocolVersion(3).defaultMTU == 131_072)
        #expect(!SDLProtocolVersion(4).hasControlPayloads)
    }
}

@Suite struct FunctionTableTests {
    static let functions = SDLFunctionTable(
        messages: MobileAPI.requests.map { $0 as any SDLMessage.Type } + MobileAPI.notifications.map { $0 as any SDLMessage.Type })

    @Test func namesAndIDsBothWays() {
        #expect(Self.functions.name(of: 13) == "Show")
        #expect(Self.functions.functionID(named: "OnHMIStatus") == 32768)
        #expect(Self.functions.name(of: 999_999) == nil)
        #expect(Show.wireFunctionID == 13)
        #expect(SDLNoResponse.wireFunctionID == nil)
    }
}

@Suite struct ProtocolOneEnvelopeTests {
    let functions = FunctionTableTests.functions

    @Test func wrapsAsPROTOCOLmdSection7_3() throws {
        let request = SDLRPCPayload(rpcType: .request, functionID: 1, correlationID: 1, json: Array(#"{"appName":"A"}"#.utf8))
        let bytes = try SDLProtocolOneEnvelope.encode(request, functions: functions)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"request":{"name":"RegisterAppInterface","correlationID":1,"parameters":{"appName":"A"}}}"#)
        let notification = SDLRPCPayload(rpcType: .notification, functionID: 32768, correlationID: 0xFFFF_FFFF, json: [])
        #expect(
            String(decoding: try SDLProtocolOneEnvelope.encode(notification, functions: functions), as: UTF8.self)
                == #"{"notification":{"name":"OnHMIStatus","parameters":{}}}"#)
    }

    @Test func roundTrips() throws {
        let response = SDLRPCPayload(rpcType: .response, functionID: 13, correlationID: 65_536, json: Array(#"{"success":true,"resultCode":"SUCCESS"}"#.utf8))
        let decoded = try SDLProtocolOneEnvelope.decode(try SDLProtocolOneEnvelope.encode(response, functions: functions), functions: functions)
        #expect(decoded == response)
    }

    @Test func refusesWhatItCannotCarry() {
        #expect(throws: SDLProtocolError.self) {
            try SDLProtocolOneEnvelope.encode(SDLRPCPayload(rpcType: .request, functionID: 13, correlationID: 65_537, json: []), functions: functions)
        }
        #expect(throws: SDLProtocolError.self) {
            try SDLProtocolOneEnvelope.encode(SDLRPCPayload(rpcType: .request, functionID: 32, correlationID: 1, json: [], bulkData: [1]), functions: functions)
        }
        #expect(throws: SDLProtocolError.self) {
            try SDLProtocolOneEnvelope.encode(SDLRPCPayload(rpcType: .request, functionID: 777_777, correlationID: 1, json: []), functions: functions)
        }
    }

    @Test(arguments: [
        (#"not json"#, "protocol 1 envelope"),
        (#"{"request":{"name":"Show","correlationID":1},"response":{}}"#, "expected one of"),
        (#"{"reply":{}}"#, "reply is not"),
        (#"{"request":{"correlationID":1}}"#, "request.name"),
        (#"{"request":{"name":"Nope","correlationID":1}}"#, "request.name: Nope"),
        (#"{"response":{"name":"Show","correlationID":-1}}"#, "response.correlationID"),
        (#"{"request":{"name":"Show","correlationID":1,"parameters":[]}}"#, "request.parameters"),
    ])
    func namesTheBadField(input: String, expected: String) {
        do {
            _ = try SDLProtocolOneEnvelope.decode(Array(input.utf8), functions: functions)
            Issue.record("\(input) should not decode")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }
}
