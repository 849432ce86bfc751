import SDLSpec

/// Which way a definition travels for an app, with an example of where.
///
/// Requests and everything they contain are sent by apps; responses and notifications are
/// received. A struct or enum can be both; one that no message reaches is neither.
package struct Usage: Hashable, Sendable {
    /// A value path through which apps send it, e.g. `Show(request).softButtons.image`.
    package var sentVia: String?
    /// A value path through which apps receive it, e.g. `GetVehicleData(response).gps`.
    package var receivedVia: String?

    package init(sentVia: String? = nil, receivedVia: String? = nil) {
        self.sentVia = sentVia
        self.receivedVia = receivedVia
    }

    package var isUnused: Bool { sentVia == nil && receivedVia == nil }

    /// The direction of a function's own params.
    static func of(_ key: APISnapshot.FunctionKey) -> Usage {
        let path = ChangePath.Owner.function(key.name, key.messageType).description
        return key.messageType == .request ? Usage(sentVia: path) : Usage(receivedVia: path)
    }
}

/// The usage of every struct and enum, found by walking from each message through its params.
struct UsageMap {
    private(set) var structs: [String: Usage] = [:]
    private(set) var enums: [String: Usage] = [:]

    /// Usage over all `snapshots` together: a struct sent in the old version and received in the
    /// new one is judged for both, so the stricter verdict wins.
    init(_ snapshots: [APISnapshot]) {
        for snapshot in snapshots {
            walk(snapshot, sent: true)
            walk(snapshot, sent: false)
        }
    }

    func usage(ofStruct name: String) -> Usage { structs[name] ?? Usage() }
    func usage(ofEnum name: String) -> Usage { enums[name] ?? Usage() }

    /// Breadth first from every message of one direction, so each recorded path is a shortest
    /// one, and messages in name order, so the paths are the same on every run.
    private mutating func walk(_ snapshot: APISnapshot, sent: Bool) {
        var queue: [(parameters: [Parameter], path: String)] = []
        let keys = snapshot.functions.keys
            .filter { ($0.messageType == .request) == sent }
            .sorted { ChangePath(.function($0.name, $0.messageType)) < ChangePath(.function($1.name, $1.messageType)) }
        for key in keys {
            queue.append((snapshot.functions[key]!.parameters, ChangePath.Owner.function(key.name, key.messageType).description))
        }
        var index = 0
        var visited: Set<String> = []
        while index < queue.count {
            let (parameters, path) = queue[index]
            index += 1
            for parameter in parameters {
                let valuePath = "\(path).\(parameter.name)"
                switch parameter.type {
                case .structure(let name):
                    record(&structs[name, default: Usage()], sent: sent, via: valuePath)
                    if visited.insert(name).inserted, let definition = snapshot.structs[name] {
                        queue.append((definition.parameters, valuePath))
                    }
                case .enumeration(let name):
                    record(&enums[name, default: Usage()], sent: sent, via: valuePath)
                default:
                    break
                }
            }
        }
    }

    private func record(_ usage: inout Usage, sent: Bool, via path: String) {
        if sent {
            if usage.sentVia == nil { usage.sentVia = path }
        } else if usage.receivedVia == nil {
            usage.receivedVia = path
        }
    }
}
