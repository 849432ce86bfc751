import ArgumentParser
import SDLSpec
import SDLSpecDiff

extension DiffFormat: ExpressibleByArgument {}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the API changes between two spec versions, each marked breaking or compatible for apps.",
        discussion: """
            With two specs (OLD.xml NEW.xml, both MOBILE_API or both HMI_API, whose names are \
            compared qualified: UI.Show, Common.Result) each file is taken at its own version. With one spec and \
            --from/--to, both versions are rebuilt from that file's since, until, deprecated, removed \
            and history attributes. Every change cites the compatibility rule (G1, P4, ...) that \
            decides its verdict; use --fail-on breaking in CI.
            """
    )

    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        /// Exit 1 when any change is breaking: the CI gate.
        case breaking
        /// Exit 1 when there is any change at all.
        case any
    }

    @Argument(help: ArgumentHelp("OLD.xml NEW.xml, or one SPEC.xml with --from and --to (or --spec / $SDL_SPEC).", valueName: "spec"))
    var paths: [String] = []

    @OptionGroup var specOption: SpecOption

    @Option(name: .long, help: ArgumentHelp("The old version, e.g. 7.1 (default: the old file's own version).", valueName: "version"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The new version, e.g. 8.0 (default: the new file's own version).", valueName: "version"))
    var to: String?

    @Option(name: .long, help: "Output format: text, markdown or json.")
    var format: DiffFormat = .text

    @Option(name: .long, help: ArgumentHelp("Exit 1 when a change of this sort is found: breaking or any.", valueName: "breaking|any"))
    var failOn: FailOn?

    func validate() throws {
        if paths.count > 2 { throw ValidationError("Give at most two specs: OLD.xml NEW.xml.") }
        if !paths.isEmpty, specOption.spec != nil {
            throw ValidationError("Give the spec either as an argument or with --spec, not both.")
        }
        if paths.count < 2, from == nil || to == nil {
            throw ValidationError("With one spec, give the two versions to compare: --from VERSION --to VERSION.")
        }
        for (name, text) in [("--from", from), ("--to", to)] {
            if let text, SpecVersion(text) == nil {
                throw ValidationError("\(name) '\(text)' is not a version like 7.1 or 8.0.0.")
            }
        }
    }

    func run() throws {
        let oldPath: String
        let newPath: String
        switch paths.count {
        case 2: (oldPath, newPath) = (paths[0], paths[1])
        case 1: (oldPath, newPath) = (paths[0], paths[0])
        default:
            oldPath = try specOption.resolvedPath()
            newPath = oldPath
        }
        let oldSpec = try loadForDiff(oldPath)
        let newSpec = oldPath == newPath ? oldSpec : try loadForDiff(newPath)
        switch (oldSpec.document, newSpec.document) {
        case (.mobile, .mobile), (.hmi, .hmi): break
        default:
            StandardError.write("sdlgen: \(oldPath) and \(newPath) are different APIs (MOBILE_API and HMI_API); compare two versions of one\n")
            throw ExitCode.failure
        }
        let oldVersion = version(from, of: oldSpec)
        let newVersion = version(to, of: newSpec)

        let diff = SpecDiff(
            old: oldSpec.interface, at: oldVersion, source: oldPath,
            new: newSpec.interface, at: newVersion, source: newPath)
        print(diff.rendered(as: format), terminator: "")

        switch failOn {
        case .breaking where diff.hasBreakingChanges:
            StandardError.write("sdlgen: \(diff.breakingCount) breaking change\(diff.breakingCount == 1 ? "" : "s") (--fail-on breaking)\n")
            throw ExitCode.failure
        case .any where !diff.changes.isEmpty:
            StandardError.write("sdlgen: \(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s") (--fail-on any)\n")
            throw ExitCode.failure
        default:
            break
        }
    }

    /// A diff of a spec with errors would be guesswork, so errors stop it; warnings are left to
    /// `sdlgen validate`.
    private func loadForDiff(_ path: String) throws -> LoadedSpec {
        let spec = try loadSpec(path)
        if spec.hasErrors {
            Report.print(spec.diagnostics.filter { $0.severity == .error })
            StandardError.write("sdlgen: \(path) has errors; fix them before diffing (\(Report.summary(spec.diagnostics)))\n")
            throw ExitCode.failure
        }
        return spec
    }

    /// The requested version, else the file's own. A version past what the file describes only
    /// repeats the file's own API, so say so.
    private func version(_ requested: String?, of spec: LoadedSpec) -> SpecVersion? {
        guard let requested, let version = SpecVersion(requested) else { return spec.interface.version }
        if let own = spec.interface.version, version > own {
            StandardError.write("sdlgen: warning: \(spec.path) is version \(own) and does not describe \(version); its API at \(own) stands in for it\n")
        }
        return version
    }
}
