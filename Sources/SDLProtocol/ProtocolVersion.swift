/// A protocol version as StartService and its ACK spell it (`5.4.0`). Parsed once here, so the
/// app side and the head unit agree on what `"5"` or `"5.4"` mean.
public struct SDLProtocolVersion: Hashable, Comparable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    public var major: UInt8
    public var minor: UInt8
    public var patch: UInt8

    public init(_ major: UInt8, _ minor: UInt8 = 0, _ patch: UInt8 = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `major[.minor[.patch]]` with a major of 1...5 (the versions a frame header can carry);
    /// nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), let number = UInt8(part) else { return nil }
            numbers.append(number)
        }
        guard (1...5).contains(numbers[0]) else { return nil }
        self.init(numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
    }

    /// The newest version this library speaks: BSON control payloads, `mtu`, vehicle info.
    public static let latest = SDLProtocolVersion(5, 4, 0)

    /// The first version whose control frames carry BSON payloads.
    public var hasControlPayloads: Bool { major >= 5 }

    /// Frame payload size when the head unit names none: 1,500-byte frames for 1–2, 128 KiB after.
    public var defaultMTU: Int { major <= 2 ? SDLFramer.legacyMaxPayloadSize : SDLFramer.defaultMaxPayloadSize }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}
