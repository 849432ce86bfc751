import Mustache

/// The final shape of the generated code: names, types, doc lines and literal values are all
/// decided here, so templates only lay them out. Every type answers Mustache's lookups
/// explicitly (`MustacheParent`) instead of through `Mirror`, which is several times faster.

/// One line of a doc comment, without the `///`; empty for a blank comment line.
public struct DocLine: MustacheParent, Sendable, Hashable {
    public var text: String

    public func child(named name: String) -> Any? {
        switch name {
        case "text": text.isEmpty ? "" : " " + text
        default: nil
        }
    }
}

public struct EnumCaseModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    /// The spec name as a Swift string literal, quotes included.
    public var rawValueLiteral: String
    public var docs: [DocLine]
    public var value: Int?
    public var metadataArguments: String

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": swiftName
        case "rawValueLiteral": rawValueLiteral
        case "docs": docs
        case "value": value.map(String.init)
        case "metadataArguments": metadataArguments
        default: nil
        }
    }
}

public struct EnumModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    public var specName: String
    public var docs: [DocLine]
    public var cases: [EnumCaseModel]
    /// Whether the spec gives elements numeric values (then `init?(value:)` and `value` exist).
    public var hasValues: Bool
    /// Every case with a value, for `value`.
    public var valueCases: [EnumCaseModel]
    /// The first case of each value, for `init?(value:)` (a repeated value cannot be a second `case`).
    public var uniqueValueCases: [EnumCaseModel]
    /// Every known case has a value, so `value`'s switch needs no `default`.
    public var valuesAreComplete: Bool
    public var availabilityLiteral: String

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": swiftName
        case "specName": specName
        case "specNameLiteral": SwiftLiteral.string(specName)
        case "docs": docs
        case "cases": cases
        case "hasValues": hasValues
        case "valueCases": valueCases
        case "uniqueValueCases": uniqueValueCases
        case "valuesAreComplete": valuesAreComplete
        case "availabilityLiteral": availabilityLiteral
        default: nil
        }
    }
}

/// How a property's values are represented; the serializers switch over this.
public enum ValueKind: String, Sendable, Hashable {
    case boolean, integer, float, string, enumeration, structure
}

public struct PropertyModel: MustacheParent, Sendable, Hashable {
    /// Escaped Swift identifier (`` `protocol` ``).
    public var swiftName: String
    /// The key on the wire, exactly as in the spec.
    public var wireName: String
    /// The element type, fully qualified (`Swift.String`, `TTSChunk`).
    public var baseType: String
    /// The declared type: `[TTSChunk]?`, `Swift.Int`.
    public var swiftType: String
    public var valueKind: ValueKind
    public var isArray: Bool
    public var isOptional: Bool
    public var docs: [DocLine]
    public var metadataArguments: String
    /// Position in `structInfo.parameters`.
    public var index: Int = 0
    public var isLast: Bool = false

    /// The codec method suffix: `readString`, `writeStructArray`, `checkEnum`...
    public var codingName: String {
        let kind = switch valueKind {
        case .boolean: "Bool"
        case .integer: "Integer"
        case .float: "Float"
        case .string: "String"
        case .enumeration: "Enum"
        case .structure: "Struct"
        }
        return isArray ? kind + "Array" : kind
    }

    /// The name as an argument label at a call site, where most keywords need no backticks.
    public var labelName: String {
        let bare = SwiftNamer.unescaped(swiftName)
        return ["inout", "var", "let"].contains(bare) ? swiftName : bare
    }

    /// `ImageType.self, ` for the generic enum and struct readers, empty otherwise.
    public var typeArgument: String {
        valueKind == .enumeration || valueKind == .structure ? "\(baseType).self, " : ""
    }

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": swiftName
        case "wireName": wireName
        case "index": String(index)
        case "labelName": labelName
        case "codingName": codingName
        case "typeArgument": typeArgument
        case "localType": (isArray ? "[\(baseType)]" : baseType) + "?"
        case "wireNameLiteral": SwiftLiteral.string(wireName)
        case "baseType": baseType
        case "swiftType": swiftType
        case "valueKind": valueKind.rawValue
        case "isArray": isArray
        case "isOptional": isOptional
        case "isMandatory": !isOptional
        case "docs": docs
        case "metadataArguments": metadataArguments
        case "isLast": isLast
        default: nil
        }
    }
}

