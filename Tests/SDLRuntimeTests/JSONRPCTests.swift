import Testing

@testable import SDLRuntime

// MARK: - Test types, shaped like generated HMI API code

/// `Common.TextFieldStruct`, cut down.
private struct TestTextField: SDLCodable {
    var fieldName: String
    var fieldText: String

    init(fieldName: String, fieldText: String) {
        self.fieldName = fieldName
        self.fieldText = fieldText
    }

    static let structInfo = SDLStructInfo(
        name: "Common.TextFieldStruct",
        parameters: [
            .init(name: "fieldName", type: .string, isMandatory: true),
            .init(name: "fieldText", type: .string, isMandatory: true, maxLength: 500),
        ])

    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        let parameters = Self.structInfo.parameters
        var fieldName: String?
        var fieldText: String?
        while let key = try reader.nextKey(in: parameters) {
            switch key.index {
            case 0: fieldName = try reader.readString(parameters[0])
            case 1: fieldText = try reader.readString(parameters[1])
            default: try reader.skipUnknownValue(forKey: key.name)
            }
        }
        guard let fieldName, let fieldText else {
            if fieldName == nil { reader.missing(parameters[0]) }
            if fieldText == nil { reader.missing(parameters[1]) }
            throw .invalidValue
        }
        self.init(fieldName: fieldName, fieldText: fieldText)
    }

    func encode<W: SDLWriter>(to writer: inout W) {
        writer.writeString(fieldName, forKey: "fieldName")
        writer.writeString(fieldText, forKey: "fieldText")
    }

    func validate(into validator: inout SDLValidator) {
        let parameters = Self.structInfo.parameters
        validator.checkString(fieldName, parameters[0])
        validator.checkString(fieldText, parameters[1])
    }
}

/// `UI.Show` (request), cut down: a mandatory struct array and an optional bounded integer.
private struct TestShow: SDLHMIRequest {
    typealias Response = TestShowResponse

    var showStrings: [TestTextField]
    var appID: Int?

    init(showStrings: [TestTextField], appID: Int? = nil) {
        self.showStrings = showStrings
        self.appID = appID
    }

    static let method = "UI.Show"
    static let messageType = SDLMessageType.request
    static let structInfo = SDLStructInfo(
        name: "UI.Show",
        parameters: [
            .init(name: "showStrings", type: .structure("Common.TextFieldStruct"), isArray: true, isMandatory: true, minSize: 0, maxSize: 8),
            .init(name: "appID", type: .integer, isMandatory: false, minValue: 0, maxValue: 2_000_000_000),
        ])

    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        let parameters = Self.structInfo.parameters
        var showStrings: [TestTextField]?
        var appID: Int?
        while let key = try reader.nextKey(in: parameters) {
            switch key.index {
            case 0: showStrings = try reader.readStructArray(TestTextField.self, parameters[0])
            case 1: appID = try reader.readInteger(parameters[1])
            default: try reader.skipUnknownValue(forKey: key.name)
            }
        }
        if showStrings == nil {
            reader.missing(parameters[0])
            showStrings = []
        }
        guard let showStrings else { throw .invalidValue }
        self.init(showStrings: showStrings, appID: appID)
    }

    func encode<W: SDLWriter>(to writer: inout W) {
        writer.writeStructArray(showStrings, forKey: "showStrings")
        if let appID { writer.writeInteger(appID, forKey: "appID") }
    }

    func validate(into validator: inout SDLValidator) {
        let parameters = Self.structInfo.parameters
        validator.checkStructArray(showStrings, parameters[0])
        validator.checkInteger(appID, parameters[1])
    }
}

/// `UI.Show` (response), with one optional parameter.
private struct TestShowResponse: SDLHMIResponse {
    var info: String?

    init(info: String? = nil) {
        self.info = info
    }

    static let method = "UI.Show"
    static let messageType = SDLMessageType.response
    static let structInfo = SDLStructInfo(
        name: "UI.Show",
        parameters: [
            .init(name: "info", type: .string, isMandatory: false, maxLength: 1000)
        ])

    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        let parameters = Self.structInfo.parameters
        var info: String?
        while let key = try reader.nextKey(in: parameters) {
            switch key.index {
            case 0: info = try reader.readString(parameters[0])
            default: try reader.skipUnknownValue(forKey: key.name)
            }
        }
        self.init(info: info)
    }

    func encode<W: SDLWriter>(to writer: inout W) {
        if let info { writer.writeString(info, forKey: "info") }
    }

    func validate(into validator: inout SDLValidator) {
        validator.checkString(info, Self.structInfo.parameters[0])
    }
}

