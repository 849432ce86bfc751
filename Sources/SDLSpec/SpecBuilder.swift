/// Gives meaning to the raw XML tree: builds the typed model, and reports attributes or
/// elements it does not know (a warning, never a silent drop) and values it cannot read.
struct SpecBuilder {
    let path: String
    var diagnostics = DiagnosticList()

    init(path: String) {
        self.path = path
    }

    private func at(_ node: RawNode) -> SourceLocation {
        SourceLocation(file: path, line: node.line)
    }

    // MARK: Known vocabulary

    /// Which spec the element being built belongs to: the HMI API allows `scope`, its interfaces
    /// may carry a description, and its functions need no `functionID`.
    private enum Dialect {
        case mobile, hmi
    }

    private var dialect = Dialect.mobile

    private static let availabilityAttributes: Set<String> = ["since", "until", "deprecated", "removed"]
    private static let interfaceAttributes: Set<String> = ["name", "version", "minVersion", "date"]
    private static let enumAttributes = availabilityAttributes.union(["name", "platform", "internal_scope"])
    private static let elementAttributes = availabilityAttributes.union(
        ["name", "value", "hexvalue", "internal_name", "rootscreen", "platform"])
    private static let structAttributes = availabilityAttributes.union(["name", "platform"])
    private static let functionAttributes = availabilityAttributes.union(
        ["name", "functionID", "messagetype", "platform"])
    private static let parameterAttributes = availabilityAttributes.union([
        "name", "type", "array", "mandatory", "minsize", "maxsize", "minvalue", "maxvalue",
        "minlength", "maxlength", "defvalue", "platform",
    ])
    private static let documentationElements: Set<String> = ["description", "designdescription", "warning", "todo", "issue"]

    /// The attributes an element may have: the HMI API adds `scope` to structs, functions and params.
    private func allowed(_ base: Set<String>) -> Set<String> {
        dialect == .hmi ? base.union(["scope"]) : base
    }

    // MARK: Building

    /// The document `root` holds: `<interface>` is a mobile spec, `<interfaces>` the HMI API.
    mutating func build(_ root: RawNode) -> SpecDocument? {
        switch root.name {
        case "interface":
            dialect = .mobile
            guard var interface = buildInterface(root) else { return nil }
            resolveTypes(in: &interface)
            return .mobile(interface)
        case "interfaces":
            dialect = .hmi
            return .hmi(buildInterfaceSet(root))
        default:
            diagnostics.error("the root element is <\(root.name)>, expected <interface> (MOBILE_API) or <interfaces> (HMI_API)", at: at(root))
            return nil
        }
    }

    private mutating func buildInterfaceSet(_ root: RawNode) -> InterfaceSet {
        checkAttributes(of: root, allowed: ["name"])
        var set = InterfaceSet(name: root[attribute: "name"] ?? "", location: at(root))
        for child in root.children {
            if child.name == "interface" {
                if let interface = buildInterface(child) { set.interfaces.append(interface) }
            } else {
                unknownElement(child, in: "interfaces")
            }
        }
        if !root.text.allSatisfy(\.isWhitespace) {
            diagnostics.warning("text directly inside <interfaces> is ignored", at: at(root))
        }
        resolveTypes(in: &set)
        return set
    }

    private mutating func buildInterface(_ root: RawNode) -> Interface? {
        checkAttributes(of: root, allowed: Self.interfaceAttributes)
        var interface = Interface(name: root[attribute: "name"] ?? "", location: at(root))
        if root[attribute: "name"] == nil {
            if dialect == .hmi {
                diagnostics.error("<interface> has no 'name'; the HMI API's methods and types are named by it", at: at(root))
                return nil
            }
            diagnostics.warning("<interface> has no 'name'", at: at(root))
        }
        if let text = root[attribute: "version"] {
            interface.versionText = text
            interface.version = SpecVersion(text)
            if interface.version == nil {
                diagnostics.error("'version' is '\(text)', which is not a version like 8.0.0", at: at(root))
            }
        }
        interface.minVersion = root[attribute: "minVersion"]
        interface.date = root[attribute: "date"]
        if let minVersion = interface.minVersion, SpecVersion(minVersion) == nil {
            diagnostics.error("'minVersion' is '\(minVersion)', which is not a version like 1.0", at: at(root))
        }

        for child in root.children {
            if dialect == .hmi, readDocumentation(child, into: &interface.documentation) { continue }
            switch child.name {
            case "enum":
                if let definition = buildEnum(child) { interface.enums.append(definition) }
            case "struct":
                if let definition = buildStruct(child) { interface.structs.append(definition) }
            case "function":
                if let definition = buildFunction(child) { interface.functions.append(definition) }
            default:
                unknownElement(child, in: "interface")
            }
        }
        if !root.text.allSatisfy(\.isWhitespace) {
            diagnostics.warning("text directly inside <interface> is ignored", at: at(root))
        }
        return interface
    }

