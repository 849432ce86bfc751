/// `sdlgen.json`: the options of `sdlgen generate` written down once, for a team, a target or the
/// build plugins. Every key is optional; flags on the command line override the file. Paths are
/// relative to the folder of the file. A key the file may not hold is an error, so a typo never
/// silently changes nothing.
///
/// ```json
/// {
///   "spec": "MOBILE_API.xml",
///   "accessLevel": "public",
///   "only": "Show|OnHMIStatus",
///   "kinds": ["enums", "structs", "functions"],
///   "dependencies": true,
///   "templates": "Templates",
///   "output": "Generated"
/// }
/// ```
package struct GeneratorConfiguration: Sendable, Hashable, Decodable {
    /// The spec file (default `MOBILE_API.xml` for the build plugin).
    package var spec: String?
    /// Folder for the generated files (`sdlgen generate --output`; the build plugin sets its own).
    package var output: String?
    /// Folder of `.mustache` overrides (`--templates`).
    package var templates: String?
    /// `public`, `package` or `internal` (`--access-level`).
    package var accessLevel: GeneratorOptions.AccessLevel?
    /// Regular expression matching whole spec names (`--only`).
    package var only: String?
    /// Any of `enums`, `structs`, `functions` (`--kinds`).
    package var kinds: [GeneratorOptions.Kind]?
    /// Also generate what the selection uses (`--[no-]dependencies`).
    package var dependencies: Bool?

    /// The keys the file may hold, in the order the documentation lists them.
    package static let keys = ["spec", "output", "templates", "accessLevel", "only", "kinds", "dependencies"]

    package init() {}

    /// What is wrong with a configuration file; `key` tells which line to point at.
    package struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        package var key: String?
        package var message: String

        package init(key: String?, message: String) {
            self.key = key
            self.message = message
        }

        package var description: String { message }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<AnyKey>
        do {
            container = try decoder.container(keyedBy: AnyKey.self)
        } catch {
            throw Problem(key: nil, message: "the configuration must be a JSON object, like {\"accessLevel\": \"internal\"}")
        }
        for key in container.allKeys where !Self.keys.contains(key.stringValue) {
            let suggestion =
                Self.closestKey(to: key.stringValue)
                .map { "; did you mean '\($0)'?" } ?? "; the keys are \(Self.keys.joined(separator: ", "))"
            throw Problem(key: key.stringValue, message: "unknown key '\(key.stringValue)'\(suggestion)")
        }

        func string(_ name: String) throws -> String? {
            let key = AnyKey(stringValue: name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
            guard let value = try? container.decode(String.self, forKey: key) else {
                throw Problem(key: name, message: "'\(name)' must be a string")
            }
            return value
        }

        spec = try string("spec")
        output = try string("output")
        templates = try string("templates")
        only = try string("only")
        if let level = try string("accessLevel") {
            guard let parsed = GeneratorOptions.AccessLevel(rawValue: level) else {
                throw Problem(key: "accessLevel", message: "'accessLevel' is '\(level)'; use public, package or internal")
            }
            accessLevel = parsed
        }
        let kindsKey = AnyKey(stringValue: "kinds")
        if container.contains(kindsKey), try !container.decodeNil(forKey: kindsKey) {
            guard let names = try? container.decode([String].self, forKey: kindsKey) else {
                throw Problem(key: "kinds", message: "'kinds' must be an array of strings, like [\"enums\", \"structs\"]")
            }
            var parsed: [GeneratorOptions.Kind] = []
            for name in names {
                guard let kind = GeneratorOptions.Kind(rawValue: name) else {
                    throw Problem(key: "kinds", message: "unknown kind '\(name)' in 'kinds'; use enums, structs or functions")
                }
                if !parsed.contains(kind) { parsed.append(kind) }
            }
            if parsed.isEmpty {
                throw Problem(key: "kinds", message: "'kinds' needs at least one of enums, structs, functions")
            }
            kinds = parsed
        }
        let dependenciesKey = AnyKey(stringValue: "dependencies")
        if container.contains(dependenciesKey), try !container.decodeNil(forKey: dependenciesKey) {
            guard let value = try? container.decode(Bool.self, forKey: dependenciesKey) else {
                throw Problem(key: "dependencies", message: "'dependencies' must be true or false")
            }
            dependencies = value
        }
    }

    /// A known key within two edits (ignoring case) of a misspelt one.
    static func closestKey(to name: String) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let lowered = Array(name.lowercased())
        return keys.map { ($0, distance(lowered, Array($0.lowercased()))) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }

    /// `path` as seen from the current directory when it is written relative to `directory`
    /// (the configuration file's folder, `""` for the current one).
    /// An environment variable a path names (`${NAME}`) that is not set.
    package struct UnsetVariable: Error, CustomStringConvertible {
        package let name: String
        package init(name: String) { self.name = name }
        package var description: String { "the environment variable \(name) is not set" }
    }

    /// `text` with each `${NAME}` replaced by `value(NAME)`; throws for one that has no value.
    package static func expandingVariables(in text: String, value: (String) -> String?) throws(UnsetVariable) -> String {
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$"), rest[dollar...].dropFirst().first == "{",
            let end = rest[dollar...].firstIndex(of: "}")
        {
            let name = String(rest[rest.index(dollar, offsetBy: 2)..<end])
            guard let replacement = value(name) else { throw UnsetVariable(name: name) }
            result += rest[..<dollar] + replacement
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    package static func resolve(_ path: String, relativeTo directory: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty || directory == "." { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// The 1-based line where `"key":` first appears in a JSON text, to point diagnostics at it.
    package static func line(ofKey key: String, in text: String) -> Int? {
        let needle = Array("\"\(key)\"".utf8)
        let bytes = Array(text.utf8)
        guard needle.count <= bytes.count else { return nil }
        var line = 1
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
            } else if bytes[index..<index + needle.count].elementsEqual(needle) {
                var next = index + needle.count
                while next < bytes.count,
                    bytes[next] == UInt8(ascii: " ") || bytes[next] == UInt8(ascii: "\t")
                        || bytes[next] == UInt8(ascii: "\n") || bytes[next] == UInt8(ascii: "\r")
                {
                    next += 1
                }
                if next < bytes.count, bytes[next] == UInt8(ascii: ":") { return line }
            }
            index += 1
        }
        return nil
    }
}
