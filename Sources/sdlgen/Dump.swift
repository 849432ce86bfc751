import ArgumentParser
import Foundation
import SDLSpec

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the whole spec model, for other tools.",
        discussion:
            "Every definition with its attributes, documentation, history and source line: the interface of a MOBILE_API.xml, or the interfaces of an HMI_API.xml."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json
    }

    @Argument(help: ArgumentHelp("Path to MOBILE_API.xml or HMI_API.xml (or use --spec / $SDL_SPEC).", valueName: "spec"))
    var path: String?

    @OptionGroup var specOption: SpecOption

    @Option(name: .long, help: "Output format.")
    var format: Format = .json

    func run() throws {
        let path = try self.path ?? specOption.resolvedPath()
        let spec = try loadSpec(path)
        Report.print(spec.diagnostics.filter { $0.severity == .error })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(spec.document)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
        if spec.hasErrors { throw ExitCode.failure }
    }
}
