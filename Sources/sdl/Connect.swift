import ArgumentParser
import SmartDeviceLink

/// `sdl connect`: register, print the RegisterAppInterface response, then every notification.
struct Connect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register with a head unit and print what it sends, as JSON lines, until interrupted.")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.withConnection { client in
            let notifications = client.allNotifications()
            let response = try await connection.register(with: client)
            Output.message(kind: "response", name: "RegisterAppInterface", json: response.payload.json)
            for await notification in notifications {
                Output.message(kind: "notification", name: Output.functionName(notification.payload.functionID), json: notification.payload.json)
            }
        }
        Output.error("the head unit closed the connection")
        throw ExitCode.failure
    }
}
