import ArgumentParser

@main
struct SDL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdl",
        abstract: "Work with SmartDeviceLink messages and head units.",
        subcommands: [ValidateMessages.self]
    )
}
