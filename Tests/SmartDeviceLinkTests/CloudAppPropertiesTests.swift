import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// SetCloudAppProperties / GetCloudAppProperties through the manager's helpers, against the
/// emulator's policy table: unknown apps are nil, entries round-trip, an endpoint SDL Core
/// would reject is refused before sending.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct CloudAppPropertiesTests {
    @Test func entriesRoundTripAndABadEndpointIsNotSent() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await FeatureTestSupport.withManager(headUnit, appID: "store", appTypes: [.default]) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            #expect(try await manager.cloudAppProperties(of: "sky-cloud") == nil)
            let sky = CloudAppProperties(
                nicknames: ["Sky"], appID: "sky-cloud", enabled: true, authToken: "token-1", cloudTransportType: "WSS",
                hybridAppPreference: .cloud, endpoint: "wss://sky.example.com:443/sdl")
            try await manager.setCloudAppProperties(sky)
            #expect(try await manager.cloudAppProperties(of: "sky-cloud") == sky)
            // Only what is sent changes.
            try await manager.setCloudAppProperties(CloudAppProperties(appID: "sky-cloud", enabled: false))
            let changed = try await manager.cloudAppProperties(of: "sky-cloud")
            #expect(changed?.enabled == false && changed?.endpoint == "wss://sky.example.com:443/sdl")

            let error = await #expect(throws: SDLError.self) {
                try await manager.setCloudAppProperties(CloudAppProperties(appID: "sky-cloud", endpoint: "wss://sky.example.com/sdl"))
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("host:port") == true)
            let sent = await headUnit.recordedRPCs(appID: "store").filter { $0.direction == "in" && $0.functionName == "SetCloudAppProperties" }
            #expect(sent.count == 2)
        }
    }

    /// Endpoints against SDL Core 8.2's cloud transport pattern: accepted when the whole endpoint
    /// matches it. Core never dials the ones it does not match at all (no port, a 1-digit port, a
    /// `%`, `\` or bare `@` in the host, a signed port, another scheme); the ones it matches only
    /// in part (a 6-digit port, a space, a user:port@host) it would dial cut off, and a port
    /// above 65535 matches but cannot be dialed: refused here too.
    @Test(arguments: [
        ("ws://127.0.0.1:8091", true), ("wss://sky.example.com:443/sdl", true), ("WSS://Sky.Example.com:443/sdl/", true),
        ("ws://host:8091?token=1", true), ("ws://host:8091/sdl?x=1#top", true), ("ws://host:80", true),
        ("wss://sky.example.com/sdl", false), ("ws://host:8", false), ("ws://host:+80", false), ("ws://ho%41st:8080", false),
        ("ws://ho\\st:8080", false), ("ws://@:8080", false), ("http://host:8091", false), ("ws://:8091", false), ("host:8091", false),
        ("ws://host:123456", false), ("ws://host:80 91", false), ("wss://user:1234@host", false), ("ws://host:70000", false),
    ])
    func endpointsAsSDLCoreReadsThem(endpoint: String, accepted: Bool) {
        #expect((SDLManager.cloudEndpointProblem(endpoint) == nil) == accepted, "\(endpoint): \(SDLManager.cloudEndpointProblem(endpoint) ?? "accepted")")
    }
}
