/// The codecs' front door: decode and encode generated messages as JSON or BSON.

/// A decoded value with what the decoder noticed but did not reject.
public struct SDLDecoded<T: Sendable>: Sendable {
    public var value: T
    /// E.g. enum values this spec version does not define (kept in the value).
    public var warnings: [SDLCodingIssue]
    /// Keys the spec does not define for their type, ignored for forward compatibility.
    public var unknownKeys: [SDLCodingPath]
}

/// How strictly received messages are judged.
public enum SDLDecodingPolicy: Sendable, Hashable {
    /// Every violation of the spec fails decoding (validators, a head unit judging an app).
    case strict
    /// For an app receiving from a head unit, which may break the spec (SDL Core 8.2 omits the
    /// mandatory `ImageField.imageTypeSupported`): as long as the message itself can be built,
    /// violations become warnings. Out-of-range values are kept as sent; a missing mandatory
    /// array is empty; an unusable nested value is left out (an optional param becomes nil, an
    /// array loses that element).
    case lenient
}

/// Options for sending.
public struct SDLEncodingOptions: Sendable {
    /// Check the spec's rules first and refuse to encode a value that breaks them.
    public var validate = true
    /// With `validate`, let enum values the spec does not define through (as warnings).
    public var allowUnknownEnumValues = false

    public init(validate: Bool = true, allowUnknownEnumValues: Bool = false) {
        self.validate = validate
        self.allowUnknownEnumValues = allowUnknownEnumValues
    }
}

public enum SDLJSON {
    /// Nesting limit for decoding; SDL messages nest far less, hostile input far more.
    public static let defaultMaxDepth = 32

    /// Decodes the JSON body of a message (its parameters object). Empty input means `{}`.
    public static func decode<T: SDLCodable>(
        _ type: T.Type, from bytes: [UInt8], policy: SDLDecodingPolicy = .strict, maxDepth: Int = defaultMaxDepth
    ) throws(SDLDecodingError) -> SDLDecoded<T> {
        let input = bytes.isEmpty ? Array("{}".utf8) : bytes
        let (value, reader) = input.withUnsafeBytes { SDLJSONReader.decode(T.self, from: $0, maxDepth: maxDepth) }
        return try finish(value, issues: reader.issues, unknownKeys: reader.unknownKeys, policy: policy)
    }

    /// Encodes `value` as a JSON object, validating it first unless told otherwise.
    public static func encode<T: SDLCodable>(_ value: T, options: SDLEncodingOptions = SDLEncodingOptions()) throws(SDLValidationError) -> [UInt8] {
        try check(value, options)
        var writer = SDLJSONWriter()
        writer.writeObject(value)
        return writer.bytes
    }

    static func check<T: SDLCodable>(_ value: T, _ options: SDLEncodingOptions) throws(SDLValidationError) {
        guard options.validate else { return }
        let issues = SDLValidator.validate(value, allowUnknownEnumValues: options.allowUnknownEnumValues)
        if issues.contains(where: { $0.severity == .error }) { throw SDLValidationError(issues: issues) }
    }

    static func finish<T>(
        _ value: T?, issues: [SDLCodingIssue], unknownKeys: [SDLCodingPath], policy: SDLDecodingPolicy
    ) throws(SDLDecodingError) -> SDLDecoded<T> {
        guard let value else { throw SDLDecodingError(issues: issues) }
        switch policy {
        case .strict:
            if issues.contains(where: { $0.severity == .error }) { throw SDLDecodingError(issues: issues) }
            return SDLDecoded(value: value, warnings: issues, unknownKeys: unknownKeys)
        case .lenient:
            let warnings = issues.map { issue in
                var warning = issue
                warning.severity = .warning
                return warning
            }
            return SDLDecoded(value: value, warnings: warnings, unknownKeys: unknownKeys)
        }
    }
}

public enum SDLBSON {
    /// Decodes a message from BSON bytes.
    public static func decode<T: SDLCodable>(
        _ type: T.Type, from bytes: [UInt8], policy: SDLDecodingPolicy = .strict
    ) throws(SDLDecodingError) -> SDLDecoded<T> {
        let document: BSONDocument
        do {
            document = try BSONDocument(decoding: bytes)
        } catch {
            throw SDLDecodingError(issues: [SDLCodingIssue(path: SDLCodingPath(root: T.structInfo.name), kind: .malformed(error.description))])
        }
        return try decode(T.self, from: document, policy: policy)
    }

    public static func decode<T: SDLCodable>(
        _ type: T.Type, from document: BSONDocument, policy: SDLDecodingPolicy = .strict
    ) throws(SDLDecodingError) -> SDLDecoded<T> {
        let (value, reader) = SDLBSONReader.decode(T.self, from: document)
        return try SDLJSON.finish(value, issues: reader.issues, unknownKeys: reader.unknownKeys, policy: policy)
    }

    public static func document<T: SDLCodable>(_ value: T, options: SDLEncodingOptions = SDLEncodingOptions()) throws(SDLValidationError) -> BSONDocument {
        try SDLJSON.check(value, options)
        return SDLBSONWriter.document(value)
    }

    public static func encode<T: SDLCodable>(_ value: T, options: SDLEncodingOptions = SDLEncodingOptions()) throws(SDLValidationError) -> [UInt8] {
        try document(value, options: options).encoded()
    }
}
