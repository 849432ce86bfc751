import Mustache

/// The final shape of the generated code: names, types, doc lines and literal values are all
/// decided here, so templates only lay them out. Every type answers Mustache's lookups
/// explicitly (`MustacheParent`) instead of through `Mirror`, which is several times faster.

/// Text a template prints as is. Mustache renders `MustacheCustomRenderable` values directly,
/// skipping the `String(describing:)` it applies to anything else, which was most of its time.
public struct MustacheText: MustacheCustomRenderable, Sendable, Hashable {
    public let renderText: String

    public init(_ text: String) {
        renderText = text
    }

    public var isNull: Bool { false }
}

/// One line of a doc comment, without the `///`; empty for a blank comment line.
public struct DocLine: MustacheParent, Sendable, Hashable {
    public let text: String
    /// What follows `///`: a space and the text, or nothing for a blank line.
    private let rendered: MustacheText

    public init(text: String) {
        self.text = text
        self.rendered = MustacheText(text.isEmpty ? "" : " " + text)
    }

    public func child(named name: String) -> Any? {
        name == "text" ? rendered : nil
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
        case "swiftName": MustacheText(swiftName)
        case "rawValueLiteral": MustacheText(rawValueLiteral)
        case "docs": docs
        case "value": value.map(String.init).map(MustacheText.init)
        case "metadataArguments": MustacheText(metadataArguments)
        default: nil
        }
    }
}

public struct EnumModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    /// The name outside its declaration: `Common.Result` for a type nested in an HMI interface.
    public var qualifiedName: String
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
    private var specNameLiteral: String { SwiftLiteral.string(specName) }

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": MustacheText(swiftName)
        case "qualifiedName": MustacheText(qualifiedName)
        case "specName": MustacheText(specName)
        case "specNameLiteral": MustacheText(specNameLiteral)
        case "docs": docs
        case "cases": cases
        case "hasValues": hasValues
        case "valueCases": valueCases
        case "uniqueValueCases": uniqueValueCases
        case "valuesAreComplete": valuesAreComplete
        case "availabilityLiteral": MustacheText(availabilityLiteral)
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
    /// Position in `structInfo.parameters`; set with `place(at:isLast:)`.
    public private(set) var index: Int = 0
    public private(set) var isLast: Bool = false

    // Derived spellings, computed once because templates look them up many times.
    /// The codec method suffix: `readString`, `writeStructArray`, `checkEnum`...
    public private(set) var codingName = ""
    /// The name as an argument label at a call site, where most keywords need no backticks.
    public private(set) var labelName = ""
    /// `ImageType.self, ` for the generic enum and struct readers, empty otherwise.
    public private(set) var typeArgument = ""
    /// The decoder's local: `[TTSChunk]?`.
    public private(set) var localType = ""
    public private(set) var wireNameLiteral = ""
    /// `isTemplate: Swift.Bool? = nil`: the memberwise initializer's parameter.
    public private(set) var parameterDeclaration = ""
    /// The generated decoder's read: `try reader.readEnum(ImageType.self, parameters[1])`.
    public private(set) var decodeCall = ""
    /// The generated encoder's write: `writer.writeEnum(imageType, forKey: "imageType")`.
    public private(set) var encodeCall = ""
    /// The generated validator's check: `checkEnum(imageType, parameters[1])`.
    public private(set) var validateCall = ""
    private var indexText = "0"

    public init(
        swiftName: String, wireName: String, baseType: String, swiftType: String, valueKind: ValueKind,
        isArray: Bool, isOptional: Bool, docs: [DocLine], metadataArguments: String
    ) {
        self.swiftName = swiftName
        self.wireName = wireName
        self.baseType = baseType
        self.swiftType = swiftType
        self.valueKind = valueKind
        self.isArray = isArray
        self.isOptional = isOptional
        self.docs = docs
        self.metadataArguments = metadataArguments
        let kind =
            switch valueKind {
            case .boolean: "Bool"
            case .integer: "Integer"
            case .float: "Float"
            case .string: "String"
            case .enumeration: "Enum"
            case .structure: "Struct"
            }
        codingName = isArray ? kind + "Array" : kind
        let bare = SwiftNamer.unescaped(swiftName)
        labelName = ["inout", "var", "let"].contains(bare) ? swiftName : bare
        typeArgument = valueKind == .enumeration || valueKind == .structure ? "\(baseType).self, " : ""
        localType = (isArray ? "[\(baseType)]" : baseType) + "?"
        wireNameLiteral = SwiftLiteral.string(wireName)
        parameterDeclaration = "\(swiftName): \(swiftType)" + (isOptional ? " = nil" : "")
        encodeCall = "writer.write\(codingName)(\(swiftName), forKey: \(wireNameLiteral))"
        place(at: 0, isLast: false)
    }

    /// Records the property's position among its struct's properties.
    public mutating func place(at index: Int, isLast: Bool) {
        self.index = index
        self.indexText = String(index)
        self.isLast = isLast
        decodeCall = "try reader.read\(codingName)(\(typeArgument)parameters[\(index)])"
        validateCall = "check\(codingName)(\(swiftName), parameters[\(index)])"
    }

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": MustacheText(swiftName)
        case "wireName": MustacheText(wireName)
        case "index": MustacheText(indexText)
        case "labelName": MustacheText(labelName)
        case "codingName": MustacheText(codingName)
        case "typeArgument": MustacheText(typeArgument)
        case "localType": MustacheText(localType)
        case "wireNameLiteral": MustacheText(wireNameLiteral)
        case "parameterDeclaration": MustacheText(parameterDeclaration)
        case "decodeCall": MustacheText(decodeCall)
        case "encodeCall": MustacheText(encodeCall)
        case "validateCall": MustacheText(validateCall)
        case "baseType": MustacheText(baseType)
        case "swiftType": MustacheText(swiftType)
        case "valueKind": MustacheText(valueKind.rawValue)
        case "isArray": isArray
        case "isOptional": isOptional
        case "isMandatory": !isOptional
        case "docs": docs
        case "metadataArguments": MustacheText(metadataArguments)
        case "isLast": isLast
        default: nil
        }
    }
}

