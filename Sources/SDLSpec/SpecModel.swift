/// The typed model of SDL's interface specs, `MOBILE_API.xml` (apps and head units) and SDL
/// Core's `HMI_API.xml` (Core and its HMI): every element and attribute they use, each
/// definition with the line it came from. Both share enums, structs, functions and params;
/// what differs is said with types: the root (`SpecDocument`), `Scope`, and how functions are
/// named and answered (`FunctionID` against `Interface.Function` with numeric result codes).

/// A spec file as read: which API it describes decides its shape.
public enum SpecDocument: Hashable, Sendable, Encodable {
    /// `MOBILE_API.xml`: one `<interface>`; functions are numbered by the `FunctionID` enum and
    /// answer with a `resultCode` parameter.
    case mobile(Interface)
    /// `HMI_API.xml`: `<interfaces>` holding several `<interface>`s whose types are referenced
    /// across them as `Interface.Type`; functions are JSON-RPC methods (`UI.Show`) answered
    /// with a numeric code from `Common.Result`.
    case hmi(InterfaceSet)

    /// Every definition in one interface. For the HMI API the interfaces' definitions with
    /// qualified names (`Common.Result`, function `UI.Show`), so name-based tools (diff, message
    /// validation) treat both specs alike.
    public var combined: Interface {
        switch self {
        case .mobile(let interface): interface
        case .hmi(let set): set.combined
        }
    }

    /// A dump shows the definitions as they are: the interface, or the set.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .mobile(let interface): try interface.encode(to: encoder)
        case .hmi(let set): try set.encode(to: encoder)
        }
    }
}

/// `<interfaces>`: the root of an HMI API spec.
public struct InterfaceSet: Hashable, Sendable, Codable {
    public var name: String
    public var interfaces: [Interface] = []
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }

    /// The name of the enum whose numbers JSON-RPC responses carry as `code`.
    public static let resultCodeEnum = "Common.Result"

    public func interface(named name: String) -> Interface? {
        interfaces.first { $0.name == name }
    }

    /// The definitions of every interface in one, names qualified by their interface.
    public var combined: Interface {
        var combined = Interface(name: name, location: location)
        for interface in interfaces {
            let prefix = interface.name + "."
            combined.enums += interface.enums.map { definition in
                var definition = definition
                definition.name = prefix + definition.name
                return definition
            }
            combined.structs += interface.structs.map { definition in
                var definition = definition
                definition.name = prefix + definition.name
                return definition
            }
            combined.functions += interface.functions.map { definition in
                var definition = definition
                definition.name = prefix + definition.name
                return definition
            }
        }
        return combined
    }
}

/// `scope` of an HMI definition. Absent means public: part of the interface for every HMI.
public enum Scope: String, Hashable, Sendable, Codable {
    /// Between SDL Core and the OEM's own HMI components only (policy and system functions).
    case `internal`
}

/// `<interface>`: the root of a mobile spec, or one interface of the HMI API.
public struct Interface: Hashable, Sendable, Codable {
    public var name: String
    public var version: SpecVersion?
    /// The text of `version` as written, kept when it is not a valid version.
    public var versionText: String?
    public var minVersion: String?
    public var date: String?
    public var documentation = Documentation()
    public var enums: [EnumDefinition] = []
    public var structs: [StructDefinition] = []
    public var functions: [FunctionDefinition] = []
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// Free text attached to a definition: `description`, `designdescription`, `warning`, `todo`, `issue`.
public struct Documentation: Hashable, Sendable, Codable {
    public struct Issue: Hashable, Sendable, Codable {
        public var creator: String?
        public var text: String
    }

    public var descriptions: [String] = []
    public var designDescriptions: [String] = []
    public var warnings: [String] = []
    public var todos: [String] = []
    public var issues: [Issue] = []

    public init() {}

    public var isEmpty: Bool {
        descriptions.isEmpty && designDescriptions.isEmpty && warnings.isEmpty && todos.isEmpty && issues.isEmpty
    }
}

/// When a definition exists: `since`, `until`, `deprecated`, `removed`.
public struct Availability: Hashable, Sendable, Codable {
    public var since: SpecVersion?
    public var until: SpecVersion?
    public var deprecated: Bool = false
    public var removed: Bool = false

    public init(since: SpecVersion? = nil, until: SpecVersion? = nil, deprecated: Bool = false, removed: Bool = false) {
        self.since = since
        self.until = until
        self.deprecated = deprecated
        self.removed = removed
    }

