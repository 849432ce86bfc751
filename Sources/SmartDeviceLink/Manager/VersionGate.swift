import SDLRPC
import SDLRuntime

/// What to do with parameters the head unit's RPC version does not have.
public enum SDLNewerParameterPolicy: Sendable, Hashable {
    /// Refuse the request before sending, naming the parameter (the default: nothing is
    /// silently lost).
    case refuse
    /// Leave the parameters out and send the rest, with a log line.
    case drop
}

/// The negotiated RPC version gates every request: an RPC, parameter or enum value the head
/// unit's version does not have (from the generated `since`/`until` metadata) is caught before
/// it is sent.
struct VersionGate: Sendable {
    let headUnit: SDLSpecVersion
    let policy: SDLNewerParameterPolicy
    static let index = SDLTypeIndex(structures: MobileAPI.structures, enumerations: MobileAPI.enumerations)

    /// The JSON to send for `json` of `info`'s function, or the error naming what is missing.
    func gate(_ json: [UInt8], function info: SDLStructInfo) throws(SDLManagerError) -> (json: [UInt8], dropped: [String]) {
        guard info.availability.isAvailable(in: headUnit) else {
            throw .unsupportedByHeadUnit(what: info.name, available: Self.describe(info.availability), headUnit: headUnit)
        }
        guard let value = try? SDLJSONValue(parsing: json) else { return (json, []) }
        var dropped: [String] = []
        let gated = try gate(value, info, path: info.name, dropped: &dropped)
        return (dropped.isEmpty ? json : gated.jsonBytes, dropped)
    }

    private func gate(_ value: SDLJSONValue, _ info: SDLStructInfo, path: String, dropped: inout [String]) throws(SDLManagerError) -> SDLJSONValue {
        guard case .object(let members) = value else { return value }
        var kept: [SDLJSONValue.Member] = []
        for member in members {
            let memberPath = "\(path).\(member.key)"
            guard let parameter = info.parameter(named: member.key) else {
                kept.append(member)
                continue
            }
            guard parameter.availability.isAvailable(in: headUnit) else {
                if policy == .drop && !parameter.isMandatory {
                    dropped.append(memberPath)
                    continue
                }
                throw .unsupportedByHeadUnit(what: memberPath, available: Self.describe(parameter.availability), headUnit: headUnit)
            }
            kept.append(.init(key: member.key, value: try gate(member.value, parameter, path: memberPath, dropped: &dropped)))
        }
        return .object(kept)
    }

    /// One parameter's value (or each element of an array).
    private func gate(_ value: SDLJSONValue, _ parameter: SDLParameterInfo, path: String, dropped: inout [String]) throws(SDLManagerError) -> SDLJSONValue {
        if parameter.isArray, case .array(let items) = value {
            var gated: [SDLJSONValue] = []
            for (index, item) in items.enumerated() {
                gated.append(try gateElement(item, parameter.type, path: "\(path)[\(index)]", dropped: &dropped))
            }
            return .array(gated)
        }
        return try gateElement(value, parameter.type, path: path, dropped: &dropped)
    }

    private func gateElement(_ value: SDLJSONValue, _ type: SDLValueType, path: String, dropped: inout [String]) throws(SDLManagerError) -> SDLJSONValue {
        switch type {
        case .structure(let name):
            guard let info = Self.index.structs[name] else { return value }
            return try gate(value, info, path: path, dropped: &dropped)
        case .enumeration(let name):
            guard case .string(let element) = value, let info = Self.index.enums[name]?.element(named: element) else { return value }
            guard info.availability.isAvailable(in: headUnit) else {
                throw .unsupportedByHeadUnit(what: "\(path) = \(element)", available: Self.describe(info.availability), headUnit: headUnit)
            }
            return value
        default:
            return value
        }
    }

    /// Whether anything reachable from `info` (parameters, nested structs, enum values) is
    /// missing in the head unit's version; when not, requests of that type need no walk.
    func mayRefuse(_ info: SDLStructInfo) -> Bool {
        var seen: Set<String> = []
        return mayRefuse(info, seen: &seen)
    }

    private func mayRefuse(_ info: SDLStructInfo, seen: inout Set<String>) -> Bool {
        guard seen.insert(info.name).inserted else { return false }
        if !info.availability.isAvailable(in: headUnit) { return true }
        for parameter in info.parameters {
            if !parameter.availability.isAvailable(in: headUnit) { return true }
            switch parameter.type {
            case .structure(let name):
                if let nested = Self.index.structs[name], mayRefuse(nested, seen: &seen) { return true }
            case .enumeration(let name):
                if let elements = Self.index.enums[name]?.elements, elements.contains(where: { !$0.availability.isAvailable(in: headUnit) }) { return true }
            default:
                break
            }
        }
        return false
    }

    static func describe(_ availability: SDLAvailability) -> String {
        switch (availability.since, availability.until) {
        case (let since?, let until?): "\(since)–\(until)"
        case (let since?, nil): "since \(since)"
        case (nil, let until?): "until \(until)"
        case (nil, nil): "always"
        }
    }
}