/// A struct, or one message of a function.
public struct StructModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    public var specName: String
    public var docs: [DocLine]
    public var properties: [PropertyModel]
    public var availabilityLiteral: String
    /// Set for function messages.
    public var message: MessageModel?

    /// The mandatory properties, for the decoder's completeness check.
    public var mandatoryProperties: [MandatoryPropertyModel] {
        let mandatory = properties.filter { !$0.isOptional }
        return mandatory.enumerated().map { offset, property in
            MandatoryPropertyModel(swiftName: property.swiftName, index: property.index, isLast: offset == mandatory.count - 1)
        }
    }

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": swiftName
        case "specName": specName
        case "specNameLiteral": SwiftLiteral.string(specName)
        case "docs": docs
        case "properties": properties
        case "hasProperties": !properties.isEmpty
        case "mandatoryProperties": mandatoryProperties
        case "hasMandatoryProperties": !mandatoryProperties.isEmpty
        case "availabilityLiteral": availabilityLiteral
        case "message": message
        case "protocolName": message?.protocolName ?? "SDLRuntime.SDLCodable"
        default: nil
        }
    }
}

public struct MandatoryPropertyModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    public var index: Int
    public var isLast: Bool

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": swiftName
        case "index": String(index)
        case "isLast": isLast
        default: nil
        }
    }
}

public struct MessageModel: MustacheParent, Sendable, Hashable {
    public var functionName: String
    public var messageType: String
    public var functionIDValue: Int
    /// The `FunctionID` case, when the spec's `FunctionID` enum is generated.
    public var functionIDCase: String?
    public var protocolName: String
    /// For requests: the response type.
    public var responseType: String?

    public func child(named name: String) -> Any? {
        switch name {
        case "functionNameLiteral": SwiftLiteral.string(functionName)
        case "messageType": messageType
        case "functionIDValue": String(functionIDValue)
        case "functionIDCase": functionIDCase
        case "protocolName": protocolName
        case "responseType": responseType
        default: nil
        }
    }
}

/// Everything one output file shows.
public struct FileModel: MustacheParent, Sendable {
    public var fileName: String
    public var template: String
    public var access: String
    public var interfaceName: String
    public var specVersion: String
    public var specFileName: String
    public var specSHA256: String
    public var enums: [EnumModel] = []
    public var structs: [StructModel] = []
    public var catalog: CatalogModel?

    public func child(named name: String) -> Any? {
        switch name {
        case "fileName": fileName
        case "access": access
        case "interfaceName": interfaceName
        case "specVersion": specVersion
        case "specFileName": specFileName
        case "specSHA256": specSHA256
        case "enums": enums
        case "structs": structs
        case "hasEnums": !enums.isEmpty
        case "hasStructs": !structs.isEmpty
        case "catalog": catalog
        default: nil
        }
    }
}

/// The `MobileAPI` namespace: which spec, and lists of every generated type.
public struct CatalogModel: MustacheParent, Sendable {
    public struct Entry: MustacheParent, Sendable {
        public var swiftName: String
        public func child(named name: String) -> Any? { name == "swiftName" ? swiftName : nil }
    }

    public var interfaceNameLiteral: String
    public var versionLiteral: String
    public var minVersionLiteral: String
    public var dateLiteral: String
    public var sha256Literal: String
    public var enums: [Entry]
    public var structs: [Entry]
    public var requests: [Entry]
    public var responses: [Entry]
    public var notifications: [Entry]

    public func child(named name: String) -> Any? {
        switch name {
        case "interfaceNameLiteral": interfaceNameLiteral
        case "versionLiteral": versionLiteral
        case "minVersionLiteral": minVersionLiteral
        case "dateLiteral": dateLiteral
        case "sha256Literal": sha256Literal
        case "enums": enums
        case "structs": structs
        case "requests": requests
        case "responses": responses
        case "notifications": notifications
        default: nil
        }
    }
}

/// Swift source literals.
public enum SwiftLiteral {
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    public static func optionalString(_ text: String?) -> String {
        text.map(string) ?? "nil"
    }

    public static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return "\(Int(value))" }
        return "\(value)"
    }
}