/// A struct, or one message of a function.
public struct StructModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    /// The name outside its declaration: `UI.Show` for a type nested in an HMI interface.
    public var qualifiedName: String
    public var specName: String
    public var docs: [DocLine]
    public var properties: [PropertyModel]
    public var availabilityLiteral: String
    /// Set for function messages.
    public var message: MessageModel?

    /// The mandatory properties, for the decoder's completeness check.
    public var mandatoryProperties: [MandatoryPropertyModel] = []

    public init(
        swiftName: String, qualifiedName: String? = nil, specName: String, docs: [DocLine], properties: [PropertyModel],
        availabilityLiteral: String, message: MessageModel?
    ) {
        self.swiftName = swiftName
        self.qualifiedName = qualifiedName ?? swiftName
        self.specName = specName
        self.docs = docs
        self.properties = properties
        self.availabilityLiteral = availabilityLiteral
        self.message = message
        let mandatory = properties.filter { !$0.isOptional }
        mandatoryProperties = mandatory.enumerated().map { offset, property in
            MandatoryPropertyModel(swiftName: property.swiftName, index: property.index, isArray: property.isArray, isLast: offset == mandatory.count - 1)
        }
        specNameLiteral = SwiftLiteral.string(specName)
    }

    private var specNameLiteral = ""

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": MustacheText(swiftName)
        case "qualifiedName": MustacheText(qualifiedName)
        case "specName": MustacheText(specName)
        case "specNameLiteral": MustacheText(specNameLiteral)
        case "docs": docs
        case "properties": properties
        case "hasProperties": !properties.isEmpty
        case "mandatoryProperties": mandatoryProperties
        case "hasMandatoryProperties": !mandatoryProperties.isEmpty
        case "availabilityLiteral": MustacheText(availabilityLiteral)
        case "message": message
        case "protocolName": MustacheText(message?.protocolName ?? "SDLRuntime.SDLCodable")
        default: nil
        }
    }
}

public struct MandatoryPropertyModel: MustacheParent, Sendable, Hashable {
    public var swiftName: String
    public var index: Int
    /// A missing mandatory array decodes as empty (reported): head units leave some out.
    public var isArray: Bool
    public var isLast: Bool

    public func child(named name: String) -> Any? {
        switch name {
        case "swiftName": MustacheText(swiftName)
        case "index": MustacheText(String(index))
        case "isArray": isArray
        case "isLast": isLast
        default: nil
        }
    }
}

public struct MessageModel: MustacheParent, Sendable, Hashable {
    public var functionName: String
    public var messageType: String
    /// The number in the binary header (mobile API); nil for the HMI API, whose functions are
    /// named by `method` instead.
    public var functionIDValue: Int?
    /// The JSON-RPC method (`UI.Show`), HMI API only.
    public var method: String?
    /// The `FunctionID` case, when the spec's `FunctionID` enum is generated.
    public var functionIDCase: String?
    public var protocolName: String
    /// For requests: the response type.
    public var responseType: String?

