/// The spec's value rules, shared by the readers (on decode) and `SDLValidator` (before send).
enum SDLRules {
    static func integer(_ value: Int, _ parameter: SDLParameterInfo) -> SDLCodingIssue.Kind? {
        number(Double(value), parameter)
    }

    static func number(_ value: Double, _ parameter: SDLParameterInfo) -> SDLCodingIssue.Kind? {
        guard value.isFinite else { return .numberOverflow(String(value)) }
        if let min = parameter.minValue, value < min {
            return .valueOutOfRange(value: value, min: parameter.minValue, max: parameter.maxValue)
        }
        if let max = parameter.maxValue, value > max {
            return .valueOutOfRange(value: value, min: parameter.minValue, max: parameter.maxValue)
        }
        return nil
    }

    /// Length in Unicode scalars, as the head unit counts characters.
    static func string(_ value: String, _ parameter: SDLParameterInfo) -> SDLCodingIssue.Kind? {
        guard parameter.minLength != nil || parameter.maxLength != nil else { return nil }
        // A string has between a quarter of its UTF-8 bytes and all of them as scalars: most
        // strings are within bounds whatever the exact count, and need no counting.
        let bytes = value.utf8.count
        if (parameter.maxLength.map { bytes <= $0 } ?? true), (parameter.minLength.map { (bytes + 3) / 4 >= $0 } ?? true) {
            return nil
        }
        let length = scalarCount(value)
        if let min = parameter.minLength, length < min {
            return .lengthOutOfRange(length: length, min: parameter.minLength, max: parameter.maxLength)
        }
        if let max = parameter.maxLength, length > max {
            return .lengthOutOfRange(length: length, min: parameter.minLength, max: parameter.maxLength)
        }
        return nil
    }

    /// `value.unicodeScalars.count`, faster: in UTF-8, every byte but the continuation bytes
    /// starts a scalar.
    static func scalarCount(_ value: String) -> Int {
        value.utf8.withContiguousStorageIfAvailable { bytes in
            var count = 0
            for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
            return count
        } ?? value.unicodeScalars.count
    }

    static func size(_ count: Int, _ parameter: SDLParameterInfo) -> SDLCodingIssue.Kind? {
        if let min = parameter.minSize, count < min {
            return .sizeOutOfRange(count: count, min: parameter.minSize, max: parameter.maxSize)
        }
        if let max = parameter.maxSize, count > max {
            return .sizeOutOfRange(count: count, min: parameter.minSize, max: parameter.maxSize)
        }
        return nil
    }

    static func enumeration<E: SDLEnumeration>(_ value: E) -> SDLCodingIssue.Kind? {
        value.isRecognized ? nil : .unknownEnumValue(value: value.rawValue, enumName: E.enumInfo.name)
    }
}

/// Checks a value against the spec before it is sent: mandatory parameters, bounds, lengths,
/// array sizes and enum values, recursively, collecting every violation with its path.
public struct SDLValidator {
    /// Sending a value the spec does not define is an error unless this is set.
    public var allowUnknownEnumValues: Bool
    public private(set) var issues: [SDLCodingIssue] = []
    private var path: SDLCodingPath

    public init(root: String, allowUnknownEnumValues: Bool = false) {
        self.path = SDLCodingPath(root: root)
        self.allowUnknownEnumValues = allowUnknownEnumValues
    }

    /// Validates `value` and returns every issue found.
    public static func validate<T: SDLCodable>(_ value: T, allowUnknownEnumValues: Bool = false) -> [SDLCodingIssue] {
        var validator = SDLValidator(root: T.structInfo.name, allowUnknownEnumValues: allowUnknownEnumValues)
        value.validate(into: &validator)
        return validator.issues
    }

    public var hasErrors: Bool { issues.contains { $0.severity == .error } }

