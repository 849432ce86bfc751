import Foundation
import SDLSpec
import SDLTestSupport
import Testing

@testable import SDLSpecDiff

/// Two HMI APIs compared with the same rules as two mobile specs: SDL Core 8.2.0's HMI_API.xml
/// against a copy with one change of each kind made in the test.
@Suite("HMI API diffs")
struct HMIDiffTests {
    static func original() throws -> String {
        guard let path = SharedData.hmiSpecFile() else { try Test.cancel(Comment(rawValue: SharedData.missingHMISpec())) }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// `text` with `old` replaced once, after `anchor`; the test fails when either is not there.
    static func replacing(_ old: String, with new: String, after anchor: String, in text: String) throws -> String {
        let start = try #require(text.range(of: anchor), "'\(anchor)' not in HMI_API.xml")
        let range = try #require(text.range(of: old, range: start.lowerBound..<text.endIndex), "'\(old)' not after '\(anchor)'")
        return text.replacingCharacters(in: range, with: new)
    }

    static func load(_ text: String, path: String) throws -> LoadedSpec {
        let spec = try SpecLoader.load(bytes: Array(text.utf8), path: path)
        #expect(!spec.hasErrors, "\(spec.diagnostics)")
        return spec
    }

    @Test func removedParameterNewElementAndTypeChange() throws {
        let original = try Self.original()
        var mutated = try Self.replacing(
            #"<param name="alignment" type="Common.TextAlignment" mandatory="false">"#,
            with: #"<param name="alignment_gone" type="Common.TextAlignment" mandatory="false">"#,
            after: #"<function name="Show" messagetype="request">"#, in: original)
        // The rename above is a removal plus an addition; make the addition go away too by
        // removing the renamed param's element entirely.
        let renamed = try #require(mutated.range(of: #"<param name="alignment_gone""#))
        let end = try #require(mutated.range(of: "</param>", range: renamed.upperBound..<mutated.endIndex))
        mutated.removeSubrange(renamed.lowerBound..<end.upperBound)
        mutated = try Self.replacing(
            "<element name=\"LEFT_ALIGNED\" />", with: "<element name=\"LEFT_ALIGNED\" />\n    <element name=\"JUSTIFIED\"/>",
            after: #"<enum name="TextAlignment">"#, in: mutated)
        mutated = try Self.replacing(
            #"name="numTicks" type="Integer""#, with: #"name="numTicks" type="Float""#, after: #"<function name="Slider" messagetype="request">"#,
            in: mutated)

        let old = try Self.load(original, path: "HMI_API.xml")
        let new = try Self.load(mutated, path: "mutated.xml")
        let diff = SpecDiff(old: old.interface, at: nil, source: "HMI_API.xml", new: new.interface, at: nil, source: "mutated.xml")
        #expect(
            diff.rows == [
                "removed param UI.Show(request).alignment [optional Common.TextAlignment] breaking G1",
                "changed param UI.Slider(request).numTicks [type: Integer → Float] breaking P5",
                "added element Common.TextAlignment.JUSTIFIED [enum element] compatible E1",
            ])
        #expect(diff.breakingCount == 2)
        // The same file twice: nothing.
        #expect(SpecDiff(old: old.interface, at: nil, new: old.interface, at: nil).changes.isEmpty)
    }
}
