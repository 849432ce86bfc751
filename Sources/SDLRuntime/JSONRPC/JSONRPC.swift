/// JSON-RPC 2.0 messages as SDL Core and its HMI exchange them (HMI_API.xml), one JSON text
/// each. The envelope carries what the binary header carries on the mobile side: the function
/// (`method`), the message kind and, for requests and their answers, the correlation `id`.

/// A request's `id`, echoed by its response or error. JSON-RPC allows numbers and strings; SDL
/// Core sends integers.
public enum SDLJSONRPCID: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// `"id":7`, as SDL Core sends.
    case number(Int)
    /// `"id":"7"`, which JSON-RPC allows too; kept apart from `.number(7)`.
    case string(String)

    /// `7` for `.number(7)`.
    public init(integerLiteral value: Int) {
        self = .number(value)
    }

    /// `"a"` for `.string("a")`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }

    /// `7`, or a string id in quotes (`"7"`), so that the two stay apart in logs.
    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .string(let string): "\"\(string)\""
        }
    }
}

/// A request with its parameters: `{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{...}}`.
public struct SDLJSONRPCRequest<Params: SDLHMIRequest>: Hashable, Sendable {
    /// What the answer echoes, to find the request it answers.
    public var id: SDLJSONRPCID
    /// The request's parameters (`params`).
    public var params: Params

    /// A request with `id`, which the sender keeps unique among its pending requests.
    public init(id: SDLJSONRPCID, params: Params) {
        self.id = id
        self.params = params
    }
}

/// A notification: `{"jsonrpc":"2.0","method":"UI.OnCommand","params":{...}}`; no id, no answer.
public struct SDLJSONRPCNotification<Params: SDLHMINotification>: Hashable, Sendable {
    /// The notification's parameters (`params`).
    public var params: Params

    /// A notification with `params`.
    public init(params: Params) {
        self.params = params
    }
}

/// A response: `{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show",...}}`, the
/// response's parameters beside `code` and `method` in `result`.
public struct SDLJSONRPCResponse<Result: SDLHMIResponse, Code: SDLHMIResultCode>: Hashable, Sendable {
    /// The id of the request answered.
    public var id: SDLJSONRPCID
    /// `result.code`: how the request went (SUCCESS, WARNINGS, ...).
    public var code: Code
    /// The response's parameters.
    public var result: Result

    /// A response to the request with `id`.
    public init(id: SDLJSONRPCID, code: Code, result: Result) {
        self.id = id
        self.code = code
        self.result = result
    }
}

/// An error answer: `{"jsonrpc":"2.0","id":7,"error":{"code":4,"message":"text","data":{"method":"UI.Show"}}}`.
/// SDL Core answers failures (REJECTED, TIMED_OUT, ...) this way instead of with a response.
public struct SDLJSONRPCError<Code: SDLHMIResultCode>: Error, Hashable, Sendable, CustomStringConvertible {
    /// The id of the request answered; nil (`null` on the wire) when it could not be read.
    public var id: SDLJSONRPCID?
    /// `error.code`: why the request failed (REJECTED, TIMED_OUT, ...).
    public var code: Code
    /// `error.message`: a human-readable reason.
    public var message: String?
    /// `error.data.method`: the request's method, when known.
    public var method: String?

    /// An error answering the request with `id` (nil when it could not be read) of `method`.
    public init(id: SDLJSONRPCID?, code: Code, message: String? = nil, method: String? = nil) {
        self.id = id
        self.code = code
        self.message = message
        self.method = method
    }

    /// `UI.Show: REJECTED (4): text`, for logs and thrown errors.
    public var description: String {
        var text = method.map { "\($0): " } ?? ""
        text += "\(code.rawValue) (\(code.code))"
        if let message { text += ": \(message)" }
        return text
    }
}

