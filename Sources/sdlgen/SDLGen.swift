import ArgumentParser
import SDLCodegen
import SDLSpec

@main
struct SDLGen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdlgen",
        abstract: "Generate Swift types from SmartDeviceLink's interface specs (MOBILE_API.xml, SDL Core's HMI_API.xml).",
        subcommands: [Generate.self, Validate.self, Dump.self, Diff.self, Templates.self],
        defaultSubcommand: nil
    )
}

/// Where the spec comes from: `--spec`, else the `SDL_SPEC` environment variable.
struct SpecOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Path to MOBILE_API.xml or HMI_API.xml (default: $SDL_SPEC).", valueName: "path"))
    var spec: String?

    /// `--spec`, else the spec a configuration file names (`generate --config`), else `$SDL_SPEC`.
    func resolvedPath(configured: String? = nil, configFile: String? = nil) throws -> String {
        if let spec { return spec }
        if let configured { return configured }
        if let fromEnvironment = Environment.value("SDL_SPEC"), !fromEnvironment.isEmpty { return fromEnvironment }
        if let configFile {
            throw ValidationError("Give the spec with --spec PATH, \"spec\" in \(configFile) or the SDL_SPEC environment variable.")
        }
        throw ValidationError("Give the spec with --spec PATH or the SDL_SPEC environment variable.")
    }
}

/// Prints diagnostics to standard error in compiler format.
enum Report {
    static func print(_ diagnostics: [Diagnostic], quiet: Bool = false) {
        for diagnostic in diagnostics where !(quiet && diagnostic.severity != .error) {
            StandardError.write(diagnostic.description + "\n")
        }
    }

    static func summary(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        return "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
    }
}

func loadSpec(_ path: String) throws -> LoadedSpec {
    do {
        return try SpecLoader.load(path: path)
    } catch {
        Report.print(
            error.diagnostics.map { diagnostic in
                var located = diagnostic
                if located.location == nil { located.location = SourceLocation(file: path, line: 1) }
                return located
            })
        throw ExitCode.failure
    }
}
