import Foundation
import SDLHMIRPC
import SDLRuntime
import Testing

/// The generated HMI API types through the JSON-RPC codec: every function of SDL Core 8.2's
/// HMI_API.xml, strict and lenient decoding with paths, and encoding that validates.
@Suite("HMI API codec")
struct HMICodecTests {
    /// `Fixtures/hmi-corpus.jsonl`: one message per function with every mandatory parameter,
    /// written by `Scripts/hmi_corpus.py` from HMI_API.xml (not from this code).
    static let corpus: [String] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hmi-corpus.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }()

    /// Decodes `message`'s body as the type its method names and encodes it again.
    static func reencode(_ message: SDLJSONRPCMessage) throws -> [UInt8] {
        let method = try #require(message.method)
        switch message.kind {
        case .request(let id):
            let type = try #require(HMIAPI.requestsByMethod[method], "no request type for \(method)")
            return try reencodeRequest(type, message, id: id)
        case .notification:
            let type = try #require(HMIAPI.notificationsByMethod[method], "no notification type for \(method)")
            return try reencodeNotification(type, message)
        case .response(let id, let code):
            let type = try #require(HMIAPI.responsesByMethod[method], "no response type for \(method)")
            return try reencodeResponse(type, message, id: id, code: code)
        case .error:
            Issue.record("the corpus has no errors")
            return []
        }
    }

    static func reencodeRequest<T: SDLHMIRequest>(_ type: T.Type, _ message: SDLJSONRPCMessage, id: SDLJSONRPCID) throws -> [UInt8] {
        let params = try message.decode(T.self).value
        return try SDLJSONRPC.encode(SDLJSONRPCRequest(id: id, params: params))
    }

    static func reencodeNotification<T: SDLHMINotification>(_ type: T.Type, _ message: SDLJSONRPCMessage) throws -> [UInt8] {
        try SDLJSONRPC.encode(SDLJSONRPCNotification(params: try message.decode(T.self).value))
    }

    static func reencodeResponse<T: SDLHMIResponse>(_ type: T.Type, _ message: SDLJSONRPCMessage, id: SDLJSONRPCID, code: Int) throws -> [UInt8] {
        let result = try message.decode(T.self).value
        return try SDLJSONRPC.encode(HMIResponse(id: id, code: Common.Result(code: code), result: result))
    }

    @Test func corpusCoversEveryFunction() {
        #expect(Self.corpus.count == 265)
        #expect(HMIAPI.requests.count + HMIAPI.responses.count + HMIAPI.notifications.count == 265)
        let methods = Set(Self.corpus.compactMap { line in try? SDLJSONRPC.read(Array(line.utf8)) }.map { "\($0.kindName) \($0.method ?? "")" })
        let generated = Set(
            HMIAPI.requests.map { "request \($0.method)" } + HMIAPI.responses.map { "response \($0.method)" }
                + HMIAPI.notifications.map { "notification \($0.method)" })
        #expect(methods == generated)
    }

    @Test func corpusRoundTripsByteForByte() throws {
        try #require(!Self.corpus.isEmpty)
        for line in Self.corpus {
            let message = try SDLJSONRPC.read(Array(line.utf8))
            #expect(message.warnings.isEmpty && message.unknownKeys.isEmpty, "\(line)")
            let again = try Self.reencode(message)
            #expect(String(decoding: again, as: UTF8.self) == line)
        }
    }

    // MARK: Typed messages

    static let show = UI.Show(
        showStrings: [
            Common.TextFieldStruct(fieldName: .mainField1, fieldText: "Hello"),
            Common.TextFieldStruct(fieldName: .mainField2, fieldText: "World"),
        ],
        appID: 65537)

    @Test func requestIsBuiltAndDecoded() throws {
        let bytes = try SDLJSONRPC.encode(SDLJSONRPCRequest(id: 7, params: Self.show))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"mainField1","fieldText":"Hello"},{"fieldName":"mainField2","fieldText":"World"}],"appID":65537}}"#
        )
        let decoded = try SDLJSONRPC.decodeRequest(UI.Show.self, from: bytes)
        #expect(decoded.value.id == 7 && decoded.value.params == Self.show)
    }

    @Test func responseCarriesItsResultCodeByNumber() throws {
        let text = #"{"id":7,"result":{"method":"UI.Show","code":21},"jsonrpc":"2.0"}"#
        let reply = try SDLJSONRPC.decodeReply(UI.ShowResponse.self, code: Common.Result.self, from: Array(text.utf8)).value
        guard case .result(let response) = reply else {
            Issue.record("\(reply)")
            return
        }
        #expect(response.code == .warnings && response.id == 7)
        #expect(Common.Result(code: 4) == .rejected && Common.Result.success.code == 0)
        #expect(Common.Result(code: 99) == .unrecognized("99") && Common.Result(code: 99).code == 99)
    }

    @Test func errorReplyNamesItsMethod() throws {
        let error = HMIError(id: 3, code: .rejected, message: "The requested layout is not supported", method: "UI.Show")
        let bytes = SDLJSONRPC.encode(error)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":3,"error":{"code":4,"message":"The requested layout is not supported","data":{"method":"UI.Show"}}}"#)
        let reply = try SDLJSONRPC.decodeReply(UI.ShowResponse.self, code: Common.Result.self, from: bytes).value
        #expect(reply == .error(error))
    }

    @Test func strictDecodingReportsPathsUnderParams() throws {
        let long = String(repeating: "x", count: 501)
        let text =
            #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{"showStrings":[{"fieldName":"mainField1","fieldText":"a"},{"fieldName":"mainField2","fieldText":"\#(long)"}],"appID":1}}"#
        #expect {
            _ = try SDLJSONRPC.decodeRequest(UI.Show.self, from: Array(text.utf8))
        } throws: { error in
            (error as? SDLDecodingError)?.description == "UI.Show.params.showStrings[1].fieldText: 501 characters, maxlength is 500"
        }
        // Lenient: the value as sent, the violation a warning.
        let lenient = try SDLJSONRPC.decodeRequest(UI.Show.self, from: Array(text.utf8), policy: .lenient)
        #expect(lenient.value.params.showStrings[1].fieldText.count == 501)
        #expect(lenient.warnings.map(\.description) == ["UI.Show.params.showStrings[1].fieldText: 501 characters, maxlength is 500"])
    }

    @Test func lenientDecodingAcceptsAPeerThatBreaksTheEnvelope() throws {
        // No "jsonrpc", no result.method: an HMI that skips them is still understood.
        let text = #"{"id":9,"result":{"code":0}}"#
        #expect(throws: SDLDecodingError.self) {
            _ = try SDLJSONRPC.read(Array(text.utf8))
        }
        let message = try SDLJSONRPC.read(Array(text.utf8), policy: .lenient)
        #expect(message.kind == .response(id: 9, code: 0))
        #expect(!message.warnings.isEmpty)
    }

    @Test func encodingValidates() {
        var show = Self.show
        show.showStrings = Array(repeating: Common.TextFieldStruct(fieldName: .mainField1, fieldText: "x"), count: 9)
        #expect {
            _ = try SDLJSONRPC.encode(SDLJSONRPCRequest(id: 1, params: show))
        } throws: { error in
            (error as? SDLValidationError)?.description == "UI.Show.showStrings: 9 items, maxsize is 8"
        }
    }

    @Test func notificationHasNoID() throws {
        let bytes = try SDLJSONRPC.encode(SDLJSONRPCNotification(params: UI.OnCommand(cmdID: 5, appID: 65537)))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":5,"appID":65537}}"#)
    }

    @Test func appAndHMITypesDoNotClash() {
        // `UI.Show` is the HMI's; the app's `Show` lives in SDLRPC. Both name the same wire function.
        #expect(UI.Show.method == "UI.Show" && UI.Show.structInfo.name == "UI.Show")
        #expect(UI.Alert.Response.self == UI.AlertResponse.self)
        #expect(TTS.Speak.method == "TTS.Speak" && Navigation.StartStream.method == "Navigation.StartStream")
    }
}

extension SDLJSONRPCMessage {
    var kindName: String {
        switch kind {
        case .request: "request"
        case .notification: "notification"
        case .response: "response"
        case .error: "error"
        }
    }
}
