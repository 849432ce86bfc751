import Foundation
import SDLSpec
import SDLTestSupport
import Testing

@testable import SDLCodegen

/// Where the tests find files on disk, how they run the generator, and the record mode
/// (`SDL_RECORD=1`) that rewrites golden files instead of comparing with them.
enum TestSupport {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The package root, three levels above this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let fixturesDirectory = packageRoot + "/Tests/SDLCodegenTests/Fixtures"

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["SDL_RECORD"] == "1"
    }

    // MARK: Real specs

    /// Every published spec version the generator must handle.
    static let specVersions = SharedData.specVersions

    /// The path of a real spec; skips the test, naming the command that fetches them, when absent.
    static func realSpecPath(_ version: String) throws -> String {
        guard let path = SharedData.specFile(version) else { try Test.cancel(Comment(rawValue: SharedData.missingSpec(version))) }
        return path
    }

    static func loadRealSpec(_ version: String) throws -> LoadedSpec {
        try loadSpec(at: realSpecPath(version))
    }

    // MARK: Fixtures

    static func fixtureSpecPath(_ name: String) -> String {
        "\(fixturesDirectory)/\(name)/MOBILE_API.xml"
    }

    static func loadFixture(_ name: String) throws -> LoadedSpec {
        try loadSpec(at: fixtureSpecPath(name))
    }

    /// A spec from text, for tests that need a small spec of their own; it may have errors.
    static func loadSpec(xml: String) throws -> LoadedSpec {
        try SpecLoader.load(bytes: Array(xml.utf8), path: "inline.xml")
    }

    static func loadSpec(at path: String) throws -> LoadedSpec {
        let spec = try SpecLoader.load(path: path)
        if spec.hasErrors {
            throw Failure(description: "\(path) has errors:\n" + spec.diagnostics.map(\.description).joined(separator: "\n"))
        }
        return spec
    }

    // MARK: Generating

    static func options(_ configure: (inout GeneratorOptions) -> Void = { _ in }) -> GeneratorOptions {
        var options = GeneratorOptions()
        configure(&options)
        return options
    }

    /// The generated files by name.
    static func generate(_ spec: LoadedSpec, options: GeneratorOptions = GeneratorOptions()) throws -> [String: String] {
        let output = try Generator.generate(spec, options: options, templates: TemplateSet(overridesIn: options.templatesDirectory))
        return Dictionary(uniqueKeysWithValues: output.files.map { ($0.name, $0.contents) })
    }

    /// The render models, for tests that ask what was selected rather than how it reads.
    static func renderModels(_ spec: LoadedSpec, options: GeneratorOptions = GeneratorOptions()) throws -> [String: FileModel] {
        var builder = RenderModelBuilder(document: spec.document, options: options, specSHA256: spec.sha256)
        return Dictionary(uniqueKeysWithValues: try builder.build().map { ($0.fileName, $0) })
    }

    // MARK: Files

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The `.swift` (or other) file names directly inside `directory`; none when it does not exist.
    static func fileNames(in directory: String, withSuffix suffix: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(names.filter { $0.hasSuffix(suffix) })
    }

    /// A fresh, empty temporary folder; removed with `removeTemporaryDirectory`.
    static func makeTemporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("SDLCodegenTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func removeTemporaryDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    // MARK: Golden files

    /// Expects the file at `path` to hold exactly `actual`. With `SDL_RECORD=1` the file is
    /// rewritten instead (only when it differs, so unchanged goldens keep their timestamps).
    static func expectGolden(_ actual: String, at path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let expected = try? read(path)
        if isRecording {
            if expected != actual {
                try write(actual, to: path)
                print("Recorded \(path)")
            }
            return
        }
        guard let expected else {
            Issue.record("Missing golden file \(path); run the tests with SDL_RECORD=1 to write it.", sourceLocation: sourceLocation)
            return
        }
        if let difference = firstDifference(expected: expected, actual: actual) {
            Issue.record(
                "\(path) differs from the generated text (run with SDL_RECORD=1 to rewrite it):\n\(difference)",
                sourceLocation: sourceLocation)
        }
    }

    /// The first differing line of two texts, for a readable failure instead of a megabyte dump.
    static func firstDifference(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let wanted = index < expectedLines.count ? String(expectedLines[index]) : "<end of file>"
            let got = index < actualLines.count ? String(actualLines[index]) : "<end of file>"
            if wanted != got {
                return "line \(index + 1):\n  expected: \(wanted)\n  actual:   \(got)"
            }
        }
        return "the texts differ"
    }
}
