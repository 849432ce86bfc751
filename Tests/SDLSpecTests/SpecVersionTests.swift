import Testing

@testable import SDLSpec

@Suite("SpecVersion")
struct SpecVersionTests {
    @Test(arguments: [
        ("1.0", SpecVersion(major: 1, minor: 0, patch: 0)),
        ("4.5.1", SpecVersion(major: 4, minor: 5, patch: 1)),
        ("8.0.0", SpecVersion(major: 8, minor: 0, patch: 0)),
        ("10.20.30", SpecVersion(major: 10, minor: 20, patch: 30)),
        ("07.01", SpecVersion(major: 7, minor: 1, patch: 0)),
    ])
    func parses(text: String, expected: SpecVersion) {
        #expect(SpecVersion(text) == expected)
    }

    @Test(arguments: ["", "1", "1.", ".1", "1..0", "a.b", "1.2.3.4", "-1.0", "+1.0", " 1.0", "1.0 ", "1.0-beta", "١.٠", "1234567890.0"])
    func rejects(text: String) {
        #expect(SpecVersion(text) == nil)
    }

    @Test func ordersByMajorMinorPatch() throws {
        let texts = ["10.0", "1.0", "4.5.1", "2.0", "4.5", "1.0.1", "1.1", "4.10"]
        let sorted = try texts.map { try #require(SpecVersion($0)) }.sorted().map(\.description)
        #expect(sorted == ["1.0.0", "1.0.1", "1.1.0", "2.0.0", "4.5.0", "4.5.1", "4.10.0", "10.0.0"])
        #expect(SpecVersion("1.0") == SpecVersion("1.0.0"))
        #expect(!(SpecVersion(major: 6, minor: 0) < SpecVersion(major: 6, minor: 0)))
    }

    @Test func availabilityRange() throws {
        let range = Availability(since: SpecVersion("5.0"), until: SpecVersion("7.1"))
        #expect(!range.isAvailable(in: SpecVersion(major: 4, minor: 5, patch: 1)))
        #expect(range.isAvailable(in: SpecVersion(major: 5, minor: 0)))
        #expect(range.isAvailable(in: SpecVersion(major: 7, minor: 0, patch: 9)))
        #expect(!range.isAvailable(in: SpecVersion(major: 7, minor: 1)))  // until is exclusive
        #expect(!Availability(removed: true).isAvailable(in: SpecVersion(major: 5, minor: 0)))
        #expect(Availability(deprecated: true).isAvailable(in: SpecVersion(major: 5, minor: 0)))
    }
}
