// Plain Codable JSON-RPC 2.0 envelopes for Foundation's JSONDecoder/JSONEncoder, around the
// Codable mirrors of the HMI types: the same wire format SDLJSONRPC reads and writes, so both
// sides do the same work.

/// `{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{...}}`
struct RequestMirror<Params: Codable & Hashable>: Codable, Hashable {
    var jsonrpc: String
    var id: Int
    var method: String
    var params: Params
}

/// `{"jsonrpc":"2.0","method":"Buttons.OnButtonPress","params":{...}}`
struct NotificationMirror<Params: Codable & Hashable>: Codable, Hashable {
    var jsonrpc: String
    var method: String
    var params: Params
}

/// `{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.GetCapabilities",...}}`: `code`,
/// `method` and the response's parameters are members of the one `result` object. Decoding reads
/// `code` and `method` from that object and the parameters from it too (through
/// `superDecoder(forKey:)`, which ignores the two extra keys as any Codable struct ignores
/// unknown keys); encoding writes all three into the same object.
struct ResponseMirror<Result: Codable & Hashable>: Codable, Hashable {
    var jsonrpc: String
    var id: Int
    var code: Int
    var method: String
    var result: Result

    init(jsonrpc: String, id: Int, code: Int, method: String, result: Result) {
        self.jsonrpc = jsonrpc
        self.id = id
        self.code = code
        self.method = method
        self.result = result
    }

    enum CodingKeys: String, CodingKey {
        case jsonrpc, id, result
    }

    enum ResultKeys: String, CodingKey {
        case code, method
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jsonrpc = try container.decode(String.self, forKey: .jsonrpc)
        id = try container.decode(Int.self, forKey: .id)
        let envelope = try container.nestedContainer(keyedBy: ResultKeys.self, forKey: .result)
        code = try envelope.decode(Int.self, forKey: .code)
        method = try envelope.decode(String.self, forKey: .method)
        result = try Result(from: container.superDecoder(forKey: .result))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        // One encoder for the `result` object: the envelope's keys and the parameters' keys go
        // into the same keyed container (a second `container(keyedBy:)` on an encoder reuses
        // the object the first made).
        let resultEncoder = container.superEncoder(forKey: .result)
        var envelope = resultEncoder.container(keyedBy: ResultKeys.self)
        try envelope.encode(code, forKey: .code)
        try envelope.encode(method, forKey: .method)
        try result.encode(to: resultEncoder)
    }
}
