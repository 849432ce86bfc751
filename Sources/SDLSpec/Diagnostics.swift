/// A place in a spec file, for compiler-style messages.
public struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}

/// One finding about a spec, printed like a compiler diagnostic so editors can jump to it.
public struct Diagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable, Codable, Comparable {
        case note, warning, error

        private var rank: Int {
            switch self {
            case .note: 0
            case .warning: 1
            case .error: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    public var message: String
    public var location: SourceLocation?

    public init(_ severity: Severity, _ message: String, at location: SourceLocation?) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `PATH:LINE: error: message`, the format Xcode, VS Code and Emacs understand.
    public var description: String {
        if let location {
            return "\(location): \(severity.rawValue): \(message)"
        }
        return "\(severity.rawValue): \(message)"
    }
}

/// Collects diagnostics across every stage of the pipeline.
public struct DiagnosticList: Sendable {
    public private(set) var all: [Diagnostic] = []

    public init() {}

    public mutating func error(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.error, message, at: location))
    }

    public mutating func warning(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.warning, message, at: location))
    }

    public mutating func note(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.note, message, at: location))
    }

    public mutating func append(contentsOf other: [Diagnostic]) {
        all.append(contentsOf: other)
    }

    public var hasErrors: Bool { all.contains { $0.severity == .error } }
    public var errors: [Diagnostic] { all.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { all.filter { $0.severity == .warning } }

    /// Diagnostics in file order, so output reads top to bottom like a compiler's.
    public var sorted: [Diagnostic] {
        all.enumerated().sorted { a, b in
            let la = a.element.location?.line ?? 0
            let lb = b.element.location?.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }
}

/// Thrown when a stage cannot go on; the diagnostics say why.
public struct SpecError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
