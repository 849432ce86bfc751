/// The JSON-RPC codec's front door: read a message's envelope, decode its body into a
/// generated HMI type, and encode messages byte for byte as SDL Core writes them.
public enum SDLJSONRPC {
    /// The root of envelope issues while the method is unknown (`message.jsonrpc`).
    static let messageRoot = "message"

    // MARK: Decoding

    /// Reads a message's envelope (one pass; the body is checked and skipped, not decoded), so
    /// that the method can pick the type to decode the body with. Strict: `jsonrpc` must be "2.0",
    /// a response must name its method. Lenient: those become warnings; what leaves no message to
    /// build (malformed JSON, no id on a response, no code) fails either way.
    public static func read(
        _ bytes: [UInt8], policy: SDLDecodingPolicy = .strict, maxDepth: Int = SDLJSON.defaultMaxDepth
    ) throws(SDLDecodingError) -> SDLJSONRPCMessage {
        let envelope = bytes.withUnsafeBytes { SDLJSONReader.readEnvelope($0, maxDepth: maxDepth) }
        let (kind, warnings) = try accept(envelope, policy: policy)
        return SDLJSONRPCMessage(
            kind: kind, method: envelope.method, warnings: warnings, unknownKeys: envelope.unknownKeys, bytes: bytes,
            body: envelope.body, maxDepth: maxDepth)
    }

    // Decoding below keeps clear of generic types holding the decoded type (`SDLDecoded<P>`, a
    // tuple with a `P?`) until the value returned is built: called from another module, these
    // functions run unspecialized, where each such type is looked up at run time, per message.

    /// Decodes a request for `P`; any other message (another method, a notification) fails.
    /// The same as `read` then `decode`, in one pass: the params are decoded where they are met.
    public static func decodeRequest<P: SDLHMIRequest>(
        _ type: P.Type, from bytes: [UInt8], policy: SDLDecodingPolicy = .strict
    ) throws(SDLDecodingError) -> SDLDecoded<SDLJSONRPCRequest<P>> {
        var kind = SDLJSONRPCMessage.Kind.notification
        var value: P?
        var warnings: [SDLCodingIssue] = []
        var unknownKeys: [SDLCodingPath] = []
        try decodeInOnePass(P.self, from: bytes, policy: policy, kind: &kind, into: &value, warnings: &warnings, unknownKeys: &unknownKeys)
        guard case .request(let id) = kind, let params = value else { throw mismatch(P.self, kind: kind, method: P.method) }
        return SDLDecoded(value: SDLJSONRPCRequest(id: id, params: params), warnings: warnings, unknownKeys: unknownKeys)
    }

    /// Decodes a notification for `P`, in one pass like `decodeRequest`.
    public static func decodeNotification<P: SDLHMINotification>(
        _ type: P.Type, from bytes: [UInt8], policy: SDLDecodingPolicy = .strict
    ) throws(SDLDecodingError) -> SDLDecoded<SDLJSONRPCNotification<P>> {
        var kind = SDLJSONRPCMessage.Kind.notification
        var value: P?
        var warnings: [SDLCodingIssue] = []
        var unknownKeys: [SDLCodingPath] = []
        try decodeInOnePass(P.self, from: bytes, policy: policy, kind: &kind, into: &value, warnings: &warnings, unknownKeys: &unknownKeys)
        guard case .notification = kind, let params = value else { throw mismatch(P.self, kind: kind, method: P.method) }
        return SDLDecoded(value: SDLJSONRPCNotification(params: params), warnings: warnings, unknownKeys: unknownKeys)
    }

