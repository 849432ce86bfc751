import Foundation

/// The check behind each DocC catalog's `DocumentationTests`: every ```swift block of the
/// catalog's articles appears, line for line, in a Swift file the tests compile.
public enum DocumentationBlocks {
    /// A block of an article that the examples file does not hold.
    public struct Missing: CustomStringConvertible, Sendable {
        public var article: String
        public var code: [String]
        public var description: String { "\(article): a code block is not in the examples file:\n\(code.joined(separator: "\n"))" }
    }

    /// Lines without their indentation, blank ones left out.
    public static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The articles (`.md`) of `catalog` read, their blocks counted, the ones missing from
    /// `examples` returned. Paths are relative to the package root.
    public static func check(catalog: String, examples: String) throws -> (articles: Int, blocks: Int, missing: [Missing]) {
        let root = URL(fileURLWithPath: SharedData.packageRoot)
        let catalogURL = root.appendingPathComponent(catalog)
        let lines = normalized(try String(contentsOf: root.appendingPathComponent(examples), encoding: .utf8))
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalogURL.path).filter { $0.hasSuffix(".md") }.sorted()
        var blocks = 0
        var missing: [Missing] = []
        for article in articles {
            let text = try String(contentsOf: catalogURL.appendingPathComponent(article), encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let code = normalized(block.components(separatedBy: "```").first ?? "")
                blocks += 1
                let found = lines.indices.contains { start in
                    start + code.count <= lines.count && Array(lines[start..<start + code.count]) == code
                }
                if !found { missing.append(Missing(article: article, code: code)) }
            }
        }
        return (articles.count, blocks, missing)
    }
}
