import SDLProtocol
import SDLRPC
import SDLRuntime

/// One RPC as it crossed the wire, in the `--log` vocabulary.
public struct SDLRecordedRPC: Sendable, Hashable {
    /// `in` (app → head unit) or `out`.
    public var direction: String
    /// The message as it crossed the wire (type, function ID, correlation ID, JSON), without its
    /// bulk data.
    public var payload: SDLRPCPayload

    /// Bytes of bulk data the message carried (the record does not keep them).
    public var bulkDataSize: Int

    /// The function's name in the spec (`Show`, `OnHMIStatus`...), or `function N` for an ID the
    /// spec does not have.
    public var functionName: String { EmulatedConnection.functions.name(of: payload.functionID) ?? "function \(payload.functionID)" }

    /// The parameters, parsed; nil when they are not JSON.
    public var parameters: SDLJSONValue? { try? SDLJSONValue(parsing: payload.json) }

    /// `{"direction":…,"rpcType":…,"functionId":…,"name":…,"correlationId":…,"params":{…}}`.
    public var json: SDLJSONValue {
        .object([.init(key: "direction", value: .string(direction))] + Self.logMembers(payload, bulkDataSize: bulkDataSize))
    }

    static func logMembers(_ rpc: SDLRPCPayload, bulkDataSize: Int? = nil) -> [SDLJSONValue.Member] {
        var members: [SDLJSONValue.Member] = [
            .init(key: "rpcType", value: .string(rpc.rpcType.description)),
            .init(key: "functionId", value: .integer(Int(rpc.functionID))),
        ]
        if let name = EmulatedConnection.functions.name(of: rpc.functionID) { members.append(.init(key: "name", value: .string(name))) }
        members.append(.init(key: "correlationId", value: .integer(Int(rpc.correlationID))))
        if let json = try? SDLJSONValue(parsing: rpc.json) { members.append(.init(key: "params", value: json)) }
        let size = bulkDataSize ?? rpc.bulkData.count
        if size > 0 { members.append(.init(key: "bulkDataSize", value: .integer(size))) }
        return members
    }
}
