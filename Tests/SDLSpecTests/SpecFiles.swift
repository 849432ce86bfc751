import Foundation
import SDLSpec
import Testing

/// The real `MOBILE_API.xml` files. They are not part of the repository: the tests find them
/// through `SDL_RPC_SPEC_DIR`, or at `<package root>/../shared/rpc_spec` when it is unset.
enum SpecFiles {
    static let versions = ["4.4.0", "4.5.0", "4.5.1", "5.0.0", "5.1.0", "6.0.0", "7.0.0", "7.1.0", "8.0.0"]
    /// Versions that ship a `MOBILE_API.xsd` beside the XML.
    static let schemaVersions = ["7.0.0", "7.1.0", "8.0.0"]

    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "spec file not found: \(path). Set SDL_RPC_SPEC_DIR to the folder holding <version>/MOBILE_API.xml"
        }
    }

    static var directory: String {
        if let value = ProcessInfo.processInfo.environment["SDL_RPC_SPEC_DIR"], !value.isEmpty {
            return value
        }
        // This file is <root>/Tests/SDLSpecTests/SpecFiles.swift.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent("../shared/rpc_spec").standardized.path
    }

    /// Path of `<version>/MOBILE_API.xml`; throws (failing the test, never skipping it) when absent.
    static func spec(_ version: String) throws -> String {
        try existing("\(directory)/\(version)/MOBILE_API.xml")
    }

    static func schema(_ version: String) throws -> String {
        try existing("\(directory)/\(version)/MOBILE_API.xsd")
    }

    private static func existing(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// 8.0.0 loaded once and shared, since several suites look at it.
    private static let loaded800 = Result { () throws -> LoadedSpec in try SpecLoader.load(path: try spec("8.0.0")) }

    static func load800() throws -> LoadedSpec { try loaded800.get() }

    /// 1-based number of the first line of `path` that contains `needle`: an oracle for
    /// the line numbers the reader reports, found the way `grep -n` would.
    static func line(containing needle: String, in path: String) throws -> Int {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains(needle) }, "'\(needle)' not in \(path)")
        return index + 1
    }
}