    /// The params of a request or notification for `P`, decoded into `value` as the envelope is
    /// read, with the message's `kind`, warnings and unknown keys.
    private static func decodeInOnePass<P: SDLHMIMessage>(
        _ type: P.Type, from bytes: [UInt8], policy: SDLDecodingPolicy, kind: inout SDLJSONRPCMessage.Kind, into value: inout P?,
        warnings: inout [SDLCodingIssue], unknownKeys: inout [SDLCodingPath]
    ) throws(SDLDecodingError) {
        let maxDepth = SDLJSON.defaultMaxDepth
        var body: SDLJSONReader.BodyOutcome?
        let envelope = bytes.withUnsafeBytes { raw in
            SDLJSONReader.readEnvelope(raw, maxDepth: maxDepth, decodes: .params, method: P.method) {
                (reader: inout SDLJSONReader, _: inout JSONRPCFields) throws(SDLReaderFailure) in
                let params = SDLJSONReader.decodeBody(
                    P.self, from: raw, at: reader.position, root: P.method, depth: reader.depth, maxDepth: maxDepth, into: &value)
                body = params
                guard params.complete else { throw .malformed }
                reader.position = params.end
            }
        }
        // Malformed params stopped the envelope: their issues say why.
        let failedParams = body.flatMap { $0.complete ? nil : $0.issues }
        (kind, warnings) = try accept(envelope, policy: policy, failedParams: failedParams)
        switch (kind, P.messageType) {
        case (.request, .request), (.notification, .notification): break
        default: throw mismatch(P.self, kind: kind, method: envelope.method)
        }
        guard envelope.method == P.method else { throw mismatch(P.self, kind: kind, method: envelope.method) }
        let params = body ?? decodeEmptyBody(P.self, into: &value)
        unknownKeys = envelope.unknownKeys
        try finishBody(
            P.self, params, part: ".params", decoded: value != nil, isResponse: false, warnings: &warnings, unknownKeys: &unknownKeys,
            policy: policy)
    }

    /// Decodes the answer to a request: a response with `R`'s parameters, or an error. An error
    /// naming another method fails like a response of another method; a code the spec does not
    /// define is kept, with a warning.
    ///
    /// One pass, as `decodeRequest`: the result is decoded as `R` where the envelope meets it,
    /// its `code` and `method` read on the way. A message that is not so plain (an error, a
    /// result whose `code` or `method` is missing, repeated, of another type or method or
    /// written with escapes, anything the envelope reports) is read again as `read` then
    /// `decode` read it, so that it fails or warns exactly as they do.
    public static func decodeReply<R: SDLHMIResponse, C: SDLHMIResultCode>(
        _ type: R.Type, code: C.Type, from bytes: [UInt8], policy: SDLDecodingPolicy = .strict
    ) throws(SDLDecodingError) -> SDLDecoded<SDLJSONRPCReply<R, C>> {
        // (A response type that says otherwise fails as `decode` fails it.)
        guard R.messageType == .response else { return try reply(R.self, C.self, to: read(bytes, policy: policy), policy: policy) }
        let maxDepth = SDLJSON.defaultMaxDepth
        var value: R?
        var body: SDLJSONReader.BodyOutcome?
        // Whether the result was met (and decoded), and whether it was as usual.
        var decodedResult = false
        var plain = true
        let envelope = bytes.withUnsafeBytes { raw in
            SDLJSONReader.readEnvelope(raw, maxDepth: maxDepth, decodes: .result, method: R.method) {
                (reader: inout SDLJSONReader, fields: inout JSONRPCFields) throws(SDLReaderFailure) in
                // Anything unusual stops the pass: the message is read again.
                guard !decodedResult else {
                    plain = false
                    throw .malformed
                }
                decodedResult = true
                let result = SDLJSONReader.decodeBody(
                    R.self, from: raw, at: reader.position, root: R.method, depth: reader.depth, maxDepth: maxDepth,
                    envelopeKeys: .capture, into: &value)
                guard result.complete, !result.captured.unusual, let code = result.captured.code, let method = result.captured.method,
                    SDLJSONReader.bytes(UnsafeRawBufferPointer(rebasing: raw[method]), equal: R.method)
                else {
                    plain = false
                    throw .malformed
                }
                (fields.resultCode, fields.resultMethod) = (.value(code), .value(R.method))
                reader.position = result.end
                body = result
            }
        }
        if plain, let body {
            // The envelope as `read` reads it (the result's code and method where it finds them).
            guard envelope.issues.isEmpty, case .response(let id, let number)? = envelope.kind else {
                return try reply(R.self, C.self, to: read(bytes, policy: policy), policy: policy)
            }
            var warnings: [SDLCodingIssue] = []
            var unknownKeys = envelope.unknownKeys
            try finishBody(
                R.self, body, part: ".result", decoded: value != nil, isResponse: true, warnings: &warnings, unknownKeys: &unknownKeys,
                policy: policy)
            guard let result = value else { throw SDLDecodingError(issues: warnings) }
            let code = resultCode(C.self, number, at: "result", of: R.method, into: &warnings)
            return SDLDecoded(value: .result(SDLJSONRPCResponse(id: id, code: code, result: result)), warnings: warnings, unknownKeys: unknownKeys)
        }
        if plain && !decodedResult {
            // No result met: the envelope is what `read` reads (an error, or no answer at all).
            let (kind, warnings) = try accept(envelope, policy: policy)
            let message = SDLJSONRPCMessage(
                kind: kind, method: envelope.method, warnings: warnings, unknownKeys: envelope.unknownKeys, bytes: bytes,
                body: envelope.body, maxDepth: maxDepth)
            return try reply(R.self, C.self, to: message, policy: policy)
        }
        return try reply(R.self, C.self, to: read(bytes, policy: policy), policy: policy)
    }

