import SDLSpec

/// What to generate and how; the CLI, the plugins and `sdlgen.json` all fill this in.
public struct GeneratorOptions: Sendable {
    public enum AccessLevel: String, Sendable, CaseIterable, Codable {
        case `public`, `package`, `internal`
    }

    public enum Kind: String, Sendable, CaseIterable, Codable {
        case enums, structs, functions
    }

    public var accessLevel: AccessLevel = .public
    /// Definitions whose spec name matches are generated (whole-name match); nil means all.
    public var only: String?
    public var kinds: Set<Kind> = Set(Kind.allCases)
    /// Also generate the enums and structs the selected definitions use, so the output compiles.
    public var includeDependencies = true
    /// A folder of `.mustache` files that replace the built-in templates of the same name.
    public var templatesDirectory: String?
    /// The spec file's name as written into headers (a name, never a machine-specific path).
    public var specFileName = "MOBILE_API.xml"

    public init() {}
}
