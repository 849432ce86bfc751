import SDLRuntime

/// Validates messages against a spec file's model, for spec versions other than the generated
/// one. It applies the same rules, in the same words, as the generated decoders (`sdl validate
/// --spec` uses it).
package struct SpecModelValidator: Sendable {
    /// The spec the messages are checked against.
    package let interface: Interface
    private let enums: [String: Set<String>]
    private let structs: [String: StructDefinition]

    /// Indexes `interface`'s enums and structs for the checks.
    package init(interface: Interface) {
        self.interface = interface
        var enums: [String: Set<String>] = [:]
        for definition in interface.enums { enums[definition.name] = Set(definition.elements.map(\.name)) }
        self.enums = enums
        self.structs = Dictionary(interface.structs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every way `params` breaks `function`'s `messageType` in the spec, with paths
    /// (`Show.softButtons[1].text`); empty when the message is valid.
    package func issues(function: String, messageType: SDLMessageType, params: SDLJSONValue) -> [SDLCodingIssue] {
        guard let type = MessageType(rawValue: messageType.rawValue),
            let definition = interface.function(named: function, type: type)
        else {
            let version = interface.versionText ?? "?"
            return [
                SDLCodingIssue(path: SDLCodingPath(root: "function"), kind: .malformed("spec \(version) has no \(messageType.rawValue) named \"\(function)\""))
            ]
        }
        var checker = Checker(enums: enums, structs: structs, path: SDLCodingPath(root: function))
        checker.object(params, definition.parameters)
        return checker.issues
    }

    private struct Checker {
        let enums: [String: Set<String>]
        let structs: [String: StructDefinition]
        var path: SDLCodingPath
        var issues: [SDLCodingIssue] = []

        mutating func record(_ kind: SDLCodingIssue.Kind) {
            issues.append(SDLCodingIssue(path: path, kind: kind))
        }

        mutating func object(_ value: SDLJSONValue, _ parameters: [Parameter]) {
            for parameter in parameters {
                path.components.append(.key(parameter.name))
                if let member = value[parameter.name] {
                    self.parameter(member, parameter)
                } else if parameter.isMandatory {
                    record(.missingMandatory)
                }
                path.components.removeLast()
            }
        }

        mutating func parameter(_ value: SDLJSONValue, _ parameter: Parameter) {
            guard parameter.isArray else { return element(value, parameter) }
            guard case .array(let items) = value else {
                return record(.wrongType(expected: "Array", found: value.typeName))
            }
            for (index, item) in items.enumerated() {
                path.components.append(.index(index))
                element(item, parameter)
                path.components.removeLast()
            }
            if let min = parameter.minSize, items.count < min {
                record(.sizeOutOfRange(count: items.count, min: parameter.minSize, max: parameter.maxSize))
            } else if let max = parameter.maxSize, items.count > max {
                record(.sizeOutOfRange(count: items.count, min: parameter.minSize, max: parameter.maxSize))
            }
        }

        mutating func element(_ value: SDLJSONValue, _ parameter: Parameter) {
            switch (parameter.type, value) {
            case (.boolean, .bool):
                break
            case (.integer, .integer(let number)):
                range(Double(number), parameter)
            case (.float, .integer(let number)):
                range(Double(number), parameter)
            case (.float, .float(let number)):
                range(number, parameter)
            case (.string, .string(let text)):
                let length = text.unicodeScalars.count
                if let min = parameter.minLength, length < min {
                    record(.lengthOutOfRange(length: length, min: parameter.minLength, max: parameter.maxLength))
                } else if let max = parameter.maxLength, length > max {
                    record(.lengthOutOfRange(length: length, min: parameter.minLength, max: parameter.maxLength))
                }
            case (.enumeration(let name), .string(let text)):
                if enums[name]?.contains(text) != true {
                    record(.unknownEnumValue(value: text, enumName: name))
                }
            case (.structure(let name), .object):
                if let definition = structs[name] { object(value, definition.parameters) }
            default:
                record(.wrongType(expected: expectedName(parameter.type), found: value.typeName))
            }
        }

        func expectedName(_ type: TypeReference) -> String {
            switch type {
            case .enumeration(let name): "String (\(name))"
            case .structure(let name): "Object (\(name))"
            default: type.specName == "Boolean" ? "Boolean" : type.specName
            }
        }

        mutating func range(_ number: Double, _ parameter: Parameter) {
            if let min = parameter.minValue, number < min {
                record(.valueOutOfRange(value: number, min: parameter.minValue, max: parameter.maxValue))
            } else if let max = parameter.maxValue, number > max {
                record(.valueOutOfRange(value: number, min: parameter.minValue, max: parameter.maxValue))
            }
        }
    }
}
