import ArgumentParser

struct ValidateMessages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Validate JSON-lines messages against the RPC spec.")
    func run() async throws {}
}
