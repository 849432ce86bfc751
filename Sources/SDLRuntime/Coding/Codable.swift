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
    /// The next key of the current object with the index of the parameter it names among
    /// `parameters` (the reading type's `structInfo.parameters`), or nil after its last key.
    /// Generated code switches on the index; a reader can often find it without making a String.
    mutating func nextKey(in parameters: [SDLParameterInfo]) throws(SDLReaderFailure) -> SDLKey?
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

/// A key as `SDLReader.nextKey(in:)` reports it.
public struct SDLKey: Hashable, Sendable {
    /// The index of the parameter the key names, or -1 for a key the type does not define.
    public var index: Int
    /// The key as received.
    public var name: String

    public init(index: Int, name: String) {
        self.index = index
        self.name = name
    }
}

extension SDLReader {
    /// Looks the key up by name; readers that can do better implement their own.
    public mutating func nextKey(in parameters: [SDLParameterInfo]) throws(SDLReaderFailure) -> SDLKey? {
        guard let key = try nextKey() else { return nil }
        return SDLKey(index: parameters.firstIndex { $0.name == key } ?? -1, name: key)
    }
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
