/// Generated types to and from BSON documents, through the same generated code as JSON.
/// Integers are written as int32 when they fit and int64 otherwise, the width SDL's C library
/// would pick for the value; Floats as double. Reading accepts either integer width.

/// Builds a `BSONDocument` from a generated value.
public struct SDLBSONWriter: SDLWriter {
    private var stack: [BSONDocument] = [BSONDocument()]

    public init() {}

    public static func document<T: SDLCodable>(_ value: T) -> BSONDocument {
        var writer = SDLBSONWriter()
        value.encode(to: &writer)
        return writer.stack[0]
    }

    private mutating func put(_ value: BSONValue, _ key: StaticString) {
        stack[stack.count - 1][key.description] = value
    }

    private static func nested<T: SDLCodable>(_ value: T) -> BSONValue {
        .document(document(value))
    }

    public mutating func writeBool(_ value: Bool, forKey key: StaticString) { put(.bool(value), key) }
    public mutating func writeInteger(_ value: Int, forKey key: StaticString) { put(.integer(value), key) }
    public mutating func writeFloat(_ value: Double, forKey key: StaticString) { put(.double(value), key) }
    public mutating func writeString(_ value: String, forKey key: StaticString) { put(.string(value), key) }
    public mutating func writeEnum<E: SDLEnumeration>(_ value: E, forKey key: StaticString) { put(.string(value.rawValue), key) }
    public mutating func writeStruct<T: SDLCodable>(_ value: T, forKey key: StaticString) { put(Self.nested(value), key) }
    public mutating func writeBoolArray(_ value: [Bool], forKey key: StaticString) { put(.array(value.map(BSONValue.bool)), key) }
    public mutating func writeIntegerArray(_ value: [Int], forKey key: StaticString) { put(.array(value.map(BSONValue.integer)), key) }
    public mutating func writeFloatArray(_ value: [Double], forKey key: StaticString) { put(.array(value.map(BSONValue.double)), key) }
    public mutating func writeStringArray(_ value: [String], forKey key: StaticString) { put(.array(value.map(BSONValue.string)), key) }
    public mutating func writeEnumArray<E: SDLEnumeration>(_ value: [E], forKey key: StaticString) {
        put(.array(value.map { .string($0.rawValue) }), key)
    }
    public mutating func writeStructArray<T: SDLCodable>(_ value: [T], forKey key: StaticString) {
        put(.array(value.map(Self.nested)), key)
    }
}

/// Reads a generated value from a `BSONDocument`, recording issues with paths like the JSON reader.
public struct SDLBSONReader: SDLReader {
    private struct Level {
        var elements: [BSONDocument.Element]
        var next = 0
        /// The parameter the next key most likely names: the one after the last key's.
        var nextParameter = 0
    }

    private var levels: [Level]
    private var current: BSONValue = .null
    private var path: SDLCodingPath
    private var log = SDLIssueLog()
    public var issues: [SDLCodingIssue] { log.issues }
    public var unknownKeys: [SDLCodingPath] { log.unknownKeys }

    init(document: BSONDocument, root: String) {
        levels = [Level(elements: document.elements)]
        path = SDLCodingPath(root: root)
    }

    /// Reads `T` from `document`; nil when errors were recorded.
    static func decode<T: SDLCodable>(_ type: T.Type, from document: BSONDocument) -> (T?, SDLBSONReader) {
        var reader = SDLBSONReader(document: document, root: T.structInfo.name)
        do {
            return (try T(from: &reader), reader)
        } catch {
            return (nil, reader)
        }
    }

    private mutating func record(_ kind: SDLCodingIssue.Kind, severity: SDLCodingIssue.Severity = .error) {
        log.record(kind, at: path, severity: severity)
    }

    public mutating func nextKey() throws(SDLReaderFailure) -> String? {
        let top = levels.count - 1
        guard levels[top].next < levels[top].elements.count else {
            levels.removeLast()
            return nil
        }
        let element = levels[top].elements[levels[top].next]
        levels[top].next += 1
        current = element.value
        return element.key
    }

    public mutating func nextKey(in parameters: [SDLParameterInfo]) throws(SDLReaderFailure) -> SDLKey? {
        guard let key = try nextKey() else { return nil }
        // As the default implementation, trying the likely parameter first.
        let top = levels.count - 1
        let likely = levels[top].nextParameter
        let index =
            likely < parameters.count && parameters[likely].name == key
            ? likely : parameters.firstIndex { $0.name == key } ?? -1
        if index >= 0 { levels[top].nextParameter = index + 1 }
        return SDLKey(index: index, name: key)
    }

    public mutating func skipUnknownValue(forKey key: String) throws(SDLReaderFailure) {
        log.unknownKey(key, in: path)
    }

    public mutating func missing(_ parameter: SDLParameterInfo) {
        log.missing(parameter, in: path)
    }

    // MARK: Values

    private mutating func mismatch(_ expected: String, _ value: BSONValue) {
        record(.wrongType(expected: expected, found: value.typeName))
    }

