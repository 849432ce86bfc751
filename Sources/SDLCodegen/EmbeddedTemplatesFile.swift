/// Renders `EmbeddedTemplates.swift`, the built-in copy of `Templates/` compiled into the
/// generator (SwiftPM resources must live inside a target). A test keeps the two in sync.
package enum EmbeddedTemplatesFile {
    package static func render(_ sources: [String: String]) -> String {
        var out = """
            // DO NOT EDIT: the built-in copy of Templates/.
            // Refresh with `SDL_RECORD=1 swift test --filter EmbeddedTemplatesTests`.

            enum EmbeddedTemplates {
                static let sources: [String: String] = [

            """
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            var hashes = "#"
            while source.contains("\"" + hashes) || source.contains("\\" + hashes) { hashes += "#" }
            out += "        \(SwiftLiteral.string(name)): \(hashes)\"\"\"\n"
            for line in source.split(separator: "\n", omittingEmptySubsequences: false).dropLast(source.hasSuffix("\n") ? 1 : 0) {
                out += line.isEmpty ? "\n" : "            \(line)\n"
            }
            if source.hasSuffix("\n") { out += "\n" }
            out += "            \"\"\"\(hashes),\n"
        }
        out += "    ]\n}\n"
        return out
    }
}
