import ArgumentParser
import SDLCodegen
import SDLSpec

extension GeneratorOptions.AccessLevel: ExpressibleByArgument {}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render Swift sources for a spec through the templates.",
        discussion: """
            Writes Enums.swift, Structs.swift, Requests.swift, Responses.swift, Notifications.swift \
            and MobileAPI.swift (HMIAPI.swift for an HMI_API.xml, whose types are nested in their \
            interface: UI.Show, Common.Result) into the output folder, rewriting only files whose \
            bytes change. \
            Enums and structs that the selected definitions use are generated too, so the output \
            always compiles (turn off with --no-dependencies).

            --config reads the same options from a JSON file (sdlgen.json, as the build plugins \
            use): keys spec, output, templates, accessLevel, only, kinds (an array), dependencies. \
            Paths in it are relative to its folder; flags given here override it.
            """
    )

    @OptionGroup var specOption: SpecOption

    @Option(name: .long, help: ArgumentHelp("Options from a JSON file (sdlgen.json); flags override it.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Folder for the generated Swift files (or \"output\" in --config).", valueName: "dir"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Folder of .mustache files overriding the built-in templates.", valueName: "dir"))
    var templates: String?

    @Option(name: .long, help: "Access level of generated declarations: public, package or internal. (default: public)")
    var accessLevel: GeneratorOptions.AccessLevel?

    @Option(name: .long, help: ArgumentHelp("Only definitions whose spec name matches this regular expression (whole name).", valueName: "regex"))
    var only: String?

    @Option(name: .long, help: ArgumentHelp("Kinds to generate, comma-separated: enums,structs,functions. (default: all)", valueName: "kinds"))
    var kinds: String?

    @Flag(inversion: .prefixedNo, help: "Also generate the enums and structs the selection uses. (default: on)")
    var dependencies: Bool?

    @Option(name: .long, help: ArgumentHelp("Spec record (version and SHA-256): written after generating, verified with --check.", valueName: "path"))
    var record: String?

    @Flag(help: "Write nothing; exit 1 and list the files (and spec record) that are out of date.")
    var check = false

    @Flag(help: "Print only errors.")
    var quiet = false

    func validate() throws {
        if let kinds { _ = try Self.parsedKinds(kinds) }
    }

    static func parsedKinds(_ kinds: String) throws -> Set<GeneratorOptions.Kind> {
        var result: Set<GeneratorOptions.Kind> = []
        for name in kinds.split(separator: ",") {
            let trimmed = String(name.filter { $0 != " " })
            guard let kind = GeneratorOptions.Kind(rawValue: trimmed) else {
                throw ValidationError("Unknown kind '\(trimmed)'; use enums, structs or functions.")
            }
            result.insert(kind)
        }
        if result.isEmpty { throw ValidationError("--kinds needs at least one of enums, structs, functions.") }
        return result
    }

    func run() throws {
        // The file first, so a broken configuration is reported before anything else.
        let file = try config.map(ConfigFile.load) ?? ConfigFile()
        let path = try specOption.resolvedPath(configured: try file.path(\.spec, named: "spec"), configFile: config)
        guard let outputDirectory = try self.output ?? file.path(\.output, named: "output") else {
            throw ValidationError("Give the output folder with --output DIR or \"output\" in the --config file.")
        }
        let templates = try self.templates ?? file.path(\.templates, named: "templates")
        let spec = try loadSpec(path)
        var options = GeneratorOptions()
        options.accessLevel = accessLevel ?? file.configuration.accessLevel ?? .public
        options.only = only ?? file.configuration.only
        options.kinds = try kinds.map(Self.parsedKinds) ?? file.configuration.kinds.map(Set.init) ?? Set(GeneratorOptions.Kind.allCases)
        options.includeDependencies = dependencies ?? file.configuration.dependencies ?? true
        options.templatesDirectory = templates
        options.specFileName = String(path.split(separator: "/").last ?? "MOBILE_API.xml")

        let output: Generator.Output
        do {
            let templateSet = try TemplateSet(overridesIn: templates)
            output = try Generator.generate(spec, options: options, templates: templateSet)
        } catch {
            Report.print(error.diagnostics)
            StandardError.write("sdlgen: generation failed (\(Report.summary(error.diagnostics)))\n")
            throw ExitCode.failure
        }
        Report.print(output.diagnostics, quiet: quiet)

        let report: OutputWriter.Report
        do {
            report = try OutputWriter.write(output.files, to: outputDirectory, checkOnly: check)
        } catch {
            Report.print(error.diagnostics)
            throw ExitCode.failure
        }
        let record = self.record.map { SpecRecord(spec: spec, path: $0) }
        if check {
            var stale = report.changed.map { joined(outputDirectory, $0) }
            if let record, !record.isCurrent() { stale.append(record.path) }
            if stale.isEmpty {
                if !quiet { StandardError.write("sdlgen: \(outputDirectory) is up to date with \(path)\n") }
                return
            }
            StandardError.write("sdlgen: out of date with \(path); regenerate with `sdlgen generate`:\n")
            for file in stale { StandardError.write("  \(file)\n") }
            throw ExitCode.failure
        }
        try record?.write()
        if !quiet {
            StandardError.write(
                "sdlgen: \(report.changed.count) file\(report.changed.count == 1 ? "" : "s") written, \(report.unchanged.count) unchanged in \(outputDirectory)\n"
            )
        }
    }

    private func joined(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

/// `spec/MOBILE_API.lock`: which spec file a committed output was made from.
struct SpecRecord {
    var version: String
    var sha256: String
    var path: String

    init(spec: LoadedSpec, path: String) {
        version = spec.interface.versionText ?? "unknown"
        sha256 = spec.sha256
        self.path = path
    }

    var contents: String {
        """
        # The RPC spec that Generated/ was made from; `sdlgen generate --check --record` verifies it.
        # Get it from https://github.com/smartdevicelink/rpc_spec (MOBILE_API.xml at tag \(version)).
        version: \(version)
        sha256: \(sha256)

        """
    }

    func isCurrent() -> Bool {
        guard let bytes = try? FileBytes.read(path) else { return false }
        return String(decoding: bytes, as: UTF8.self) == contents
    }

    func write() throws {
        guard !isCurrent() else { return }
        do {
            try FileBytes.write(Array(contents.utf8), to: path)
        } catch {
            StandardError.write("error: \(error)\n")
            throw ExitCode.failure
        }
    }
}