    private mutating func bool(_ value: BSONValue) -> Bool? {
        if case .bool(let bool) = value { return bool }
        mismatch("Boolean", value)
        return nil
    }

    private mutating func integer(_ value: BSONValue, _ parameter: SDLParameterInfo) -> Int? {
        let result: Int
        switch value {
        case .int32(let int): result = Int(int)
        case .int64(let int): result = Int(int)
        default:
            mismatch("Integer", value)
            return nil
        }
        if let problem = SDLRules.integer(result, parameter) { record(problem) }
        return result
    }

    private mutating func float(_ value: BSONValue, _ parameter: SDLParameterInfo) -> Double? {
        let result: Double
        switch value {
        case .double(let double): result = double
        case .int32(let int): result = Double(int)
        case .int64(let int): result = Double(int)
        default:
            mismatch("Float", value)
            return nil
        }
        if let problem = SDLRules.number(result, parameter) { record(problem) }
        return result
    }

    private mutating func string(_ value: BSONValue, _ parameter: SDLParameterInfo) -> String? {
        guard case .string(let string) = value else {
            mismatch("String", value)
            return nil
        }
        if let problem = SDLRules.string(string, parameter) { record(problem) }
        return string
    }

    private mutating func enumeration<E: SDLEnumeration>(_ value: BSONValue, _ type: E.Type) -> E? {
        guard case .string(let string) = value else {
            mismatch("String (\(E.enumInfo.name))", value)
            return nil
        }
        let result = E(rawValue: string)
        if let problem = SDLRules.enumeration(result) { record(problem, severity: .warning) }
        return result
    }

    private mutating func structure<T: SDLCodable>(_ value: BSONValue, _ type: T.Type) throws(SDLReaderFailure) -> T? {
        guard case .document(let document) = value else {
            mismatch("Object (\(T.structInfo.name))", value)
            return nil
        }
        levels.append(Level(elements: document.elements))
        do {
            return try T(from: &self)
        } catch .invalidValue {
            return nil
        } catch {
            throw error
        }
    }

    private mutating func at<V>(_ parameter: SDLParameterInfo, _ read: (inout SDLBSONReader, BSONValue) throws(SDLReaderFailure) -> V?) throws(SDLReaderFailure)
        -> V?
    {
        path.components.append(.key(parameter.name))
        defer { path.components.removeLast() }
        return try read(&self, current)
    }

    private mutating func array<V>(_ parameter: SDLParameterInfo, _ element: (inout SDLBSONReader, BSONValue) throws(SDLReaderFailure) -> V?)
        throws(SDLReaderFailure) -> [V]?
    {
        try at(parameter) { (reader: inout SDLBSONReader, value: BSONValue) throws(SDLReaderFailure) -> [V]? in
            guard case .array(let items) = value else {
                reader.mismatch("Array", value)
                return nil
            }
            var values: [V] = []
            for (index, item) in items.enumerated() {
                reader.path.components.append(.index(index))
                if let value = try element(&reader, item) { values.append(value) }
                reader.path.components.removeLast()
            }
            if let problem = SDLRules.size(items.count, parameter) { reader.record(problem) }
            return values
        }
    }

    public mutating func readBool(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Bool? {
        try at(parameter) { reader, value in reader.bool(value) }
    }

    public mutating func readInteger(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Int? {
        try at(parameter) { reader, value in reader.integer(value, parameter) }
    }

    public mutating func readFloat(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> Double? {
        try at(parameter) { reader, value in reader.float(value, parameter) }
    }

    public mutating func readString(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> String? {
        try at(parameter) { reader, value in reader.string(value, parameter) }
    }

    public mutating func readEnum<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> E? {
        try at(parameter) { reader, value in reader.enumeration(value, E.self) }
    }

    public mutating func readStruct<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> T? {
        try at(parameter) { (reader: inout SDLBSONReader, value: BSONValue) throws(SDLReaderFailure) in try reader.structure(value, T.self) }
    }

    public mutating func readBoolArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Bool]? {
        try array(parameter) { reader, value in reader.bool(value) }
    }

    public mutating func readIntegerArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Int]? {
        try array(parameter) { reader, value in reader.integer(value, parameter) }
    }

    public mutating func readFloatArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [Double]? {
        try array(parameter) { reader, value in reader.float(value, parameter) }
    }

    public mutating func readStringArray(_ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [String]? {
        try array(parameter) { reader, value in reader.string(value, parameter) }
    }

    public mutating func readEnumArray<E: SDLEnumeration>(_ type: E.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [E]? {
        try array(parameter) { reader, value in reader.enumeration(value, E.self) }
    }

    public mutating func readStructArray<T: SDLCodable>(_ type: T.Type, _ parameter: SDLParameterInfo) throws(SDLReaderFailure) -> [T]? {
        try array(parameter) { (reader: inout SDLBSONReader, value: BSONValue) throws(SDLReaderFailure) in try reader.structure(value, T.self) }
    }
}
