import Mustache
import SDLSpec

/// The Mustache templates that lay out the generated code: the built-in copy of `Templates/`,
/// with any file from a user's `--templates` folder replacing the one of the same name.
package struct TemplateSet: Sendable {
    package private(set) var sources: [String: String]
    private let library: MustacheLibrary

    /// The built-in templates, overridden by `.mustache` files in `directory`.
    package init(overridesIn directory: String? = nil) throws(SpecError) {
        var sources = EmbeddedTemplates.sources
        if let directory {
            let names: [String]
            do {
                names = try FileBytes.list(directory)
            } catch {
                throw SpecError([Diagnostic(.error, "cannot read the templates folder: \(error)", at: nil)])
            }
            for file in names where file.hasSuffix(".mustache") {
                let path = directory.hasSuffix("/") ? directory + file : directory + "/" + file
                do {
                    sources[String(file.dropLast(".mustache".count))] = String(decoding: try FileBytes.read(path), as: UTF8.self)
                } catch {
                    throw SpecError([Diagnostic(.error, "cannot read template: \(error)", at: SourceLocation(file: path, line: 1))])
                }
            }
        }
        try self.init(sources: sources, directory: directory)
    }

    package init(sources: [String: String], directory: String? = nil) throws(SpecError) {
        var library = MustacheLibrary()
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            do {
                try library.register(source, named: name)
                try library.register(Self.nested(source), named: "Nested" + name)
            } catch {
                let file = directory.map { "\($0)/\(name).mustache" } ?? "\(name).mustache"
                throw SpecError([Diagnostic(.error, "template does not parse: \(error)", at: SourceLocation(file: file, line: 1))])
            }
        }
        self.sources = sources
        self.library = library
    }

    /// `source` one level deeper: `{{> NestedStruct}}` declares a struct inside a namespace
    /// (`extension UI { ... }`). Indenting the template's lines, rather than the rendered text,
    /// costs nothing per render and leaves blank lines blank.
    static func nested(_ source: String) -> String {
        source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.isEmpty || line.hasPrefix("{{%") ? String(line) : "    " + line }
            .joined(separator: "\n")
    }

    package func render(_ file: FileModel) throws(SpecError) -> String {
        guard sources[file.template] != nil, let text = library.render(file, withTemplate: file.template) else {
            throw SpecError([Diagnostic(.error, "no template named '\(file.template)'", at: nil)])
        }
        return text
    }
}
