import Mustache

/// The final shape of the generated code: names, types, doc lines and literal values are all
/// decided here, so templates only lay them out. Every type answers Mustache's lookups
/// explicitly (`MustacheParent`) instead of through `Mirror`, which is several times faster.

/// Text a template prints as is. Mustache renders `MustacheCustomRenderable` values directly,
/// skipping the `String(describing:)` it applies to anything else, which was most of its time.
package struct MustacheText: MustacheCustomRenderable, Sendable, Hashable {
    package let renderText: String

    package init(_ text: String) {
        renderText = text
    }

    package var isNull: Bool { false }
}

/// One line of a doc comment, without the `///`; empty for a blank comment line.
package struct DocLine: MustacheParent, Sendable, Hashable {
    package let text: String
    /// What follows `///`: a space and the text, or nothing for a blank line.
    private let rendered: MustacheText

    package init(text: String) {
        self.text = text
        self.rendered = MustacheText(text.isEmpty ? "" : " " + text)
    }

    package func child(named name: String) -> Any? {
        name == "text" ? rendered : nil
    }
}

package struct EnumCaseModel: MustacheParent, Sendable, Hashable {
    package var swiftName: String
    /// The spec name as a Swift string literal, quotes included.
    package var rawValueLiteral: String
    package var docs: [DocLine]
    package var value: Int?
    package var metadataArguments: String

    package func child(named name: String) -> Any? {
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

package struct EnumModel: MustacheParent, Sendable, Hashable {
    package var swiftName: String
    /// The name outside its declaration: `Common.Result` for a type nested in an HMI interface.
    package var qualifiedName: String
    package var specName: String
    package var docs: [DocLine]
    package var cases: [EnumCaseModel]
    /// Whether the spec gives elements numeric values (then `init?(value:)` and `value` exist).
    package var hasValues: Bool
    /// Every case with a value, for `value`.
    package var valueCases: [EnumCaseModel]
    /// The first case of each value, for `init?(value:)` (a repeated value cannot be a second `case`).
    package var uniqueValueCases: [EnumCaseModel]
    /// Every known case has a value, so `value`'s switch needs no `default`.
    package var valuesAreComplete: Bool
    package var availabilityLiteral: String
    private var specNameLiteral: String { SwiftLiteral.string(specName) }

    package func child(named name: String) -> Any? {
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
package enum ValueKind: String, Sendable, Hashable {
    case boolean, integer, float, string, enumeration, structure
}

package struct PropertyModel: MustacheParent, Sendable, Hashable {
    /// Escaped Swift identifier (`` `protocol` ``).
    package var swiftName: String
    /// The key on the wire, exactly as in the spec.
    package var wireName: String
    /// The element type, fully qualified (`Swift.String`, `TTSChunk`).
    package var baseType: String
    /// The declared type: `[TTSChunk]?`, `Swift.Int`.
    package var swiftType: String
    package var valueKind: ValueKind
    package var isArray: Bool
    package var isOptional: Bool
    package var docs: [DocLine]
    package var metadataArguments: String
    /// Position in `structInfo.parameters`; set with `place(at:isLast:)`.
    package private(set) var index: Int = 0
    package private(set) var isLast: Bool = false

    // Derived spellings, computed once because templates look them up many times.
    /// The codec method suffix: `readString`, `writeStructArray`, `checkEnum`...
    package private(set) var codingName = ""
    /// The name as an argument label at a call site, where most keywords need no backticks.
    package private(set) var labelName = ""
    /// `ImageType.self, ` for the generic enum and struct readers, empty otherwise.
    package private(set) var typeArgument = ""
    /// The decoder's local: `[TTSChunk]?`.
    package private(set) var localType = ""
    package private(set) var wireNameLiteral = ""
    /// `isTemplate: Swift.Bool? = nil`: the memberwise initializer's parameter.
    package private(set) var parameterDeclaration = ""
    /// The generated decoder's read: `try reader.readEnum(ImageType.self, parameters[1])`.
    package private(set) var decodeCall = ""
    /// The generated encoder's write: `writer.writeEnum(imageType, forKey: "imageType")`.
    package private(set) var encodeCall = ""
    /// The generated validator's check: `checkEnum(imageType, parameters[1])`.
    package private(set) var validateCall = ""
    private var indexText = "0"

    package init(
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
    package mutating func place(at index: Int, isLast: Bool) {
        self.index = index
        self.indexText = String(index)
        self.isLast = isLast
        decodeCall = "try reader.read\(codingName)(\(typeArgument)parameters[\(index)])"
        validateCall = "check\(codingName)(\(swiftName), parameters[\(index)])"
    }

    package func child(named name: String) -> Any? {
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
package struct StructModel: MustacheParent, Sendable, Hashable {
    package var swiftName: String
    /// The name outside its declaration: `UI.Show` for a type nested in an HMI interface.
    package var qualifiedName: String
    package var specName: String
    package var docs: [DocLine]
    package var properties: [PropertyModel]
    package var availabilityLiteral: String
    /// Set for function messages.
    package var message: MessageModel?

    /// The mandatory properties, for the decoder's completeness check.
    package var mandatoryProperties: [MandatoryPropertyModel] = []

    package init(
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

    package func child(named name: String) -> Any? {
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

package struct MandatoryPropertyModel: MustacheParent, Sendable, Hashable {
    package var swiftName: String
    package var index: Int
    /// A missing mandatory array decodes as empty (reported): head units leave some out.
    package var isArray: Bool
    package var isLast: Bool

    package func child(named name: String) -> Any? {
        switch name {
        case "swiftName": MustacheText(swiftName)
        case "index": MustacheText(String(index))
        case "isArray": isArray
        case "isLast": isLast
        default: nil
        }
    }
}

package struct MessageModel: MustacheParent, Sendable, Hashable {
    package var functionName: String
    package var messageType: String
    /// The number in the binary header (mobile API); nil for the HMI API, whose functions are
    /// named by `method` instead.
    package var functionIDValue: Int?
    /// The JSON-RPC method (`UI.Show`), HMI API only.
    package var method: String?
    /// The `FunctionID` case, when the spec's `FunctionID` enum is generated.
    package var functionIDCase: String?
    package var protocolName: String
    /// For requests: the response type.
    package var responseType: String?

    package func child(named name: String) -> Any? {
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
package struct FileModel: MustacheParent, Sendable {
    package var fileName: String
    package var template: String
    package var access: String
    package var interfaceName: String
    /// Empty when the spec has no single version (the HMI API versions each interface).
    package var specVersion: String
    package var specFileName: String
    package var specSHA256: String
    package var enums: [EnumModel] = []
    package var structs: [StructModel] = []
    package var catalog: CatalogModel?
    /// HMI API: the file's declarations by interface, each nested in its namespace.
    package var namespaces: [NamespaceModel] = []
    package var hmiCatalog: HMICatalogModel?

    package func child(named name: String) -> Any? {
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
package struct NamespaceModel: MustacheParent, Sendable {
    package var name: String
    package var enums: [EnumModel] = []
    package var structs: [StructModel] = []

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

    package func child(named name: String) -> Any? {
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
package struct HMICatalogModel: MustacheParent, Sendable {
    package struct Interface: MustacheParent, Sendable {
        package var name: String
        package var docs: [DocLine]
        package var versionLiteral: String
        package var dateLiteral: String

        package func child(named name: String) -> Any? {
            switch name {
            case "name": MustacheText(self.name)
            case "docs": docs
            case "versionLiteral": MustacheText(versionLiteral)
            case "dateLiteral": MustacheText(dateLiteral)
            default: nil
            }
        }
    }

    package var interfaceNameLiteral: String
    package var sha256Literal: String
    package var interfaces: [Interface]
    /// The Swift name of `Common.Result`, when it is generated.
    package var resultCode: String?
    package var enums: [CatalogModel.Entry]
    package var structs: [CatalogModel.Entry]
    package var requests: [CatalogModel.Entry]
    package var responses: [CatalogModel.Entry]
    package var notifications: [CatalogModel.Entry]

    package func child(named name: String) -> Any? {
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
package struct CatalogModel: MustacheParent, Sendable {
    package struct Entry: MustacheParent, Sendable {
        package var swiftName: String
        package func child(named name: String) -> Any? { name == "swiftName" ? MustacheText(swiftName) : nil }
    }

    package var interfaceNameLiteral: String
    package var versionLiteral: String
    package var minVersionLiteral: String
    package var dateLiteral: String
    package var sha256Literal: String
    package var enums: [Entry]
    package var structs: [Entry]
    package var requests: [Entry]
    package var responses: [Entry]
    package var notifications: [Entry]

    package func child(named name: String) -> Any? {
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
package enum SwiftLiteral {
    package static func string(_ text: String) -> String {
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

    package static func optionalString(_ text: String?) -> String {
        text.map(string) ?? "nil"
    }

    package static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return "\(Int(value))" }
        return "\(value)"
    }
}
