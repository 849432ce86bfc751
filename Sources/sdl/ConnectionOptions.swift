import ArgumentParser
import SDLRPC
import SDLRuntime
import SDLTransport
import SmartDeviceLink

/// Where the head unit is and who the app is; shared by `connect` and `send`.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Head unit host.")
    var host = "127.0.0.1"

    @Option(help: "Head unit TCP port (SDL Core listens on 12345).")
    var port = 12345

    @Option(help: "App name to register.")
    var appName = "sdl"

    @Option(help: "App ID to register.")
    var appID = "584421907"

    @Flag(help: "Register as a media app (needed for SetMediaClockTimer).")
    var media = false

    @Option(help: "Highest protocol version to offer.")
    var protocolVersion = "5.4.0"

    @Option(help: "Seconds to wait for each response.")
    var timeout: Double = 10

    var registration: RegisterAppInterface {
        RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
            appName: appName, isMediaApplication: media, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs,
            appHMIType: [media ? .media : .default], appID: appID)
    }

    /// Connects and starts the RPC service; the caller registers.
    func open() async throws -> (SDLProtocolSession, SDLRPCClient) {
        let transport = try await SDLTCPTransport.connect(host: host, port: port, policy: .standard)
        var configuration = SDLProtocolSession.Configuration()
        configuration.protocolVersion = protocolVersion
        let session = SDLProtocolSession(transport: transport, configuration: configuration)
        _ = try await session.start()
        let client = SDLRPCClient(session: session, requestTimeout: .milliseconds(Int(timeout * 1000)))
        await client.run()
        return (session, client)
    }

    /// Registers; exits 1 with the head unit's reason when it refuses.
    func register(with client: SDLRPCClient) async throws -> SDLIncomingRPC {
        let json = try SDLJSON.encode(registration)
        let reply = try await client.sendRaw(
            functionName: RegisterAppInterface.functionName, functionID: UInt32(RegisterAppInterface.functionIDValue), json: json)
        let response = try? SDLJSON.decode(RegisterAppInterfaceResponse.self, from: reply.payload.json, policy: .lenient).value
        guard response?.success == true else {
            Output.message(kind: "response", name: RegisterAppInterface.functionName, json: reply.payload.json)
            Output.error("RegisterAppInterface failed: \(response?.resultCode.rawValue ?? "unreadable response") \(response?.info ?? "")")
            throw ExitCode.failure
        }
        return reply
    }
}
