/// SplitMix64: a tiny seeded generator, so every "random" input is the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// `bytes` with 1 to 8 random edits: overwrite, insert, delete, or an interesting byte.
    public mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A]
        for _ in 0..<Int.random(in: 1...8, using: &self) {
            let index = result.isEmpty ? 0 : Int.random(in: 0..<result.count, using: &self)
            switch Int.random(in: 0..<4, using: &self) {
            case 0 where !result.isEmpty: result[index] = UInt8.random(in: 0...255, using: &self)
            case 1: result.insert(UInt8.random(in: 0...255, using: &self), at: index)
            case 2 where !result.isEmpty: result.remove(at: index)
            case 3 where !result.isEmpty: result[index] = interesting.randomElement(using: &self)!
            default: break
            }
        }
        return result
    }
}
