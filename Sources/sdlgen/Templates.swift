import ArgumentParser
import SDLCodegen
import SDLSpec

struct Templates: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the built-in templates, to start an override folder for --templates.",
        subcommands: [List.self, Cat.self, Embed.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the built-in template names.")
        func run() throws {
            for name in try TemplateSet().sources.keys.sorted() { print(name) }
        }
    }

    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a built-in template.")
        @Argument(help: "Template name, as `sdlgen templates list` prints it.")
        var name: String

        func run() throws {
            guard let source = try TemplateSet().sources[name] else {
                throw ValidationError("No template named '\(name)'; see `sdlgen templates list`.")
            }
            print(source, terminator: "")
        }
    }

    /// For contributors: refreshes the built-in copy after editing `Templates/`.
    struct Embed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the built-in copy of a templates folder (contributors: after editing Templates/).")

        @Option(help: ArgumentHelp("Templates folder.", valueName: "dir"))
        var from = "Templates"

        @Option(help: ArgumentHelp("Swift file to write.", valueName: "path"))
        var output = "Sources/SDLCodegen/EmbeddedTemplates.swift"

        func run() throws {
            var sources: [String: String] = [:]
            for file in try FileBytes.list(from) where file.hasSuffix(".mustache") {
                sources[String(file.dropLast(".mustache".count))] = String(decoding: try FileBytes.read(from + "/" + file), as: UTF8.self)
            }
            try FileBytes.write(Array(EmbeddedTemplatesFile.render(sources).utf8), to: output)
        }
    }
}