/// `UI.OnCommand` (notification).
private struct TestOnCommand: SDLHMINotification {
    var cmdID: Int
    var appID: Int?

    init(cmdID: Int, appID: Int? = nil) {
        self.cmdID = cmdID
        self.appID = appID
    }

    static let method = "UI.OnCommand"
    static let messageType = SDLMessageType.notification
    static let structInfo = SDLStructInfo(
        name: "UI.OnCommand",
        parameters: [
            .init(name: "cmdID", type: .integer, isMandatory: true, minValue: 0, maxValue: 2_000_000_000),
            .init(name: "appID", type: .integer, isMandatory: false),
        ])

    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        let parameters = Self.structInfo.parameters
        var cmdID: Int?
        var appID: Int?
        while let key = try reader.nextKey(in: parameters) {
            switch key.index {
            case 0: cmdID = try reader.readInteger(parameters[0])
            case 1: appID = try reader.readInteger(parameters[1])
            default: try reader.skipUnknownValue(forKey: key.name)
            }
        }
        guard let cmdID else {
            reader.missing(parameters[0])
            throw .invalidValue
        }
        self.init(cmdID: cmdID, appID: appID)
    }

    func encode<W: SDLWriter>(to writer: inout W) {
        writer.writeInteger(cmdID, forKey: "cmdID")
        if let appID { writer.writeInteger(appID, forKey: "appID") }
    }

    func validate(into validator: inout SDLValidator) {
        let parameters = Self.structInfo.parameters
        validator.checkInteger(cmdID, parameters[0])
        validator.checkInteger(appID, parameters[1])
    }
}

/// `BasicCommunication.OnReady` (notification): no parameters.
private struct TestOnReady: SDLHMINotification {
    init() {}

    static let method = "BasicCommunication.OnReady"
    static let messageType = SDLMessageType.notification
    static let structInfo = SDLStructInfo(name: "BasicCommunication.OnReady", parameters: [])

    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        while let key = try reader.nextKey(in: Self.structInfo.parameters) { try reader.skipUnknownValue(forKey: key.name) }
    }

    func encode<W: SDLWriter>(to writer: inout W) {}

    func validate(into validator: inout SDLValidator) {}
}

/// `Common.Result`, cut down.
private enum TestResult: SDLHMIResultCode {
    case success
    case rejected
    case warnings
    case unrecognized(String)

    init(rawValue: String) {
        switch rawValue {
        case "SUCCESS": self = .success
        case "REJECTED": self = .rejected
        case "WARNINGS": self = .warnings
        default: self = .unrecognized(rawValue)
        }
    }

    var rawValue: String {
        switch self {
        case .success: "SUCCESS"
        case .rejected: "REJECTED"
        case .warnings: "WARNINGS"
        case .unrecognized(let rawValue): rawValue
        }
    }

    init(code: Int) {
        switch code {
        case 0: self = .success
        case 4: self = .rejected
        case 21: self = .warnings
        default: self = .unrecognized(String(code))
        }
    }

    var code: Int {
        switch self {
        case .success: 0
        case .rejected: 4
        case .warnings: 21
        case .unrecognized(let rawValue): Int(rawValue) ?? -1
        }
    }

    static let allCases: [TestResult] = [.success, .rejected, .warnings]

    var isRecognized: Bool {
        if case .unrecognized = self { return false }
        return true
    }

    static let enumInfo = SDLEnumInfo(
        name: "Common.Result",
        elements: [
            .init(name: "SUCCESS", value: 0),
            .init(name: "REJECTED", value: 4),
            .init(name: "WARNINGS", value: 21),
        ])
}

// MARK: - Helpers

private func rpc(_ text: String) -> [UInt8] { Array(text.utf8) }

