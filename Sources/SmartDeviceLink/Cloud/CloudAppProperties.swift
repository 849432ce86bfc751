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
        if let endpoint = properties.endpoint, let problem = Self.cloudEndpointProblem(endpoint) {
            throw SDLError(.invalidArgument, "cloud app endpoint \(endpoint): \(problem)")
        }
        let response = try await send(SetCloudAppProperties(properties: properties))
        guard response.success else {
            throw SDLError(.refusedByHeadUnit, "SetCloudAppProperties: \(response.resultCode.rawValue)", resultCode: response.resultCode, info: response.info)
        }
    }

    /// Why SDL Core would not dial `endpoint` as written, or nil when it would. SDL Core 8.2's
    /// cloud transport reads the endpoint with this pattern, case-insensitive: `ws|wss://`, a host
    /// (an optional `user:password@` before it), `:` and a port of 2 to 5 digits, then an
    /// optional path, query and fragment. It searches for the pattern anywhere in the string and
    /// dials what matched, so text around a match is silently cut off (`ws://host:123456` is
    /// dialed on port 12345); this check is stricter: the whole endpoint must match, and the port
    /// be at most 65535. `sdl headunit --cloud-app` checks its URL with it too.
    public static func cloudEndpointProblem(_ endpoint: String) -> String? {
        guard let match = try? coreEndpointPattern.wholeMatch(in: endpoint) else {
            return "SDL Core's pattern is ws:// or wss://, an explicit host:port (a port of 2 to 5 digits), then an optional path, query and fragment"
        }
        guard let port = match.output[6].substring.flatMap({ Int($0) }), port <= 65_535 else { return "the port must be at most 65535" }
        return nil
    }

    /// SDL Core 8.2's endpoint pattern (its cloud WebSocket transport adapter), group 6 the port.
    nonisolated(unsafe) static let coreEndpointPattern: Regex<AnyRegexOutput> = {
        let pattern = #"(wss?)://(([^?#%\\/@:\s]{1,}):?([^?#%\\/@\s]*)@?([^?#%\\/\s]*)):(\d{2,5})((/[^/#?\s]+)*)?/?(\?[^=&#\s]*=?[^#\s]*&?)?(#[^\s]*)?"#
        // ASCII classes, as Core's boost::regex reads them.
        return (try? Regex(pattern))!.ignoresCase().asciiOnlyDigits().asciiOnlyWhitespace()
    }()
}
