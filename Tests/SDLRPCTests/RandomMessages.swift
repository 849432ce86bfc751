import PropertyBased
import SDLRPC
import SDLRuntime

/// Builds random *valid* JSON for any generated type from its metadata alone: every bound,
/// length, size and enum of the spec is respected, optional params appear half the time.
/// Below `maxDepth` only mandatory params and minimal arrays are generated, because some
/// structs hold arrays of themselves (`VideoStreamingCapability`).
/// Strings mix ASCII, characters JSON must escape, control characters and multi-byte text.
struct RandomMessages: Sendable {
    let structs: [String: SDLStructInfo]
    let enums: [String: SDLEnumInfo]

    static let shared = RandomMessages()

    init() {
        let index = SDLTypeIndex(structures: MobileAPI.structures, enumerations: MobileAPI.enumerations)
        structs = index.structs
        enums = index.enums
    }

    /// A generator of JSON objects for `info` (seeded by PropertyBased, which reports the seed on failure).
    func generator(for info: SDLStructInfo) -> Generator<SDLJSONValue, Shrink.None<SDLJSONValue>> {
        Generator { rng in self.object(info, depth: 0, using: &rng) }
    }

    static let maxDepth = 4

    func object(_ info: SDLStructInfo, depth: Int, using rng: inout any SeededRandomNumberGenerator) -> SDLJSONValue {
        var members: [SDLJSONValue.Member] = []
        for parameter in info.parameters where parameter.isMandatory || (depth < Self.maxDepth && Bool.random(using: &rng)) {
            members.append(.init(key: parameter.name, value: value(parameter, depth: depth, using: &rng)))
        }
        members.shuffle(using: &rng)
        return .object(members)
    }

    private func value(_ parameter: SDLParameterInfo, depth: Int, using rng: inout any SeededRandomNumberGenerator) -> SDLJSONValue {
        guard parameter.isArray else { return element(parameter, depth: depth, using: &rng) }
        let low = parameter.minSize ?? 0
        let high = depth < Self.maxDepth ? max(low, min(parameter.maxSize ?? 3, low + 3)) : low
        return .array((0..<Int.random(in: low...high, using: &rng)).map { _ in element(parameter, depth: depth, using: &rng) })
    }

    private func element(_ parameter: SDLParameterInfo, depth: Int, using rng: inout any SeededRandomNumberGenerator) -> SDLJSONValue {
        switch parameter.type {
        case .boolean:
            return .bool(Bool.random(using: &rng))
        case .integer:
            let low = parameter.minValue.map { Int($0) } ?? Int(Int32.min)
            let high = parameter.maxValue.map { Int($0) } ?? Int(Int32.max)
            return .integer(edgeOrRandom(low, high, using: &rng))
        case .float:
            let low = parameter.minValue ?? -1e6
            let high = parameter.maxValue ?? 1e6
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return .float(low)
            case 1: return .float(high)
            case 2: return .integer(Int(edgeOrRandom(Int(low.rounded(.up)), Int(high.rounded(.down)), using: &rng)))
            default: return .float(Double.random(in: low...high, using: &rng))
            }
        case .string:
            let low = parameter.minLength ?? 0
            let high = max(low, min(parameter.maxLength ?? 24, low + 24))
            return .string(text(length: Int.random(in: low...high, using: &rng), using: &rng))
        case .enumeration(let name):
            let elements = enums[name]?.elements ?? []
            return .string(elements.randomElement(using: &rng)?.name ?? "")
        case .structure(let name):
            guard let info = structs[name] else { return .object([]) }
            return object(info, depth: depth + 1, using: &rng)
        }
    }

    private func edgeOrRandom(_ low: Int, _ high: Int, using rng: inout any SeededRandomNumberGenerator) -> Int {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: low
        case 1: high
        default: Int.random(in: low...high, using: &rng)
        }
    }

    private static let alphabet: [Unicode.Scalar] = Array(
        "abcXYZ019 _-.,:/" + "\"\\\n\r\t\u{01}\u{1F}" + "éüß中文😀🚗\u{301}\u{200D}"
    )
    .flatMap(\.unicodeScalars)

    private func text(length: Int, using rng: inout any SeededRandomNumberGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            if let scalar = Self.alphabet.randomElement(using: &rng) { scalars.append(scalar) }
        }
        return String(scalars)
    }
}
