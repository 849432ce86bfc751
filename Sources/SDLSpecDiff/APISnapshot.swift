import SDLSpec

/// The API as it is at one version: every definition, param and element in the form it has
/// then, with `since`, `until`, `removed` and `<history>` resolved away.
///
/// A spec file describes its own version and, through those attributes, earlier ones. The form
/// of a definition at V is the definition itself when it is available at V, else the history
/// entry whose `since`..`until` contains V, else nothing. Params and elements are resolved the
/// same way, each on its own.
package struct APISnapshot: Sendable {
    package struct FunctionKey: Hashable, Sendable {
        package var name: String
        package var messageType: MessageType

        package init(name: String, messageType: MessageType) {
            self.name = name
            self.messageType = messageType
        }
    }

    /// The version resolved at; nil takes every definition as written, minus `removed` ones.
    package var version: SpecVersion?
    package var enums: [String: EnumDefinition] = [:]
    package var structs: [String: StructDefinition] = [:]
    package var functions: [FunctionKey: FunctionDefinition] = [:]

    package init(_ interface: Interface, at version: SpecVersion?) {
        self.version = version
        for definition in interface.enums {
            guard enums[definition.name] == nil, var form = definition.form(at: version) else { continue }
            form.elements = Self.members(form.elements, fallback: definition.elements, at: version)
            enums[definition.name] = form
        }
        for definition in interface.structs {
            guard structs[definition.name] == nil, var form = definition.form(at: version) else { continue }
            form.parameters = Self.members(form.parameters, fallback: definition.parameters, at: version)
            structs[definition.name] = form
        }
        for definition in interface.functions {
            let key = FunctionKey(name: definition.name, messageType: definition.messageType)
            guard functions[key] == nil, var form = definition.form(at: version) else { continue }
            form.parameters = Self.members(form.parameters, fallback: definition.parameters, at: version)
            functions[key] = form
        }
    }

    /// The members at `version`. History entries of enums, structs and functions in the real
    /// specs are empty shells that only record availability (`<struct name="X" since="1.0"
    /// until="6.0"/>`), so an entry without members takes the current definition's members.
    private static func members<Member: Versioned & Named>(
        _ members: [Member], fallback: [Member], at version: SpecVersion?
    ) -> [Member] {
        var seen: Set<String> = []
        return (members.isEmpty ? fallback : members).compactMap { member in
            guard let form = member.form(at: version), seen.insert(form.name).inserted else { return nil }
            return form
        }
    }
}

/// A definition with availability and earlier forms.
protocol Versioned {
    var availability: Availability { get }
    var history: [Self] { get }
}

protocol Named {
    var name: String { get }
}

extension Versioned {
    /// The form at `version`: itself when available then, else the history entry whose range
    /// contains `version`, else nil.
    func form(at version: SpecVersion?) -> Self? {
        guard let version else { return availability.removed ? nil : self }
        if availability.isAvailable(in: version) { return self }
        return history.first { $0.availability.isAvailable(in: version) }
    }
}

extension EnumDefinition: Versioned, Named {}
extension EnumElement: Versioned, Named {}
extension StructDefinition: Versioned, Named {}
extension FunctionDefinition: Versioned, Named {}
extension Parameter: Versioned, Named {}
