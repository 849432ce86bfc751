/// Static facts about generated types, taken from the RPC spec: names on the wire, types,
/// bounds, defaults and versions. Serializers and validators read these; apps can too.

/// A version as the RPC spec writes it (`since="6.0"`, `version="8.0.0"`).
public struct SDLSpecVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(major: Int, minor: Int, patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `.version(6, 0)`: the short form generated metadata uses.
    public static func version(_ major: Int, _ minor: Int, _ patch: Int = 0) -> SDLSpecVersion {
        SDLSpecVersion(major: major, minor: minor, patch: patch)
    }

    public static func < (lhs: SDLSpecVersion, rhs: SDLSpecVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}

/// `since`, `until` and `deprecated` of a definition.
public struct SDLAvailability: Hashable, Sendable {
    public let since: SDLSpecVersion?
    public let until: SDLSpecVersion?
    public let isDeprecated: Bool

    public init(since: SDLSpecVersion? = nil, until: SDLSpecVersion? = nil, isDeprecated: Bool = false) {
        self.since = since
        self.until = until
        self.isDeprecated = isDeprecated
    }

    /// Whether a head unit speaking `version` knows this definition.
    public func isAvailable(in version: SDLSpecVersion) -> Bool {
        if let since, version < since { return false }
        if let until, version >= until { return false }
        return true
    }
}

/// The kind of value a parameter holds, named as in the spec.
public enum SDLValueType: Hashable, Sendable {
    case boolean
    case integer
    case float
    case string
    case enumeration(String)
    case structure(String)
}

/// One `<param>` of a struct or function.
public struct SDLParameterInfo: Hashable, Sendable {
    /// The key on the wire, exactly as the spec writes it.
    public let name: String
    public let type: SDLValueType
    public let isArray: Bool
    public let isMandatory: Bool
    public let minValue: Double?
    public let maxValue: Double?
    public let minLength: Int?
    public let maxLength: Int?
    public let minSize: Int?
    public let maxSize: Int?
    /// `defvalue` as written in the spec: what the head unit assumes when the param is absent.
    public let defaultValue: String?
    public let availability: SDLAvailability

    public init(
        name: String,
        type: SDLValueType,
        isArray: Bool = false,
        isMandatory: Bool,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minLength: Int? = nil,
        maxLength: Int? = nil,
        minSize: Int? = nil,
        maxSize: Int? = nil,
        defaultValue: String? = nil,
        availability: SDLAvailability = SDLAvailability()
    ) {
        self.name = name
        self.type = type
        self.isArray = isArray
        self.isMandatory = isMandatory
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.minSize = minSize
        self.maxSize = maxSize
        self.defaultValue = defaultValue
        self.availability = availability
    }
}

/// A `<struct>` or `<function>`.
public struct SDLStructInfo: Hashable, Sendable {
    public let name: String
    public let availability: SDLAvailability
    public let parameters: [SDLParameterInfo]

    public init(name: String, availability: SDLAvailability = SDLAvailability(), parameters: [SDLParameterInfo]) {
        self.name = name
        self.availability = availability
        self.parameters = parameters
    }

    /// The parameter with wire name `name`.
    public func parameter(named name: String) -> SDLParameterInfo? {
        parameters.first { $0.name == name }
    }
}

/// One `<element>` of an enum.
public struct SDLEnumElementInfo: Hashable, Sendable {
    public let name: String
    /// `value`, where the spec gives one (e.g. FunctionID numbers).
    public let value: Int?
    public let availability: SDLAvailability

    public init(name: String, value: Int? = nil, availability: SDLAvailability = SDLAvailability()) {
        self.name = name
        self.value = value
        self.availability = availability
    }
}

/// An `<enum>`.
public struct SDLEnumInfo: Hashable, Sendable {
    public let name: String
    public let availability: SDLAvailability
    public let elements: [SDLEnumElementInfo]

    public init(name: String, availability: SDLAvailability = SDLAvailability(), elements: [SDLEnumElementInfo]) {
        self.name = name
        self.availability = availability
        self.elements = elements
    }

    public func element(named name: String) -> SDLEnumElementInfo? {
        elements.first { $0.name == name }
    }
}

/// The metadata of a set of generated types by spec name, for code that walks values through
/// metadata alone (default responses, random test messages): `SDLValueType` names its
/// struct and enum types by spec name.
public struct SDLTypeIndex: Sendable {
    public let structs: [String: SDLStructInfo]
    public let enums: [String: SDLEnumInfo]

    public init(structures: [any SDLStructure.Type], enumerations: [any SDLEnumeration.Type]) {
        structs = Dictionary(structures.map { ($0.structInfo.name, $0.structInfo) }, uniquingKeysWith: { first, _ in first })
        enums = Dictionary(enumerations.map { ($0.enumInfo.name, $0.enumInfo) }, uniquingKeysWith: { first, _ in first })
    }
}
