import SDLRPC

extension SDLManager {
    /// A cloud app's entry in the head unit's policy table (GetCloudAppProperties, RPC 5.1+):
    /// nil when the head unit knows no such app (SDL Core: DATA_NOT_AVAILABLE "Cloud app does
    /// not exist on module"). For an app store or companion app that manages cloud apps.
    public func cloudAppProperties(of appID: String) async throws -> CloudAppProperties? {
        let response = try await send(GetCloudAppProperties(appID: appID))
        if response.resultCode == .dataNotAvailable { return nil }
        guard response.success else {
            throw SDLError(.refusedByHeadUnit, "GetCloudAppProperties: \(response.resultCode.rawValue)", resultCode: response.resultCode, info: response.info)
        }
        return response.properties
    }

    /// Adds or changes a cloud app's policy-table entry (SetCloudAppProperties, RPC 5.1+); the
    /// fields given replace those the head unit holds. The endpoint is checked first as SDL
    /// Core's pattern does, `ws://` or `wss://` with an explicit `host:port` (without the port
    /// Core rejects the entry and the app never appears), so a wrong one is refused with code
    /// `invalidArgument` and nothing is sent.
    public func setCloudAppProperties(_ properties: CloudAppProperties) async throws {
        if let endpoint = properties.endpoint, let problem = Self.endpointProblem(endpoint) {
            throw SDLError(.invalidArgument, "cloud app endpoint \(endpoint): \(problem)")
        }
        let response = try await send(SetCloudAppProperties(properties: properties))
        guard response.success else {
            throw SDLError(.refusedByHeadUnit, "SetCloudAppProperties: \(response.resultCode.rawValue)", resultCode: response.resultCode, info: response.info)
        }
    }

    /// Why SDL Core would not dial `endpoint`, or nil when it would. SDL Core 8.2's cloud
    /// transport reads `ws|wss://host:port` with a port of 2 to 5 digits, then an optional path,
    /// query and fragment (case-insensitive); anything else is an "Invalid Pattern" it never dials.
    static func endpointProblem(_ endpoint: String) -> String? {
        guard let scheme = endpoint.range(of: "://") else { return "no ws:// or wss:// scheme" }
        guard ["ws", "wss"].contains(endpoint[..<scheme.lowerBound].lowercased()) else { return "the scheme must be ws or wss" }
        let rest = endpoint[scheme.upperBound...]
        guard !rest.contains(where: \.isWhitespace) else { return "SDL Core's pattern allows no white space" }
        let authority = rest.prefix { !"/?#".contains($0) }
        guard let colon = authority.lastIndex(of: ":"), !authority[..<colon].isEmpty else {
            return "SDL Core needs an explicit host:port"
        }
        let digits = authority[authority.index(after: colon)...]
        guard (2...5).contains(digits.count), digits.allSatisfy(\.isASCII), let port = Int(digits), (1...65_535).contains(port) else {
            return "SDL Core needs a port of 2 to 5 digits, at most 65535"
        }
        return nil
    }
}
