import SDLProtocol
import SDLRPC
import SDLRuntime

/// A response's parameters, typed until the response is sent: the place that sends it
/// serialises it, once.
struct Reply: Sendable {
    var success: Bool
    var resultCode: SDLResult
    var info: String?
    /// The response's other parameters, in the order they are sent.
    var fields: [SDLJSONValue.Member] = []
    /// The answer comes later (the user or a timeout decides), under the request's correlation ID.
    var isDeferred = false
    /// Binary data sent after the JSON (GetFile's bytes).
    var bulkData: [UInt8] = []

    static let deferred = Reply(success: false, resultCode: .success, isDeferred: true)

    static func success(_ code: SDLResult = .success, info: String? = nil, extra: [SDLJSONValue.Member] = []) -> Reply {
        Reply(success: true, resultCode: code, info: info, fields: extra)
    }

    static func failure(_ code: SDLResult, _ info: String?, extra: [SDLJSONValue.Member] = []) -> Reply {
        Reply(success: false, resultCode: code, info: info, fields: extra)
    }

    /// A generated response, taken apart so it is serialised with the rest.
    static func typed<R: SDLResponse>(_ response: R) -> Reply {
        (try? SDLJSON.encode(response)).flatMap { try? SDLJSONValue(parsing: $0) }.flatMap(Reply.init(parameters:))
            ?? .failure(.genericError, "the emulator built an invalid \(R.functionName)")
    }

    var isSuccess: Bool { success && !isDeferred }

    /// The same reply, still successful, with another result code and info (SUCCESS → WARNINGS).
    func with(_ code: SDLResult, info: String) -> Reply {
        var reply = self
        reply.resultCode = code
        reply.info = info
        return reply
    }

    /// `{"success": …, "resultCode": …, "info": …, <fields>}`.
    var json: [UInt8] {
        var members: [SDLJSONValue.Member] = [.init(key: "success", value: .bool(success)), .init(key: "resultCode", value: .string(resultCode.rawValue))]
        if let info { members.append(.init(key: "info", value: .string(info))) }
        return SDLJSONValue.object(members + fields).jsonBytes
    }

    /// The response message answering request `functionID`/`correlationID`.
    func payload(functionID: UInt32, correlationID: UInt32) -> SDLRPCPayload {
        SDLRPCPayload(rpcType: .response, functionID: functionID, correlationID: correlationID, json: json, bulkData: bulkData)
    }
}

extension Reply {
    /// A response's parameters as JSON; nil without `success` and `resultCode`.
    init?(parameters: SDLJSONValue) {
        guard case .object(let members) = parameters, case .bool(let success)? = parameters["success"],
            case .string(let code)? = parameters["resultCode"]
        else { return nil }
        self.success = success
        self.resultCode = SDLResult(rawValue: code)
        if case .string(let info)? = parameters["info"] { self.info = info }
        self.fields = members.filter { !["success", "resultCode", "info"].contains($0.key) }
    }
}

/// Strict decoding as a `Result`, so a switch can take both ways.
enum SDLJSONDecoding {
    static func decode<T: SDLCodable>(_ type: T.Type, from json: [UInt8]) -> Result<T, SDLDecodingError> {
        do {
            let decoded = try SDLJSON.decode(T.self, from: json)
            // The library keeps a value its spec does not define (a newer peer's); SDL Core
            // validates against its own and refuses it: an unknown sampling rate is INVALID_DATA.
            let unknown = decoded.warnings.filter { if case .unknownEnumValue = $0.kind { true } else { false } }
            if !unknown.isEmpty {
                return .failure(SDLDecodingError(issues: unknown.map { SDLCodingIssue(path: $0.path, kind: $0.kind, severity: .error) }))
            }
            return .success(decoded.value)
        } catch {
            return .failure(error)
        }
    }

    /// SDL Core's words for a request it cannot read: a missing mandatory parameter by name,
    /// anything else with its path.
    static func invalidDataInfo(_ error: SDLDecodingError) -> String {
        guard let first = error.errors.first else { return "RPC.msg_params: invalid" }
        if case .missingMandatory = first.kind, first.path.components.count == 1, case .key(let name)? = first.path.components.first {
            return "RPC.msg_params: Missing mandatory parameter: \(name)"
        }
        return "RPC.msg_params: \(first)"
    }
}
