import Foundation
import PackagePlugin

/// Command plugin: writes the generated Swift into the source tree, for teams that commit it.
///
///     swift package --allow-writing-to-package-directory generate-sdl [--target NAME]... [--output DIR] [sdlgen generate options]
///
/// For each `--target` (without one: every target with an `sdlgen.json`) it runs
/// `sdlgen generate --config <sdlgen.json> --spec <spec> --output <dir>`, the same code path and
/// options as the command line and the build plugin. The output folder is
/// `--output` (relative to the package), else "output" in `sdlgen.json`, else the target's own
/// folder. Any other argument goes to `sdlgen generate` and overrides the file, e.g.
/// `--spec ../rpc_spec/MOBILE_API.xml`, `--access-level internal`, `--check`, `--record FILE`.
///
/// Self-contained on purpose: plugins cannot share code with other targets.
@main
struct SDLGeneratorCommand {
    static let defaultSpecName = "MOBILE_API.xml"
    static let defaultHMISpecName = "HMI_API.xml"
    static let configurationName = "sdlgen.json"

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = "generate-sdl: " + description }
    }

    /// The files of one target that drive generation.
    struct Inputs {
        var configuration: URL?
        var spec: URL?
        var configurationGivesSpec = false
        var configurationGivesOutput = false
    }

    static func path(_ url: URL) -> String {
        let path = url.standardizedFileURL.path(percentEncoded: false)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// `--spec PATH` made absolute (from the package folder), so diagnostics name the real file.
    static func absoluteSpec(in arguments: [String], packageDirectory: URL) -> [String] {
        func absolute(_ value: String) -> String {
            value.hasPrefix("/") ? value : path(packageDirectory.appending(path: value))
        }
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--spec", index + 1 < arguments.count {
                result += [argument, absolute(arguments[index + 1])]
                index += 2
                continue
            }
            if argument.hasPrefix("--spec=") {
                result.append("--spec=" + absolute(String(argument.dropFirst("--spec=".count))))
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }

    /// Looks in the target's files, then in its folder (the spec and `sdlgen.json` of a target
    /// that commits its output are usually in `exclude:`, which hides them from the file list).
    static func inputs(files: [URL], directory: URL) throws -> Inputs {
        func find(_ name: String) throws -> URL? {
            let found = files.filter { $0.lastPathComponent == name }
            if found.count > 1 {
                throw Failure("\(found.count) files named \(name) (\(found.map(path).joined(separator: ", "))); keep one")
            }
            if let first = found.first { return first }
            let beside = directory.appending(path: name)
            return FileManager.default.fileExists(atPath: path(beside)) ? beside : nil
        }
        var inputs = Inputs()
        inputs.configuration = try find(configurationName)
        var specName: String?
        if let configuration = inputs.configuration, let data = try? Data(contentsOf: configuration),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            specName = object["spec"] as? String
            inputs.configurationGivesOutput = object["output"] is String
        }
        if let specName, let configuration = inputs.configuration {
            inputs.configurationGivesSpec = true
            inputs.spec =
                specName.hasPrefix("/")
                ? URL(fileURLWithPath: specName) : configuration.deletingLastPathComponent().appending(path: specName)
        } else {
            let mobile = try find(defaultSpecName)
            let hmi = try find(defaultHMISpecName)
            if let mobile, let hmi {
                throw Failure("both \(path(mobile)) and \(path(hmi)); name the one to generate with \"spec\" in \(configurationName)")
            }
            inputs.spec = mobile ?? hmi
        }
        return inputs
    }

    func run(tool: URL, packageDirectory: URL, target: SourceModuleTarget, explicit: Bool, output: String?, passThrough: [String]) throws -> Bool {
        let userGivesSpec = passThrough.contains { $0 == "--spec" || $0.hasPrefix("--spec=") }
        let userGivesConfig = passThrough.contains { $0 == "--config" || $0.hasPrefix("--config=") }
        let inputs = try Self.inputs(files: target.sourceFiles.map(\.url), directory: target.directoryURL)

        // Without --target, only targets with an sdlgen.json: a lone MOBILE_API.xml may be a test fixture.
        if !explicit && inputs.configuration == nil { return false }
        if inputs.configuration == nil && inputs.spec == nil && !userGivesSpec && !userGivesConfig {
            if explicit {
                throw Failure(
                    """
                    target '\(target.name)' has no \(Self.configurationName), \(Self.defaultSpecName) or \(Self.defaultHMISpecName); \
                    add one to \(Self.path(target.directoryURL)) or pass --spec PATH
                    """)
            }
            return false
        }

        var arguments = ["generate"]
        if let configuration = inputs.configuration, !userGivesConfig {
            arguments += ["--config", Self.path(configuration)]
        }
        // A spec the configuration names is sdlgen's to find (it expands `${NAME}` in it).
        if let spec = inputs.spec, !userGivesSpec, !inputs.configurationGivesSpec {
            arguments += ["--spec", Self.path(spec)]
        }
        let outputDirectory: String?
        if let output {
            outputDirectory = output.hasPrefix("/") ? output : Self.path(packageDirectory.appending(path: output))
        } else if inputs.configurationGivesOutput && !userGivesConfig {
            outputDirectory = nil  // sdlgen resolves it against the configuration's folder
        } else {
            outputDirectory = Self.path(target.directoryURL)
        }
        if let outputDirectory { arguments += ["--output", outputDirectory] }
        arguments += Self.absoluteSpec(in: passThrough, packageDirectory: packageDirectory)

        log("generate-sdl: target '\(target.name)': sdlgen \(arguments.joined(separator: " "))")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        // Relative paths among the pass-through arguments are relative to the package.
        process.currentDirectoryURL = packageDirectory
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure("sdlgen failed for target '\(target.name)' (exit status \(process.terminationStatus))")
        }
        return true
    }
}

extension SDLGeneratorCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let outputs = extractor.extractOption(named: "output")
        let passThrough = extractor.remainingArguments.filter { $0 != "--" }
        if outputs.count > 1 { throw Failure("give --output once") }
        if !outputs.isEmpty && targetNames.count != 1 { throw Failure("--output needs exactly one --target") }

        let targets: [Target]
        if targetNames.isEmpty {
            targets = context.package.targets
        } else {
            targets = try context.package.targets(named: targetNames)
        }

        let tool = try context.tool(named: "sdlgen").url
        var generated: [String] = []
        for target in targets {
            guard let source = target as? SourceModuleTarget else {
                if !targetNames.isEmpty { throw Failure("target '\(target.name)' is not a source target") }
                continue
            }
            if try run(
                tool: tool, packageDirectory: context.package.directoryURL, target: source,
                explicit: !targetNames.isEmpty, output: outputs.first, passThrough: passThrough)
            {
                generated.append(target.name)
            }
        }
        if generated.isEmpty {
            throw Failure(
                """
                no target has an \(Self.configurationName); name one with --target NAME \
                (its folder holding \(Self.defaultSpecName), or with --spec PATH)
                """)
        }
    }
}

private func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
