import SDLSpec

/// Spec model → render model: chooses what to generate, names it and spells every literal.
/// Both specs go through the same steps on their combined interface (`SpecDocument.combined`);
/// the HMI API's types are named inside their interface's namespace (`UI.Show`,
/// `Common.Result`) and its messages are JSON-RPC methods.
package struct RenderModelBuilder: Sendable {
    package let interface: Interface
    package let document: SpecDocument
    package let options: GeneratorOptions
    package let specSHA256: String
    package private(set) var diagnostics = DiagnosticList()

    private var enumNames: [String: String] = [:]
    private var structNames: [String: String] = [:]
    private var typeNames: Set<String> = []
    /// Swift case names of the `FunctionID` enum's elements, by spec name.
    private var functionIDCases: [String: String] = [:]

    /// The fixed set of files every run writes, even when a filter leaves one empty, so build
    /// plugins can declare their outputs up front.
    package static let fileNames = [
        "Enums.swift", "Structs.swift", "Requests.swift", "Responses.swift", "Notifications.swift", "MobileAPI.swift",
    ]

    /// The same for the HMI API: its catalog is `HMIAPI.swift`.
    package static let hmiFileNames = [
        "Enums.swift", "Structs.swift", "Requests.swift", "Responses.swift", "Notifications.swift", "HMIAPI.swift",
    ]

    /// A mobile spec.
    package init(interface: Interface, options: GeneratorOptions, specSHA256: String) {
        self.init(document: .mobile(interface), options: options, specSHA256: specSHA256)
    }

    package init(document: SpecDocument, options: GeneratorOptions, specSHA256: String) {
        self.document = document
        self.interface = document.combined
        self.options = options
        self.specSHA256 = specSHA256
    }

    private var isHMI: Bool {
        if case .hmi = document { return true }
        return false
    }

    /// `Common` and `Result` of `Common.Result` (a spec or a Swift name); no namespace without a dot.
    private static func split(_ qualifiedName: String) -> (namespace: String?, name: String) {
        guard let dot = qualifiedName.firstIndex(of: ".") else { return (nil, qualifiedName) }
        return (String(qualifiedName[..<dot]), String(qualifiedName[qualifiedName.index(after: dot)...]))
    }

    /// `Common` of `Common.Result` (HMI API); nil for the mobile API's unqualified names.
    private func namespace(of qualifiedSwiftName: String) -> String? {
        isHMI ? Self.split(qualifiedSwiftName).namespace : nil
    }

    /// The name a declaration gives itself: `Result` of `Common.Result`.
    private func declaredName(_ qualifiedSwiftName: String) -> String {
        isHMI ? Self.split(qualifiedSwiftName).name : qualifiedSwiftName
    }

    /// `Common.Result` as Swift names: the namespace and the nested type's name.
    private static func hmiTypeName(_ qualifiedSpecName: String) -> String {
        let (namespace, name) = split(qualifiedSpecName)
        return (namespace.map { SwiftNamer.namespaceName($0) + "." } ?? "") + SwiftNamer.nestedTypeName(name)
    }

    package mutating func build() throws(SpecError) -> [FileModel] {
        let selection = try select()
        assignTypeNames()

        // Each definition's model depends only on the spec, so they are built on all cores.
        let builder = self
        let enums = concurrentMap(interface.enums.filter { selection.enums.contains($0.name) }) { builder.enumModel($0) }
        let structs = concurrentMap(interface.structs.filter { selection.structs.contains($0.name) }) { builder.structModel($0) }
        let functionIDs = interface.enumDefinition(named: "FunctionID")
        let functionIDIncluded = selection.enums.contains("FunctionID")
        let functions = interface.functions.filter { selection.functions.contains(FunctionKey($0)) }
        let functionModels = concurrentMap(functions) {
            builder.messageModel($0, functionIDs: functionIDs, includeFunctionIDCase: functionIDIncluded)
        }
        var messages: [MessageType: [StructModel]] = [:]
        for (function, model) in zip(functions, functionModels) {
            messages[function.messageType, default: []].append(model)
        }
        try checkUniqueTypeNames(enums: enums, structs: structs, messages: messages.values.flatMap { $0 })

        func file(_ name: String, _ template: String) -> FileModel {
            FileModel(
                fileName: name, template: template, access: accessPrefix,
                interfaceName: interface.name, specVersion: interface.versionText ?? "unknown",
                specFileName: options.specFileName, specSHA256: specSHA256)
        }
        if case .hmi(let set) = document {
            return hmiFiles(set, enums: enums, structs: structs, messages: messages, file: file)
        }
        var enumsFile = file("Enums.swift", "Enums")
        enumsFile.enums = enums
        var structsFile = file("Structs.swift", "Structs")
        structsFile.structs = structs
        var requestsFile = file("Requests.swift", "Requests")
        requestsFile.structs = messages[.request] ?? []
        var responsesFile = file("Responses.swift", "Responses")
        responsesFile.structs = messages[.response] ?? []
        var notificationsFile = file("Notifications.swift", "Notifications")
        notificationsFile.structs = messages[.notification] ?? []
        var catalogFile = file("MobileAPI.swift", "MobileAPI")
        catalogFile.catalog = CatalogModel(
            interfaceNameLiteral: SwiftLiteral.string(interface.name),
            versionLiteral: versionLiteral(interface.version) ?? ".version(0, 0)",
            minVersionLiteral: SwiftLiteral.optionalString(interface.minVersion),
            dateLiteral: SwiftLiteral.optionalString(interface.date),
            sha256Literal: SwiftLiteral.string(specSHA256),
            enums: enums.map { .init(swiftName: $0.swiftName) },
            structs: structs.map { .init(swiftName: $0.swiftName) },
            requests: (messages[.request] ?? []).map { .init(swiftName: $0.swiftName) },
            responses: (messages[.response] ?? []).map { .init(swiftName: $0.swiftName) },
            notifications: (messages[.notification] ?? []).map { .init(swiftName: $0.swiftName) })
        return [enumsFile, structsFile, requestsFile, responsesFile, notificationsFile, catalogFile]
    }

    /// The HMI API's files: each file's declarations grouped by interface, nested in its
    /// namespace; the catalog declares the namespaces.
    private func hmiFiles(
        _ set: InterfaceSet, enums: [EnumModel], structs: [StructModel], messages: [MessageType: [StructModel]],
        file: (String, String) -> FileModel
    ) -> [FileModel] {
        func grouped(enums: [EnumModel] = [], structs: [StructModel] = []) -> [NamespaceModel] {
            var order: [String] = []
            var byName: [String: NamespaceModel] = [:]
            func add(_ qualifiedName: String, _ update: (inout NamespaceModel) -> Void) {
                let name = namespace(of: qualifiedName) ?? ""
                if byName[name] == nil {
                    order.append(name)
                    byName[name] = NamespaceModel(name: name)
                }
                update(&byName[name]!)
            }
            for model in enums { add(model.qualifiedName) { $0.enums.append(model) } }
            for model in structs { add(model.qualifiedName) { $0.structs.append(model) } }
            return order.compactMap { byName[$0] }
        }
        var files: [FileModel] = []
        for (name, enums, structs) in [
            ("Enums.swift", enums, []), ("Structs.swift", [], structs), ("Requests.swift", [], messages[.request] ?? []),
            ("Responses.swift", [], messages[.response] ?? []), ("Notifications.swift", [], messages[.notification] ?? []),
        ] as [(String, [EnumModel], [StructModel])] {
            var model = file(name, "HMIDeclarations")
            model.specVersion = ""
            model.namespaces = grouped(enums: enums, structs: structs)
            files.append(model)
        }
        var catalog = file("HMIAPI.swift", "HMIAPI")
        catalog.specVersion = ""
        let resultCode = enums.first { $0.specName == InterfaceSet.resultCodeEnum }
        catalog.hmiCatalog = HMICatalogModel(
            interfaceNameLiteral: SwiftLiteral.string(set.name),
            sha256Literal: SwiftLiteral.string(specSHA256),
            interfaces: set.interfaces.map { interface in
                var lines = docs(interface.documentation, availability: Availability())
                if lines.isEmpty {
                    lines.append(DocLine(text: "The `\(interface.name)` interface of the HMI API: its types and JSON-RPC methods."))
                }
                lines.append(DocLine(text: ""))
                let version = interface.versionText.map { " \($0)" } ?? ""
                let date = interface.date.map { " (\($0))" } ?? ""
                lines.append(
                    DocLine(text: "- Remark: Interface `\(interface.name)`\(version)\(date) in \(options.specFileName), line \(interface.location.line)."))
                return HMICatalogModel.Interface(
                    name: SwiftNamer.namespaceName(interface.name), docs: lines,
                    versionLiteral: versionLiteral(interface.version).map { "SDLRuntime.SDLSpecVersion" + $0 } ?? "nil",
                    dateLiteral: SwiftLiteral.optionalString(interface.date))
            },
            resultCode: resultCode?.qualifiedName,
            enums: enums.map { .init(swiftName: $0.qualifiedName) },
            structs: structs.map { .init(swiftName: $0.qualifiedName) },
            requests: (messages[.request] ?? []).map { .init(swiftName: $0.qualifiedName) },
            responses: (messages[.response] ?? []).map { .init(swiftName: $0.qualifiedName) },
            notifications: (messages[.notification] ?? []).map { .init(swiftName: $0.qualifiedName) })
        files.append(catalog)
        return files
    }

    private var accessPrefix: String {
        switch options.accessLevel {
        case .public: "public "
        case .package: "package "
        case .internal: ""
        }
    }

    // MARK: Selection

    struct FunctionKey: Hashable {
        var name: String
        var messageType: MessageType
        init(name: String, messageType: MessageType) {
            self.name = name
            self.messageType = messageType
        }
        init(_ function: FunctionDefinition) {
            self.init(name: function.name, messageType: function.messageType)
        }
    }

    struct Selection {
        var enums: Set<String> = []
        var structs: Set<String> = []
        var functions: Set<FunctionKey> = []
    }

    private mutating func select() throws(SpecError) -> Selection {
        let pattern: Regex<AnyRegexOutput>?
        if let only = options.only {
            do {
                pattern = try Regex(only)
            } catch {
                throw SpecError([Diagnostic(.error, "--only '\(only)' is not a valid regular expression: \(error)", at: nil)])
            }
        } else {
            pattern = nil
        }
        func matches(_ name: String) -> Bool {
            guard let pattern else { return true }
            return (try? pattern.wholeMatch(in: name)) != nil
        }

        var selection = Selection()
        if options.kinds.contains(.enums) {
            selection.enums = Set(interface.enums.map(\.name).filter(matches))
        }
        if options.kinds.contains(.structs) {
            selection.structs = Set(interface.structs.map(\.name).filter(matches))
        }
        if options.kinds.contains(.functions) {
            selection.functions = Set(interface.functions.filter { matches($0.name) }.map(FunctionKey.init))
        }
        if options.only != nil, selection.enums.isEmpty, selection.structs.isEmpty, selection.functions.isEmpty {
            diagnostics.warning("--only '\(options.only ?? "")' matches no definition of the selected kinds", at: nil)
        }
        guard options.includeDependencies else { return selection }

        // Requests need their responses (`Response` names them); then the types params use.
        for key in selection.functions where key.messageType == .request {
            if interface.function(named: key.name, type: .response) != nil {
                selection.functions.insert(FunctionKey(name: key.name, messageType: .response))
            }
        }
        let structsByName = Dictionary(interface.structs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var pending: [Parameter] =
            interface.structs.filter { selection.structs.contains($0.name) }.flatMap(\.parameters)
            + interface.functions.filter { selection.functions.contains(FunctionKey($0)) }.flatMap(\.parameters)
        while let parameter = pending.popLast() {
            switch parameter.type {
            case .enumeration(let name):
                selection.enums.insert(name)
            case .structure(let name):
                if selection.structs.insert(name).inserted, let definition = structsByName[name] {
                    pending.append(contentsOf: definition.parameters)
                }
            default:
                break
            }
        }
        return selection
    }

    private mutating func assignTypeNames() {
        let name = isHMI ? Self.hmiTypeName : SwiftNamer.typeName
        for definition in interface.enums { enumNames[definition.name] = name(definition.name) }
        for definition in interface.structs { structNames[definition.name] = name(definition.name) }
        typeNames = Set(enumNames.values).union(structNames.values)
        if let functionIDs = interface.enumDefinition(named: "FunctionID") {
            let names = SwiftNamer.uniqueMemberNames(functionIDs.elements.map(\.name))
            for (element, swiftName) in zip(functionIDs.elements, names) where functionIDCases[element.name] == nil {
                functionIDCases[element.name] = swiftName
            }
        }
    }

    private func checkUniqueTypeNames(enums: [EnumModel], structs: [StructModel], messages: [StructModel]) throws(SpecError) {
        var seen: [String: String] = [:]
        var problems: [Diagnostic] = []
        for (swiftName, specName) in enums.map({ ($0.qualifiedName, "enum \($0.specName)") })
            + structs.map({ ($0.qualifiedName, "struct \($0.specName)") })
            + messages.map({ ($0.qualifiedName, "function \($0.specName)") })
        {
            if let first = seen[swiftName] {
                problems.append(Diagnostic(.error, "\(specName) and \(first) would both be named '\(swiftName)' in Swift", at: nil))
            } else {
                seen[swiftName] = specName
            }
        }
        if !problems.isEmpty { throw SpecError(problems) }
    }

    // MARK: Enums

    private func enumModel(_ definition: EnumDefinition) -> EnumModel {
        let swiftNames = SwiftNamer.uniqueMemberNames(definition.elements.map(\.name))
        var usedValues: Set<Int> = []
        var cases: [EnumCaseModel] = []
        var valueCases: [EnumCaseModel] = []
        var uniqueValueCases: [EnumCaseModel] = []
        for (element, swiftName) in zip(definition.elements, swiftNames) {
            var arguments = ["name: \(SwiftLiteral.string(element.name))"]
            if let value = element.value { arguments.append("value: \(value)") }
            if let availability = availabilityLiteral(element.availability, history: element.history.map(\.availability)) {
                arguments.append("availability: \(availability)")
            }
            let model = EnumCaseModel(
                swiftName: swiftName,
                rawValueLiteral: SwiftLiteral.string(element.name),
                docs: docs(element.documentation, availability: element.availability),
                value: element.value,
                metadataArguments: arguments.joined(separator: ", "))
            cases.append(model)
            if let value = element.value {
                valueCases.append(model)
                if usedValues.insert(value).inserted { uniqueValueCases.append(model) }
            }
        }
        let hasValues = !valueCases.isEmpty
        var documentation = docs(definition.documentation, availability: definition.availability)
        appendRemark(to: &documentation, "enum", definition.name, definition.location)
        let qualifiedName = enumNames[definition.name] ?? definition.name
        return EnumModel(
            swiftName: declaredName(qualifiedName),
            qualifiedName: qualifiedName,
            specName: definition.name,
            docs: documentation,
            cases: cases,
            hasValues: hasValues,
            valueCases: valueCases,
            uniqueValueCases: uniqueValueCases,
            valuesAreComplete: hasValues && valueCases.count == cases.count,
            availabilityLiteral: availabilityLiteral(definition.availability, history: definition.history.map(\.availability)).map { ", availability: \($0)" }
                ?? "")
    }

    // MARK: Structs and messages

    private func structModel(_ definition: StructDefinition) -> StructModel {
        var documentation = docs(definition.documentation, availability: definition.availability)
        appendRemark(to: &documentation, "struct", definition.name, definition.location)
        let qualifiedName = structNames[definition.name] ?? definition.name
        return StructModel(
            swiftName: declaredName(qualifiedName),
            qualifiedName: qualifiedName,
            specName: definition.name,
            docs: documentation,
            properties: properties(definition.parameters),
            availabilityLiteral: availabilityLiteral(definition.availability, history: definition.history.map(\.availability)).map { ", availability: \($0)" }
                ?? "",
            message: nil)
    }

    /// A function's message. Mobile messages are numbered by `FunctionID` and conform to
    /// `SDLRequest`...; HMI messages are JSON-RPC methods (`UI.Show`), nested in their interface,
    /// and conform to `SDLHMIRequest`...
    private func messageModel(_ function: FunctionDefinition, functionIDs: EnumDefinition?, includeFunctionIDCase: Bool) -> StructModel {
        let protocolPrefix = isHMI ? "SDLRuntime.SDLHMI" : "SDLRuntime.SDL"
        let protocolKind =
            switch function.messageType {
            case .request: "Request"
            case .response: "Response"
            case .notification: "Notification"
            }
        var responseType: String?
        switch function.messageType {
        case .request:
            if interface.function(named: function.name, type: .response) != nil {
                responseType = messageTypeName(function.name, .response)
            } else if !isHMI {
                // The HMI API's validator requires every response, so only the mobile API needs this.
                responseType = "SDLRuntime.SDLNoResponse"
            }
        case .response, .notification: break
        }
        var functionIDValue: Int?
        var functionIDCase: String?
        if !isHMI {
            functionIDValue = 0
            if let functionIDs, let element = functionIDs.elements.first(where: { $0.name == function.functionID }) {
                functionIDValue = element.value ?? 0
                if includeFunctionIDCase { functionIDCase = functionIDCases[element.name] }
            }
        }
        var documentation = docs(function.documentation, availability: function.availability)
        if function.scope == .internal {
            if !documentation.isEmpty { documentation.append(DocLine(text: "")) }
            documentation.append(DocLine(text: "- Note: Internal scope: between SDL Core and the OEM's own HMI components."))
        }
        appendRemark(to: &documentation, "function", "\(function.name) (\(function.messageType.rawValue))", function.location)
        let qualifiedName = messageTypeName(function.name, function.messageType)
        return StructModel(
            swiftName: declaredName(qualifiedName),
            qualifiedName: qualifiedName,
            specName: function.name,
            docs: documentation,
            properties: properties(function.parameters),
            availabilityLiteral: availabilityLiteral(function.availability, history: function.history.map(\.availability)).map { ", availability: \($0)" }
                ?? "",
            message: MessageModel(
                functionName: isHMI ? Self.split(function.name).name : function.name,
                messageType: function.messageType.rawValue,
                functionIDValue: functionIDValue,
                method: isHMI ? function.name : nil,
                functionIDCase: functionIDCase,
                protocolName: protocolPrefix + protocolKind,
                responseType: responseType))
    }

    /// Swift name of a function message; a name a type already has gets its message type
    /// appended. An HMI message is named inside its interface: `UI.Show`, `UI.ShowResponse`.
    private func messageTypeName(_ name: String, _ messageType: MessageType) -> String {
        let (namespace, functionName) = isHMI ? Self.split(name) : (nil, name)
        let base =
            (namespace.map { SwiftNamer.namespaceName($0) + "." } ?? "")
            + SwiftNamer.messageTypeName(functionName, messageType: messageType.rawValue, nested: isHMI)
        let takenByType = typeNames.contains(base)
        let requestAndNotification = messageType == .notification && interface.function(named: name, type: .request) != nil
        if takenByType || requestAndNotification {
            return base + (messageType == .request ? "Request" : messageType == .response ? "" : "Notification")
        }
        return base
    }

    private func properties(_ parameters: [Parameter]) -> [PropertyModel] {
        let names = SwiftNamer.uniqueMemberNames(parameters.map(\.name))
        var models = zip(parameters, names).map { parameter, swiftName in property(parameter, swiftName: swiftName) }
        for index in models.indices { models[index].place(at: index, isLast: index == models.count - 1) }
        return models
    }

    private func property(_ parameter: Parameter, swiftName: String) -> PropertyModel {
        let baseType: String
        let valueKind: ValueKind
        let typeLiteral: String
        switch parameter.type {
        case .boolean: (baseType, valueKind, typeLiteral) = ("Swift.Bool", .boolean, ".boolean")
        case .integer: (baseType, valueKind, typeLiteral) = ("Swift.Int", .integer, ".integer")
        case .float: (baseType, valueKind, typeLiteral) = ("Swift.Double", .float, ".float")
        case .string, .unresolved: (baseType, valueKind, typeLiteral) = ("Swift.String", .string, ".string")
        case .enumeration(let name):
            (baseType, valueKind, typeLiteral) = (enumNames[name] ?? name, .enumeration, ".enumeration(\(SwiftLiteral.string(name)))")
        case .structure(let name):
            (baseType, valueKind, typeLiteral) = (structNames[name] ?? name, .structure, ".structure(\(SwiftLiteral.string(name)))")
        }
        var swiftType = parameter.isArray ? "[\(baseType)]" : baseType
        if !parameter.isMandatory { swiftType += "?" }

        var arguments = ["name: \(SwiftLiteral.string(parameter.name))", "type: \(typeLiteral)"]
        if parameter.isArray { arguments.append("isArray: true") }
        arguments.append("isMandatory: \(parameter.isMandatory)")
        if let value = parameter.minValue { arguments.append("minValue: \(SwiftLiteral.number(value))") }
        if let value = parameter.maxValue { arguments.append("maxValue: \(SwiftLiteral.number(value))") }
        if let value = parameter.minLength { arguments.append("minLength: \(value)") }
        if let value = parameter.maxLength { arguments.append("maxLength: \(value)") }
        if let value = parameter.minSize { arguments.append("minSize: \(value)") }
        if let value = parameter.maxSize { arguments.append("maxSize: \(value)") }
        if let value = parameter.defaultValue { arguments.append("defaultValue: \(SwiftLiteral.string(value))") }
        if let availability = availabilityLiteral(parameter.availability, history: parameter.history.map(\.availability)) {
            arguments.append("availability: \(availability)")
        }

        var documentation = docs(parameter.documentation, availability: parameter.availability)
        let constraints = constraintLines(parameter)
        if !constraints.isEmpty {
            if !documentation.isEmpty && documentation.last?.text.isEmpty == false { documentation.append(DocLine(text: "")) }
            documentation.append(contentsOf: constraints)
        }
        return PropertyModel(
            swiftName: swiftName, wireName: parameter.name, baseType: baseType, swiftType: swiftType,
            valueKind: valueKind, isArray: parameter.isArray, isOptional: !parameter.isMandatory,
            docs: documentation, metadataArguments: arguments.joined(separator: ", "))
    }

    // MARK: Literals and docs

    private func versionLiteral(_ version: SpecVersion?) -> String? {
        guard let version else { return nil }
        return version.patch == 0
            ? ".version(\(version.major), \(version.minor))"
            : ".version(\(version.major), \(version.minor), \(version.patch))"
    }

    /// The runtime's version gate asks whether a definition exists in a version at all, so an
    /// earlier form in its history counts: SetDisplayLayout (`since="6.0"`, deprecated, with a
    /// history entry `since="3.0"`) exists from 3.0. A history entry without `since` means
    /// "from the start".
    private func availabilityLiteral(_ availability: Availability, history: [Availability]) -> String? {
        var arguments: [String] = []
        var earliest = availability.since
        for old in history where earliest != nil {
            guard let since = old.since else {
                earliest = nil
                break
            }
            if let current = earliest, since < current { earliest = since }
        }
        if let since = versionLiteral(earliest) { arguments.append("since: \(since)") }
        if let until = versionLiteral(availability.until) { arguments.append("until: \(until)") }
        if availability.deprecated { arguments.append("isDeprecated: true") }
        return arguments.isEmpty ? nil : ".init(\(arguments.joined(separator: ", ")))"
    }

    private func docs(_ documentation: Documentation, availability: Availability) -> [DocLine] {
        var lines: [DocLine] = []
        func paragraph(_ text: String) {
            if !lines.isEmpty { lines.append(DocLine(text: "")) }
            lines.append(
                contentsOf: text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { DocLine(text: String(decoding: $0, as: UTF8.self)) })
        }
        for text in documentation.descriptions + documentation.designDescriptions where !text.isEmpty {
            paragraph(text)
        }
        var callouts: [String] = []
        if availability.deprecated {
            callouts.append("- Important: Deprecated in the RPC spec\(availability.since.map { " since \(short($0))" } ?? "").")
        }
        if availability.removed { callouts.append("- Important: Removed from the RPC spec.") }
        for warning in documentation.warnings where !warning.isEmpty {
            callouts.append("- Warning: " + warning.split(separator: "\n").joined(separator: " "))
        }
        if let since = availability.since { callouts.append("- Since: SmartDeviceLink \(short(since))") }
        if let until = availability.until { callouts.append("- Note: Available until SmartDeviceLink \(short(until)).") }
        if !callouts.isEmpty {
            if !lines.isEmpty { lines.append(DocLine(text: "")) }
            lines.append(contentsOf: callouts.map { DocLine(text: $0) })
        }
        return lines
    }

    private func constraintLines(_ parameter: Parameter) -> [DocLine] {
        var parts: [String] = []
        func range(_ low: String?, _ high: String?) -> String {
            switch (low, high) {
            case (let low?, let high?): "\(low)...\(high)"
            case (let low?, nil): "at least \(low)"
            case (nil, let high?): "at most \(high)"
            case (nil, nil): ""
            }
        }
        if parameter.minValue != nil || parameter.maxValue != nil {
            parts.append("Value: \(range(parameter.minValue.map(SwiftLiteral.number), parameter.maxValue.map(SwiftLiteral.number))).")
        }
        if parameter.minLength != nil || parameter.maxLength != nil {
            parts.append("Length: \(range(parameter.minLength.map(String.init), parameter.maxLength.map(String.init))) characters.")
        }
        if parameter.minSize != nil || parameter.maxSize != nil {
            parts.append("Size: \(range(parameter.minSize.map(String.init), parameter.maxSize.map(String.init))) items.")
        }
        if let value = parameter.defaultValue { parts.append("Default: `\(value)`.") }
        return parts.isEmpty ? [] : [DocLine(text: parts.joined(separator: " "))]
    }

    private func appendRemark(to lines: inout [DocLine], _ kind: String, _ name: String, _ location: SourceLocation) {
        if !lines.isEmpty { lines.append(DocLine(text: "")) }
        lines.append(DocLine(text: "- Remark: Generated from \(kind) `\(name)` in \(options.specFileName), line \(location.line)."))
    }

    private func short(_ version: SpecVersion) -> String {
        version.patch == 0 ? "\(version.major).\(version.minor)" : version.description
    }
}