    /// `decodeReply` from a message read by `read`: its result decoded, or its error.
    private static func reply<R: SDLHMIResponse, C: SDLHMIResultCode>(
        _ type: R.Type, _ code: C.Type, to message: SDLJSONRPCMessage, policy: SDLDecodingPolicy
    ) throws(SDLDecodingError) -> SDLDecoded<SDLJSONRPCReply<R, C>> {
        switch message.kind {
        case .response(let id, let number):
            var decoded = try message.decode(R.self, policy: policy)
            let code = resultCode(C.self, number, at: "result", of: message.method ?? R.method, into: &decoded.warnings)
            let reply = SDLJSONRPCReply<R, C>.result(SDLJSONRPCResponse(id: id, code: code, result: decoded.value))
            return SDLDecoded(value: reply, warnings: decoded.warnings, unknownKeys: decoded.unknownKeys)
        case .error(let id, let number, let text):
            if let method = message.method, method != R.method { throw message.mismatch(R.self) }
            var warnings = message.warnings
            let code = resultCode(C.self, number, at: "error", of: message.method ?? R.method, into: &warnings)
            let reply = SDLJSONRPCReply<R, C>.error(SDLJSONRPCError(id: id, code: code, message: text, method: message.method))
            return SDLDecoded(value: reply, warnings: warnings, unknownKeys: message.unknownKeys)
        case .request, .notification:
            throw message.mismatch(R.self)
        }
    }

    // MARK: Shared steps

    /// The kind and warnings of an envelope the policy accepts; what it does not, thrown, with
    /// what stopped params that could not be read to their end: their syntax issues, as skipping
    /// them reports those, at the paths the envelope gives them (`UI.Alert.params.x`, whatever
    /// type they were decoded as).
    static func accept(
        _ envelope: JSONRPCEnvelope, policy: SDLDecodingPolicy, failedParams: [SDLCodingIssue]? = nil
    ) throws(SDLDecodingError) -> (kind: SDLJSONRPCMessage.Kind, warnings: [SDLCodingIssue]) {
        guard let kind = envelope.kind else {
            var issues = envelope.issues
            for var issue in failedParams ?? [] {
                switch issue.kind {
                case .malformed, .tooDeep, .duplicateKey: break
                default: continue
                }
                issue.path = SDLCodingPath(root: envelope.root, components: [.key("params")] + issue.path.components)
                issues.append(issue)
            }
            throw SDLDecodingError(issues: issues)
        }
        var warnings = envelope.issues
        if !warnings.isEmpty {
            switch policy {
            case .strict:
                if warnings.contains(where: { $0.severity == .error }) { throw SDLDecodingError(issues: warnings) }
            case .lenient:
                for index in warnings.indices { warnings[index].severity = .warning }
            }
        }
        return (kind, warnings)
    }

