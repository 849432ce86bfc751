import Foundation
import SDLTestSupport
import Testing

@testable import SDLSpec

/// Whatever the bytes, loading ends in a model or in a `SpecError` whose errors say where.
/// A crash or a hang fails the whole run; an error without a place fails here.
@discardableResult
func expectGracefulLoad(
    _ bytes: [UInt8], _ what: @autoclosure () -> String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Result<LoadedSpec, SpecError> {
    do {
        return .success(try SpecLoader.load(bytes: bytes, path: "hostile.xml"))
    } catch {
        let errors = error.diagnostics.filter { $0.severity == .error }
        let located = errors.filter { $0.location?.file == "hostile.xml" && ($0.location?.line ?? 0) >= 1 }
        #expect(!located.isEmpty, "\(what()): no located error in \(error.diagnostics)", sourceLocation: sourceLocation)
        return .failure(error)
    }
}

// The time limit only turns a hang into a failure; nothing here measures speed.
@Suite("Hostile input", .timeLimit(.minutes(2)))
struct HostileInputTests {
    static func spec800Bytes() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: try SpecFiles.spec("8.0.0"))))
    }

    @Test func emptyFile() {
        let error = #expect(throws: SpecError.self) { try SpecLoader.load(bytes: [], path: "hostile.xml") }
        #expect(error?.diagnostics.map(\.description) == ["hostile.xml:1: error: the file is empty"])
    }

    @Test func unreadablePath() {
        let error = #expect(throws: SpecError.self) { try SpecLoader.load(path: "/nonexistent/MOBILE_API.xml") }
        #expect(error?.diagnostics.first?.message.hasPrefix("cannot read the spec") == true)
    }

    @Test func truncatedSpec() throws {
        let bytes = try Self.spec800Bytes()
        // Every length up to 10 (empty included), then every 997th byte to the end.
        let lengths = Array(0..<10) + Array(stride(from: 10, to: bytes.count, by: 997))
        for length in lengths {
            let prefix = Array(bytes[..<length])
            let result = expectGracefulLoad(prefix, "first \(length) bytes")
            if case .failure(let error) = result {
                // The error points into the text that is there (or the line just after it).
                let lines = prefix.count { $0 == UInt8(ascii: "\n") } + 1
                #expect(error.diagnostics.allSatisfy { ($0.location?.line ?? 1) <= lines + 1 }, "first \(length) bytes")
            } else {
                Issue.record("the first \(length) bytes of the spec loaded as if complete")
            }
        }
    }

    @Test func latin1WithoutEncodingDeclaration() {
        let bytes = Self.document(withDescription: [0x63, 0x61, 0x66, 0xE9])  // "café" in Latin-1
        let result = expectGracefulLoad(bytes, "Latin-1 text")
        guard case .failure(let error) = result else {
            Issue.record("Latin-1 bytes were accepted as UTF-8")
            return
        }
        #expect(error.diagnostics.first?.location == SourceLocation(file: "hostile.xml", line: 3))
    }

    @Test func latin1WithEncodingDeclaration() throws {
        let body = Self.document(withDescription: [0x63, 0x61, 0x66, 0xE9])
        let bytes = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?>"#.utf8) + [0x0A] + body
        let spec = try SpecLoader.load(bytes: bytes, path: "hostile.xml")
        #expect(spec.interface.structs.first?.documentation.descriptions == ["café"])
    }

    @Test func utf16WithByteOrderMark() throws {
        let text = Fixture.document(#"<struct name="Größe"><description>ünïcödé</description></struct>"#)
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let spec = try SpecLoader.load(bytes: bytes, path: "hostile.xml")
        #expect(spec.interface.structs.map(\.name) == ["Größe"])
        #expect(spec.interface.structs.first?.documentation.descriptions == ["ünïcödé"])
    }

    @Test(
        arguments: [
            [0x80],  // a lone continuation byte
            [0xC0, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0xF8, 0x88, 0x80, 0x80, 0x80],  // a five-byte form
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xE2, 0x82],  // a sequence cut short
            [0xFF, 0xFE, 0xFF],
            [0x00],  // NUL
            [0x01, 0x1B],  // control characters XML forbids
        ] as [[UInt8]])
    func invalidSequences(sequence: [UInt8]) {
        // In text, in an attribute value, in an element name, and at the very end.
        // None of these is well-formed UTF-8 XML; in text the error names the line.
        let inText = expectGracefulLoad(Self.document(withDescription: sequence), "in text")
        if case .failure(let error) = inText {
            #expect(error.diagnostics.first?.location == SourceLocation(file: "hostile.xml", line: 3))
        } else {
            Issue.record("\(sequence) in text was accepted")
        }
        expectGracefulLoad(Self.document(withStructName: sequence), "in an attribute")
        expectGracefulLoad(Array("<interface name=\"T\"><st".utf8) + sequence + Array("ruct/></interface>".utf8), "in a name")
        expectGracefulLoad(Array(Fixture.document("").utf8) + sequence, "at the end")
    }

    @Test func randomBinary() {
        var generator = SplitMix64(seed: 0x5D1_5EC)
        for round in 0..<300 {
            let length = Int.random(in: 1...4096, using: &generator)
            var bytes = generator.bytes(length)
            // A third start like a spec, so the parser gets past the first byte.
            if round % 3 == 0 { bytes = Array("<?xml version=\"1.0\"?>\n<interface name=\"T\">".utf8) + bytes }
            expectGracefulLoad(bytes, "random round \(round)")
        }
    }

    @Test func mutatedSpec() throws {
        let original = try Self.spec800Bytes()
        var generator = SplitMix64(seed: 8_0_0)
        var outcomes = (loaded: 0, thrown: 0)
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                Self.mutate(&bytes, using: &generator)
            }
            switch expectGracefulLoad(bytes, "mutation round \(round)") {
            case .success: outcomes.loaded += 1
            case .failure: outcomes.thrown += 1
            }
        }
        // Both ways out were taken, so the mutations reached the builder and validator too.
        #expect(outcomes.loaded > 0 && outcomes.thrown > 0, "\(outcomes)")
    }

    @Test func deeplyNestedElements() {
        let depth = 10_000
        let xml =
            "<interface name=\"T\">" + String(repeating: "<struct>", count: depth)
            + String(repeating: "</struct>", count: depth) + "</interface>"
        let result = expectGracefulLoad(Array(xml.utf8), "10,000 levels")
        if case .success = result { Issue.record("10,000 levels of nesting were accepted") }
    }

    @Test func deepHistoryWithinTheParserLimit() throws {
        // Nested <param><history> chains: 2 levels each, 120 times, under libxml2's 256 depth limit.
        let levels = 120
        let open = String(repeating: #"<param name="p" type="String"><history>"#, count: levels)
        let close = String(repeating: "</history></param>", count: levels)
        let spec = try Fixture.load(#"<struct name="S">\#(open)\#(close)</struct>"#)
        var depth = 0
        var parameter = spec.interface.structs.first?.parameters.first
        while let current = parameter {
            depth += 1
            parameter = current.history.first
        }
        #expect(depth == levels)
    }

    @Test func billionLaughs() {
        // Ten levels of ten references: 10^9 "lol"s if anything expanded them.
        var entities = #"<!ENTITY lol0 "lol">"#
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE interface [\(entities)]>
            <interface name="&lol9;" version="8.0.0">
            <struct name="S"><description>&lol9;</description></struct>
            </interface>
            """
        if case .success(let spec) = expectGracefulLoad(Array(xml.utf8), "billion laughs") {
            #expect(spec.interface.name.utf8.count < 1_000_000)
            #expect(spec.interface.structs.flatMap(\.documentation.descriptions).allSatisfy { $0.utf8.count < 1_000_000 })
        }
    }

    @Test func quadraticBlowup() {
        // One 50 kB entity referenced 20,000 times: 1 GB if expanded.
        let big = String(repeating: "x", count: 50_000)
        let references = String(repeating: "&big;", count: 20_000)
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE interface [<!ENTITY big "\(big)">]>
            <interface name="\(references)" version="8.0.0">
            <struct name="S"><description>\(references)</description></struct>
            </interface>
            """
        if case .success(let spec) = expectGracefulLoad(Array(xml.utf8), "quadratic blowup") {
            // The references stay as written.
            #expect(spec.interface.name == references)
            #expect(spec.interface.structs.flatMap(\.documentation.descriptions).allSatisfy { $0.utf8.count < 1_000_000 })
        }
    }

    @Test func externalEntitiesAreNotRead() throws {
        let marker = "SECRET-\(UUID().uuidString)"
        try withTemporaryFile(contents: marker, suffix: ".txt") { secret in
            try withTemporaryFile(contents: "<!ENTITY leak \"\(marker)\">", suffix: ".dtd") { dtd in
                let documents = [
                    // A general external entity, in text and in an attribute.
                    """
                    <?xml version="1.0"?>
                    <!DOCTYPE interface [<!ENTITY secret SYSTEM "file://\(secret)">]>
                    <interface name="T" version="8.0.0">
                    <struct name="S"><description>&secret;</description></struct>
                    </interface>
                    """,
                    """
                    <?xml version="1.0"?>
                    <!DOCTYPE interface [<!ENTITY secret SYSTEM "file://\(secret)">]>
                    <interface name="&secret;" version="8.0.0"/>
                    """,
                    // An external DTD and an external parameter entity that would define &leak;.
                    """
                    <?xml version="1.0"?>
                    <!DOCTYPE interface SYSTEM "file://\(dtd)">
                    <interface name="&leak;" version="8.0.0"/>
                    """,
                    """
                    <?xml version="1.0"?>
                    <!DOCTYPE interface [<!ENTITY % ext SYSTEM "file://\(dtd)"> %ext;]>
                    <interface name="&leak;" version="8.0.0"/>
                    """,
                ]
                for (index, xml) in documents.enumerated() {
                    switch expectGracefulLoad(Array(xml.utf8), "external entity document \(index)") {
                    case .success(let spec):
                        let everything = "\(spec.interface) \(spec.diagnostics)"
                        #expect(!everything.contains(marker), "document \(index) read the external file")
                    case .failure(let error):
                        #expect(!error.description.contains(marker), "document \(index) read the external file")
                    }
                }
            }
        }
    }

    // MARK: Helpers

    /// A small spec whose struct description, on line 3, is `bytes`.
    static func document(withDescription bytes: [UInt8]) -> [UInt8] {
        Array("<interface name=\"T\" version=\"8.0.0\">\n<struct name=\"S\">\n<description>".utf8)
            + bytes + Array("</description>\n</struct>\n</interface>\n".utf8)
    }

    /// A small spec whose struct, on line 2, is named `bytes`.
    static func document(withStructName bytes: [UInt8]) -> [UInt8] {
        Array("<interface name=\"T\" version=\"8.0.0\">\n<struct name=\"".utf8)
            + bytes + Array("\"/>\n</interface>\n".utf8)
    }

    /// One random edit: flip a bit, drop in a byte that means something to XML, insert
    /// random bytes, delete a run, or copy a run elsewhere (duplicating definitions).
    static func mutate(_ bytes: inout [UInt8], using generator: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0:
            bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
        case 1:
            let meaningful = Array("<>&\"'/=;#x0".utf8) + [0x00, 0x80, 0xC3, 0xFF]
            bytes[position] = meaningful.randomElement(using: &generator)!
        case 2:
            bytes.insert(contentsOf: generator.bytes(Int.random(in: 1...8, using: &generator)), at: position)
        case 3:
            let end = min(bytes.count, position + Int.random(in: 1...64, using: &generator))
            bytes.removeSubrange(position..<end)
        default:
            let end = min(bytes.count, position + Int.random(in: 1...2000, using: &generator))
            let run = Array(bytes[position..<end])
            bytes.insert(contentsOf: run, at: Int.random(in: 0...bytes.count, using: &generator))
        }
    }
}
