// DO NOT EDIT: the built-in copy of Templates/.
// Refresh with `SDL_RECORD=1 swift test --filter EmbeddedTemplatesTests`.

enum EmbeddedTemplates {
    static let sources: [String: String] = [
        "Enum": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{#docs}}
            ///{{text}}
            {{/docs}}
            nonisolated {{access}}enum {{swiftName}}: SDLRuntime.SDLEnumeration {
            {{#cases}}
                {{#docs}}
                ///{{text}}
                {{/docs}}
                case {{swiftName}}
            {{/cases}}
                /// A value this version of the spec does not define, kept as received.
                case unrecognized(Swift.String)

                {{access}}init(rawValue: Swift.String) {
                    switch rawValue {
            {{#cases}}
                    case {{rawValueLiteral}}: self = .{{swiftName}}
            {{/cases}}
                    default: self = .unrecognized(rawValue)
                    }
                }

                {{access}}var rawValue: Swift.String {
                    switch self {
            {{#cases}}
                    case .{{swiftName}}: {{rawValueLiteral}}
            {{/cases}}
                    case .unrecognized(let rawValue): rawValue
                    }
                }
            {{#hasValues}}

                /// The element's `value` in the spec.
                {{access}}init?(value: Swift.Int) {
                    switch value {
            {{#uniqueValueCases}}
                    case {{value}}: self = .{{swiftName}}
            {{/uniqueValueCases}}
                    default: return nil
                    }
                }

                /// The element's `value` in the spec; nil when the spec gives none.
                {{access}}var value: Swift.Int? {
                    switch self {
            {{#valueCases}}
                    case .{{swiftName}}: {{value}}
            {{/valueCases}}
            {{#valuesAreComplete}}
                    case .unrecognized: nil
            {{/valuesAreComplete}}
            {{^valuesAreComplete}}
                    default: nil
            {{/valuesAreComplete}}
                    }
                }
            {{/hasValues}}
            }

            """#,
        "EnumMetadata": #"""
            {{% CONTENT_TYPE: TEXT}}
            extension {{qualifiedName}} {
                {{access}}static let allCases: [{{qualifiedName}}] = [
            {{#cases}}
                    .{{swiftName}},
            {{/cases}}
                ]

                {{access}}var isRecognized: Swift.Bool {
                    if case .unrecognized = self { return false }
                    return true
                }

                {{access}}static let enumInfo = SDLRuntime.SDLEnumInfo(name: {{specNameLiteral}}{{availabilityLiteral}}, elements: [
            {{#cases}}
                    .init({{metadataArguments}}),
            {{/cases}}
                ])
            }

            """#,
        "Enums": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#enums}}

            {{> Enum}}
            {{/enums}}
            {{#hasEnums}}

            // MARK: - Runtime conformances
            {{/hasEnums}}
            {{#enums}}

            {{> EnumMetadata}}
            {{/enums}}

            """#,
        "HMIAPI": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#hmiCatalog}}
            {{#interfaces}}

            {{#docs}}
            ///{{text}}
            {{/docs}}
            nonisolated {{access}}enum {{name}} {
                /// The interface's `version` in the spec.
                {{access}}static let interfaceVersion: SDLRuntime.SDLSpecVersion? = {{versionLiteral}}
                /// The interface's `date` in the spec.
                {{access}}static let interfaceDate: Swift.String? = {{dateLiteral}}
            }
            {{/interfaces}}

            /// The HMI API spec this code was generated from, and every type generated from it.
            nonisolated {{access}}enum HMIAPI {
                {{access}}static let interfaceName = {{interfaceNameLiteral}}
                /// SHA-256 of the spec file's bytes.
                {{access}}static let specSHA256 = {{sha256Literal}}

                {{access}}static let enumerations: [any SDLRuntime.SDLEnumeration.Type] = [
            {{#enums}}
                    {{swiftName}}.self,
            {{/enums}}
                ]

                {{access}}static let structures: [any SDLRuntime.SDLStructure.Type] = [
            {{#structs}}
                    {{swiftName}}.self,
            {{/structs}}
                ]

                {{access}}static let requests: [any SDLRuntime.SDLHMIRequest.Type] = [
            {{#requests}}
                    {{swiftName}}.self,
            {{/requests}}
                ]

                {{access}}static let responses: [any SDLRuntime.SDLHMIResponse.Type] = [
            {{#responses}}
                    {{swiftName}}.self,
            {{/responses}}
                ]

                {{access}}static let notifications: [any SDLRuntime.SDLHMINotification.Type] = [
            {{#notifications}}
                    {{swiftName}}.self,
            {{/notifications}}
                ]

                /// Each request type by its method (`UI.Show`), to decode what an HMI or Core sends.
                {{access}}static let requestsByMethod: [Swift.String: any SDLRuntime.SDLHMIRequest.Type] =
                    Swift.Dictionary(uniqueKeysWithValues: requests.map { ($0.method, $0) })

                /// Each response type by its method.
                {{access}}static let responsesByMethod: [Swift.String: any SDLRuntime.SDLHMIResponse.Type] =
                    Swift.Dictionary(uniqueKeysWithValues: responses.map { ($0.method, $0) })

                /// Each notification type by its method.
                {{access}}static let notificationsByMethod: [Swift.String: any SDLRuntime.SDLHMINotification.Type] =
                    Swift.Dictionary(uniqueKeysWithValues: notifications.map { ($0.method, $0) })
            }
            {{#resultCode}}

            /// JSON-RPC sends `{{resultCode}}` by its number: `code` 0 is SUCCESS.
            extension {{resultCode}}: SDLRuntime.SDLHMIResultCode {
                /// The result for a number; one the spec does not define is kept as its digits.
                {{access}}init(code: Swift.Int) {
                    self = Self(value: code) ?? .unrecognized(Swift.String(code))
                }

                /// The number on the wire; -1 for an unrecognized value that is not a number.
                {{access}}var code: Swift.Int {
                    value ?? Swift.Int(rawValue) ?? -1
                }
            }

            /// A response to an HMI API request, with its result code.
            {{access}}typealias HMIResponse<Result: SDLRuntime.SDLHMIResponse> = SDLRuntime.SDLJSONRPCResponse<Result, {{resultCode}}>

            /// An HMI API request's answer: its response, or a JSON-RPC error.
            {{access}}typealias HMIReply<Result: SDLRuntime.SDLHMIResponse> = SDLRuntime.SDLJSONRPCReply<Result, {{resultCode}}>

            /// A JSON-RPC error of the HMI API.
            {{access}}typealias HMIError = SDLRuntime.SDLJSONRPCError<{{resultCode}}>
            {{/resultCode}}
            {{/hmiCatalog}}

            """#,
        "HMIDeclarations": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#namespaces}}

            extension {{name}} {
            {{#declarations}}
            {{^isFirst}}

            {{/isFirst}}
            {{#enumModel}}
            {{> NestedEnum}}
            {{/enumModel}}
            {{#structModel}}
            {{> NestedStruct}}
            {{/structModel}}
            {{/declarations}}
            }
            {{/namespaces}}
            {{#hasNamespaces}}

            // MARK: - Runtime conformances
            {{/hasNamespaces}}
            {{#namespaces}}
            {{#enums}}

            {{> EnumMetadata}}
            {{/enums}}
            {{#structs}}

            {{> StructMetadata}}
            {{/structs}}
            {{/namespaces}}

            """#,
        "Header": #"""
            {{% CONTENT_TYPE: TEXT}}
            // DO NOT EDIT.
            // swift-format-ignore-file
            // swiftlint:disable all
            //
            // Generated by sdlgen from {{specFileName}}: {{interfaceName}}{{#specVersion}} {{specVersion}}{{/specVersion}}
            // Spec SHA-256: {{specSHA256}}

            import SDLRuntime

            /// Fails to compile against an SDLRuntime this code was not generated for.
            fileprivate struct _GeneratedWithSDLRuntimeVersion1: SDLRuntime.SDLGeneratedCodeVersion1 {}

            """#,
        "MobileAPI": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#catalog}}

            /// The RPC spec this code was generated from, and every type generated from it.
            nonisolated {{access}}enum MobileAPI {
                {{access}}static let interfaceName = {{interfaceNameLiteral}}
                {{access}}static let version = SDLRuntime.SDLSpecVersion{{versionLiteral}}
                {{access}}static let minVersion: Swift.String? = {{minVersionLiteral}}
                {{access}}static let date: Swift.String? = {{dateLiteral}}
                /// SHA-256 of the spec file's bytes.
                {{access}}static let specSHA256 = {{sha256Literal}}

                {{access}}static let enumerations: [any SDLRuntime.SDLEnumeration.Type] = [
            {{#enums}}
                    {{swiftName}}.self,
            {{/enums}}
                ]

                {{access}}static let structures: [any SDLRuntime.SDLStructure.Type] = [
            {{#structs}}
                    {{swiftName}}.self,
            {{/structs}}
                ]

                {{access}}static let requests: [any SDLRuntime.SDLRequest.Type] = [
            {{#requests}}
                    {{swiftName}}.self,
            {{/requests}}
                ]

                {{access}}static let responses: [any SDLRuntime.SDLResponse.Type] = [
            {{#responses}}
                    {{swiftName}}.self,
            {{/responses}}
                ]

                {{access}}static let notifications: [any SDLRuntime.SDLNotification.Type] = [
            {{#notifications}}
                    {{swiftName}}.self,
            {{/notifications}}
                ]
            }
            {{/catalog}}

            """#,
        "Notifications": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#structs}}

            {{> Struct}}
            {{/structs}}
            {{#hasStructs}}

            // MARK: - Runtime conformances
            {{/hasStructs}}
            {{#structs}}

            {{> StructMetadata}}
            {{/structs}}

            """#,
        "Requests": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#structs}}

            {{> Struct}}
            {{/structs}}
            {{#hasStructs}}

            // MARK: - Runtime conformances
            {{/hasStructs}}
            {{#structs}}

            {{> StructMetadata}}
            {{/structs}}

            """#,
        "Responses": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#structs}}

            {{> Struct}}
            {{/structs}}
            {{#hasStructs}}

            // MARK: - Runtime conformances
            {{/hasStructs}}
            {{#structs}}

            {{> StructMetadata}}
            {{/structs}}

            """#,
        "Struct": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{#docs}}
            ///{{text}}
            {{/docs}}
            nonisolated {{access}}struct {{swiftName}}: {{protocolName}} {
            {{#message}}
            {{#responseType}}
                {{access}}typealias Response = {{responseType}}

            {{/responseType}}
            {{/message}}
            {{#properties}}
                {{#docs}}
                ///{{text}}
                {{/docs}}
                {{access}}var {{swiftName}}: {{swiftType}}
            {{/properties}}
            {{#hasProperties}}

                {{access}}init(
            {{#properties}}
                    {{parameterDeclaration}}{{^isLast}},{{/isLast}}
            {{/properties}}
                ) {
            {{#properties}}
                    self.{{swiftName}} = {{swiftName}}
            {{/properties}}
                }
            {{/hasProperties}}
            {{^hasProperties}}
                {{access}}init() {}
            {{/hasProperties}}
            }

            """#,
        "StructMetadata": #"""
            {{% CONTENT_TYPE: TEXT}}
            extension {{qualifiedName}} {
            {{#message}}
                {{access}}static let functionName = {{functionNameLiteral}}
            {{#functionIDValue}}
                {{access}}static let functionIDValue = {{functionIDValue}}
            {{/functionIDValue}}
            {{#methodLiteral}}
                {{access}}static let method = {{methodLiteral}}
            {{/methodLiteral}}
            {{#functionIDCase}}
                {{access}}static let functionID = FunctionID.{{functionIDCase}}
            {{/functionIDCase}}
                {{access}}static let messageType = SDLRuntime.SDLMessageType.{{messageType}}

            {{/message}}
                {{access}}static let structInfo = SDLRuntime.SDLStructInfo(name: {{specNameLiteral}}{{availabilityLiteral}}, parameters: [
            {{#properties}}
                    .init({{metadataArguments}}),
            {{/properties}}
                ])
            }

            extension {{qualifiedName}} {
                {{access}}init<R: SDLRuntime.SDLReader>(from reader: inout R) throws(SDLRuntime.SDLReaderFailure) {
            {{#hasProperties}}
                    let parameters = Self.structInfo.parameters
            {{#properties}}
                    var {{swiftName}}: {{localType}}
            {{/properties}}
                    while let key = try reader.nextKey(in: parameters) {
                        switch key.index {
            {{#properties}}
                        case {{index}}: {{swiftName}} = {{decodeCall}}
            {{/properties}}
                        default: try reader.skipUnknownValue(forKey: key.name)
                        }
                    }
            {{#hasMandatoryProperties}}
            {{#mandatoryProperties}}
            {{#isArray}}
                    if {{swiftName}} == nil {
                        // Reported; empty so that the lenient policy keeps the rest (SDL Core 8.2 leaves out
                        // ImageField.imageTypeSupported). The strict policy still refuses the message.
                        reader.missing(parameters[{{index}}])
                        {{swiftName}} = []
                    }
            {{/isArray}}
            {{/mandatoryProperties}}
                    guard {{#mandatoryProperties}}let {{swiftName}}{{^isLast}}, {{/isLast}}{{/mandatoryProperties}} else {
            {{#mandatoryProperties}}
                        if {{swiftName}} == nil { reader.missing(parameters[{{index}}]) }
            {{/mandatoryProperties}}
                        throw .invalidValue
                    }
            {{/hasMandatoryProperties}}
                    self.init(
            {{#properties}}
                        {{labelName}}: {{swiftName}}{{^isLast}},{{/isLast}}
            {{/properties}}
                    )
            {{/hasProperties}}
            {{^hasProperties}}
                    while let key = try reader.nextKey() {
                        try reader.skipUnknownValue(forKey: key)
                    }
                    self.init()
            {{/hasProperties}}
                }

                {{access}}func encode<W: SDLRuntime.SDLWriter>(to writer: inout W) {
            {{#properties}}
            {{#isOptional}}
                    if let {{swiftName}} { {{encodeCall}} }
            {{/isOptional}}
            {{^isOptional}}
                    {{encodeCall}}
            {{/isOptional}}
            {{/properties}}
                }

                {{access}}func validate(into validator: inout SDLRuntime.SDLValidator) {
            {{#hasProperties}}
                    let parameters = Self.structInfo.parameters
            {{/hasProperties}}
            {{#properties}}
                    validator.{{validateCall}}
            {{/properties}}
                }
            }

            """#,
        "Structs": #"""
            {{% CONTENT_TYPE: TEXT}}
            {{> Header}}
            {{#structs}}

            {{> Struct}}
            {{/structs}}
            {{#hasStructs}}

            // MARK: - Runtime conformances
            {{/hasStructs}}
            {{#structs}}

            {{> StructMetadata}}
            {{/structs}}

            """#,
    ]
}