    /// Whether the definition is part of the API at `version`.
    public func isAvailable(in version: SpecVersion) -> Bool {
        if removed { return false }
        if let since, version < since { return false }
        if let until, version >= until { return false }
        return true
    }
}

/// `<enum>`.
public struct EnumDefinition: Hashable, Sendable, Codable {
    public var name: String
    public var elements: [EnumElement] = []
    public var availability = Availability()
    public var platform: String?
    public var internalScope: String?
    public var documentation = Documentation()
    /// Earlier forms of this enum, oldest first, from its `<history>`.
    public var history: [EnumDefinition] = []
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `<element>` of an enum.
public struct EnumElement: Hashable, Sendable, Codable {
    public var name: String
    public var value: Int?
    public var hexValue: String?
    public var internalName: String?
    public var rootScreen: Bool = false
    public var availability = Availability()
    public var platform: String?
    public var documentation = Documentation()
    public var history: [EnumElement] = []
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `<struct>`.
public struct StructDefinition: Hashable, Sendable, Codable {
    public var name: String
    public var parameters: [Parameter] = []
    public var availability = Availability()
    public var platform: String?
    /// HMI API only.
    public var scope: Scope?
    public var documentation = Documentation()
    public var history: [StructDefinition] = []
    public var location: SourceLocation

    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `messagetype` of a function.
public enum MessageType: String, Hashable, Sendable, Codable, CaseIterable {
    case request, response, notification
}

/// `<function>`: one message of an RPC.
public struct FunctionDefinition: Hashable, Sendable, Codable {
    public var name: String
    /// The name of the `FunctionID` element, e.g. `ShowID`. Mandatory in the mobile API; in
    /// the HMI API, where the method name identifies a function, empty unless a function
    /// copied from the mobile API keeps it.
    public var functionID: String
    public var messageType: MessageType
    public var parameters: [Parameter] = []
    public var availability = Availability()
    public var platform: String?
    /// HMI API only.
    public var scope: Scope?
    public var documentation = Documentation()
    public var history: [FunctionDefinition] = []
    public var location: SourceLocation

    public init(name: String, functionID: String, messageType: MessageType, location: SourceLocation) {
        self.name = name
        self.functionID = functionID
        self.messageType = messageType
        self.location = location
    }
}

/// The type of a parameter, resolved against the spec's enums and structs.
public enum TypeReference: Hashable, Sendable, Codable, CustomStringConvertible {
    case boolean
    case integer
    case float
    case string
    case enumeration(String)
    case structure(String)
    /// A name that is neither a built-in type nor defined in the spec (an error).
    case unresolved(String)

    /// The name as written in the spec.
    public var specName: String {
        switch self {
        case .boolean: "Boolean"
        case .integer: "Integer"
        case .float: "Float"
        case .string: "String"
        case .enumeration(let name), .structure(let name), .unresolved(let name): name
        }
    }

    public var description: String { specName }

    public var isNumeric: Bool { self == .integer || self == .float }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(specName)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = .unresolved(try container.decode(String.self))
    }
}

/// `<param>` of a struct or function.
public struct Parameter: Hashable, Sendable, Codable {
    public var name: String
    public var type: TypeReference
    public var isArray: Bool = false
    /// `mandatory`; a spec that leaves it out means `true`.
    public var isMandatory: Bool = true
    public var minSize: Int?
    public var maxSize: Int?
    public var minValue: Double?
    public var maxValue: Double?
    public var minLength: Int?
    public var maxLength: Int?
    public var defaultValue: String?
    public var availability = Availability()
    public var platform: String?
    /// HMI API only.
    public var scope: Scope?
    /// `<element>` children: the enum values this parameter documents as possible (e.g. `resultCode`).
    public var possibleElements: [String] = []
    public var documentation = Documentation()
    public var history: [Parameter] = []
    public var location: SourceLocation

    public init(name: String, type: TypeReference, location: SourceLocation) {
        self.name = name
        self.type = type
        self.location = location
    }
}

extension Interface {
    public func enumDefinition(named name: String) -> EnumDefinition? {
        enums.first { $0.name == name }
    }

    public func structDefinition(named name: String) -> StructDefinition? {
        structs.first { $0.name == name }
    }

    public func function(named name: String, type: MessageType) -> FunctionDefinition? {
        functions.first { $0.name == name && $0.messageType == type }
    }
}
