/// Plain text for a terminal: a header, then one section per kind.
///
///     Params (1 change, 1 breaking)
///       breaking    changed     TireStatus.leftFront — mandatory: true → false
///                               P4: TireStatus is received by apps (…): they can no longer count on it being present
enum TextRenderer {
    static func render(_ diff: SpecDiff) -> String {
        let title = "API changes from \(diff.old.label) to \(diff.new.label)"
        guard !diff.changes.isEmpty else { return "\(title): none\n" }
        var out = "\(title): \(diff.summary)\n"
        for (kind, changes) in diff.grouped(diff.changes) {
            let breaking = changes.count { $0.isBreaking }
            out += "\n\(kind.heading) (\(changes.count) change\(changes.count == 1 ? "" : "s"), \(breaking) breaking)\n"
            for change in changes {
                let verdict = padded(change.isBreaking ? "breaking" : "compatible", 12)
                out += "  \(verdict)\(padded(change.action.rawValue, 12))\(change.path)\(change.detailForReaders.map { " — \($0)" } ?? "")\n"
                out += "  \(String(repeating: " ", count: 24))\(change.verdict.rule.id): \(change.verdict.reason)\n"
            }
        }
        return out
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