    private mutating func buildEnum(_ node: RawNode) -> EnumDefinition? {
        checkAttributes(of: node, allowed: Self.enumAttributes)
        guard let name = requiredName(of: node) else { return nil }
        var definition = EnumDefinition(name: name, location: at(node))
        definition.availability = availability(of: node)
        definition.platform = node[attribute: "platform"]
        definition.internalScope = node[attribute: "internal_scope"]
        for child in node.children {
            if readDocumentation(child, into: &definition.documentation) { continue }
            switch child.name {
            case "element":
                if let element = buildElement(child) { definition.elements.append(element) }
            case "history":
                for entry in historyEntries(child, expected: "enum") {
                    if let old = buildEnum(entry) { definition.history.append(old) }
                }
            default:
                unknownElement(child, in: "enum")
            }
        }
        return definition
    }

    private mutating func buildElement(_ node: RawNode) -> EnumElement? {
        checkAttributes(of: node, allowed: Self.elementAttributes)
        guard let name = requiredName(of: node) else { return nil }
        var element = EnumElement(name: name, location: at(node))
        element.availability = availability(of: node)
        element.platform = node[attribute: "platform"]
        element.internalName = node[attribute: "internal_name"]
        element.hexValue = node[attribute: "hexvalue"]
        element.rootScreen = boolean(node, "rootscreen") ?? false
        if let text = node[attribute: "value"] {
            if let value = Int(text) {
                element.value = value
            } else {
                diagnostics.error("'value' of element '\(name)' is '\(text)', which is not an integer", at: at(node))
            }
        }
        if let hex = element.hexValue {
            if let parsed = Int(hex, radix: 16) {
                if let value = element.value, value != parsed {
                    diagnostics.error(
                        "'hexvalue' \(hex) of element '\(name)' is \(parsed), but 'value' is \(value)", at: at(node))
                }
            } else {
                diagnostics.error("'hexvalue' of element '\(name)' is '\(hex)', which is not hexadecimal", at: at(node))
            }
        }
        for child in node.children {
            if readDocumentation(child, into: &element.documentation) { continue }
            if child.name == "history" {
                for entry in historyEntries(child, expected: "element") {
                    if let old = buildElement(entry) { element.history.append(old) }
                }
            } else {
                unknownElement(child, in: "element")
            }
        }
        return element
    }

    private mutating func buildStruct(_ node: RawNode) -> StructDefinition? {
        checkAttributes(of: node, allowed: allowed(Self.structAttributes))
        guard let name = requiredName(of: node) else { return nil }
        var definition = StructDefinition(name: name, location: at(node))
        definition.availability = availability(of: node)
        definition.platform = node[attribute: "platform"]
        definition.scope = scope(of: node)
        for child in node.children {
            if readDocumentation(child, into: &definition.documentation) { continue }
            switch child.name {
            case "param":
                if let parameter = buildParameter(child) { definition.parameters.append(parameter) }
            case "history":
                for entry in historyEntries(child, expected: "struct") {
                    if let old = buildStruct(entry) { definition.history.append(old) }
                }
            default:
                unknownElement(child, in: "struct")
            }
        }
        return definition
    }

    private mutating func buildFunction(_ node: RawNode) -> FunctionDefinition? {
        checkAttributes(of: node, allowed: allowed(Self.functionAttributes))
        guard let name = requiredName(of: node) else { return nil }
        guard let typeText = node[attribute: "messagetype"] else {
            diagnostics.error("function '\(name)' has no 'messagetype'", at: at(node))
            return nil
        }
        guard let messageType = MessageType(rawValue: typeText) else {
            diagnostics.error(
                "function '\(name)' has messagetype '\(typeText)'; expected request, response or notification",
                at: at(node))
            return nil
        }
        let functionID = node[attribute: "functionID"] ?? ""
        if functionID.isEmpty, dialect == .mobile {
            diagnostics.error("function '\(name)' (\(messageType.rawValue)) has no 'functionID'", at: at(node))
        }
        var definition = FunctionDefinition(name: name, functionID: functionID, messageType: messageType, location: at(node))
        definition.availability = availability(of: node)
        definition.platform = node[attribute: "platform"]
        definition.scope = scope(of: node)
        for child in node.children {
            if readDocumentation(child, into: &definition.documentation) { continue }
            switch child.name {
            case "param":
                if let parameter = buildParameter(child) { definition.parameters.append(parameter) }
            case "history":
                for entry in historyEntries(child, expected: "function") {
                    if let old = buildFunction(entry) { definition.history.append(old) }
                }
            default:
                unknownElement(child, in: "function")
            }
        }
        return definition
    }

