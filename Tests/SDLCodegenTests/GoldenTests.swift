import Foundation
import SDLSpec
import Testing

@testable import SDLCodegen

/// The generator's whole output, byte for byte, for the fixtures and for the committed 8.0.0
/// code. `SDL_RECORD=1` rewrites the expected files; review the diff before committing it.
@Suite struct GoldenTests {
    /// Fixture specs written for these tests: `Constructs` has one of every spec construct,
    /// `Naming` one case of every naming rule.
    @Test(arguments: ["Constructs", "Naming"])
    func fixtureMatchesExpected(_ name: String) throws {
        let files = try TestSupport.generate(try TestSupport.loadFixture(name))
        try expectFiles(files, in: "\(TestSupport.fixturesDirectory)/\(name)/Expected")
    }

    /// `Generated/` is what `sdlgen generate` writes for spec 8.0.0 with default options.
    @Test func generatedFolderMatchesSpec800() throws {
        let files = try TestSupport.generate(try TestSupport.loadRealSpec("8.0.0"))
        try expectFiles(files, in: TestSupport.packageRoot + "/Generated")
    }

    private func expectFiles(_ files: [String: String], in directory: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        #expect(Set(files.keys) == Set(RenderModelBuilder.fileNames), sourceLocation: sourceLocation)
        // A stale extra file would still be compiled with the rest.
        let extra = TestSupport.fileNames(in: directory, withSuffix: ".swift").subtracting(files.keys)
        if TestSupport.isRecording {
            for name in extra { try FileManager.default.removeItem(atPath: "\(directory)/\(name)") }
        } else {
            #expect(extra.isEmpty, "\(directory) holds files the generator does not write: \(extra.sorted())", sourceLocation: sourceLocation)
        }
        for (name, contents) in files.sorted(by: { $0.key < $1.key }) {
            try TestSupport.expectGolden(contents, at: "\(directory)/\(name)", sourceLocation: sourceLocation)
        }
    }
}
