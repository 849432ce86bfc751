import SDLSpec

/// What to generate and how; the CLI, the plugins and `sdlgen.json` all fill this in.
package struct GeneratorOptions: Sendable {
    package enum AccessLevel: String, Sendable, CaseIterable, Codable {
        case `public`, `package`, `internal`
    }

    package enum Kind: String, Sendable, CaseIterable, Codable {
        case enums, structs, functions
    }

    package var accessLevel: AccessLevel = .public
    /// Definitions whose spec name matches are generated (whole-name match); nil means all.
    package var only: String?
    package var kinds: Set<Kind> = Set(Kind.allCases)
    /// Also generate the enums and structs the selected definitions use, so the output compiles.
    package var includeDependencies = true
    /// A folder of `.mustache` files that replace the built-in templates of the same name.
    package var templatesDirectory: String?
    /// The spec file's name as written into headers (a name, never a machine-specific path).
    package var specFileName = "MOBILE_API.xml"

    package init() {}
}
