import SDLSpec

/// The API differences between two versions of the RPC spec, each judged for apps by the rules
/// in README.md's "Compatibility rules".
package struct SpecDiff: Sendable {
    /// One side of the comparison.
    package struct Side: Hashable, Sendable {
        /// The version the spec was resolved at; nil when the file gives none.
        package var version: SpecVersion?
        /// Where it came from, e.g. the file's path.
        package var source: String

        package init(version: SpecVersion?, source: String) {
            self.version = version
            self.source = source
        }

        /// `8.0.0`, or the source when there is no version.
        package var label: String { version?.description ?? source }
    }

    package var old: Side
    package var new: Side
    /// In canonical order: by kind, then path, then aspect.
    package var changes: [Change]

    package var breakingCount: Int { changes.count { $0.isBreaking } }
    package var hasBreakingChanges: Bool { changes.contains { $0.isBreaking } }

    /// Compares `old` at `oldVersion` with `new` at `newVersion`. Pass the same interface twice
    /// to compare two versions inside one spec; pass each file's own version to compare files.
    package init(
        old: Interface, at oldVersion: SpecVersion?, source oldSource: String = "old",
        new: Interface, at newVersion: SpecVersion?, source newSource: String = "new"
    ) {
        self.init(
            old: APISnapshot(old, at: oldVersion), source: oldSource,
            new: APISnapshot(new, at: newVersion), source: newSource)
    }

    package init(old: APISnapshot, source oldSource: String = "old", new: APISnapshot, source newSource: String = "new") {
        self.old = Side(version: old.version, source: oldSource)
        self.new = Side(version: new.version, source: newSource)
        var differ = Differ(old: old, new: new)
        differ.run()
        changes = differ.changes.sorted(by: Change.canonicalOrder)
    }
}

/// Walks two snapshots side by side and records each difference with its verdict.
struct Differ {
    let old: APISnapshot
    let new: APISnapshot
    let usage: UsageMap
    private(set) var changes: [Change] = []

    init(old: APISnapshot, new: APISnapshot) {
        self.old = old
        self.new = new
        usage = UsageMap([new, old])
    }

    mutating func run() {
        compareFunctions()
        compareStructs()
        compareEnums()
    }

    // MARK: Definitions

    private mutating func compareFunctions() {
        for key in Set(old.functions.keys).union(new.functions.keys) {
            let owner = ChangePath.Owner.function(key.name, key.messageType)
            let path = ChangePath(owner)
            switch (old.functions[key], new.functions[key]) {
            case (nil, let added?):
                record(
                    .added, .function, path, .presence(summary: Self.count(added.parameters.count, "param", added.availability)),
                    Rules.addedFunction)
            case (let removed?, nil):
                record(
                    .removed, .function, path, .presence(summary: Self.count(removed.parameters.count, "param", removed.availability)),
                    Rules.removed(.function))
            case (let before?, let after?):
                compareDeprecation(.function, path, before.availability, after.availability)
                if before.functionID != after.functionID {
                    record(.changed, .function, path, .functionID(old: before.functionID, new: after.functionID), Rules.changedFunctionID)
                }
                compareParameters(before.parameters, after.parameters, owner: owner, usage: Usage.of(key))
            case (nil, nil):
                break
            }
        }
    }

    private mutating func compareStructs() {
        for name in Set(old.structs.keys).union(new.structs.keys) {
            let owner = ChangePath.Owner.structure(name)
            let path = ChangePath(owner)
            switch (old.structs[name], new.structs[name]) {
            case (nil, let added?):
                record(
                    .added, .struct, path, .presence(summary: Self.count(added.parameters.count, "param", added.availability)),
                    Rules.addedType)
            case (let removed?, nil):
                record(
                    .removed, .struct, path, .presence(summary: Self.count(removed.parameters.count, "param", removed.availability)),
                    Rules.removed(.struct))
            case (let before?, let after?):
                compareDeprecation(.struct, path, before.availability, after.availability)
                compareParameters(before.parameters, after.parameters, owner: owner, usage: usage.usage(ofStruct: name))
            case (nil, nil):
                break
            }
        }
    }

    private mutating func compareEnums() {
        for name in Set(old.enums.keys).union(new.enums.keys) {
            let owner = ChangePath.Owner.enumeration(name)
            let path = ChangePath(owner)
            switch (old.enums[name], new.enums[name]) {
            case (nil, let added?):
                record(
                    .added, .enum, path, .presence(summary: Self.count(added.elements.count, "element", added.availability)),
                    Rules.addedType)
            case (let removed?, nil):
                record(
                    .removed, .enum, path, .presence(summary: Self.count(removed.elements.count, "element", removed.availability)),
                    Rules.removed(.enum))
            case (let before?, let after?):
                compareDeprecation(.enum, path, before.availability, after.availability)
                compareElements(before.elements, after.elements, owner: owner, usage: usage.usage(ofEnum: name))
            case (nil, nil):
                break
            }
        }
    }

    // MARK: Members

