/// A version as the spec writes it in `since`, `until` and `<interface version>`: `1.0`, `4.5.1`.
package struct SpecVersion: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    package var major: Int
    package var minor: Int
    package var patch: Int

    package init(major: Int, minor: Int, patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` with decimal components; anything else is nil.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(part)
            else { return nil }
            numbers.append(value)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers.count == 3 ? numbers[2] : 0)
    }

    package static func < (lhs: SpecVersion, rhs: SpecVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    package var description: String { "\(major).\(minor).\(patch)" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let version = SpecVersion(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a version: \(text)")
        }
        self = version
    }
}
