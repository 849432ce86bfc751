/// The contract between generated types and the codecs. Generated code implements these
/// members for every struct and message (no reflection, no `Mirror`); the JSON and BSON
/// readers and writers implement `SDLReader` and `SDLWriter`.

/// A generated struct or message that can be read, written and validated.
public protocol SDLCodable: SDLStructure {
    /// Reads the keys of an object the reader has entered.
    init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure)
    /// Writes the parameters; the writer has opened the object.
    func encode<W: SDLWriter>(to writer: inout W)
    /// Checks the spec's rules (mandatory, bounds, sizes, enum values), recursively.
    func validate(into validator: inout SDLValidator)
}

/// Why a reader stopped reading a value. The details are already recorded as issues.
public enum SDLReaderFailure: Error, Hashable, Sendable {
    /// This value is unusable (e.g. a mandatory parameter is missing); the reader goes on with
    /// the rest of the message.
    case invalidValue
    /// The input cannot be read past this point (bad syntax, truncated, too deep).
    case malformed
}

/// Reads parameters. Each `read` returns nil after recording an issue when the value is
/// unusable, so one pass reports every problem of a message.
public protocol SDLReader {
    /// The next key of the current object, or nil after its last key (the object is then left).
    mutating func nextKey() throws(SDLReaderFailure) -> String?
    /// Skips the value of a key the type does not know, noting the key for diagnostics.
    mutating func skipUnknownValue(forKey key: String) throws(SDLReaderFailure)
    /// Records that a mandatory parameter was absent.
    mutating func missing(_ parameter: SDLParameterInfo)

    mutating func readBool(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Bool?
    mutating func readInteger(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int?
    mutating func readFloat(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Double?
    mutating func readString(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String?
    mutating func readEnum<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> E?
    mutating func readStruct<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> T?

    mutating func readBoolArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Bool]?
    mutating func readIntegerArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Int]?
    mutating func readFloatArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Double]?
    mutating func readStringArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [String]?
    mutating func readEnumArray<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [E]?
    mutating func readStructArray<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [T]?
}

/// Writes parameters; keys are the spec's names.
public protocol SDLWriter {
    mutating func writeBool(_ value: Bool, forKey key: StaticString)
    mutating func writeInteger(_ value: Int, forKey key: StaticString)
    mutating func writeFloat(_ value: Double, forKey key: StaticString)
    mutating func writeString(_ value: String, forKey key: StaticString)
    mutating func writeEnum<E: SDLEnumeration>(_ value: E, forKey key: StaticString)
    mutating func writeStruct<T: SDLCodable>(_ value: T, forKey key: StaticString)

    mutating func writeBoolArray(_ value: [Bool], forKey key: StaticString)
    mutating func writeIntegerArray(_ value: [Int], forKey key: StaticString)
    mutating func writeFloatArray(_ value: [Double], forKey key: StaticString)
    mutating func writeStringArray(_ value: [String], forKey key: StaticString)
    mutating func writeEnumArray<E: SDLEnumeration>(_ value: [E], forKey key: StaticString)
    mutating func writeStructArray<T: SDLCodable>(_ value: [T], forKey key: StaticString)
}
