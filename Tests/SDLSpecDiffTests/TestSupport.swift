import Foundation
import SDLSpec
import SDLSpecDiff
import SDLTestSupport
import Testing

/// Where the tests find fixtures and the real specs, and a compact way to state expected changes.
enum TestSupport {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The package root, three levels above this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let fixturesDirectory = packageRoot + "/Tests/SDLSpecDiffTests/Fixtures"

    static var isRecording: Bool { ProcessInfo.processInfo.environment["SDL_RECORD"] == "1" }

    // MARK: Fixtures

    /// A spec that must load without errors.
    static func load(_ path: String) throws -> LoadedSpec {
        let spec = try SpecLoader.load(path: path)
        if spec.hasErrors {
            throw Failure(description: "\(path) has errors:\n" + spec.diagnostics.map(\.description).joined(separator: "\n"))
        }
        return spec
    }

    /// `Fixtures/<name>/old.xml` against `new.xml`, each at its own version.
    static func fixtureDiff(_ name: String) throws -> SpecDiff {
        let old = try load("\(fixturesDirectory)/\(name)/old.xml")
        let new = try load("\(fixturesDirectory)/\(name)/new.xml")
        return SpecDiff(old: old.interface, at: old.interface.version, new: new.interface, at: new.interface.version)
    }

    static func historySpec() throws -> LoadedSpec {
        try load("\(fixturesDirectory)/history/spec.xml")
    }

    // MARK: Real specs

    static let specVersions = SharedData.specVersions

    /// The path of a real spec; skips the test, naming the command that fetches them, when absent.
    static func realSpecPath(_ version: String) throws -> String {
        guard let path = SharedData.specFile(version) else { try Test.cancel(Comment(rawValue: SharedData.missingSpec(version))) }
        return path
    }

    /// Every real spec, loaded once for all suites.
    private static let realSpecs = Result { () throws -> [String: LoadedSpec] in
        var specs: [String: LoadedSpec] = [:]
        for version in specVersions { specs[version] = try load(try realSpecPath(version)) }
        return specs
    }

    static func realSpec(_ version: String) throws -> LoadedSpec {
        for version in specVersions { _ = try realSpecPath(version) }  // skips here when absent
        return try #require(try realSpecs.get()[version])
    }

    /// Two real spec files, each at its own version.
    static func realFileDiff(_ old: String, _ new: String) throws -> SpecDiff {
        let a = try realSpec(old)
        let b = try realSpec(new)
        return SpecDiff(old: a.interface, at: a.interface.version, new: b.interface, at: b.interface.version)
    }

    /// Two versions rebuilt from inside one real spec.
    static func realHistoryDiff(in spec: String, from: String, to: String) throws -> SpecDiff {
        let interface = try realSpec(spec).interface
        return SpecDiff(old: interface, at: SpecVersion(from), new: interface, at: SpecVersion(to))
    }

    // MARK: Golden files

    /// Expects the file at `path` to hold exactly `actual`; `SDL_RECORD=1` rewrites it instead.
    static func expectGolden(_ actual: String, at path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let expected = try? String(contentsOfFile: path, encoding: .utf8)
        if isRecording {
            if expected != actual { try actual.write(toFile: path, atomically: true, encoding: .utf8) }
            return
        }
        guard let expected else {
            Issue.record("Missing golden file \(path); run the tests with SDL_RECORD=1 to write it.", sourceLocation: sourceLocation)
            return
        }
        guard expected != actual else { return }
        let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(wanted.count, got.count)).first { wanted[$0] != got[$0] } ?? min(wanted.count, got.count)
        Issue.record(
            """
            \(path) differs at line \(line + 1) (run with SDL_RECORD=1 to rewrite it):
              expected: \(line < wanted.count ? String(wanted[line]) : "<end>")
              actual:   \(line < got.count ? String(got[line]) : "<end>")
            """,
            sourceLocation: sourceLocation)
    }
}

extension Change {
    /// `changed param Sent.tightened [maxvalue: 100 → 50] breaking P7`: one line that states
    /// everything a test cares about, so expectations read like the output.
    var row: String {
        "\(action.rawValue) \(kind.rawValue) \(path) [\(detail)] \(isBreaking ? "breaking" : "compatible") \(verdict.rule.id)"
    }
}

extension SpecDiff {
    var rows: [String] { changes.map(\.row) }

    /// The changes at `path`, e.g. `TireStatus.leftFront`.
    func changes(at path: String) -> [Change] {
        changes.filter { $0.path.description == path }
    }
}
