/// A JSON array of changes in canonical order, keys in a fixed order, so output is byte-stable.
///
/// Each object: `change`, `kind`, `path`, `breaking`, `detail`, `rule`, `reason`, `aspect`,
/// `old`, `new` (the last two are null where the aspect has no such value).
enum JSONRenderer {
    static func render(_ diff: SpecDiff) -> String {
        guard !diff.changes.isEmpty else { return "[]\n" }
        let objects = diff.changes.map { change in
            let (old, new) = change.aspect.values
            let fields: [(String, String)] = [
                ("change", string(change.action.rawValue)),
                ("kind", string(change.kind.rawValue)),
                ("path", string(change.path.description)),
                ("breaking", change.isBreaking ? "true" : "false"),
                ("detail", string(change.detail)),
                ("rule", string(change.verdict.rule.id)),
                ("reason", string(change.verdict.reason)),
                ("aspect", string(change.aspect.name)),
                ("old", old.map(string) ?? "null"),
                ("new", new.map(string) ?? "null"),
            ]
            return "  {\n" + fields.map { "    \(string($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n  }"
        }
        return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    }

    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
