import SDLTestSupport
import Testing

/// The DocC catalog's Swift is the Swift of DocumentationExamples.swift, which compiles.
@Suite struct DocumentationTests {
    @Test func everyCodeBlockOfTheArticlesCompiles() throws {
        let result = try DocumentationBlocks.check(
            catalog: "GeneratedHMI/SDLHMIRPC.docc", examples: "Tests/SDLHMIRPCTests/DocumentationExamples.swift")
        #expect(result.articles >= 2)
        #expect(result.blocks >= 4)
        for missing in result.missing { Issue.record("\(missing)") }
    }
}
