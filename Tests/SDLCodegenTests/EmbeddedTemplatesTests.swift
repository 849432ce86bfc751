import Testing

@testable import SDLCodegen

/// `EmbeddedTemplates.swift` is the compiled-in copy of `Templates/`; the two must not drift.
@Suite struct EmbeddedTemplatesTests {
    /// `Templates/*.mustache` by template name.
    private func templateFolder() throws -> [String: String] {
        let directory = TestSupport.packageRoot + "/Templates"
        var sources: [String: String] = [:]
        for file in TestSupport.fileNames(in: directory, withSuffix: ".mustache") {
            sources[String(file.dropLast(".mustache".count))] = try TestSupport.read("\(directory)/\(file)")
        }
        return sources
    }

    @Test func embeddedFileMatchesTemplatesFolder() throws {
        let sources = try templateFolder()
        #expect(!sources.isEmpty)
        try TestSupport.expectGolden(
            EmbeddedTemplatesFile.render(sources), at: TestSupport.packageRoot + "/Sources/SDLCodegen/EmbeddedTemplates.swift")
    }

    /// Compares the compiled-in copy, so after recording it passes only once the module is rebuilt.
    @Test func builtInTemplatesAreTheTemplatesFolder() throws {
        #expect(try TemplateSet().sources == templateFolder())
    }

    /// The embedding survives sources that contain quotes, backslashes and `"#`, and keeps blank lines.
    @Test func embeddingEscapesRawStringDelimiters() throws {
        let source = "a \"quoted\" \\ line\n\nand \"# a raw delimiter\n"
        let file = EmbeddedTemplatesFile.render(["Tricky": source])
        #expect(file.contains("\"Tricky\": ##\"\"\"\n"))
        #expect(file.contains("            and \"# a raw delimiter\n\n            \"\"\"##,\n"))
    }
}
