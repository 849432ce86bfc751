import SDLRuntime

/// Protocol 1 has no binary RPC header: the JSON is wrapped with the message type, function name
/// and correlation ID (protocol spec §7.3):
/// `{"request":{"name":"Show","correlationID":1,"parameters":{…}}}`.
public enum SDLProtocolOneEnvelope {
    /// Protocol 1 correlation IDs stop here.
    public static let maxCorrelationID: UInt32 = 65_536

    /// The wrapped JSON for `rpc`. Notifications carry no correlation ID; protocol 1 has no bulk
    /// data, so a payload with any is refused rather than silently truncated.
    public static func encode(_ rpc: SDLRPCPayload, functions: SDLFunctionTable) throws(SDLProtocolError) -> [UInt8] {
        guard let name = functions.name(of: rpc.functionID) else {
            throw .invalidRPCPayload("function ID \(rpc.functionID) has no name in the spec, protocol 1 cannot carry it")
        }
        guard rpc.bulkData.isEmpty else { throw .invalidRPCPayload("protocol 1 carries no bulk data (\(rpc.bulkData.count) bytes)") }
        let key: String
        switch rpc.rpcType {
        case .request: key = "request"
        case .response, .erroneousResponse: key = "response"
        case .notification: key = "notification"
        default: throw .invalidRPCPayload("RPC type \(rpc.rpcType) has no protocol 1 envelope")
        }
        var members: [SDLJSONValue.Member] = [.init(key: "name", value: .string(name))]
        if rpc.rpcType != .notification {
            guard rpc.correlationID <= maxCorrelationID else {
                throw .invalidRPCPayload("correlationID \(rpc.correlationID) exceeds protocol 1's \(maxCorrelationID)")
            }
            members.append(.init(key: "correlationID", value: .integer(Int(rpc.correlationID))))
        }
        var out = Array("{\"\(key)\":".utf8)
        out.append(contentsOf: SDLJSONValue.object(members).jsonBytes.dropLast())
        out.append(contentsOf: ",\"parameters\":".utf8)
        out.append(contentsOf: rpc.json.isEmpty ? Array("{}".utf8) : rpc.json)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// Reads a wrapped message. Errors name the field: `request.name`, `response.correlationID`...
    public static func decode(_ payload: [UInt8], functions: SDLFunctionTable) throws(SDLProtocolError) -> SDLRPCPayload {
        let envelope: SDLJSONValue
        do {
            envelope = try SDLJSONValue(parsing: payload)
        } catch {
            throw .invalidRPCPayload("protocol 1 envelope: \(error)")
        }
        guard case .object(let outer) = envelope, outer.count == 1, let only = outer.first else {
            throw .invalidRPCPayload("protocol 1 envelope: expected one of request, response or notification")
        }
        let rpcType: SDLRPCType
        switch only.key {
        case "request": rpcType = .request
        case "response": rpcType = .response
        case "notification": rpcType = .notification
        default: throw .invalidRPCPayload("protocol 1 envelope: \(only.key) is not request, response or notification")
        }
        guard case .object = only.value else { throw .invalidRPCPayload("\(only.key): expected an object") }
        guard case .string(let name)? = only.value["name"] else { throw .invalidRPCPayload("\(only.key).name: expected a function name") }
        guard let functionID = functions.functionID(named: name) else {
            throw .invalidRPCPayload("\(only.key).name: \(name) is not a function of the spec")
        }
        var correlationID: UInt32 = 0
        if rpcType != .notification {
            guard case .integer(let value)? = only.value["correlationID"], let id = UInt32(exactly: value) else {
                throw .invalidRPCPayload("\(only.key).correlationID: expected a non-negative integer")
            }
            correlationID = id
        }
        let parameters = only.value["parameters"] ?? .object([])
        guard case .object = parameters else { throw .invalidRPCPayload("\(only.key).parameters: expected an object") }
        return SDLRPCPayload(rpcType: rpcType, functionID: functionID, correlationID: correlationID, json: parameters.jsonBytes)
    }
}
