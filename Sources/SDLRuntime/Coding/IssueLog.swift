/// What a reader found, shared by the JSON and BSON readers so both report issues, missing
/// parameters and unknown keys the same way. The reader keeps its own path (its position);
/// the log keeps what was found there.
struct SDLIssueLog {
    private(set) var issues: [SDLCodingIssue] = []
    private(set) var unknownKeys: [SDLCodingPath] = []
    /// The paths of `issues`, so that `missing` stays constant-time with many issues.
    private var issuePaths: Set<SDLCodingPath> = []

    mutating func record(_ kind: SDLCodingIssue.Kind, at path: SDLCodingPath, severity: SDLCodingIssue.Severity = .error) {
        issues.append(SDLCodingIssue(path: path, kind: kind, severity: severity))
        issuePaths.insert(path)
    }

    /// A mandatory parameter of the object at `path` was absent. A value that was present but
    /// unusable is already reported at that path; "missing" would mislead.
    mutating func missing(_ parameter: SDLParameterInfo, in path: SDLCodingPath) {
        var at = path
        at.components.append(.key(parameter.name))
        if !issuePaths.contains(at) { record(.missingMandatory, at: at) }
    }

    mutating func unknownKey(_ key: String, in path: SDLCodingPath) {
        var at = path
        at.components.append(.key(key))
        unknownKeys.append(at)
    }
}