    private mutating func compareParameters(_ before: [Parameter], _ after: [Parameter], owner: ChangePath.Owner, usage: Usage) {
        let oldByName = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newByName = Dictionary(after.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(oldByName.keys).union(newByName.keys) {
            let path = ChangePath(owner, member: name)
            switch (oldByName[name], newByName[name]) {
            case (nil, let added?):
                record(
                    .added, .param, path, .presence(summary: Self.signature(added)),
                    Rules.addedParam(isMandatory: added.isMandatory, owner: owner, usage: usage))
            case (let removed?, nil):
                record(.removed, .param, path, .presence(summary: Self.signature(removed)), Rules.removed(.param))
            case (let a?, let b?):
                compareDeprecation(.param, path, a.availability, b.availability)
                compareParameter(a, b, path: path, usage: usage)
            case (nil, nil):
                break
            }
        }
    }

    private mutating func compareParameter(_ a: Parameter, _ b: Parameter, path: ChangePath, usage: Usage) {
        if a.type.specName != b.type.specName {
            record(.changed, .param, path, .type(old: a.type.specName, new: b.type.specName), Rules.changedType)
        }
        if a.isArray != b.isArray {
            record(.changed, .param, path, .array(old: a.isArray, new: b.isArray), Rules.changedArray)
        }
        if a.isMandatory != b.isMandatory {
            record(
                .changed, .param, path, .mandatory(old: a.isMandatory, new: b.isMandatory),
                Rules.changedMandatory(to: b.isMandatory, owner: path.owner, usage: usage))
        }
        let bounds: [(Bound, Double?, Double?)] = [
            (.minValue, a.minValue, b.minValue), (.maxValue, a.maxValue, b.maxValue),
            (.minLength, a.minLength.map(Double.init), b.minLength.map(Double.init)),
            (.maxLength, a.maxLength.map(Double.init), b.maxLength.map(Double.init)),
            (.minSize, a.minSize.map(Double.init), b.minSize.map(Double.init)),
            (.maxSize, a.maxSize.map(Double.init), b.maxSize.map(Double.init)),
        ]
        for (bound, old, new) in bounds where old != new {
            record(
                .changed, .param, path, .bound(bound, old: old, new: new),
                Rules.changedBound(bound, old: old, new: new, owner: path.owner, usage: usage))
        }
        if a.defaultValue != b.defaultValue {
            record(
                .changed, .param, path, .defaultValue(old: a.defaultValue, new: b.defaultValue),
                Rules.changedDefault(old: a.defaultValue, new: b.defaultValue, isMandatory: b.isMandatory))
        }
    }

    private mutating func compareElements(_ before: [EnumElement], _ after: [EnumElement], owner: ChangePath.Owner, usage: Usage) {
        let oldByName = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newByName = Dictionary(after.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(oldByName.keys).union(newByName.keys) {
            let path = ChangePath(owner, member: name)
            switch (oldByName[name], newByName[name]) {
            case (nil, let added?):
                record(
                    .added, .element, path, .presence(summary: Self.elementSummary(added)),
                    Rules.addedElement(owner: owner, usage: usage))
            case (let removed?, nil):
                record(.removed, .element, path, .presence(summary: Self.elementSummary(removed)), Rules.removed(.element))
            case (let a?, let b?):
                compareDeprecation(.element, path, a.availability, b.availability)
                if Self.value(of: a) != Self.value(of: b) {
                    record(.changed, .element, path, .value(old: Self.value(of: a), new: Self.value(of: b)), Rules.changedElementValue)
                }
            case (nil, nil):
                break
            }
        }
    }

    private mutating func compareDeprecation(_ kind: Change.Kind, _ path: ChangePath, _ before: Availability, _ after: Availability) {
        guard before.deprecated != after.deprecated else { return }
        record(
            after.deprecated ? .deprecated : .changed, kind, path, .deprecation(isDeprecated: after.deprecated),
            Rules.deprecation(isDeprecated: after.deprecated))
    }

    private mutating func record(_ action: Change.Action, _ kind: Change.Kind, _ path: ChangePath, _ aspect: Aspect, _ verdict: Verdict) {
        changes.append(Change(action: action, kind: kind, path: path, aspect: aspect, verdict: verdict))
    }

    // MARK: Summaries

    /// `mandatory String`, `optional array of SoftButton`.
    static func signature(_ parameter: Parameter) -> String {
        var text = parameter.isMandatory ? "mandatory " : "optional "
        if parameter.isArray { text += "array of " }
        text += parameter.type.specName
        if parameter.availability.deprecated { text += ", deprecated" }
        return text
    }

    static func elementSummary(_ element: EnumElement) -> String {
        var text = value(of: element).map { "value \($0)" } ?? "enum element"
        if element.availability.deprecated { text += ", deprecated" }
        return text
    }

    /// `3 params`, `1 element, deprecated`.
    static func count(_ count: Int, _ noun: String, _ availability: Availability) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")" + (availability.deprecated ? ", deprecated" : "")
    }

    /// `value`, else `hexvalue`: the spec writes either.
    static func value(of element: EnumElement) -> Int? {
        element.value ?? element.hexValue.flatMap { Int($0, radix: 16) }
    }
}
