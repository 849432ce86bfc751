import Foundation
import SDLRuntime
import SDLTestSupport
import Testing

@testable import sdl

/// `sdl decode` prints, line for line, what the independent decoder read from the SDL Core captures.
@Suite struct DecodeTests {
    static var capturesDirectory: URL { URL(fileURLWithPath: SharedData.capturesDirectory) }

    static let files = ["sdl-core-8.2.0-session", "sdl-core-8.2.0-protocol4"].flatMap { ["\($0)/app-to-hu", "\($0)/hu-to-app"] }

    /// Says once why the cases below are skipped when the recordings are absent (a skipped case
    /// of a parameterized test is reported as passed, without its reason).
    @Test func theRecordingsAreHere() throws {
        for file in Self.files where !FileManager.default.fileExists(atPath: Self.capturesDirectory.appendingPathComponent(file).path + ".bin") {
            try Test.cancel(Comment(rawValue: SharedData.missingCapture(Self.capturesDirectory.appendingPathComponent(file).path)))
        }
    }

    @Test(arguments: files)
    func matchesTheIndependentDecoding(_ file: String) throws {
        let base = Self.capturesDirectory.appendingPathComponent(file)
        guard let bytes = FileManager.default.contents(atPath: base.path + ".bin") else {
            try Test.cancel(Comment(rawValue: SharedData.missingCapture(base.path)))
        }
        let expected = try #require(FileManager.default.contents(atPath: base.path + ".jsonl"))
        let ours = try Decode.decode(Array(bytes)).map { try JSONSerialization.jsonObject(with: Data($0.jsonBytes)) as? NSDictionary }
        let theirs = try expected.split(separator: UInt8(ascii: "\n")).map { try JSONSerialization.jsonObject(with: Data($0)) as? NSDictionary }
        #expect(ours.count == theirs.count)
        for (index, (mine, reference)) in zip(ours, theirs).enumerated() {
            #expect(mine == reference, "line \(index + 1)")
        }
    }

    @Test func aTruncatedCaptureEndsWithAnErrorLine() throws {
        let lines = try Decode.decode([0x51, 0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0, 0, 0, 1, 1, 2])
        #expect(lines.last?["error"] != nil)
    }
}