    /// Decodes `T` from `{}`: the params of a message that has none.
    static func decodeEmptyBody<T: SDLHMIMessage>(_ type: T.Type, into value: inout T?) -> SDLJSONReader.BodyOutcome {
        ("{}" as StaticString).withUTF8Buffer {
            SDLJSONReader.decodeBody(
                T.self, from: UnsafeRawBufferPointer($0), at: 0, root: T.method, depth: 1, maxDepth: SDLJSON.defaultMaxDepth, into: &value)
        }
    }

    /// The warnings and unknown keys of a decoded body after the envelope's (passed in `warnings`
    /// and `unknownKeys`), judged by `policy` as `SDLJSON.finish` judges them: thrown when the
    /// body gave no value (`decoded` false) or, strictly, when any is an error. The body was
    /// decoded with its issues rooted at `T.method`; they are rooted here at the method and
    /// `part` (`UI.Show.params`), a String made only when there is an issue or unknown key.
    static func finishBody<T: SDLHMIMessage>(
        _ type: T.Type, _ body: SDLJSONReader.BodyOutcome, part: StaticString, decoded: Bool, isResponse: Bool,
        warnings: inout [SDLCodingIssue], unknownKeys: inout [SDLCodingPath], policy: SDLDecodingPolicy
    ) throws(SDLDecodingError) {
        var issues = body.issues
        var bodyUnknownKeys = body.unknownKeys
        if !issues.isEmpty || !bodyUnknownKeys.isEmpty {
            let root = T.method + part.description
            for index in issues.indices { issues[index].path.root = root }
            for index in bodyUnknownKeys.indices { bodyUnknownKeys[index].root = root }
        }
        if isResponse {
            // `code` and `method` are the envelope's: neither unknown nor (the envelope reports
            // them) duplicates of the response's. `nextKey(in:)` skips them unseen; this catches
            // them spelled with escapes, or read by `nextKey()`.
            func isEnvelopeKey(_ path: SDLCodingPath) -> Bool {
                guard path.components.count == 1, case .key(let key) = path.components[0] else { return false }
                return (key == "code" || key == "method") && T.structInfo.parameter(named: key) == nil
            }
            if !bodyUnknownKeys.isEmpty { bodyUnknownKeys.removeAll { isEnvelopeKey($0) } }
            if !issues.isEmpty {
                issues.removeAll { issue in
                    if case .duplicateKey = issue.kind { isEnvelopeKey(issue.path) } else { false }
                }
            }
        }
        if !warnings.isEmpty { issues = warnings + issues }
        guard decoded else { throw SDLDecodingError(issues: issues) }
        switch policy {
        case .strict:
            if issues.contains(where: { $0.severity == .error }) { throw SDLDecodingError(issues: issues) }
        case .lenient:
            for index in issues.indices { issues[index].severity = .warning }
        }
        warnings = issues
        if !unknownKeys.isEmpty { bodyUnknownKeys = unknownKeys + bodyUnknownKeys }
        unknownKeys = bodyUnknownKeys
    }

    /// The message is not what the caller decodes it as: names both.
    static func mismatch<T: SDLHMIMessage>(_ type: T.Type, kind: SDLJSONRPCMessage.Kind, method: String?) -> SDLDecodingError {
        let found: String
        switch kind {
        case .request: found = "\(method ?? "?") request"
        case .notification: found = "\(method ?? "?") notification"
        case .response: found = method.map { "\($0) response" } ?? "response"
        case .error(_, let code, _): found = "error \(code)" + (method.map { " for \($0)" } ?? "")
        }
        return SDLDecodingError(issues: [
            SDLCodingIssue(path: SDLCodingPath(root: messageRoot), kind: .wrongType(expected: "\(T.method) \(T.messageType.rawValue)", found: found))
        ])
    }

    /// `C` for `number`, noting a number the spec does not define (kept, as enums keep values).
    private static func resultCode<C: SDLHMIResultCode>(
        _ type: C.Type, _ number: Int, at part: String, of method: String, into warnings: inout [SDLCodingIssue]
    ) -> C {
        let code = C(code: number)
        if !code.isRecognized {
            warnings.append(
                SDLCodingIssue(
                    path: SDLCodingPath(root: method, components: [.key(part), .key("code")]),
                    kind: .unknownEnumValue(value: String(number), enumName: C.enumInfo.name), severity: .warning))
        }
        return code
    }

