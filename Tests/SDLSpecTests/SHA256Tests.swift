import Foundation
import SDLTestSupport
import Testing

@testable import SDLSpec

@Suite("SHA256")
struct SHA256Tests {
    /// FIPS 180-4 example vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    }

    /// Bytes 0, 1, 2, … (mod 256) of lengths around the 64-byte block and the 55/56-byte padding
    /// edge; digests computed with `sha256sum`.
    @Test(arguments: [
        (1, "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"),
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
        (119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"),
        (120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"),
        (127, "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976"),
        (128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"),
        (100_000, "db8f1d69251d95e2c88268d3c540533cc5182e0e33065a6f3f322f606a574489"),
    ])
    func blockBoundaries(length: Int, digest: String) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hex(of: bytes) == digest)
    }

    @Test func digestIsThirtyTwoBytes() {
        #expect(SHA256.digest(of: Array("abc".utf8)).count == 32)
    }

    /// Every spec file present against `spec/rpc_spec.sha256`, the digests `sha256sum` gave for the
    /// published files (the fetch script checks downloads against the same list): a reference
    /// independent of our code, read without starting a process (Foundation's `Process` can hang
    /// in `waitUntilExit` on Linux).
    @Test func specDigestsMatchThePublishedList() throws {
        _ = try SpecFiles.spec("8.0.0")  // skips, saying how to fetch them, when the specs are absent
        let list = try String(contentsOfFile: SharedData.packageRoot + "/spec/rpc_spec.sha256", encoding: .utf8)
        let published = list.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(published.count == 12)
        for entry in published {
            let (digest, file) = (String(entry[0]), String(entry[1]))
            let parts = file.split(separator: "/")
            guard let path = SharedData.specFile(String(parts[0]), String(parts[1])) else { continue }
            #expect(SHA256.hex(of: Array(try Data(contentsOf: URL(fileURLWithPath: path)))) == digest, "\(file)")
        }
        #expect(try SpecFiles.load800().sha256 == published.first { $0[1] == "8.0.0/MOBILE_API.xml" }.map { String($0[0]) })
    }
}
