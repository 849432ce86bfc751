import ArgumentParser
import Foundation
import SDLHeadUnit
import SDLRuntime
import SDLTransport

/// `sdl headunit`: the emulator on a TCP port.
struct HeadUnit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headunit",
        abstract: "Run a head-unit emulator that behaves on the wire like SDL Core.")

    @Option(help: "TCP port to listen on.")
    var port = 12345

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("JSON file with the RegisterAppInterface response (capabilities).", valueName: "path"))
    var capabilities: String?

    @Option(help: "Seconds after registration before the app is activated (FULL); negative: never.")
    var activationDelay: Double = 0

    @Flag(help: "Log every frame, both directions, as JSON lines on standard output.")
    var log = false

    func run() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        if let capabilities {
            guard let data = FileManager.default.contents(atPath: capabilities) else { throw ValidationError("Cannot read \(capabilities).") }
            do {
                configuration.capabilities = try SDLJSONValue(parsing: Array(data))
            } catch {
                throw ValidationError("\(capabilities) is not JSON: \(error)")
            }
        }
        configuration.activationDelay = activationDelay < 0 ? nil : .milliseconds(Int(activationDelay * 1000))
        if log { configuration.log = { Output.line($0) } }
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        let listener = try await SDLTCPListener.bind(host: host, port: port)
        Output.error("head unit listening on \(host):\(listener.port)")
        try await listener.run { transport in await emulator.serve(transport) }
    }
}
