import Foundation
import SDLSpec
import SDLSpecDiff
import Testing

/// The three formats, checked against golden files (`SDL_RECORD=1` rewrites them).
@Suite("Rendering")
struct RenderingTests {
    static let cases = ["functions", "types", "params", "elements"]
    static let extensions: [DiffFormat: String] = [.text: "txt", .markdown: "md", .json: "json"]

    @Test("matches the golden file", arguments: cases, DiffFormat.allCases)
    func golden(name: String, format: DiffFormat) throws {
        let diff = try TestSupport.fixtureDiff(name)
        let path = "\(TestSupport.fixturesDirectory)/\(name)/expected.\(Self.extensions[format]!)"
        try TestSupport.expectGolden(diff.rendered(as: format), at: path)
    }

    @Test("JSON is an array of objects with the documented fields", arguments: cases)
    func jsonShape(name: String) throws {
        let diff = try TestSupport.fixtureDiff(name)
        let parsed = try JSONSerialization.jsonObject(with: Data(diff.rendered(as: .json).utf8))
        let objects = try #require(parsed as? [[String: Any]])
        #expect(objects.count == diff.changes.count)
        for (object, change) in zip(objects, diff.changes) {
            #expect(object["change"] as? String == change.action.rawValue)
            #expect(object["kind"] as? String == change.kind.rawValue)
            #expect(object["path"] as? String == change.path.description)
            #expect(object["breaking"] as? Bool == change.isBreaking)
            #expect(object["detail"] as? String == change.detail)
            #expect(object["rule"] as? String == change.verdict.rule.id)
            #expect(object["reason"] as? String == change.verdict.reason)
        }
        #expect(Set(objects.compactMap { $0["change"] as? String }).isSubset(of: ["added", "removed", "changed", "deprecated"]))
        #expect(Set(objects.compactMap { $0["kind"] as? String }).isSubset(of: ["function", "struct", "enum", "param", "element"]))
    }

    @Test func jsonOfNoChangesIsAnEmptyArray() throws {
        let spec = try TestSupport.load("\(TestSupport.fixturesDirectory)/types/new.xml").interface
        let diff = SpecDiff(old: spec, at: spec.version, new: spec, at: spec.version)
        #expect(diff.rendered(as: .json) == "[]\n")
        #expect(diff.rendered(as: .text) == "API changes from 2.0.0 to 2.0.0: none\n")
    }

    @Test("the same input renders the same bytes, whatever the order in the files")
    func deterministic() throws {
        let old = try TestSupport.load("\(TestSupport.fixturesDirectory)/params/old.xml").interface
        var new = try TestSupport.load("\(TestSupport.fixturesDirectory)/params/new.xml").interface
        let first = SpecDiff(old: old, at: old.version, new: new, at: new.version)
        new.structs.reverse()
        new.functions.reverse()
        for index in new.structs.indices { new.structs[index].parameters.reverse() }
        let shuffled = SpecDiff(old: old, at: old.version, new: new, at: new.version)
        for format in DiffFormat.allCases {
            #expect(first.rendered(as: format) == shuffled.rendered(as: format))
        }
    }

    @Test func jsonEscapesStrings() throws {
        let xml = """
            <interface name="T" version="2.0.0">
            <enum name="FunctionID"><element name="SID" value="1"/></enum>
            <function name="S" functionID="SID" messagetype="request">
            <param name="p" type="String" mandatory="false" defvalue="say &quot;hi&quot;\\now"/>
            </function>
            <function name="S" functionID="SID" messagetype="response"/>
            </interface>
            """
        let new = try SpecLoader.load(bytes: Array(xml.utf8), path: "inline.xml").interface
        let old = try SpecLoader.load(bytes: Array(xml.replacingOccurrences(of: "defvalue=\"say &quot;hi&quot;\\now\"", with: "").utf8), path: "inline.xml")
            .interface
        let json = SpecDiff(old: old, at: nil, new: new, at: nil).rendered(as: .json)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(objects.first?["new"] as? String == "say \"hi\"\\now")
        #expect(objects.first?["old"] is NSNull)
    }
}