    private mutating func buildParameter(_ node: RawNode) -> Parameter? {
        checkAttributes(of: node, allowed: allowed(Self.parameterAttributes))
        guard let name = requiredName(of: node) else { return nil }
        guard let typeName = node[attribute: "type"], !typeName.isEmpty else {
            diagnostics.error("param '\(name)' has no 'type'", at: at(node))
            return nil
        }
        var parameter = Parameter(name: name, type: .unresolved(typeName), location: at(node))
        parameter.availability = availability(of: node)
        parameter.platform = node[attribute: "platform"]
        parameter.scope = scope(of: node)
        parameter.isArray = boolean(node, "array") ?? false
        parameter.isMandatory = boolean(node, "mandatory") ?? true
        parameter.minSize = count(node, "minsize")
        parameter.maxSize = count(node, "maxsize")
        parameter.minLength = count(node, "minlength")
        parameter.maxLength = count(node, "maxlength")
        parameter.minValue = number(node, "minvalue")
        parameter.maxValue = number(node, "maxvalue")
        parameter.defaultValue = node[attribute: "defvalue"]
        for child in node.children {
            if readDocumentation(child, into: &parameter.documentation) { continue }
            switch child.name {
            case "element":
                checkAttributes(of: child, allowed: ["name"])
                if let elementName = requiredName(of: child) { parameter.possibleElements.append(elementName) }
            case "history":
                for entry in historyEntries(child, expected: "param") {
                    if let old = buildParameter(entry) { parameter.history.append(old) }
                }
            default:
                unknownElement(child, in: "param")
            }
        }
        return parameter
    }

    // MARK: Pieces

    private mutating func requiredName(of node: RawNode) -> String? {
        guard let name = node[attribute: "name"], !name.isEmpty else {
            diagnostics.error("<\(node.name)> has no 'name'", at: at(node))
            return nil
        }
        return name
    }

    private mutating func historyEntries(_ node: RawNode, expected: String) -> [RawNode] {
        if !node.attributes.isEmpty {
            checkAttributes(of: node, allowed: [])
        }
        var entries: [RawNode] = []
        for child in node.children {
            if child.name == expected {
                entries.append(child)
            } else {
                diagnostics.warning(
                    "<\(child.name)> inside the <history> of a <\(expected)> is ignored; history holds earlier <\(expected)>s",
                    at: at(child))
            }
        }
        return entries
    }

    /// Reads a documentation child; false when `node` is not one.
    private mutating func readDocumentation(_ node: RawNode, into documentation: inout Documentation) -> Bool {
        guard Self.documentationElements.contains(node.name) else { return false }
        checkAttributes(of: node, allowed: node.name == "issue" ? ["creator"] : [])
        for child in node.children {
            unknownElement(child, in: node.name)
        }
        let text = Self.normalizedText(node.text)
        switch node.name {
        case "description": documentation.descriptions.append(text)
        case "designdescription": documentation.designDescriptions.append(text)
        case "warning": documentation.warnings.append(text)
        case "todo": documentation.todos.append(text)
        default: documentation.issues.append(.init(creator: node[attribute: "creator"], text: text))
        }
        return true
    }