    // MARK: Encoding

    /// `{"jsonrpc":"2.0","id":7,"method":"UI.Show","params":{...}}`, the params validated first
    /// unless told otherwise, as `SDLJSON.encode` does (issues at `UI.Show.showStrings...`).
    public static func encode<P: SDLHMIRequest>(
        _ request: SDLJSONRPCRequest<P>, options: SDLEncodingOptions = SDLEncodingOptions()
    ) throws(SDLValidationError) -> [UInt8] {
        try SDLJSON.check(request.params, options)
        var writer = SDLJSONWriter()
        writer.appendRaw(#"{"jsonrpc":"2.0","id":"#)
        writer.appendID(request.id)
        writer.appendRaw(#","method":"#)
        writer.appendStringValue(P.method)
        writer.appendRaw(#","params":"#)
        writer.writeObject(request.params)
        writer.appendRaw("}")
        return writer.bytes
    }

    /// `{"jsonrpc":"2.0","method":"UI.OnCommand","params":{...}}`, validated first unless told otherwise.
    public static func encode<P: SDLHMINotification>(
        _ notification: SDLJSONRPCNotification<P>, options: SDLEncodingOptions = SDLEncodingOptions()
    ) throws(SDLValidationError) -> [UInt8] {
        try SDLJSON.check(notification.params, options)
        var writer = SDLJSONWriter()
        writer.appendRaw(#"{"jsonrpc":"2.0","method":"#)
        writer.appendStringValue(P.method)
        writer.appendRaw(#","params":"#)
        writer.writeObject(notification.params)
        writer.appendRaw("}")
        return writer.bytes
    }

    /// `{"jsonrpc":"2.0","id":7,"result":{"code":0,"method":"UI.Show",...}}`: the response's
    /// parameters follow `code` and `method` in `result`. Validated first unless told otherwise.
    public static func encode<R: SDLHMIResponse, C: SDLHMIResultCode>(
        _ response: SDLJSONRPCResponse<R, C>, options: SDLEncodingOptions = SDLEncodingOptions()
    ) throws(SDLValidationError) -> [UInt8] {
        try SDLJSON.check(response.result, options)
        var writer = SDLJSONWriter()
        writer.appendRaw(#"{"jsonrpc":"2.0","id":"#)
        writer.appendID(response.id)
        writer.appendRaw(#","result":{"code":"#)
        writer.appendIntegerValue(response.code.code)
        writer.appendRaw(#","method":"#)
        writer.appendStringValue(R.method)
        writer.writeMembers(of: response.result)
        writer.appendRaw("}}")
        return writer.bytes
    }

    /// `{"jsonrpc":"2.0","id":7,"error":{"code":4,"message":"text","data":{"method":"UI.Show"}}}`;
    /// `id` null when nil, `message` and `data` left out when nil. Nothing to validate.
    public static func encode<C: SDLHMIResultCode>(_ error: SDLJSONRPCError<C>) -> [UInt8] {
        var writer = SDLJSONWriter()
        writer.appendRaw(#"{"jsonrpc":"2.0","id":"#)
        if let id = error.id { writer.appendID(id) } else { writer.appendRaw("null") }
        writer.appendRaw(#","error":{"code":"#)
        writer.appendIntegerValue(error.code.code)
        if let message = error.message {
            writer.appendRaw(#","message":"#)
            writer.appendStringValue(message)
        }
        if let method = error.method {
            writer.appendRaw(#","data":{"method":"#)
            writer.appendStringValue(method)
            writer.appendRaw("}")
        }
        writer.appendRaw("}}")
        return writer.bytes
    }

}

extension SDLJSONWriter {
    /// An id: a number, or a quoted string.
    mutating func appendID(_ id: SDLJSONRPCID) {
        switch id {
        case .number(let number): appendIntegerValue(number)
        case .string(let string): appendStringValue(string)
        }
    }
}
