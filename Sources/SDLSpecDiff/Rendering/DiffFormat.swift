/// The output formats of a diff.
package enum DiffFormat: String, Hashable, Sendable, CaseIterable {
    /// For a terminal: grouped by kind, one change per line with its reason under it.
    case text
    /// For release notes: breaking changes first, then compatible ones, grouped by kind.
    case markdown
    /// For tools: an array of objects in canonical order.
    case json
}

extension SpecDiff {
    package func rendered(as format: DiffFormat) -> String {
        switch format {
        case .text: TextRenderer.render(self)
        case .markdown: MarkdownRenderer.render(self)
        case .json: JSONRenderer.render(self)
        }
    }
}

extension Change.Kind {
    /// Section heading, plural.
    var heading: String {
        switch self {
        case .function: "Functions"
        case .struct: "Structs"
        case .enum: "Enums"
        case .param: "Params"
        case .element: "Enum elements"
        }
    }
}

extension SpecDiff {
    /// The changes of each kind, in kind order, skipping kinds with none.
    func grouped(_ changes: [Change]) -> [(kind: Change.Kind, changes: [Change])] {
        Change.Kind.allCases.compactMap { kind in
            let ofKind = changes.filter { $0.kind == kind }
            return ofKind.isEmpty ? nil : (kind, ofKind)
        }
    }

    /// `7 changes (2 breaking, 5 compatible)`.
    var summary: String {
        let total = changes.count
        return "\(total) change\(total == 1 ? "" : "s") (\(breakingCount) breaking, \(total - breakingCount) compatible)"
    }
}

extension Change {
    /// The detail where it adds to the action: `deprecated Alert(request)` needs no second "deprecated".
    var detailForReaders: String? {
        detail == action.rawValue ? nil : detail
    }
}
