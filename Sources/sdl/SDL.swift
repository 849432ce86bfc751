import ArgumentParser

@main
struct SDL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdl",
        abstract: "Talk to SmartDeviceLink head units, emulate one, and check messages.",
        subcommands: [Connect.self, Send.self, HeadUnit.self, Decode.self, ValidateMessages.self]
    )
}
