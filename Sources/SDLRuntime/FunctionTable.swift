/// Function IDs as the binary header carries them, and the names protocol 1 uses instead.

extension SDLMessage {
    /// The FunctionID on the wire, or nil for a type that is no RPC (`SDLNoResponse`). The one
    /// place the spec's integer becomes a header field, so no caller casts `functionIDValue`.
    public static var wireFunctionID: UInt32? { UInt32(exactly: functionIDValue) }
}

/// Function names by ID and back, for the messages of one spec: protocol 1 names functions in
/// its JSON envelope, and tools print names for IDs.
public struct SDLFunctionTable: Sendable {
    private let names: [UInt32: String]
    private let ids: [String: UInt32]

    /// Requests, responses and notifications share a function's name and ID.
    public init(messages: [any SDLMessage.Type]) {
        var names: [UInt32: String] = [:]
        var ids: [String: UInt32] = [:]
        for message in messages {
            guard let id = message.wireFunctionID, !message.functionName.isEmpty else { continue }
            names[id] = names[id] ?? message.functionName
            ids[message.functionName] = ids[message.functionName] ?? id
        }
        self.names = names
        self.ids = ids
    }

    public func name(of functionID: UInt32) -> String? { names[functionID] }
    public func functionID(named name: String) -> UInt32? { ids[name] }
}
