/// The typed model of SDL's interface specs, `MOBILE_API.xml` (apps and head units) and SDL
/// Core's `HMI_API.xml` (Core and its HMI): every element and attribute they use, each
/// definition with the line it came from. Both share enums, structs, functions and params;
/// what differs is said with types: the root (`SpecDocument`), `Scope`, and how functions are
/// named and answered (`FunctionID` against `Interface.Function` with numeric result codes).

/// A spec file as read: which API it describes decides its shape.
package enum SpecDocument: Hashable, Sendable, Encodable {
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
    package var combined: Interface {
        switch self {
        case .mobile(let interface): interface
        case .hmi(let set): set.combined
        }
    }

    /// A dump shows the definitions as they are: the interface, or the set.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .mobile(let interface): try interface.encode(to: encoder)
        case .hmi(let set): try set.encode(to: encoder)
        }
    }
}

/// `<interfaces>`: the root of an HMI API spec.
package struct InterfaceSet: Hashable, Sendable, Codable {
    package var name: String
    package var interfaces: [Interface] = []
    package var location: SourceLocation

    package init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }

    /// The name of the enum whose numbers JSON-RPC responses carry as `code`.
    package static let resultCodeEnum = "Common.Result"

    package func interface(named name: String) -> Interface? {
        interfaces.first { $0.name == name }
    }

    /// The definitions of every interface in one, names qualified by their interface.
    package var combined: Interface {
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
package enum Scope: String, Hashable, Sendable, Codable {
    /// Between SDL Core and the OEM's own HMI components only (policy and system functions).
    case `internal`
}

/// `<interface>`: the root of a mobile spec, or one interface of the HMI API.
package struct Interface: Hashable, Sendable, Codable {
    package var name: String
    package var version: SpecVersion?
    /// The text of `version` as written, kept when it is not a valid version.
    package var versionText: String?
    package var minVersion: String?
    package var date: String?
    package var documentation = Documentation()
    package var enums: [EnumDefinition] = []
    package var structs: [StructDefinition] = []
    package var functions: [FunctionDefinition] = []
    package var location: SourceLocation

    package init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// Free text attached to a definition: `description`, `designdescription`, `warning`, `todo`, `issue`.
package struct Documentation: Hashable, Sendable, Codable {
    package struct Issue: Hashable, Sendable, Codable {
        package var creator: String?
        package var text: String
    }

    package var descriptions: [String] = []
    package var designDescriptions: [String] = []
    package var warnings: [String] = []
    package var todos: [String] = []
    package var issues: [Issue] = []

    package init() {}

    package var isEmpty: Bool {
        descriptions.isEmpty && designDescriptions.isEmpty && warnings.isEmpty && todos.isEmpty && issues.isEmpty
    }
}

/// When a definition exists: `since`, `until`, `deprecated`, `removed`.
package struct Availability: Hashable, Sendable, Codable {
    package var since: SpecVersion?
    package var until: SpecVersion?
    package var deprecated: Bool = false
    package var removed: Bool = false

    package init(since: SpecVersion? = nil, until: SpecVersion? = nil, deprecated: Bool = false, removed: Bool = false) {
        self.since = since
        self.until = until
        self.deprecated = deprecated
        self.removed = removed
    }

    /// Whether the definition is part of the API at `version`.
    package func isAvailable(in version: SpecVersion) -> Bool {
        if removed { return false }
        if let since, version < since { return false }
        if let until, version >= until { return false }
        return true
    }
}

/// `<enum>`.
package struct EnumDefinition: Hashable, Sendable, Codable {
    package var name: String
    package var elements: [EnumElement] = []
    package var availability = Availability()
    package var platform: String?
    package var internalScope: String?
    package var documentation = Documentation()
    /// Earlier forms of this enum, oldest first, from its `<history>`.
    package var history: [EnumDefinition] = []
    package var location: SourceLocation

    package init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `<element>` of an enum.
package struct EnumElement: Hashable, Sendable, Codable {
    package var name: String
    package var value: Int?
    package var hexValue: String?
    package var internalName: String?
    package var rootScreen: Bool = false
    package var availability = Availability()
    package var platform: String?
    package var documentation = Documentation()
    package var history: [EnumElement] = []
    package var location: SourceLocation

    package init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `<struct>`.
package struct StructDefinition: Hashable, Sendable, Codable {
    package var name: String
    package var parameters: [Parameter] = []
    package var availability = Availability()
    package var platform: String?
    /// HMI API only.
    package var scope: Scope?
    package var documentation = Documentation()
    package var history: [StructDefinition] = []
    package var location: SourceLocation

    package init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `messagetype` of a function.
package enum MessageType: String, Hashable, Sendable, Codable, CaseIterable {
    case request, response, notification
}

/// `<function>`: one message of an RPC.
package struct FunctionDefinition: Hashable, Sendable, Codable {
    package var name: String
    /// The name of the `FunctionID` element, e.g. `ShowID`. Mandatory in the mobile API; in
    /// the HMI API, where the method name identifies a function, empty unless a function
    /// copied from the mobile API keeps it.
    package var functionID: String
    package var messageType: MessageType
    package var parameters: [Parameter] = []
    package var availability = Availability()
    package var platform: String?
    /// HMI API only.
    package var scope: Scope?
    package var documentation = Documentation()
    package var history: [FunctionDefinition] = []
    package var location: SourceLocation

    package init(name: String, functionID: String, messageType: MessageType, location: SourceLocation) {
        self.name = name
        self.functionID = functionID
        self.messageType = messageType
        self.location = location
    }
}

/// The type of a parameter, resolved against the spec's enums and structs.
package enum TypeReference: Hashable, Sendable, Codable, CustomStringConvertible {
    case boolean
    case integer
    case float
    case string
    case enumeration(String)
    case structure(String)
    /// A name that is neither a built-in type nor defined in the spec (an error).
    case unresolved(String)

    /// The name as written in the spec.
    package var specName: String {
        switch self {
        case .boolean: "Boolean"
        case .integer: "Integer"
        case .float: "Float"
        case .string: "String"
        case .enumeration(let name), .structure(let name), .unresolved(let name): name
        }
    }

    package var description: String { specName }

    package var isNumeric: Bool { self == .integer || self == .float }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(specName)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = .unresolved(try container.decode(String.self))
    }
}

/// `<param>` of a struct or function.
package struct Parameter: Hashable, Sendable, Codable {
    package var name: String
    package var type: TypeReference
    package var isArray: Bool = false
    /// `mandatory`; a spec that leaves it out means `true`.
    package var isMandatory: Bool = true
    package var minSize: Int?
    package var maxSize: Int?
    package var minValue: Double?
    package var maxValue: Double?
    package var minLength: Int?
    package var maxLength: Int?
    package var defaultValue: String?
    package var availability = Availability()
    package var platform: String?
    /// HMI API only.
    package var scope: Scope?
    /// `<element>` children: the enum values this parameter documents as possible (e.g. `resultCode`).
    package var possibleElements: [String] = []
    package var documentation = Documentation()
    package var history: [Parameter] = []
    package var location: SourceLocation

    package init(name: String, type: TypeReference, location: SourceLocation) {
        self.name = name
        self.type = type
        self.location = location
    }
}

extension Interface {
    package func enumDefinition(named name: String) -> EnumDefinition? {
        enums.first { $0.name == name }
    }

    package func structDefinition(named name: String) -> StructDefinition? {
        structs.first { $0.name == name }
    }

    package func function(named name: String, type: MessageType) -> FunctionDefinition? {
        functions.first { $0.name == name && $0.messageType == type }
    }
}
