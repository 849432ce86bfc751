/// Markdown for release notes: breaking changes first, since those are what readers must act on.
enum MarkdownRenderer {
    static func render(_ diff: SpecDiff) -> String {
        var out = "## API changes from \(diff.old.label) to \(diff.new.label)\n\n"
        guard !diff.changes.isEmpty else { return out + "No changes.\n" }
        out += "\(diff.summary). Rule ids refer to the compatibility rules.\n"
        let sections: [(String, [Change])] = [
            ("Breaking changes", diff.changes.filter(\.isBreaking)),
            ("Compatible changes", diff.changes.filter { !$0.isBreaking }),
        ]
        for (title, changes) in sections where !changes.isEmpty {
            out += "\n### \(title)\n"
            for (kind, ofKind) in diff.grouped(changes) {
                out += "\n#### \(kind.heading)\n\n"
                for change in ofKind {
                    let action = change.action.rawValue.prefix(1).uppercased() + change.action.rawValue.dropFirst()
                    out += "- **\(action)** `\(change.path)`" + (change.detailForReaders.map { ": \(escaped($0))" } ?? "") + ". "
                    out += "\(escaped(sentence(change.verdict.reason))) (\(change.verdict.rule.id))\n"
                }
            }
        }
        return out
    }

    private static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }

    /// Keeps spec text (names like `fuelLevel_State`, default values) from turning into markup.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\`*_[]<>|#".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