    /// Removes the XML indentation while keeping line breaks the author wrote. Works on UTF-8
    /// bytes: splitting by `Character` was a tenth of the whole generator's time.
    static func normalizedText(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x0A {
            var line = bytes[start..<index]
            while let first = line.first, isBlank(first) { line = line.dropFirst() }
            while let last = line.last, isBlank(last) { line = line.dropLast() }
            lines.append(line)
            start = index + 1
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for (index, line) in lines.enumerated() {
            if index > 0 { out.append(0x0A) }
            out.append(contentsOf: line)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func checkAttributes(of node: RawNode, allowed: Set<String>) {
        for attribute in node.attributes where !allowed.contains(attribute.name) {
            diagnostics.warning("unknown attribute '\(attribute.name)' on <\(node.name)> is ignored", at: at(node))
        }
    }

    private mutating func unknownElement(_ node: RawNode, in parent: String) {
        diagnostics.warning("unknown element <\(node.name)> inside <\(parent)> is ignored", at: at(node))
    }

    private mutating func availability(of node: RawNode) -> Availability {
        Availability(
            since: version(node, "since"),
            until: version(node, "until"),
            deprecated: boolean(node, "deprecated") ?? false,
            removed: boolean(node, "removed") ?? false
        )
    }

    private mutating func scope(of node: RawNode) -> Scope? {
        guard dialect == .hmi, let text = node[attribute: "scope"] else { return nil }
        guard let scope = Scope(rawValue: text) else {
            diagnostics.error("'scope' is '\(text)'; the only scope is internal", at: at(node))
            return nil
        }
        return scope
    }

    private mutating func version(_ node: RawNode, _ attribute: String) -> SpecVersion? {
        guard let text = node[attribute: attribute] else { return nil }
        guard let version = SpecVersion(text) else {
            diagnostics.error("'\(attribute)' is '\(text)', which is not a version like 6.0", at: at(node))
            return nil
        }
        return version
    }

    private mutating func boolean(_ node: RawNode, _ attribute: String) -> Bool? {
        guard let text = node[attribute: attribute] else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default:
            diagnostics.error("'\(attribute)' is '\(text)'; expected true or false", at: at(node))
            return nil
        }
    }

    private mutating func count(_ node: RawNode, _ attribute: String) -> Int? {
        guard let text = node[attribute: attribute] else { return nil }
        guard let value = Int(text), value >= 0 else {
            diagnostics.error("'\(attribute)' is '\(text)', which is not a non-negative integer", at: at(node))
            return nil
        }
        return value
    }

    private mutating func number(_ node: RawNode, _ attribute: String) -> Double? {
        guard let text = node[attribute: attribute] else { return nil }
        guard let value = Double(text), value.isFinite else {
            diagnostics.error("'\(attribute)' is '\(text)', which is not a number", at: at(node))
            return nil
        }
        return value
    }

    // MARK: Type resolution

    private mutating func resolveTypes(in interface: inout Interface) {
        var kinds: [String: TypeReference] = [:]
        for definition in interface.enums { kinds[definition.name] = .enumeration(definition.name) }
        for definition in interface.structs where kinds[definition.name] == nil {
            kinds[definition.name] = .structure(definition.name)
        }
        Self.resolveTypes(in: &interface) { Self.resolve($0, kinds: kinds) }
    }

    /// HMI types are named across interfaces as `Interface.Type`; a name without an interface
    /// means the referring interface's own type. Either resolves to the qualified name.
    private mutating func resolveTypes(in set: inout InterfaceSet) {
        var kinds: [String: TypeReference] = [:]
        for interface in set.interfaces {
            for definition in interface.enums {
                let name = interface.name + "." + definition.name
                kinds[name] = .enumeration(name)
            }
            for definition in interface.structs {
                let name = interface.name + "." + definition.name
                if kinds[name] == nil { kinds[name] = .structure(name) }
            }
        }
        for index in set.interfaces.indices {
            let prefix = set.interfaces[index].name + "."
            Self.resolveTypes(in: &set.interfaces[index]) { name in
                let resolved = Self.resolve(name, kinds: kinds)
                guard case .unresolved = resolved, !name.contains(".") else { return resolved }
                return kinds[prefix + name] ?? resolved
            }
        }
    }

    private static func resolveTypes(in interface: inout Interface, _ resolve: (String) -> TypeReference) {
        func resolveAll(_ parameters: inout [Parameter]) {
            for index in parameters.indices {
                parameters[index].type = resolve(parameters[index].type.specName)
                resolveAll(&parameters[index].history)
            }
        }
        for index in interface.structs.indices {
            resolveAll(&interface.structs[index].parameters)
            for old in interface.structs[index].history.indices { resolveAll(&interface.structs[index].history[old].parameters) }
        }
        for index in interface.functions.indices {
            resolveAll(&interface.functions[index].parameters)
            for old in interface.functions[index].history.indices { resolveAll(&interface.functions[index].history[old].parameters) }
        }
    }

    private static func resolve(_ name: String, kinds: [String: TypeReference]) -> TypeReference {
        switch name {
        case "Boolean": .boolean
        case "Integer": .integer
        case "Float": .float
        case "String": .string
        default: kinds[name] ?? .unresolved(name)
        }
    }
}
