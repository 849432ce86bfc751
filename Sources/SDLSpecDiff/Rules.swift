import SDLSpec

/// The compatibility rules, by id. The ids are stable: output cites them, and README.md's
/// "Compatibility rules" section is the single written source for what each means and why.
package enum Rule: String, Hashable, Sendable, CaseIterable {
    case g1 = "G1"
    case g2 = "G2"
    case g3 = "G3"
    case f1 = "F1"
    case f2 = "F2"
    case t1 = "T1"
    case p1 = "P1"
    case p2 = "P2"
    case p3 = "P3"
    case p4 = "P4"
    case p5 = "P5"
    case p6 = "P6"
    case p7 = "P7"
    case p8 = "P8"
    case p9 = "P9"
    case p10 = "P10"
    case e1 = "E1"
    case e2 = "E2"

    package var id: String { rawValue }

    /// The rule's row in README.md's "Compatibility rules".
    package var title: String {
        switch self {
        case .g1: "Removing anything is breaking"
        case .g2: "Deprecating is compatible"
        case .g3: "Changes no message carries are compatible"
        case .f1: "A new function is compatible"
        case .f2: "A changed function ID is breaking"
        case .t1: "A new struct or enum is compatible"
        case .p1: "A new optional param is compatible"
        case .p2: "A new mandatory param breaks senders"
        case .p3: "Optional to mandatory breaks senders"
        case .p4: "Mandatory to optional breaks receivers"
        case .p5: "A changed type is breaking"
        case .p6: "Changing between value and array is breaking"
        case .p7: "A tightened bound breaks senders"
        case .p8: "A loosened bound breaks receivers"
        case .p9: "A new default value is compatible"
        case .p10: "A changed or removed default breaks optional params"
        case .e1: "A new enum element breaks receivers"
        case .e2: "A changed element value is breaking"
        }
    }
}

/// The verdict of each kind of change, as README.md's "Compatibility rules" writes it.
enum Rules {
    // MARK: Rules that hold whichever way the definition travels

    /// G1.
    static func removed(_ kind: Change.Kind) -> Verdict {
        let reason =
            switch kind {
            case .function: "apps that use this message must stop; head units on the new version do not support it"
            case .struct, .enum: "code that uses this type no longer compiles against the new version"
            case .param: "apps that set or read it lose it; head units on the new version ignore or reject it"
            case .element: "apps that send or handle this value lose it; head units on the new version reject it"
            }
        return Verdict(isBreaking: true, rule: .g1, reason: reason)
    }

    /// G2.
    static func deprecation(isDeprecated: Bool) -> Verdict {
        Verdict(
            isBreaking: false, rule: .g2,
            reason: isDeprecated
                ? "it still works; plan to move off it before it is removed"
                : "it is supported again; nothing changes for apps")
    }

    /// F1.
    static let addedFunction = Verdict(
        isBreaking: false, rule: .f1, reason: "apps may start to use it; existing messages are unchanged")

    /// F2.
    static let changedFunctionID = Verdict(
        isBreaking: true, rule: .f2, reason: "the ID on the wire changes, so apps and head units no longer match the message")

    /// T1.
    static let addedType = Verdict(
        isBreaking: false, rule: .t1, reason: "a new type changes nothing until a param uses it, which is reported on its own")

    /// P1.
    static let addedOptionalParam = Verdict(
        isBreaking: false, rule: .p1, reason: "apps may use it or leave it; senders can omit it and receivers can ignore it")

    /// P5.
    static let changedType = Verdict(
        isBreaking: true, rule: .p5, reason: "values of the old type do not decode as the new one, in either direction")

    /// P6.
    static let changedArray = Verdict(
        isBreaking: true, rule: .p6, reason: "a single value and an array are not interchangeable, in either direction")

    /// P9 and P10.
    static func changedDefault(old: String?, new: String?, isMandatory: Bool) -> Verdict {
        if old == nil {
            return Verdict(
                isBreaking: false, rule: .p9, reason: "it documents what an absent value means; messages stay the same")
        }
        if isMandatory {
            return Verdict(
                isBreaking: false, rule: .p10, reason: "the param is mandatory, so it is always present and its default never applies")
        }
        return Verdict(
            isBreaking: true, rule: .p10,
            reason: "the param is optional, so a message without it now means something else")
    }

    /// E2.
    static let changedElementValue = Verdict(
        isBreaking: true, rule: .e2, reason: "the number identifies the element on the wire, so old and new peers disagree")

    // MARK: Rules that depend on the direction

    /// P1 and P2.
    static func addedParam(isMandatory: Bool, owner: ChangePath.Owner, usage: Usage) -> Verdict {
        guard isMandatory else { return addedOptionalParam }
        return directional(
            .p2, owner: owner, usage: usage,
            senders: (true, "messages without the new mandatory param are rejected"),
            receivers: (false, "they get one more value, which they may ignore"))
    }

    /// P3 and P4.
    static func changedMandatory(to isMandatory: Bool, owner: ChangePath.Owner, usage: Usage) -> Verdict {
        if isMandatory {
            return directional(
                .p3, owner: owner, usage: usage,
                senders: (true, "they must now always send it"),
                receivers: (false, "they now always get it"))
        }
        return directional(
            .p4, owner: owner, usage: usage,
            senders: (false, "they may now leave it out"),
            receivers: (true, "they can no longer count on it being present"))
    }

    /// P7 and P8.
    static func changedBound(_ bound: Bound, old: Double?, new: Double?, owner: ChangePath.Owner, usage: Usage) -> Verdict {
        if bound.isTightened(from: old, to: new) {
            return directional(
                .p7, owner: owner, usage: usage,
                senders: (true, "values that were valid before may now be rejected"),
                receivers: (false, "they get values within a narrower range than before"))
        }
        return directional(
            .p8, owner: owner, usage: usage,
            senders: (false, "everything they sent before is still valid"),
            receivers: (true, "they may get values outside the range they handled before"))
    }

    /// E1.
    static func addedElement(owner: ChangePath.Owner, usage: Usage) -> Verdict {
        directional(
            .e1, owner: owner, usage: usage,
            senders: (false, "they gain a value they may send"),
            receivers: (true, "they may get a value they do not know"))
    }

    /// Judges a change for each direction the owner travels in; breaking if it breaks either
    /// (a struct both sent and received gets the stricter verdict). G3 when it travels in none.
    private static func directional(
        _ rule: Rule, owner: ChangePath.Owner, usage: Usage,
        senders: (breaks: Bool, text: String), receivers: (breaks: Bool, text: String)
    ) -> Verdict {
        var judged: [(breaks: Bool, text: String)] = []
        if let via = usage.sentVia {
            judged.append((senders.breaks, "\(owner) is sent by apps\(example(via, owner)): \(senders.text)"))
        }
        if let via = usage.receivedVia {
            judged.append((receivers.breaks, "\(owner) is received by apps\(example(via, owner)): \(receivers.text)"))
        }
        if judged.isEmpty {
            return Verdict(
                isBreaking: false, rule: .g3, reason: "no message carries \(owner), so apps neither send nor receive it")
        }
        let breaking = judged.filter(\.breaks)
        let cited = breaking.isEmpty ? judged : breaking
        return Verdict(isBreaking: !breaking.isEmpty, rule: rule, reason: cited.map(\.text).joined(separator: "; "))
    }

    /// ` (e.g. in Show(request).softButtons)`; nothing for a function's own params.
    private static func example(_ via: String, _ owner: ChangePath.Owner) -> String {
        via == owner.description ? "" : " (e.g. in \(via))"
    }
}