private func rpcText(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The descriptions of the errors `body` throws; empty when it does not throw.
private func rpcErrors<T>(_ body: () throws(SDLDecodingError) -> T) -> [String] {
    do {
        _ = try body()
        return []
    } catch {
        #expect(!error.errors.isEmpty, "an SDLDecodingError without errors")
        return error.errors.map(\.description)
    }
}

/// Whether decoding failed with a `.malformed` or `.tooDeep` issue (and did not crash).
private func failsAsMalformed<T>(_ body: () throws(SDLDecodingError) -> T) -> Bool {
    do {
        _ = try body()
        return false
    } catch {
        return error.errors.contains { issue in
            switch issue.kind {
            case .malformed, .tooDeep: true
            default: false
            }
        }
    }
}

private let showText =
    #"{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"mainField1","fieldText":"Now \"playing\"\n"},{"fieldName":"mainField2","fieldText":"é 🚗"}],"appID":65537}}"#

private let show = TestShow(
    showStrings: [
        TestTextField(fieldName: "mainField1", fieldText: "Now \"playing\"\n"),
        TestTextField(fieldName: "mainField2", fieldText: "é 🚗"),
    ],
    appID: 65537)

// MARK: - Tests

@Suite struct JSONRPCTests {
    // MARK: Round trips

    @Test func requestRoundTripsByteForByte() throws {
        let message = try SDLJSONRPC.read(rpc(showText))
        #expect(message.kind == .request(id: 7))
        #expect(message.method == "UI.Show")
        #expect(message.warnings.isEmpty && message.unknownKeys.isEmpty)
        let decoded = try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(showText))
        #expect(decoded.value == SDLJSONRPCRequest(id: 7, params: show))
        #expect(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty)
        #expect(rpcText(try SDLJSONRPC.encode(decoded.value)) == showText)
    }

    @Test func stringIDRoundTrips() throws {
        let text = #"{"jsonrpc":"2.0","id":"a\"b","method":"UI.Show","params":{"showStrings":[]}}"#
        let decoded = try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text))
        #expect(decoded.value.id == .string("a\"b"))
        #expect(decoded.value.id.description == #""a"b""#)
        #expect(rpcText(try SDLJSONRPC.encode(decoded.value)) == text)
    }

    @Test func notificationRoundTripsByteForByte() throws {
        let text = #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":3,"appID":12}}"#
        #expect(try SDLJSONRPC.read(rpc(text)).kind == .notification)
        let decoded = try SDLJSONRPC.decodeNotification(TestOnCommand.self, from: rpc(text))
        #expect(decoded.value.params == TestOnCommand(cmdID: 3, appID: 12))
        #expect(rpcText(try SDLJSONRPC.encode(decoded.value)) == text)
    }

    @Test func responseRoundTripsByteForByte() throws {
        for text in [
            #"{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show","info":"ok"}}"#,
            #"{"jsonrpc":"2.0","id":-3,"result":{"code":21,"method":"UI.Show"}}"#,
        ] {
            let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(text))
            guard case .result(let response) = reply.value else {
                Issue.record("not a result: \(reply.value)")
                continue
            }
            #expect(reply.warnings.isEmpty && reply.unknownKeys.isEmpty)
            #expect(rpcText(try SDLJSONRPC.encode(response)) == text)
        }
        let reply = try SDLJSONRPC.decodeReply(
            TestShowResponse.self, code: TestResult.self, from: rpc(#"{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show","info":"ok"}}"#))
        #expect(reply.value == .result(SDLJSONRPCResponse(id: 7, code: .success, result: TestShowResponse(info: "ok"))))
        #expect(reply.value.id == 7)
    }

    @Test func errorRoundTripsByteForByte() throws {
        let full = #"{"jsonrpc":"2.0","id":7,"error":{"code":4,"message":"text","data":{"method":"UI.Show"}}}"#
        let message = try SDLJSONRPC.read(rpc(full))
        #expect(message.kind == .error(id: 7, code: 4, message: "text"))
        #expect(message.method == "UI.Show")
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(full))
        let error = SDLJSONRPCError<TestResult>(id: 7, code: .rejected, message: "text", method: "UI.Show")
        #expect(reply.value == .error(error))
        #expect(rpcText(SDLJSONRPC.encode(error)) == full)
        #expect(error.description == "UI.Show: REJECTED (4): text")

        // Without message and data, and with the id unreadable.
        let bare = #"{"jsonrpc":"2.0","id":null,"error":{"code":4}}"#
        let bareMessage = try SDLJSONRPC.read(rpc(bare))
        #expect(bareMessage.kind == .error(id: nil, code: 4, message: nil))
        #expect(bareMessage.method == nil)
        let bareReply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(bare))
        #expect(bareReply.value == .error(SDLJSONRPCError(id: nil, code: .rejected)))
        #expect(bareReply.value.id == nil)
        #expect(rpcText(SDLJSONRPC.encode(SDLJSONRPCError<TestResult>(id: nil, code: .rejected))) == bare)

        // Data without a method; other data is the sender's.
        let noMethod = #"{"jsonrpc":"2.0","id":1,"error":{"code":4,"data":{"x":[1,{"y":2}]}}}"#
        let noMethodMessage = try SDLJSONRPC.read(rpc(noMethod))
        #expect(noMethodMessage.kind == .error(id: 1, code: 4, message: nil))
        #expect(noMethodMessage.method == nil && noMethodMessage.unknownKeys.isEmpty)
    }

    @Test func parameterlessNotificationWritesEmptyParams() throws {
        let text = #"{"jsonrpc":"2.0","method":"BasicCommunication.OnReady","params":{}}"#
        #expect(rpcText(try SDLJSONRPC.encode(SDLJSONRPCNotification(params: TestOnReady()))) == text)
        #expect(try SDLJSONRPC.decodeNotification(TestOnReady.self, from: rpc(text)).value.params == TestOnReady())
    }

    // MARK: Key order and absent params

    @Test func keysInAnyOrder() throws {
        let request =
            #"{"params":{"appID":65537,"showStrings":[{"fieldText":"Now \"playing\"\n","fieldName":"mainField1"},{"fieldName":"mainField2","fieldText":"é 🚗"}]},"method":"UI.Show","id":7,"jsonrpc":"2.0"}"#
        #expect(try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(request)).value == SDLJSONRPCRequest(id: 7, params: show))

        let response = #" { "result" : { "info" : "ok", "method" : "UI.Show", "code" : 0 } , "id" : 7 , "jsonrpc" : "2.0" } "#
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(response))
        #expect(reply.value == .result(SDLJSONRPCResponse(id: 7, code: .success, result: TestShowResponse(info: "ok"))))
        #expect(reply.unknownKeys.isEmpty)

        let error = #"{"error":{"data":{"method":"UI.Show"},"message":"text","code":4},"id":7,"jsonrpc":"2.0"}"#
        #expect(try SDLJSONRPC.read(rpc(error)).kind == .error(id: 7, code: 4, message: "text"))
    }

    @Test func paramsMayBeAbsent() throws {
        let onReady = #"{"jsonrpc":"2.0","method":"BasicCommunication.OnReady"}"#
        #expect(try SDLJSONRPC.decodeNotification(TestOnReady.self, from: rpc(onReady)).value.params == TestOnReady())
        // Absent params are empty params: a mandatory parameter is then missing, at its path.
        let show = #"{"jsonrpc":"2.0","id":1,"method":"UI.Show"}"#
        #expect(try SDLJSONRPC.read(rpc(show)).kind == .request(id: 1))
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(show)) }
                == ["UI.Show.params.showStrings: mandatory parameter is missing"])
    }

    // MARK: Strict and lenient envelopes

    @Test func missingVersionIsAnErrorOnlyWhenStrict() throws {
        let text = #"{"id":7,"method":"UI.Show","params":{"showStrings":[]}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text)) }
                == ["UI.Show.jsonrpc: mandatory parameter is missing"])
        let decoded = try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text), policy: .lenient)
        #expect(decoded.value == SDLJSONRPCRequest(id: 7, params: TestShow(showStrings: [])))
        #expect(decoded.warnings.map(\.description) == ["UI.Show.jsonrpc: mandatory parameter is missing"])
        #expect(decoded.warnings.allSatisfy { $0.severity == .warning })

        let wrong = #"{"jsonrpc":"1.0","method":"UI.OnCommand","params":{"cmdID":1}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(wrong)) }
                == [#"UI.OnCommand.jsonrpc: expected "2.0", found "1.0""#])
        #expect(try SDLJSONRPC.read(rpc(wrong), policy: .lenient).warnings.count == 1)
        let number = #"{"jsonrpc":2.0,"method":"UI.OnCommand","params":{"cmdID":1}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(number)) }
                == [#"UI.OnCommand.jsonrpc: expected "2.0", found Float"#])
    }

    @Test func missingResultMethodIsAnErrorOnlyWhenStrict() throws {
        let text = #"{"jsonrpc":"2.0","id":7,"result":{"code":0,"info":"ok"}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text)) }
                == ["message.result.method: mandatory parameter is missing"])
        let message = try SDLJSONRPC.read(rpc(text), policy: .lenient)
        #expect(message.kind == .response(id: 7, code: 0))
        #expect(message.method == nil)
        // The caller knows from the id what it answers.
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(text), policy: .lenient)
        #expect(reply.value == .result(SDLJSONRPCResponse(id: 7, code: .success, result: TestShowResponse(info: "ok"))))
        #expect(reply.warnings.map(\.description) == ["message.result.method: mandatory parameter is missing"])
        #expect(reply.unknownKeys.isEmpty)
    }

    @Test func whatLeavesNoMessageFailsEvenLeniently() {
        for text in [
            #"{"jsonrpc":"2.0","result":{"code":0,"method":"UI.Show"}}"#,  // response without id
            #"{"jsonrpc":"2.0","id":1,"result":{"method":"UI.Show"}}"#,  // response without code
            #"{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}"#,  // error without code
            #"{"jsonrpc":"2.0","id":null,"method":"UI.Show"}"#,  // request with a null id
            #"{"jsonrpc":"2.0","id":1}"#,  // no method, result or error
            #"{"jsonrpc":"2.0","id":1,"method":7}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":[1]}"#,
        ] {
            #expect(!rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text), policy: .lenient) }.isEmpty, "\(text)")
        }
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(#"{"jsonrpc":"2.0","id":1,"result":{"method":"UI.Show"}}"#)) }
                == ["UI.Show.result.code: mandatory parameter is missing"])
    }

    @Test func unknownResultCodeIsKeptWithAWarning() throws {
        let text = #"{"jsonrpc":"2.0","id":7,"result":{"code":99,"method":"UI.Show"}}"#
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(text))
        #expect(reply.value == .result(SDLJSONRPCResponse(id: 7, code: .unrecognized("99"), result: TestShowResponse())))
        #expect(reply.warnings.map(\.description) == [#"UI.Show.result.code: "99" is not an element of Common.Result"#])
    }

    // MARK: Mismatches

    @Test func methodMismatchNamesBoth() throws {
        let alert = #"{"jsonrpc":"2.0","id":7,"method":"UI.Alert","params":{}}"#
        let message = try SDLJSONRPC.read(rpc(alert))
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try message.decode(TestShow.self) }
                == ["message: expected UI.Show request, found UI.Alert request"])
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(alert)) }
                == ["message: expected UI.Show request, found UI.Alert request"])

        // The right method, the wrong kind.
        let notification = #"{"jsonrpc":"2.0","method":"UI.Show","params":{"showStrings":[]}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(notification)) }
                == ["message: expected UI.Show request, found UI.Show notification"])
        let request = #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{"showStrings":[]}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in
                try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(request))
            } == ["message: expected UI.Show response, found UI.Show request"])
        let otherResponse = #"{"jsonrpc":"2.0","id":1,"result":{"code":0,"method":"UI.Alert"}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in
                try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(otherResponse))
            } == ["message: expected UI.Show response, found UI.Alert response"])
        let otherError = #"{"jsonrpc":"2.0","id":1,"error":{"code":4,"data":{"method":"UI.Alert"}}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in
                try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(otherError))
            } == ["message: expected UI.Show response, found error 4 for UI.Alert"])
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(otherError)).decode(TestShowResponse.self) }
                == ["message: expected UI.Show response, found error 4 for UI.Alert"])
    }

    // MARK: Body issues

    @Test func bodyIssuesAreRootedAtTheMethod() throws {
        let long = String(repeating: "x", count: 501)
        let text =
            #"{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"a","fieldText":"b"},{"fieldName":"c","fieldText":""#
            + long + #""}],"appID":-1}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text)) } == [
                "UI.Show.params.showStrings[1].fieldText: 501 characters, maxlength is 500",
                "UI.Show.params.appID: -1 is out of range, minvalue is 0",
            ])
        let lenient = try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text), policy: .lenient)
        #expect(lenient.value.params.showStrings[1].fieldText == long)
        #expect(lenient.warnings.count == 2 && lenient.warnings.allSatisfy { $0.severity == .warning })

        let response = #"{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show","info":5}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in
                try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(response))
            } == ["UI.Show.result.info: expected String, found Integer"])
    }

    @Test func responseCodeAndMethodAreNotUnknownKeys() throws {
        let text = #"{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show","info":"ok","extra":{"code":1,"method":2}},"more":true}"#
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(text))
        #expect(reply.unknownKeys.map(\.description) == ["UI.Show.more", "UI.Show.result.extra"])
        let decoded = try SDLJSONRPC.read(rpc(text)).decode(TestShowResponse.self)
        #expect(decoded.value == TestShowResponse(info: "ok"))
        #expect(decoded.unknownKeys.map(\.description) == ["UI.Show.more", "UI.Show.result.extra"])
    }

    // MARK: Duplicates

    @Test func duplicateKeysAreErrorsWhenStrict() throws {
        let top = #"{"jsonrpc":"2.0","id":1,"id":2,"method":"UI.OnCommand","params":{"cmdID":1}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(top)) }
                == [#"UI.OnCommand.id: key "id" appears more than once"#])
        #expect(try SDLJSONRPC.read(rpc(top), policy: .lenient).kind == .request(id: 2))
        let code = #"{"jsonrpc":"2.0","id":1,"result":{"code":0,"method":"UI.Show","code":4}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(code)) }
                == [#"UI.Show.result.code: key "code" appears more than once"#])
        // Reported once, by the envelope.
        let reply = try SDLJSONRPC.decodeReply(TestShowResponse.self, code: TestResult.self, from: rpc(code), policy: .lenient)
        #expect(reply.warnings.map(\.description) == [#"UI.Show.result.code: key "code" appears more than once"#])
        let unknown = #"{"jsonrpc":"2.0","method":"UI.OnCommand","x":1,"x":2,"params":{"cmdID":1}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(unknown)) }
                == [#"UI.OnCommand.x: key "x" appears more than once"#])
    }

    // MARK: Malformed input

    @Test func everyPrefixOfEachKindFails() async {
        let messages = [
            showText,
            #"{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show","info":"ok"}}"#,
            #"{"jsonrpc":"2.0","id":7,"error":{"code":4,"message":"text","data":{"method":"UI.Show"}}}"#,
            #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":3,"appID":12}}"#,
        ]
        for text in messages {
            let bytes = rpc(text)
            for count in 0..<bytes.count {
                let prefix = Array(bytes[..<count])
                for policy in [SDLDecodingPolicy.strict, .lenient] {
                    #expect(failsAsMalformed { () throws(SDLDecodingError) in try SDLJSONRPC.read(prefix, policy: policy) }, "\(count) bytes of \(text)")
                }
            }
            await Task.yield()
        }
    }

    @Test func malformedMessagesFail() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        for text in [
            "", "   ", "[]", #""UI.Show""#, "null", "7",
            #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":1}} x"#,
            #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":1},}"#,
            #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":01}}"#,
            #"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":1,"s":"\x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"result":{"code":0,"method":"UI.Show","info":tru}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{"x":"# + deep + "}}",
            #"{"jsonrpc":"2.0","id":"# + deep + #","method":"UI.Show"}"#,
            #"{"jsonrpc":"2.0","id":1,"result":{"code":0,"method":"UI.Show","x":"# + deep + "}}",
            #"{"jsonrpc":"2.0","id":1,"error":{"code":4,"data":{"x":"# + deep + "}}}",
            #"{"x":"# + deep + "}",
        ] {
            for policy in [SDLDecodingPolicy.strict, .lenient] {
                #expect(failsAsMalformed { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text), policy: policy) }, "\(text)")
                #expect(
                    failsAsMalformed { () throws(SDLDecodingError) in
                        try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text), policy: policy)
                    }, "\(text)")
            }
        }
        // Invalid UTF-8 in the body.
        let invalid = rpc(#"{"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":1,"s":""#) + [0xC3, 0x28] + rpc(#""}}"#)
        #expect(failsAsMalformed { () throws(SDLDecodingError) in try SDLJSONRPC.read(invalid) })
    }

    @Test func tooDeepBodyNamesItsPath() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let text = #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{"x":"# + deep + "}}"
        // The message is level 1, params level 2.
        let indexes = String(repeating: "[0]", count: SDLJSON.defaultMaxDepth - 2)
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text)) }
                == ["UI.Show.params.x\(indexes): nested deeper than \(SDLJSON.defaultMaxDepth) levels"])
    }

    @Test func resultAndErrorTogetherAreMalformed() {
        for text in [
            #"{"jsonrpc":"2.0","id":1,"result":{"code":0,"method":"UI.Show"},"error":{"code":4}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{},"result":{"code":0,"method":"UI.Show"}}"#,
        ] {
            for policy in [SDLDecodingPolicy.strict, .lenient] {
                #expect(failsAsMalformed { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text), policy: policy) }, "\(text)")
            }
        }
    }

    @Test func idOfTheWrongTypeFails() {
        for (id, found) in [("[1]", "Array"), ("1.5", "Float"), ("true", "Boolean"), (#"{"a":1}"#, "Object")] {
            let text = #"{"jsonrpc":"2.0","id":"# + id + #","method":"UI.Show","params":{"showStrings":[]}}"#
            #expect(
                rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text), policy: .lenient) }
                    == ["UI.Show.id: expected Integer or String, found \(found)"])
        }
        let huge = #"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"UI.Show"}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(huge)) }
                == ["UI.Show.id: number 123456789012345678901234567890 does not fit"])
    }

    // MARK: One pass and two

    /// `decodeRequest` decodes the params as it meets them; `read` then `decode` skips them
    /// first. Both give the same value, warnings, unknown keys and errors.
    @Test func decodeRequestMatchesReadThenDecode() {
        let long = String(repeating: "x", count: 501)
        for text in [
            showText,
            #"{"params":{"showStrings":[{"fieldName":"a","fieldText":"b"}]},"id":"q","method":"UI.Show","more":1}"#,
            #"{"id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"a","fieldText":""# + long + #""}],"x":1}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"UI.Show"}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"a","fieldText":tru}]}}"#,
            #"{"params":{"showStrings":[{"fieldName":"a","fieldText":tru}]},"jsonrpc":"2.0","id":7,"method":"UI.Show"}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"UI.Alert","params":{"showStrings":[1,]}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"UI.Alert","params":{"showStrings":[]}}"#,
            #"{"jsonrpc":"2.0","method":"UI.Show","params":{"showStrings":[]}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"UI.Show","params":{"appID":1,"appID":"x","x":1,"x":[1 2]}}"#,
        ] {
            for policy in [SDLDecodingPolicy.strict, .lenient] {
                let one = Result { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(text), policy: policy) }
                let two = Result { () throws(SDLDecodingError) in try SDLJSONRPC.read(rpc(text), policy: policy).decode(TestShow.self, policy: policy) }
                switch (one, two) {
                case (.success(let one), .success(let two)):
                    #expect(one.value.params == two.value, "\(text)")
                    #expect(one.warnings == two.warnings, "\(text)")
                    #expect(one.unknownKeys == two.unknownKeys, "\(text)")
                case (.failure(let one), .failure(let two)):
                    #expect(one.issues == two.issues, "\(text)")
                default:
                    Issue.record("\(policy) \(text): one pass \(one), two passes \(two)")
                }
            }
        }
        // A syntax error in params is at its path under the message's method.
        let alert = #"{"jsonrpc":"2.0","id":7,"method":"UI.Alert","params":{"showStrings":[1,]}}"#
        #expect(
            rpcErrors { () throws(SDLDecodingError) in try SDLJSONRPC.decodeRequest(TestShow.self, from: rpc(alert)) }
                == ["UI.Alert.params.showStrings[1]: invalid number at byte 71"])
    }

    // MARK: Encoding

    /// As `SDLJSON.encode` does: issues rooted at the type's name.
    @Test func encodingValidatesTheBody() {
        let request = SDLJSONRPCRequest(
            id: 1, params: TestShow(showStrings: [TestTextField(fieldName: "a", fieldText: String(repeating: "x", count: 501))]))
        do {
            _ = try SDLJSONRPC.encode(request)
            Issue.record("encoded a request that breaks the spec")
        } catch {
            #expect(error.issues.map(\.description) == ["UI.Show.showStrings[0].fieldText: 501 characters, maxlength is 500"])
        }
        #expect((try? SDLJSONRPC.encode(request, options: SDLEncodingOptions(validate: false))) != nil)
    }
}
