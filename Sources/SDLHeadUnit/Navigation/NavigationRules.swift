import SDLProtocol
import SDLRPC
import SDLRuntime

/// The navigation area: the route the car's navigation system follows.
struct NavigationState: Sendable {
    /// The stops in order, the destination last (GetWayPoints, OnWayPointChange).
    var route: [LocationDetails]
}

/// SendLocation and way points (GetWayPoints, Subscribe/UnsubscribeWayPoints, OnWayPointChange)
/// against the simulated vehicle's route.
extension SDLHeadUnitEmulator {
    func sendLocation(_ request: SendLocation, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        // A DYNAMIC `locationImage` that was never uploaded is still SUCCESS: SDL Core 8.2 leaves
        // images to the HMI (it answered SUCCESS to a Show whose graphic was never uploaded).
        apps[appID]?.sentLocations.append((try? SDLJSONValue(parsing: rpc.json)) ?? .object([]))
        return (.success(), [])
    }

    /// The SendLocation requests of the app, oldest first, as JSON.
    public func sentLocations(appID: String) -> [SDLJSONValue] {
        apps[appID]?.sentLocations ?? []
    }

    func getWayPoints(_ request: GetWayPoints) -> (Reply, [Effect]) {
        let route = navigation.route
        let points = request.wayPointType == .destination ? Array(route.suffix(1)) : route
        guard !points.isEmpty else { return (.success(info: "no route is set"), []) }
        return (.success(extra: [.init(key: "wayPoints", value: Self.wayPointsJSON(points))]), [])
    }

    func subscribeWayPoints(appID: String, subscribe: Bool) -> (Reply, [Effect]) {
        guard let app = apps[appID] else { return (.failure(.applicationNotRegistered, nil), []) }
        guard app.subscribedToWayPoints != subscribe else {
            return (.failure(.ignored, subscribe ? "already subscribed to way points" : "not subscribed to way points"), [])
        }
        apps[appID]?.subscribedToWayPoints = subscribe
        return (.success(), [hashChange(of: appID)])
    }

    /// Changes the route (as the driver or the navigation system does): every app subscribed to
    /// way points gets OnWayPointChange with the new one.
    public func setWayPoints(_ wayPoints: [LocationDetails]) async {
        navigation.route = wayPoints
        let json = SDLJSONValue.object([.init(key: "wayPoints", value: Self.wayPointsJSON(wayPoints))])
        let effects: [Effect] = apps.values.filter(\.subscribedToWayPoints).sorted { $0.connectionID < $1.connectionID }.map { app in
            .notify(
                appID: app.appID,
                SDLRPCPayload(
                    rpcType: .notification, functionID: OnWayPointChange.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                    json: json.jsonBytes))
        }
        await perform(effects)
    }

    /// The route now.
    public var wayPoints: [LocationDetails] { navigation.route }

    /// `points` as JSON, as GetWayPoints answers them (the control API's `GET /waypoints`).
    public static func wayPointsJSON(_ points: [LocationDetails]) -> SDLJSONValue {
        .array(points.compactMap { point in (try? SDLJSON.encode(point)).flatMap { try? SDLJSONValue(parsing: $0) } })
    }
}