    private mutating func record(_ kind: SDLCodingIssue.Kind?, _ parameter: SDLParameterInfo, index: Int? = nil) {
        guard let kind else { return }
        var at = path
        at.components.append(.key(parameter.name))
        if let index { at.components.append(.index(index)) }
        var severity = SDLCodingIssue.Severity.error
        if case .unknownEnumValue = kind, allowUnknownEnumValues { severity = .warning }
        issues.append(SDLCodingIssue(path: at, kind: kind, severity: severity))
    }

    /// Returns the value when present; records a missing mandatory parameter otherwise.
    private mutating func present<V>(_ value: V?, _ parameter: SDLParameterInfo) -> V? {
        if value == nil, parameter.isMandatory { record(.missingMandatory, parameter) }
        return value
    }

    public mutating func checkBool(_ value: Bool?, _ parameter: SDLParameterInfo) {
        _ = present(value, parameter)
    }

    public mutating func checkInteger(_ value: Int?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.integer(value, parameter), parameter)
    }

    public mutating func checkFloat(_ value: Double?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.number(value, parameter), parameter)
    }

    public mutating func checkString(_ value: String?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.string(value, parameter), parameter)
    }

    // The generic checks below do without `present` and `enumerated()`: in code that is not
    // specialized, `V?` and `EnumeratedSequence<[T]>` look up their metadata at run time, per
    // value. `checkEnum` and `checkStruct` are inlinable so that the optional is unwrapped in the
    // caller's code, where the type is known.

    /// Records a missing mandatory parameter.
    @usableFromInline
    mutating func absent(_ parameter: SDLParameterInfo) {
        if parameter.isMandatory { record(.missingMandatory, parameter) }
    }

    @inlinable
    public mutating func checkEnum<E: SDLEnumeration>(_ value: E?, _ parameter: SDLParameterInfo) {
        if let value { checkPresentEnum(value, parameter) } else { absent(parameter) }
    }

    @usableFromInline
    mutating func checkPresentEnum<E: SDLEnumeration>(_ value: E, _ parameter: SDLParameterInfo) {
        record(SDLRules.enumeration(value), parameter)
    }

    @inlinable
    public mutating func checkStruct<T: SDLCodable>(_ value: T?, _ parameter: SDLParameterInfo) {
        if let value { checkPresentStruct(value, parameter) } else { absent(parameter) }
    }

    @usableFromInline
    mutating func checkPresentStruct<T: SDLCodable>(_ value: T, _ parameter: SDLParameterInfo) {
        path.components.append(.key(parameter.name))
        value.validate(into: &self)
        path.components.removeLast()
    }

    public mutating func checkBoolArray(_ value: [Bool]?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.size(value.count, parameter), parameter)
    }

    public mutating func checkIntegerArray(_ value: [Int]?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.size(value.count, parameter), parameter)
        for (index, element) in value.enumerated() { record(SDLRules.integer(element, parameter), parameter, index: index) }
    }

    public mutating func checkFloatArray(_ value: [Double]?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.size(value.count, parameter), parameter)
        for (index, element) in value.enumerated() { record(SDLRules.number(element, parameter), parameter, index: index) }
    }

    public mutating func checkStringArray(_ value: [String]?, _ parameter: SDLParameterInfo) {
        guard let value = present(value, parameter) else { return }
        record(SDLRules.size(value.count, parameter), parameter)
        for (index, element) in value.enumerated() { record(SDLRules.string(element, parameter), parameter, index: index) }
    }

    public mutating func checkEnumArray<E: SDLEnumeration>(_ value: [E]?, _ parameter: SDLParameterInfo) {
        guard let value else { return absent(parameter) }
        record(SDLRules.size(value.count, parameter), parameter)
        for index in value.indices { record(SDLRules.enumeration(value[index]), parameter, index: index) }
    }

    public mutating func checkStructArray<T: SDLCodable>(_ value: [T]?, _ parameter: SDLParameterInfo) {
        guard let value else { return absent(parameter) }
        record(SDLRules.size(value.count, parameter), parameter)
        for index in value.indices {
            path.components.append(.key(parameter.name))
            path.components.append(.index(index))
            value[index].validate(into: &self)
            path.components.removeLast(2)
        }
    }
}
