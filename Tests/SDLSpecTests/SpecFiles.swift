import Foundation
import SDLSpec
import SDLTestSupport
import Testing

/// The real `MOBILE_API.xml` files. They are not part of the repository (see `SharedData`): a
/// test that needs one is skipped, naming the command that fetches them, when it is absent.
enum SpecFiles {
    static let versions = SharedData.specVersions
    /// Versions that ship a `MOBILE_API.xsd` beside the XML.
    static let schemaVersions = ["7.0.0", "7.1.0", "8.0.0"]

    static var directory: String { SharedData.specDirectory }

    /// Path of `<version>/MOBILE_API.xml`; skips the test when absent.
    static func spec(_ version: String) throws -> String {
        guard let path = SharedData.specFile(version) else { try Test.cancel(Comment(rawValue: SharedData.missingSpec(version))) }
        return path
    }

    static func schema(_ version: String) throws -> String {
        guard let path = SharedData.specFile(version, "MOBILE_API.xsd") else { try Test.cancel(Comment(rawValue: SharedData.missingSpec(version))) }
        return path
    }

    /// 8.0.0 loaded once and shared, since several suites look at it.
    private static let loaded800 = Result { () throws -> LoadedSpec in try SpecLoader.load(path: try spec("8.0.0")) }

    static func load800() throws -> LoadedSpec {
        _ = try spec("8.0.0")  // skips here, in the asking test, when it is absent
        return try loaded800.get()
    }

    /// 1-based number of the first line of `path` that contains `needle`: an oracle for
    /// the line numbers the reader reports, found the way `grep -n` would.
    static func line(containing needle: String, in path: String) throws -> Int {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains(needle) }, "'\(needle)' not in \(path)")
        return index + 1
    }
}
