import ArgumentParser

@main
struct SDL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdl",
        abstract: "Work with SmartDeviceLink messages and head units.",
        subcommands: [ValidateMessages.self]
    )
}