/// What answers a request: its response, or an error.
public enum SDLJSONRPCReply<Result: SDLHMIResponse, Code: SDLHMIResultCode>: Hashable, Sendable {
    /// A response: `result`, with its code (SUCCESS, or e.g. WARNINGS with the parameters).
    case result(SDLJSONRPCResponse<Result, Code>)
    /// An error: `error`, without parameters.
    case error(SDLJSONRPCError<Code>)

    /// The id of the request answered, to find it; nil for an error whose id was `null`.
    public var id: SDLJSONRPCID? {
        switch self {
        case .result(let response): response.id
        case .error(let error): error.id
        }
    }
}

/// A received message: its envelope read, its body not yet (decode it with `decode(_:policy:)`
/// once the method says which type it is).
public struct SDLJSONRPCMessage: Sendable {
    /// The kind of message, with what its envelope carries besides the method.
    public enum Kind: Hashable, Sendable {
        /// `id` and `method`: answer it with the same id.
        case request(id: SDLJSONRPCID)
        /// `method` without `id`: no answer.
        case notification
        /// `code` is `result.code`, a `Common.Result` number.
        case response(id: SDLJSONRPCID, code: Int)
        /// `id` is nil when it was `null` (or, read leniently, absent or unusable).
        case error(id: SDLJSONRPCID?, code: Int, message: String?)
    }

    /// What the envelope says the message is.
    public let kind: Kind
    /// `UI.Show`; nil for an error without data.method, or (lenient) a response without result.method.
    public let method: String?
    /// What the envelope broke, when read leniently.
    public let warnings: [SDLCodingIssue]
    /// Top-level keys JSON-RPC does not define, ignored (`UI.Show.extra`, or `message.extra`
    /// while the method is unknown).
    public let unknownKeys: [SDLCodingPath]
    /// The message's bytes (kept to decode the body without copying it again).
    public let bytes: [UInt8]
    /// Where the `params` or `result` object is in `bytes`; nil when absent (empty params) or
    /// for an error.
    let body: Range<Int>?
    /// The nesting limit the envelope was read with, for the body.
    let maxDepth: Int

    /// Decodes the body as `T`: a request's or notification's `params`, a response's `result`
    /// (less its `code` and `method`). `T` must be the message's method and kind, else this
    /// throws naming both. Issues are rooted at `UI.Show.params` or `UI.Show.result`; the result
    /// holds the envelope's warnings and unknown keys too.
    public func decode<T: SDLHMIMessage>(_ type: T.Type, policy: SDLDecodingPolicy = .strict) throws(SDLDecodingError) -> SDLDecoded<T> {
        let expected: SDLMessageType
        switch kind {
        case .request: expected = .request
        case .notification: expected = .notification
        case .response: expected = .response
        case .error: throw mismatch(T.self)
        }
        // A response without a method (read leniently) is whatever the caller knows it answers.
        guard T.messageType == expected, method == nil || method == T.method else { throw mismatch(T.self) }

        let isResponse = expected == .response
        var value: T?
        let outcome = bytes.withUnsafeBytes { raw in
            guard let body else { return SDLJSONRPC.decodeEmptyBody(T.self, into: &value) }
            return SDLJSONReader.decodeBody(
                T.self, from: raw, at: body.lowerBound, root: T.method, depth: 1, maxDepth: maxDepth,
                envelopeKeys: isResponse ? .skip : .none, into: &value)
        }
        var warnings = warnings
        var unknownKeys = unknownKeys
        try SDLJSONRPC.finishBody(
            T.self, outcome, part: isResponse ? ".result" : ".params", decoded: value != nil, isResponse: isResponse, warnings: &warnings,
            unknownKeys: &unknownKeys, policy: policy)
        guard let value else { throw SDLDecodingError(issues: warnings) }
        return SDLDecoded(value: value, warnings: warnings, unknownKeys: unknownKeys)
    }

    /// The message is not what the caller decodes it as.
    func mismatch<T: SDLHMIMessage>(_ type: T.Type) -> SDLDecodingError {
        SDLJSONRPC.mismatch(T.self, kind: kind, method: method)
    }
}