    public func child(named name: String) -> Any? {
        switch name {
        case "functionNameLiteral": MustacheText(SwiftLiteral.string(functionName))
        case "messageType": MustacheText(messageType)
        case "functionIDValue": functionIDValue.map { MustacheText(String($0)) }
        case "methodLiteral": method.map { MustacheText(SwiftLiteral.string($0)) }
        case "functionIDCase": functionIDCase.map(MustacheText.init)
        case "protocolName": MustacheText(protocolName)
        case "responseType": responseType.map(MustacheText.init)
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
    /// Empty when the spec has no single version (the HMI API versions each interface).
    public var specVersion: String
    public var specFileName: String
    public var specSHA256: String
    public var enums: [EnumModel] = []
    public var structs: [StructModel] = []
    public var catalog: CatalogModel?
    /// HMI API: the file's declarations by interface, each nested in its namespace.
    public var namespaces: [NamespaceModel] = []
    public var hmiCatalog: HMICatalogModel?

    public func child(named name: String) -> Any? {
        switch name {
        case "fileName": MustacheText(fileName)
        case "access": MustacheText(access)
        case "interfaceName": MustacheText(interfaceName)
        case "specVersion": specVersion.isEmpty ? nil : MustacheText(specVersion)
        case "specFileName": MustacheText(specFileName)
        case "specSHA256": MustacheText(specSHA256)
        case "enums": enums
        case "structs": structs
        case "hasEnums": !enums.isEmpty
        case "hasStructs": !structs.isEmpty
        case "catalog": catalog
        case "namespaces": namespaces
        case "hasNamespaces": !namespaces.isEmpty
        case "hmiCatalog": hmiCatalog
        default: nil
        }
    }
}

extension FileModel {
    /// A rough measure of how much text the file will have, to start the longest renders first.
    var estimatedSize: Int {
        let nested =
            namespaces.flatMap(\.enums).reduce(0) { $0 + 4 * $1.cases.count + 10 }
            + namespaces.flatMap(\.structs).reduce(0) { $0 + 8 * $1.properties.count + 20 }
        return nested + enums.reduce(0) { $0 + 4 * $1.cases.count + 10 } + structs.reduce(0) { $0 + 8 * $1.properties.count + 20 }
    }
}

/// One HMI interface's share of a file: its types, declared inside `extension <name>`.
public struct NamespaceModel: MustacheParent, Sendable {
    public var name: String
    public var enums: [EnumModel] = []
    public var structs: [StructModel] = []

    /// The enums, then the structs, each knowing whether it comes first (no blank line before it).
    private struct Declaration: MustacheParent {
        var isFirst: Bool
        var enumModel: EnumModel?
        var structModel: StructModel?

        func child(named name: String) -> Any? {
            switch name {
            case "isFirst": isFirst
            case "enumModel": enumModel
            case "structModel": structModel
            default: nil
            }
        }
    }

    public func child(named name: String) -> Any? {
        switch name {
        case "name": MustacheText(self.name)
        case "enums": enums
        case "structs": structs
        case "declarations":
            enums.enumerated().map { Declaration(isFirst: $0.offset == 0, enumModel: $0.element) }
                + structs.enumerated().map { Declaration(isFirst: $0.offset == 0 && enums.isEmpty, structModel: $0.element) }
        default: nil
        }
    }
}

/// `HMIAPI.swift`: the interfaces' namespaces, the spec, and every generated type.
public struct HMICatalogModel: MustacheParent, Sendable {
    public struct Interface: MustacheParent, Sendable {
        public var name: String
        public var docs: [DocLine]
        public var versionLiteral: String
        public var dateLiteral: String

        public func child(named name: String) -> Any? {
            switch name {
            case "name": MustacheText(self.name)
            case "docs": docs
            case "versionLiteral": MustacheText(versionLiteral)
            case "dateLiteral": MustacheText(dateLiteral)
            default: nil
            }
        }
    }

    public var interfaceNameLiteral: String
    public var sha256Literal: String
    public var interfaces: [Interface]
    /// The Swift name of `Common.Result`, when it is generated.
    public var resultCode: String?
    public var enums: [CatalogModel.Entry]
    public var structs: [CatalogModel.Entry]
    public var requests: [CatalogModel.Entry]
    public var responses: [CatalogModel.Entry]
    public var notifications: [CatalogModel.Entry]

    public func child(named name: String) -> Any? {
        switch name {
        case "interfaceNameLiteral": MustacheText(interfaceNameLiteral)
        case "sha256Literal": MustacheText(sha256Literal)
        case "interfaces": interfaces
        case "resultCode": resultCode.map(MustacheText.init)
        case "enums": enums
        case "structs": structs
        case "requests": requests
        case "responses": responses
        case "notifications": notifications
        default: nil
        }
    }
}

/// The `MobileAPI` namespace: which spec, and lists of every generated type.
public struct CatalogModel: MustacheParent, Sendable {
    public struct Entry: MustacheParent, Sendable {
        public var swiftName: String
        public func child(named name: String) -> Any? { name == "swiftName" ? MustacheText(swiftName) : nil }
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
        case "interfaceNameLiteral": MustacheText(interfaceNameLiteral)
        case "versionLiteral": MustacheText(versionLiteral)
        case "minVersionLiteral": MustacheText(minVersionLiteral)
        case "dateLiteral": MustacheText(dateLiteral)
        case "sha256Literal": MustacheText(sha256Literal)
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
