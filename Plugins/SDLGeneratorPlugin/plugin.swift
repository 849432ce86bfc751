import Foundation
import PackagePlugin

/// Build-tool plugin: generates Swift from the target's `MOBILE_API.xml` or SDL Core's
/// `HMI_API.xml` (or the spec its `sdlgen.json` names) into the plugin work directory, and the
/// target compiles the result.
///
/// It runs `sdlgen generate --config <sdlgen.json> --spec <spec> --output <work>/GeneratedSources`,
/// the same code path and options as the command line. The command declares as inputs the spec,
/// the configuration, the template overrides and `sdlgen` itself, and as outputs the fixed file
/// set sdlgen always writes, so a build with none of them changed does not run it again.
///
/// Plugins cannot share code with other targets; this file is self-contained on purpose (the
/// command plugin has its own copy of the few lines that find the files).
@main
struct SDLGeneratorPlugin {
    static let defaultSpecName = "MOBILE_API.xml"
    static let defaultHMISpecName = "HMI_API.xml"
    static let configurationName = "sdlgen.json"
    /// What `sdlgen generate` writes on every run (`RenderModelBuilder.fileNames`).
    static let outputFileNames = [
        "Enums.swift", "Structs.swift", "Requests.swift", "Responses.swift", "Notifications.swift", "MobileAPI.swift",
    ]
    /// The same for an HMI API spec (`RenderModelBuilder.hmiFileNames`).
    static let hmiOutputFileNames = [
        "Enums.swift", "Structs.swift", "Requests.swift", "Responses.swift", "Notifications.swift", "HMIAPI.swift",
    ]

    /// An HMI API spec's root is `<interfaces>`, a mobile spec's `<interface>`. Outputs must be
    /// declared before sdlgen runs, so the plugin looks; an unreadable file is left to sdlgen.
    static func isHMISpec(_ spec: URL) -> Bool {
        guard let data = try? Data(contentsOf: spec) else { return spec.lastPathComponent == defaultHMISpecName }
        return data.range(of: Data("<interfaces ".utf8)) != nil || data.range(of: Data("<interfaces>".utf8)) != nil
    }

    enum PluginError: Error, CustomStringConvertible {
        case notASourceTarget(String)
        case noSpec(target: String)
        case several(name: String, target: String, paths: [String])
        case unsetVariable(name: String, key: String, configuration: String)

        var description: String {
            switch self {
            case .notASourceTarget(let name):
                "SDLGeneratorPlugin: target '\(name)' has no source files to add generated code to."
            case .noSpec(let target):
                """
                SDLGeneratorPlugin: target '\(target)' has no \(SDLGeneratorPlugin.defaultSpecName) or \
                \(SDLGeneratorPlugin.defaultHMISpecName); add the spec to \
                the target's folder, or name it with "spec" in \(SDLGeneratorPlugin.configurationName).
                """
            case .several(let name, let target, let paths):
                "SDLGeneratorPlugin: target '\(target)' has \(paths.count) files named \(name) (\(paths.joined(separator: ", "))); keep one."
            case .unsetVariable(let name, let key, let configuration):
                "\(configuration): error: \"\(key)\" names the environment variable \(name), which is not set."
            }
        }
    }

    func createBuildCommands(
        workDirectory: URL, tool: URL, files: [URL], targetName: String
    ) throws -> [Command] {
        func path(_ url: URL) -> String { url.standardizedFileURL.path(percentEncoded: false) }

        let configurations = files.filter { $0.lastPathComponent == Self.configurationName }
        guard configurations.count <= 1 else {
            throw PluginError.several(name: Self.configurationName, target: targetName, paths: configurations.map(path))
        }
        let configuration = configurations.first
        // Only the keys that say which files to watch; sdlgen reads and checks the whole file
        // (unknown keys, bad values) and reports problems as PATH:LINE: error: in the build log.
        var specName: String?
        var templatesName: String?
        if let configuration, let data = try? Data(contentsOf: configuration),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            specName = object["spec"] as? String
            templatesName = object["templates"] as? String
        }

        // `${NAME}` in a path is the environment's (a spec kept outside the package:
        // `"${SDL_RPC_SPEC_DIR}/8.0.0/MOBILE_API.xml"`), as sdlgen reads it.
        func relative(_ name: String, key: String) throws -> URL {
            var expanded = ""
            var rest = Substring(name)
            while let start = rest.range(of: "${"), let end = rest[start.upperBound...].firstIndex(of: "}") {
                let variable = String(rest[start.upperBound..<end])
                guard let value = ProcessInfo.processInfo.environment[variable] else {
                    throw PluginError.unsetVariable(name: variable, key: key, configuration: path(configuration!))
                }
                expanded += rest[..<start.lowerBound] + value
                rest = rest[rest.index(after: end)...]
            }
            expanded += rest
            if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded) }
            return configuration!.deletingLastPathComponent().appending(path: expanded)
        }

        let spec: URL
        if let specName {
            spec = try relative(specName, key: "spec")
        } else {
            let found = files.filter { $0.lastPathComponent == Self.defaultSpecName }
            let hmi = files.filter { $0.lastPathComponent == Self.defaultHMISpecName }
            guard found.count + hmi.count <= 1 else {
                let name = hmi.isEmpty ? Self.defaultSpecName : found.isEmpty ? Self.defaultHMISpecName : "MOBILE_API.xml or HMI_API.xml"
                throw PluginError.several(name: name, target: targetName, paths: (found + hmi).map(path))
            }
            guard let first = found.first ?? hmi.first else { throw PluginError.noSpec(target: targetName) }
            spec = first
        }

        var inputs = [spec, tool]
        var arguments = ["generate"]
        if let configuration {
            inputs.append(configuration)
            arguments += ["--config", path(configuration)]
        }
        if let templatesName {
            let folder = try relative(templatesName, key: "templates")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path(folder))) ?? []
            inputs += names.filter { $0.hasSuffix(".mustache") }.sorted().map { folder.appending(path: $0) }
        }
        let outputDirectory = workDirectory.appending(path: "GeneratedSources")
        // The absolute spec path, so `PATH:LINE: error:` in the build log links to the file.
        arguments += ["--spec", path(spec), "--output", path(outputDirectory)]

        return [
            .buildCommand(
                displayName: "Generating Swift from \(spec.lastPathComponent) for \(targetName)",
                executable: tool,
                arguments: arguments,
                environment: [:],
                inputFiles: inputs,
                outputFiles: (Self.isHMISpec(spec) ? Self.hmiOutputFileNames : Self.outputFileNames)
                    .map { outputDirectory.appending(path: $0) }
            )
        ]
    }
}

extension SDLGeneratorPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { throw PluginError.notASourceTarget(target.name) }
        return try createBuildCommands(
            workDirectory: context.pluginWorkDirectoryURL,
            tool: try context.tool(named: "sdlgen").url,
            files: target.sourceFiles.map(\.url),
            targetName: target.name
        )
    }
}

#if canImport(XcodeProjectPlugin)
    import XcodeProjectPlugin

    extension SDLGeneratorPlugin: XcodeBuildToolPlugin {
        func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
            try createBuildCommands(
                workDirectory: context.pluginWorkDirectoryURL,
                tool: try context.tool(named: "sdlgen").url,
                files: target.inputFiles.map(\.url),
                targetName: target.displayName
            )
        }
    }
#endif
