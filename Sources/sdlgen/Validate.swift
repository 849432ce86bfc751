import ArgumentParser
import SDLSpec

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a spec and print every finding as PATH:LINE: error|warning: message.",
        discussion: "Exits 1 when there are errors (or warnings, with --warnings-as-errors)."
    )

    @Argument(help: ArgumentHelp("Path to MOBILE_API.xml or HMI_API.xml (or use --spec / $SDL_SPEC).", valueName: "spec"))
    var path: String?

    @OptionGroup var specOption: SpecOption

    @Option(name: .long, help: ArgumentHelp("Also validate against this XML Schema (MOBILE_API.xsd, HMI_API.xsd).", valueName: "path"))
    var xsd: String?

    @Flag(help: "Treat warnings as errors.")
    var warningsAsErrors = false

    func run() throws {
        let path = try self.path ?? specOption.resolvedPath()
        let spec = try loadSpec(path)
        var diagnostics = spec.diagnostics
        if let xsd {
            diagnostics += SchemaValidator.validate(specPath: path, schemaPath: xsd)
        }
        Report.print(diagnostics)
        let failed = diagnostics.contains { $0.severity == .error || (warningsAsErrors && $0.severity == .warning) }
        let interface = spec.interface
        var interfaces = ""
        if case .hmi(let set) = spec.document { interfaces = "\(set.interfaces.count) interfaces, " }
        StandardError.write(
            "\(path): \(interfaces)\(interface.enums.count) enums, \(interface.structs.count) structs, \(interface.functions.count) functions; \(Report.summary(diagnostics))\n"
        )
        if failed { throw ExitCode.failure }
    }
}
