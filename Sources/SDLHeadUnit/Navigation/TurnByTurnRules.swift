import SDLProtocol
import SDLRPC
import SDLRuntime

/// What a navigation app shows of its route on the head unit's own screens: the next maneuver
/// (ShowConstantTBT, its fields merged like Show's, cleared by `maneuverComplete`), the spoken
/// maneuver alert (AlertManeuver) and the turn list (UpdateTurnList).
struct TurnByTurnState: Sendable {
    /// ShowConstantTBT's fields, merged: a field absent keeps its value, `""` clears it.
    var maneuver: [String: SDLJSONValue] = [:]
    /// The latest AlertManeuver's request, until the maneuver is complete.
    var alert: SDLJSONValue?
    /// UpdateTurnList's request (`turnList`, `softButtons`).
    var turnList: SDLJSONValue?

    /// The state as the control API shows it.
    var json: SDLJSONValue {
        var members: [SDLJSONValue.Member] = [
            .init(key: "maneuver", value: .object(maneuver.keys.sorted().map { .init(key: $0, value: maneuver[$0]!) }))
        ]
        if let alert { members.append(.init(key: "alertManeuver", value: alert)) }
        if let turnList { members.append(.init(key: "turnList", value: turnList)) }
        return .object(members)
    }
}

extension SDLHeadUnitEmulator {
    /// ShowConstantTBT: the next maneuver replaces the fields it names; `maneuverComplete`
    /// clears the maneuver and its alert (SDL Core's checks ran before: a newline is
    /// INVALID_DATA, so is a TEXT soft button without text).
    func showConstantTBT(rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return (.success(), []) }
        if members.contains(where: { $0.key == "maneuverComplete" && $0.value == .bool(true) }) {
            // The maneuver is done: cleared, then whatever else the request names is shown.
            apps[appID]?.turnByTurn.maneuver = [:]
            apps[appID]?.turnByTurn.alert = nil
        }
        for member in members where member.key != "maneuverComplete" {
            if case .string("") = member.value {
                apps[appID]?.turnByTurn.maneuver[member.key] = nil
            } else {
                apps[appID]?.turnByTurn.maneuver[member.key] = member.value
            }
        }
        return (.success(), [])
    }

    /// AlertManeuver: spoken (with the TTS it carries) and shown with its soft buttons.
    func alertManeuver(rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        apps[appID]?.turnByTurn.alert = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        return (.success(), [])
    }

    /// UpdateTurnList: the whole list is replaced.
    func updateTurnList(rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        apps[appID]?.turnByTurn.turnList = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
        return (.success(), [])
    }

    /// The app's turn-by-turn state (`maneuver`, `alertManeuver`, `turnList`), as the control
    /// API's screen shows it.
    public func turnByTurn(appID: String) throws(SDLHeadUnitControlError) -> SDLJSONValue {
        guard let app = apps[appID] else { throw .unknownApp(appID) }
        return app.turnByTurn.json
    }
}
