import SDLRPC
import SDLRuntime

/// The smallest valid value of every type, from the generated metadata: mandatory params only,
/// numbers at 0 or their lower bound, strings and arrays at their minimum length, enums at
/// their first element. Responses say `success: true, resultCode: SUCCESS`.
struct DefaultValues: Sendable {
    /// One index for the process: building it walks the whole spec, and a server of emulated
    /// vehicles creates thousands of head units.
    static let shared = DefaultValues()

    let structs: [String: SDLStructInfo]
    let enums: [String: SDLEnumInfo]

    init() {
        let index = SDLTypeIndex(structures: MobileAPI.structures, enumerations: MobileAPI.enumerations)
        structs = index.structs
        enums = index.enums
    }

    func successResponse(_ info: SDLStructInfo) -> SDLJSONValue {
        guard case .object(var members) = object(info) else { return .object([]) }
        for index in members.indices {
            switch members[index].key {
            case "success": members[index].value = .bool(true)
            case "resultCode": members[index].value = .string("SUCCESS")
            default: break
            }
        }
        return .object(members)
    }

    /// A parameter's value for the simulated vehicle: like `object`, but an array holds at least
    /// one element, so every item shows something.
    func full(_ parameter: SDLParameterInfo) -> SDLJSONValue {
        guard parameter.isArray else { return element(parameter) }
        return .array(Array(repeating: element(parameter), count: max(1, parameter.minSize ?? 0)))
    }

    /// Every parameter of a value, optional ones too, nested structures filled the same way and
    /// arrays holding one element: the simulated vehicle shows something in every field.
    func complete(_ parameter: SDLParameterInfo, depth: Int = 0) -> SDLJSONValue {
        let element: SDLJSONValue
        if case .structure(let name) = parameter.type, let info = structs[name], depth < 6 {
            element = .object(info.parameters.map { .init(key: $0.name, value: complete($0, depth: depth + 1)) })
        } else if case .string = parameter.type {
            element = .string(String(repeating: "x", count: max(1, parameter.minLength ?? 1)))
        } else {
            element = self.element(parameter)
        }
        guard parameter.isArray else { return element }
        return .array(Array(repeating: element, count: max(1, parameter.minSize ?? 0)))
    }

    func object(_ info: SDLStructInfo) -> SDLJSONValue {
        .object(info.parameters.filter(\.isMandatory).map { .init(key: $0.name, value: value($0)) })
    }

    private func value(_ parameter: SDLParameterInfo) -> SDLJSONValue {
        guard parameter.isArray else { return element(parameter) }
        return .array(Array(repeating: element(parameter), count: parameter.minSize ?? 0))
    }

    private func element(_ parameter: SDLParameterInfo) -> SDLJSONValue {
        switch parameter.type {
        case .boolean:
            return .bool(false)
        case .integer:
            return .integer(Int(clamp(0, parameter)))
        case .float:
            return .float(clamp(0, parameter))
        case .string:
            return .string(String(repeating: "x", count: parameter.minLength ?? 0))
        case .enumeration(let name):
            return .string(enums[name]?.elements.first?.name ?? "")
        case .structure(let name):
            return structs[name].map(object) ?? .object([])
        }
    }

    private func clamp(_ value: Double, _ parameter: SDLParameterInfo) -> Double {
        var result = value
        if let min = parameter.minValue { result = max(result, min) }
        if let max = parameter.maxValue { result = min(result, max) }
        return result
    }
}
