import ArgumentParser
import Foundation
import SDLRPC
import SDLRuntime
import SmartDeviceLink

/// `sdl send NAME --json '{...}'`: register, wait until the RPC is allowed, send it, print the response.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send any request by its spec name and print the response as JSON.",
        discussion: """
            Registers first, then waits (up to --wait seconds) until OnHMIStatus and OnPermissionsChange
            allow the RPC, as SDL Core answers DISALLOWED before that. Exits 0 when the result is SUCCESS.
            """)

    @Argument(help: "Request name as in the spec, e.g. Show.")
    var name: String

    @Option(help: "The request's parameters as a JSON object.")
    var json = "{}"

    @Option(help: ArgumentHelp("File sent as bulk data after the JSON (PutFile, SystemRequest).", valueName: "path"))
    var file: String?

    @Option(help: "Seconds to wait until the head unit allows the RPC.")
    var wait: Double = 10

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        guard let type = MobileAPI.requests.first(where: { $0.functionName == name }) else {
            throw ValidationError("The RPC spec \(MobileAPI.version) has no request named '\(name)'.")
        }
        let body = try Self.validatedBody(type, json)
        var bulk: [UInt8] = []
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("Cannot read \(file).") }
            bulk = Array(data)
        }

        let functionID = type.wireFunctionID ?? 0
        let wait = self.wait
        let result = try await connection.withConnection { client in
            let permissions = SDLPermissionTracker(client: client)
            return try await withThrowingTaskGroup(of: SDLJSONValue?.self) { group in
                group.addTask {
                    await permissions.run()
                    return nil
                }
                _ = try await connection.register(with: client)
                if type != RegisterAppInterface.self {
                    let allowed = await permissions.waitUntilAllowed(name, timeout: .milliseconds(Int(wait * 1000)))
                    if !allowed {
                        Output.error(
                            "\(name) is not allowed in HMI level \(await permissions.hmiLevel.rawValue) after \(wait) s; activate the app on the head unit or raise --wait. Sending anyway."
                        )
                    }
                }
                let reply = try await client.sendRaw(functionName: name, functionID: functionID, json: body, bulkData: bulk)
                Output.message(kind: "response", name: name, json: reply.payload.json)
                group.cancelAll()
                return try? SDLJSONValue(parsing: reply.payload.json)["resultCode"]
            }
        }
        guard case .string("SUCCESS")? = result else { throw ExitCode.failure }
    }

    /// Checks `json` against the request type before anything is sent.
    static func validatedBody<R: SDLRequest>(_ type: R.Type, _ json: String) throws -> [UInt8] {
        let bytes = Array(json.utf8)
        do {
            let decoded = try SDLJSON.decode(R.self, from: bytes)
            for warning in decoded.warnings { Output.error("warning: \(warning)") }
            return bytes
        } catch {
            throw ValidationError("The JSON is not a valid \(R.functionName) request:\n\(error)")
        }
    }
}
