import ArgumentParser
import SDLProtocol
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

    /// Connects, starts the RPC service and runs `body` with the client; the session ends with
    /// the scope. The caller registers.
    func withConnection<Result>(_ body: (SDLRPCClient) async throws -> Result) async throws -> Result {
        guard let version = SDLProtocolVersion(protocolVersion) else {
            throw ValidationError("--protocol-version \(protocolVersion) is not a protocol version (1.0.0 ... 5.4.0).")
        }
        let transport = try await SDLTCPTransport.connect(host: host, port: port, policy: .standard)
        var configuration = SDLProtocolSession.Configuration()
        configuration.protocolVersion = version
        return try await withSDLSession(
            transport: transport, configuration: configuration, requestTimeout: .milliseconds(Int(timeout * 1000)), body)
    }

    /// Registers; exits 1 with the head unit's reason when it refuses.
    func register(with client: SDLRPCClient) async throws -> SDLIncomingRPC {
        let json = try SDLJSON.encode(registration)
        let reply = try await client.sendRaw(
            functionName: RegisterAppInterface.functionName, functionID: RegisterAppInterface.wireFunctionID ?? 1, json: json)
        let response = try? SDLJSON.decode(RegisterAppInterfaceResponse.self, from: reply.payload.json, policy: .lenient).value
        guard response?.success == true else {
            Output.message(kind: "response", name: RegisterAppInterface.functionName, json: reply.payload.json)
            Output.error("RegisterAppInterface failed: \(response?.resultCode.rawValue ?? "unreadable response") \(response?.info ?? "")")
            throw ExitCode.failure
        }
        return reply
    }
}
