/// Checks a built model the way a compiler checks a program: names resolve and are unique,
/// bounds are ordered, defaults fit their type, every request has its response and every
/// function has a unique FunctionID (mobile API) or its method a response and its result codes
/// numbers (HMI API).
package struct SpecValidator {
    package private(set) var diagnostics = DiagnosticList()

    package init() {}

    package mutating func validate(_ document: SpecDocument) {
        switch document {
        case .mobile(let interface): validate(interface)
        case .hmi(let set): validate(set)
        }
    }

    /// A mobile spec.
    package mutating func validate(_ interface: Interface) {
        let enums = Dictionary(interface.enums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        validateDefinitions(interface, enums: enums, prefix: "")
        checkFunctions(interface, enums: enums)
    }

    /// The HMI API: each interface's definitions as in a mobile spec, with types referenced
    /// across interfaces; functions named by method, answered once, and `Common.Result`
    /// numbered, since JSON-RPC carries result codes as numbers.
    package mutating func validate(_ set: InterfaceSet) {
        var names: [String: SourceLocation] = [:]
        var enums: [String: EnumDefinition] = [:]
        for interface in set.interfaces {
            if let first = names[interface.name] {
                diagnostics.error("interface '\(interface.name)' is already defined at line \(first.line)", at: interface.location)
            } else {
                names[interface.name] = interface.location
            }
            for definition in interface.enums where enums[interface.name + "." + definition.name] == nil {
                enums[interface.name + "." + definition.name] = definition
            }
        }
        for interface in set.interfaces {
            validateDefinitions(interface, enums: enums, prefix: interface.name + ".")
            checkRequestsAndResponses(interface, prefix: interface.name + ".", responsesNeedRequests: true)
        }
        guard set.interfaces.contains(where: { !$0.functions.isEmpty }) else { return }
        guard let results = enums[InterfaceSet.resultCodeEnum] else {
            diagnostics.error("the HMI API defines functions but no enum '\(InterfaceSet.resultCodeEnum)' for their result codes", at: set.location)
            return
        }
        checkNumbered(results, named: InterfaceSet.resultCodeEnum, missing: "; JSON-RPC sends result codes as numbers")
    }

    /// Every element of `definition` has a `value`, each its own: the wire carries the number.
    private mutating func checkNumbered(_ definition: EnumDefinition, named name: String, missing reason: String = "") {
        var values: [Int: EnumElement] = [:]
        for element in definition.elements {
            guard let value = element.value else {
                diagnostics.error("\(name) element '\(element.name)' has no 'value'\(reason)", at: element.location)
                continue
            }
            if let first = values[value] {
                diagnostics.error(
                    "\(name) element '\(element.name)' has value \(value), already used by '\(first.name)' at line \(first.location.line)",
                    at: element.location)
            } else {
                values[value] = element
            }
        }
    }

    /// What both specs check: names, availability, parameters. `enums` is keyed by the names
    /// parameters use; `prefix` qualifies this interface's names in messages.
    private mutating func validateDefinitions(_ interface: Interface, enums: [String: EnumDefinition], prefix: String) {
        checkUniqueTypeNames(interface, prefix: prefix)
        for definition in interface.enums {
            let name = prefix + definition.name
            checkAvailability(definition.availability, of: "enum '\(name)'", at: definition.location)
            checkUnique(definition.elements.map { ($0.name, $0.location) }, what: "element", in: "enum '\(name)'")
            for element in definition.elements {
                checkAvailability(element.availability, of: "element '\(name).\(element.name)'", at: element.location)
            }
        }
        for definition in interface.structs {
            let name = prefix + definition.name
            checkAvailability(definition.availability, of: "struct '\(name)'", at: definition.location)
            checkParameters(definition.parameters, owner: name, enums: enums)
            for old in definition.history {
                checkParameters(old.parameters, owner: "\(old.name) (history)", enums: enums)
            }
        }
        for function in interface.functions {
            let owner = "\(prefix)\(function.name) (\(function.messageType.rawValue))"
            checkAvailability(function.availability, of: "function \(owner)", at: function.location)
            checkParameters(function.parameters, owner: owner, enums: enums)
            for old in function.history {
                checkParameters(old.parameters, owner: "\(owner) (history)", enums: enums)
            }
        }
    }

    // MARK: Names

    private mutating func checkUniqueTypeNames(_ interface: Interface, prefix: String) {
        var seen: [String: (kind: String, location: SourceLocation)] = [:]
        let types = interface.enums.map { ("enum", $0.name, $0.location) } + interface.structs.map { ("struct", $0.name, $0.location) }
        // In file order, so the second definition is the one reported, whatever its kind.
        for (kind, name, location) in types.sorted(by: { $0.2.line < $1.2.line }) {
            if let first = seen[name] {
                diagnostics.error(
                    "\(kind) '\(prefix)\(name)' is already defined as \(first.kind) at line \(first.location.line)", at: location)
            } else {
                seen[name] = (kind, location)
                if ["Boolean", "Integer", "Float", "String"].contains(name) {
                    diagnostics.error("\(kind) '\(prefix)\(name)' has the name of a built-in type", at: location)
                }
            }
        }
        var functions: [String: SourceLocation] = [:]
        for function in interface.functions {
            let key = "\(prefix)\(function.name) (\(function.messageType.rawValue))"
            if let first = functions[key] {
                diagnostics.error("function \(key) is already defined at line \(first.line)", at: function.location)
            } else {
                functions[key] = function.location
            }
        }
    }

    private mutating func checkUnique(_ names: [(String, SourceLocation)], what: String, in owner: String) {
        var seen: [String: SourceLocation] = [:]
        for (name, location) in names {
            if let first = seen[name] {
                diagnostics.error("\(what) '\(name)' of \(owner) is already defined at line \(first.line)", at: location)
            } else {
                seen[name] = location
            }
        }
    }

    private mutating func checkAvailability(_ availability: Availability, of what: String, at location: SourceLocation) {
        if let since = availability.since, let until = availability.until, until < since {
            diagnostics.error("\(what) has until=\(until) before since=\(since)", at: location)
        }
    }

    // MARK: Parameters

    private mutating func checkParameters(_ parameters: [Parameter], owner: String, enums: [String: EnumDefinition]) {
        checkUnique(parameters.map { ($0.name, $0.location) }, what: "param", in: owner)
        for parameter in parameters {
            checkParameter(parameter, owner: owner, enums: enums)
            for old in parameter.history {
                checkParameter(old, owner: "\(owner) (history)", enums: enums)
            }
        }
    }

    private mutating func checkParameter(_ parameter: Parameter, owner: String, enums: [String: EnumDefinition]) {
        let name = "\(owner).\(parameter.name)"
        let location = parameter.location
        checkAvailability(parameter.availability, of: "param '\(name)'", at: location)
        if case .unresolved(let typeName) = parameter.type {
            diagnostics.error("param '\(name)' has type '\(typeName)', which is not defined", at: location)
        }
        checkOrder(parameter.minValue, parameter.maxValue, "minvalue", "maxvalue", name, location)
        checkOrder(parameter.minLength.map(Double.init), parameter.maxLength.map(Double.init), "minlength", "maxlength", name, location)
        checkOrder(parameter.minSize.map(Double.init), parameter.maxSize.map(Double.init), "minsize", "maxsize", name, location)
        if parameter.type == .integer {
            for (attribute, bound) in [("minvalue", parameter.minValue), ("maxvalue", parameter.maxValue)] {
                if let bound, bound.rounded() != bound {
                    diagnostics.error("param '\(name)' is an Integer, but its \(attribute) \(bound) is not a whole number", at: location)
                }
            }
        }
        if !parameter.type.isNumeric, parameter.minValue != nil || parameter.maxValue != nil {
            diagnostics.warning("param '\(name)' has minvalue/maxvalue, which only apply to Integer and Float; they are ignored", at: location)
        }
        if parameter.type != .string, parameter.minLength != nil || parameter.maxLength != nil {
            diagnostics.warning("param '\(name)' has minlength/maxlength, which only apply to String; they are ignored", at: location)
        }
        if !parameter.isArray, parameter.minSize != nil || parameter.maxSize != nil {
            diagnostics.warning("param '\(name)' has minsize/maxsize but is not an array; they are ignored", at: location)
        }
        if let defaultValue = parameter.defaultValue {
            checkDefault(defaultValue, of: parameter, name: name, enums: enums)
        }
        if !parameter.possibleElements.isEmpty {
            if case .enumeration(let enumName) = parameter.type, let definition = enums[enumName] {
                let known = Set(definition.elements.map(\.name))
                for element in parameter.possibleElements where !known.contains(element) {
                    diagnostics.error("param '\(name)' lists element '\(element)', which is not in enum '\(enumName)'", at: location)
                }
            } else if case .unresolved = parameter.type {
                // already reported
            } else {
                diagnostics.warning("param '\(name)' lists <element>s, but its type \(parameter.type) is not an enum", at: location)
            }
        }
    }

    private mutating func checkOrder(_ low: Double?, _ high: Double?, _ lowName: String, _ highName: String, _ name: String, _ location: SourceLocation) {
        if let low, let high, low > high {
            diagnostics.error(
                "param '\(name)' has \(lowName) \(Self.format(low)) greater than \(highName) \(Self.format(high))", at: location)
        }
    }

    private mutating func checkDefault(_ value: String, of parameter: Parameter, name: String, enums: [String: EnumDefinition]) {
        let location = parameter.location
        switch parameter.type {
        case .boolean:
            if value != "true" && value != "false" {
                diagnostics.error("param '\(name)' has defvalue '\(value)', which is not true or false", at: location)
            }
        case .integer, .float:
            guard let number = Double(value), number.isFinite,
                parameter.type == .float || Int(value) != nil
            else {
                let kind = parameter.type == .integer ? "an integer" : "a number"
                diagnostics.error("param '\(name)' has defvalue '\(value)', which is not \(kind)", at: location)
                return
            }
            if let min = parameter.minValue, number < min {
                diagnostics.error("param '\(name)' has defvalue \(value) below its minvalue \(Self.format(min))", at: location)
            }
            if let max = parameter.maxValue, number > max {
                diagnostics.error("param '\(name)' has defvalue \(value) above its maxvalue \(Self.format(max))", at: location)
            }
        case .string:
            let length = value.count
            if let min = parameter.minLength, length < min {
                diagnostics.error("param '\(name)' has defvalue of \(length) characters, shorter than its minlength \(min)", at: location)
            }
            if let max = parameter.maxLength, length > max {
                diagnostics.error("param '\(name)' has defvalue of \(length) characters, longer than its maxlength \(max)", at: location)
            }
        case .enumeration(let enumName):
            if let definition = enums[enumName], !definition.elements.contains(where: { $0.name == value }) {
                diagnostics.error("param '\(name)' has defvalue '\(value)', which is not an element of enum '\(enumName)'", at: location)
            }
        case .structure(let structName):
            diagnostics.error("param '\(name)' has defvalue '\(value)', but struct '\(structName)' cannot have a default", at: location)
        case .unresolved:
            break
        }
    }

    /// Every request has its response; in the HMI API every response its request too (the
    /// mobile API has responses without one, such as GenericResponse).
    private mutating func checkRequestsAndResponses(_ interface: Interface, prefix: String, responsesNeedRequests: Bool) {
        let responses = Set(interface.functions.filter { $0.messageType == .response }.map(\.name))
        for request in interface.functions where request.messageType == .request && !responses.contains(request.name) {
            diagnostics.error("request '\(prefix)\(request.name)' has no response with the same name", at: request.location)
        }
        guard responsesNeedRequests else { return }
        let requests = Set(interface.functions.filter { $0.messageType == .request }.map(\.name))
        for response in interface.functions where response.messageType == .response && !requests.contains(response.name) {
            diagnostics.error("response '\(prefix)\(response.name)' has no request with the same name", at: response.location)
        }
    }

    static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    // MARK: Functions

    private mutating func checkFunctions(_ interface: Interface, enums: [String: EnumDefinition]) {
        guard !interface.functions.isEmpty else { return }
        var ids: [String: EnumElement] = [:]
        let functionIDs = enums["FunctionID"]
        if let functionIDs {
            for element in functionIDs.elements { ids[element.name] = element }
            checkNumbered(functionIDs, named: "FunctionID")
        } else {
            diagnostics.error("the spec defines functions but no enum 'FunctionID'", at: interface.location)
        }

        var owners: [String: [MessageType: FunctionDefinition]] = [:]
        for function in interface.functions {
            if functionIDs != nil, !function.functionID.isEmpty, ids[function.functionID] == nil {
                diagnostics.error(
                    "function \(function.name) (\(function.messageType.rawValue)) has functionID '\(function.functionID)', which is not an element of enum 'FunctionID'",
                    at: function.location)
            }
            guard !function.functionID.isEmpty else { continue }
            if let other = owners[function.functionID]?[function.messageType], other.name != function.name {
                diagnostics.error(
                    "function \(function.name) (\(function.messageType.rawValue)) uses functionID '\(function.functionID)', already used by \(other.name) at line \(other.location.line)",
                    at: function.location)
            }
            owners[function.functionID, default: [:]][function.messageType] = function
        }

        checkRequestsAndResponses(interface, prefix: "", responsesNeedRequests: false)
        let requests = Dictionary(
            interface.functions.filter { $0.messageType == .request }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for response in interface.functions where response.messageType == .response {
            if let request = requests[response.name], request.functionID != response.functionID {
                diagnostics.error(
                    "response '\(response.name)' has functionID '\(response.functionID)', but its request has '\(request.functionID)'",
                    at: response.location)
            }
        }
    }
}
