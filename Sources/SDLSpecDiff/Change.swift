import SDLSpec

/// One difference between two versions of the API, with its verdict for apps.
///
/// A param that changes in several ways (say `mandatory` and `maxvalue`) gives one change per
/// aspect, because each aspect has its own verdict under the rules.
package struct Change: Hashable, Sendable {
    package enum Action: String, Hashable, Sendable, CaseIterable {
        case added, removed, changed, deprecated
    }

    package enum Kind: String, Hashable, Sendable, CaseIterable {
        case function, `struct`, `enum`, param, element
    }

    package var action: Action
    package var kind: Kind
    package var path: ChangePath
    package var aspect: Aspect
    package var verdict: Verdict

    package init(action: Action, kind: Kind, path: ChangePath, aspect: Aspect, verdict: Verdict) {
        self.action = action
        self.kind = kind
        self.path = path
        self.aspect = aspect
        self.verdict = verdict
    }

    package var isBreaking: Bool { verdict.isBreaking }

    /// What changed, in one line: `mandatory: true → false`, `optional String`.
    package var detail: String { aspect.detail }
}

/// Where a change is: `Alert(request)`, `Alert(request).alertIcon`, `GPSData.shifted`,
/// `ImageFieldName.alertIcon`.
package struct ChangePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    package enum Owner: Hashable, Sendable, CustomStringConvertible {
        case function(String, MessageType)
        case structure(String)
        case enumeration(String)

        package var name: String {
            switch self {
            case .function(let name, _), .structure(let name), .enumeration(let name): name
            }
        }

        package var description: String {
            switch self {
            case .function(let name, let type): "\(name)(\(type.rawValue))"
            case .structure(let name), .enumeration(let name): name
            }
        }

        /// Requests before responses before notifications of the same name, as the spec lists them.
        fileprivate var typeRank: Int {
            guard case .function(_, let type) = self else { return 0 }
            return MessageType.allCases.firstIndex(of: type) ?? 0
        }
    }

    package var owner: Owner
    /// The param or element name; nil for the definition itself.
    package var member: String?

    package init(_ owner: Owner, member: String? = nil) {
        self.owner = owner
        self.member = member
    }

    package var description: String {
        member.map { "\(owner).\($0)" } ?? owner.description
    }

    package static func < (lhs: ChangePath, rhs: ChangePath) -> Bool {
        if lhs.owner.name != rhs.owner.name { return lhs.owner.name < rhs.owner.name }
        if lhs.owner.typeRank != rhs.owner.typeRank { return lhs.owner.typeRank < rhs.owner.typeRank }
        return (lhs.member ?? "") < (rhs.member ?? "")
    }
}

/// A numeric restriction of a param, named as in the XML.
package enum Bound: String, Hashable, Sendable, CaseIterable {
    case minValue = "minvalue"
    case maxValue = "maxvalue"
    case minLength = "minlength"
    case maxLength = "maxlength"
    case minSize = "minsize"
    case maxSize = "maxsize"

    package var isLowerBound: Bool { self == .minValue || self == .minLength || self == .minSize }

    /// Whether going from `old` to `new` admits fewer values. Nil means "no bound".
    package func isTightened(from old: Double?, to new: Double?) -> Bool {
        guard let new else { return false }
        guard let old else { return true }
        return isLowerBound ? new > old : new < old
    }
}

/// What about a definition changed, with the old and new values.
package enum Aspect: Hashable, Sendable {
    /// The definition appeared or disappeared (the action says which); `summary` describes it,
    /// e.g. `optional String` for a param or `3 elements` for an enum.
    case presence(summary: String)
    case deprecation(isDeprecated: Bool)
    case functionID(old: String, new: String)
    case type(old: String, new: String)
    case array(old: Bool, new: Bool)
    case mandatory(old: Bool, new: Bool)
    case bound(Bound, old: Double?, new: Double?)
    case defaultValue(old: String?, new: String?)
    case value(old: Int?, new: Int?)

    /// A short machine name, the XML attribute where there is one.
    package var name: String {
        switch self {
        case .presence: "presence"
        case .deprecation: "deprecated"
        case .functionID: "functionID"
        case .type: "type"
        case .array: "array"
        case .mandatory: "mandatory"
        case .bound(let bound, _, _): bound.rawValue
        case .defaultValue: "defvalue"
        case .value: "value"
        }
    }

    /// The values before and after, as text; nil where the aspect has none or a side is unset.
    package var values: (old: String?, new: String?) {
        switch self {
        case .presence: (nil, nil)
        case .deprecation(let isDeprecated): (String(!isDeprecated), String(isDeprecated))
        case .functionID(let old, let new), .type(let old, let new): (old, new)
        case .array(let old, let new), .mandatory(let old, let new): (String(old), String(new))
        case .bound(_, let old, let new): (old.map(Self.format), new.map(Self.format))
        case .defaultValue(let old, let new): (old, new)
        case .value(let old, let new): (old.map(String.init), new.map(String.init))
        }
    }

    package var detail: String {
        switch self {
        case .presence(let summary): return summary
        case .deprecation(let isDeprecated): return isDeprecated ? "deprecated" : "no longer deprecated"
        default:
            let (old, new) = values
            return "\(name): \(old ?? "none") → \(new ?? "none")"
        }
    }

    /// Order of aspects within one path, so output is stable.
    var rank: Int {
        switch self {
        case .presence: 0
        case .deprecation: 1
        case .functionID: 2
        case .type: 3
        case .array: 4
        case .mandatory: 5
        case .bound(let bound, _, _): 6 + (Bound.allCases.firstIndex(of: bound) ?? 0)
        case .defaultValue: 12
        case .value: 13
        }
    }

    /// `10` rather than `10.0`, since the spec writes whole numbers.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }
}

/// Whether a change breaks apps, which written rule says so, and why.
package struct Verdict: Hashable, Sendable {
    package var isBreaking: Bool
    package var rule: Rule
    package var reason: String

    package init(isBreaking: Bool, rule: Rule, reason: String) {
        self.isBreaking = isBreaking
        self.rule = rule
        self.reason = reason
    }
}

extension Change {
    /// The one order every renderer uses: by kind, then path, then aspect.
    static func canonicalOrder(_ lhs: Change, _ rhs: Change) -> Bool {
        let lk = Kind.allCases.firstIndex(of: lhs.kind)!
        let rk = Kind.allCases.firstIndex(of: rhs.kind)!
        if lk != rk { return lk < rk }
        if lhs.path != rhs.path { return lhs.path < rhs.path }
        if lhs.aspect.rank != rhs.aspect.rank { return lhs.aspect.rank < rhs.aspect.rank }
        return lhs.detail < rhs.detail
    }
}
