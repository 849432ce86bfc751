import SDLHMIRPC
import SDLRuntime

// The Swift of the DocC article in GeneratedHMI/SDLHMIRPC.docc (and of the README's "HMI API
// types"), compiled here; DocumentationTests checks every code block of the catalog appears in
// this file. The functions are compiled, not run.

enum HMIOverviewExamples {
    /// The article's overview and the README's snippet.
    static func decodedAndBuilt() throws {
        // Core's side: a UI.Show request for the HMI.
        let show = UI.Show(
            showStrings: [Common.TextFieldStruct(fieldName: .mainField1, fieldText: "Hello")],
            appID: 65537)
        let frame = try SDLJSONRPC.encode(SDLJSONRPCRequest(id: 7, params: show))

        // The HMI's side: read the envelope, decode the params its method names, answer.
        let message = try SDLJSONRPC.read(frame)
        if case .request(let id) = message.kind, message.method == UI.Show.method {
            let received = try message.decode(UI.Show.self).value
            print(received.showStrings[0].fieldText)        // Hello
            let reply = try SDLJSONRPC.encode(HMIResponse(id: id, code: .success, result: UI.ShowResponse()))
            print(String(decoding: reply, as: UTF8.self))   // {"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show"}}
        }
    }
}

enum HMIBuildingExamples {
    static func request() throws {
        let show = UI.Show(
            showStrings: [
                Common.TextFieldStruct(fieldName: .mainField1, fieldText: "Hello"),
                Common.TextFieldStruct(fieldName: .mainField2, fieldText: "World"),
            ],
            alignment: .centered,
            appID: 65537)
        let bytes = try SDLJSONRPC.encode(SDLJSONRPCRequest(id: 7, params: show))
        let text = String(decoding: bytes, as: UTF8.self)
        // {"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{"showStrings":[{"fieldName":"mainField1",...
        _ = text
    }

    static func notification() throws {
        let command = UI.OnCommand(cmdID: 5, appID: 65537)
        let bytes = try SDLJSONRPC.encode(SDLJSONRPCNotification(params: command))
        // {"jsonrpc":"2.0","method":"UI.OnCommand","params":{"cmdID":5,"appID":65537}}
        _ = bytes
    }
}

enum HMIDecodingExamples {
    static func byMethod(bytes: [UInt8]) throws {
        let message = try SDLJSONRPC.read(bytes)
        switch (message.kind, message.method) {
        case (.request(let id), UI.Show.method?):
            let show = try message.decode(UI.Show.self).value
            print("request", id, show.showStrings.map(\.fieldText))
        case (.notification, BasicCommunication.OnReady.method?):
            print("the HMI is ready")
        case (.error(let id, let code, let text), _):
            print("request \(id?.description ?? "?") failed:", Common.Result(code: code), text ?? "")
        default:
            print("not handled:", message.method ?? "?")
        }
    }

    static func dispatch(message: SDLJSONRPCMessage) throws {
        /// Decodes the params of a request whose type was looked up by its method.
        func params<T: SDLHMIRequest>(_ type: T.Type, of message: SDLJSONRPCMessage) throws -> any SDLHMIRequest {
            try message.decode(T.self).value
        }

        if case .request = message.kind, let method = message.method,
            let requestType = HMIAPI.requestsByMethod[method] {
            let request = try params(requestType, of: message)
            print(type(of: request).method, request)
        }
    }

    static func reply(bytes: [UInt8]) throws {
        let reply: HMIReply<UI.ShowResponse> = try SDLJSONRPC.decodeReply(
            UI.ShowResponse.self, code: Common.Result.self, from: bytes).value
        switch reply {
        case .result(let response): print("UI.Show answered", response.code)   // success, warnings...
        case .error(let error): print("UI.Show refused:", error)               // UI.Show: REJECTED (4): ...
        }
    }
}

enum HMIAnsweringExamples {
    static func response(id: SDLJSONRPCID) throws {
        let answer = HMIResponse(id: id, code: .success, result: UI.ShowResponse())
        let bytes = try SDLJSONRPC.encode(answer)
        // {"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show"}}
        _ = bytes
    }

    static func error(id: SDLJSONRPCID) {
        let refusal = HMIError(id: id, code: .rejected, message: "The requested layout is not supported", method: UI.Show.method)
        let bytes = SDLJSONRPC.encode(refusal)
        // {"jsonrpc":"2.0","id":7,"error":{"code":4,"message":"The requested layout is not supported","data":{"method":"UI.Show"}}}
        _ = bytes
    }
}

enum HMIPolicyExamples {
    static func strictAndLenient(bytes: [UInt8]) throws {
        do {
            _ = try SDLJSONRPC.decodeRequest(UI.Show.self, from: bytes)
        } catch {
            print(error)   // UI.Show.params.showStrings[1].fieldText: 501 characters, maxlength is 500
        }

        let lenient = try SDLJSONRPC.decodeRequest(UI.Show.self, from: bytes, policy: .lenient)
        print(lenient.value.params.showStrings[1].fieldText.count)   // 501, as sent
        print(lenient.warnings.map(\.description))                  // the same finding, as a warning
    }

    static func lenientEnvelope(bytes: [UInt8]) throws {
        // {"id":9,"result":{"code":0}}: no "jsonrpc", no "method"
        let message = try SDLJSONRPC.read(bytes, policy: .lenient)
        let response = try message.decode(UI.ShowResponse.self, policy: .lenient)
        print(message.kind, response.warnings.count)
    }

    static func encodingValidates(show: UI.Show) {
        var tooMany = show
        tooMany.showStrings = Array(repeating: Common.TextFieldStruct(fieldName: .mainField1, fieldText: "x"), count: 9)
        do {
            _ = try SDLJSONRPC.encode(SDLJSONRPCRequest(id: 8, params: tooMany))
        } catch {
            print(error)   // UI.Show.showStrings: 9 items, maxsize is 8
        }
    }
}
