import SDLTestSupport
import Testing

/// The DocC articles' Swift is the Swift of DocumentationExamples.swift, which compiles.
@Suite struct DocumentationTests {
    @Test func everyCodeBlockOfTheArticlesCompiles() throws {
        let result = try DocumentationBlocks.check(
            catalog: "Sources/SmartDeviceLink/SmartDeviceLink.docc",
            examples: "Tests/SmartDeviceLinkTests/Documentation/DocumentationExamples.swift")
        #expect(result.articles >= 8)
        #expect(result.blocks >= 20)
        for missing in result.missing { Issue.record("\(missing)") }
    }
}
