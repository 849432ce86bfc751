import Foundation
import Testing

/// The DocC articles' Swift is the Swift of DocumentationExamples.swift, which compiles.
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Lines without their indentation, blank ones left out.
    static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    @Test func everyCodeBlockOfTheArticlesCompiles() throws {
        let catalog = Self.root.appendingPathComponent("Sources/SmartDeviceLink/SmartDeviceLink.docc")
        let examples = Self.normalized(try String(contentsOf: Self.root.appendingPathComponent(
            "Tests/SmartDeviceLinkTests/Documentation/DocumentationExamples.swift"), encoding: .utf8))
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }.sorted()
        #expect(articles.count >= 8)
        var blocks = 0
        for article in articles {
            let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let code = Self.normalized(String(block.prefix { _ in true }.components(separatedBy: "```").first ?? ""))
                blocks += 1
                let found = examples.indices.contains { start in
                    start + code.count <= examples.count && Array(examples[start..<start + code.count]) == code
                }
                #expect(found, "\(article): a code block is not in DocumentationExamples.swift:\n\(code.joined(separator: "\n"))")
            }
        }
        #expect(blocks >= 20)
    }
}
