/// A place in a spec file, for compiler-style messages.
package struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    package var file: String
    package var line: Int

    package init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    package var description: String { "\(file):\(line)" }
}

/// One finding about a spec, printed like a compiler diagnostic so editors can jump to it.
package struct Diagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    package enum Severity: String, Hashable, Sendable, Codable, Comparable {
        case note, warning, error

        private var rank: Int {
            switch self {
            case .note: 0
            case .warning: 1
            case .error: 2
            }
        }

        package static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    package var severity: Severity
    package var message: String
    package var location: SourceLocation?

    package init(_ severity: Severity, _ message: String, at location: SourceLocation?) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `PATH:LINE: error: message`, the format Xcode, VS Code and Emacs understand.
    package var description: String {
        if let location {
            return "\(location): \(severity.rawValue): \(message)"
        }
        return "\(severity.rawValue): \(message)"
    }
}

/// Collects diagnostics across every stage of the pipeline.
package struct DiagnosticList: Sendable {
    package private(set) var all: [Diagnostic] = []

    package init() {}

    package mutating func error(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.error, message, at: location))
    }

    package mutating func warning(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.warning, message, at: location))
    }

    package mutating func note(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.note, message, at: location))
    }

    package mutating func append(contentsOf other: [Diagnostic]) {
        all.append(contentsOf: other)
    }

    package var hasErrors: Bool { all.contains { $0.severity == .error } }
    package var errors: [Diagnostic] { all.filter { $0.severity == .error } }
    package var warnings: [Diagnostic] { all.filter { $0.severity == .warning } }

    /// Diagnostics in file order, so output reads top to bottom like a compiler's.
    package var sorted: [Diagnostic] {
        all.enumerated().sorted { a, b in
            let la = a.element.location?.line ?? 0
            let lb = b.element.location?.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }
}

/// Thrown when a stage cannot go on; the diagnostics say why.
package struct SpecError: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [Diagnostic]

    package init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    package var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
