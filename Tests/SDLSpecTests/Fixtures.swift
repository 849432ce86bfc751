import Foundation
import Testing

@testable import SDLSpec

/// `SourceLocation` means the spec's file:line here; Swift Testing's own is `Testing.SourceLocation`.
typealias SourceLocation = SDLSpec.SourceLocation

/// Tiny inline specs for the validation tests.
enum Fixture {
    /// The name fixtures report diagnostics under.
    static let path = "test.xml"

    /// Wraps `snippet` in an `<interface>`. The interface is line 1, so the snippet's first
    /// line is line 2 of the document.
    static func document(_ snippet: String) -> String {
        """
        <interface name="Test" version="8.0.0" minVersion="1.0" date="2024-01-01">
        \(snippet)
        </interface>

        """
    }

    /// Loads a whole document; a thrown `SpecError` becomes its diagnostics.
    static func diagnostics(ofDocument xml: String) -> [Diagnostic] {
        do {
            return try SpecLoader.load(bytes: Array(xml.utf8), path: path).diagnostics
        } catch {
            return error.diagnostics
        }
    }

    /// The `file:line: error: message` lines for `snippet` inside an interface.
    static func errors(_ snippet: String) -> [String] {
        diagnostics(ofDocument: document(snippet)).filter { $0.severity == .error }.map(\.description)
    }

    static func warnings(_ snippet: String) -> [String] {
        diagnostics(ofDocument: document(snippet)).filter { $0.severity == .warning }.map(\.description)
    }

    /// Checks that `snippet` yields exactly the `expected` error lines, in file order.
    static func expectErrors(
        _ snippet: String, _ expected: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(errors(snippet) == expected, sourceLocation: sourceLocation)
    }

    static func load(_ snippet: String) throws -> LoadedSpec {
        try SpecLoader.load(bytes: Array(document(snippet).utf8), path: path)
    }

    /// A `FunctionID` enum for snippets that declare functions.
    static func functionIDs(_ names: String...) -> String {
        let elements = names.enumerated().map { "<element name=\"\($1)\" value=\"\($0 + 1)\"/>" }
        return "<enum name=\"FunctionID\">\(elements.joined())</enum>"
    }
}

/// Runs `body` with a file holding `contents`, removed afterwards.
func withTemporaryFile<T>(contents: String, suffix: String = ".xml", _ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("SDLSpecTests-\(UUID().uuidString)\(suffix)").path
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}
