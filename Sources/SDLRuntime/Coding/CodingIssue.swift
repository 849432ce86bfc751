/// Problems found while decoding, validating or encoding a message, each with the path of the
/// value it concerns (`Show.softButtons[2].text`).

/// A path into a message: the root type's name, then keys and array indexes.
public struct SDLCodingPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var root: String
    public var components: [Component]

    public init(root: String, components: [Component] = []) {
        self.root = root
        self.components = components
    }

    public var description: String {
        var text = root
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

/// One finding, with where it is and what is wrong.
public struct SDLCodingIssue: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable {
        case warning, error
    }

    public enum Kind: Hashable, Sendable {
        /// A mandatory parameter is absent.
        case missingMandatory
        /// The value has another type than the spec says (`expected`: "String", "Integer", ...).
        case wrongType(expected: String, found: String)
        /// A number outside `minvalue`/`maxvalue`.
        case valueOutOfRange(value: Double, min: Double?, max: Double?)
        /// A string whose character count is outside `minlength`/`maxlength`.
        case lengthOutOfRange(length: Int, min: Int?, max: Int?)
        /// An array whose element count is outside `minsize`/`maxsize`.
        case sizeOutOfRange(count: Int, min: Int?, max: Int?)
        /// A string that is not an element of the enum.
        case unknownEnumValue(value: String, enumName: String)
        /// The same key twice in one object.
        case duplicateKey(String)
        /// An integer that does not fit, or a number that is not finite.
        case numberOverflow(String)
        /// The bytes are not valid JSON or BSON (nothing after this point was read).
        case malformed(String)
        /// Nesting deeper than the decoder's limit.
        case tooDeep(limit: Int)
    }

    public var path: SDLCodingPath
    public var kind: Kind
    public var severity: Severity

    public init(path: SDLCodingPath, kind: Kind, severity: Severity = .error) {
        self.path = path
        self.kind = kind
        self.severity = severity
    }

    /// What is wrong, without the path: `501 characters, maxlength is 500`.
    public var message: String {
        func bounds(_ min: String?, _ max: String?, _ minName: String, _ maxName: String, below: Bool) -> String {
            below ? "\(minName) is \(min ?? "?")" : "\(maxName) is \(max ?? "?")"
        }
        switch kind {
        case .missingMandatory:
            return "mandatory parameter is missing"
        case .wrongType(let expected, let found):
            return "expected \(expected), found \(found)"
        case .valueOutOfRange(let value, let min, let max):
            let below = min.map { value < $0 } ?? false
            return "\(Self.format(value)) is out of range, "
                + bounds(min.map(Self.format), max.map(Self.format), "minvalue", "maxvalue", below: below)
        case .lengthOutOfRange(let length, let min, let max):
            let below = min.map { length < $0 } ?? false
            return "\(length) character\(length == 1 ? "" : "s"), "
                + bounds(min.map(String.init), max.map(String.init), "minlength", "maxlength", below: below)
        case .sizeOutOfRange(let count, let min, let max):
            let below = min.map { count < $0 } ?? false
            return "\(count) item\(count == 1 ? "" : "s"), "
                + bounds(min.map(String.init), max.map(String.init), "minsize", "maxsize", below: below)
        case .unknownEnumValue(let value, let enumName):
            return "\"\(value)\" is not an element of \(enumName)"
        case .duplicateKey(let key):
            return "key \"\(key)\" appears more than once"
        case .numberOverflow(let text):
            return "number \(text) does not fit"
        case .malformed(let reason):
            return reason
        case .tooDeep(let limit):
            return "nested deeper than \(limit) levels"
        }
    }

    /// `Show.softButtons[2].text: 501 characters, maxlength is 500`.
    public var description: String {
        let location = path.description
        return location.isEmpty ? message : "\(location): \(message)"
    }

    static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }
}

/// Decoding failed: every error found (not only the first), plus the warnings.
public struct SDLDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var issues: [SDLCodingIssue]

    public init(issues: [SDLCodingIssue]) {
        self.issues = issues
    }

    public var errors: [SDLCodingIssue] { issues.filter { $0.severity == .error } }

    public var description: String {
        issues.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")
    }
}

/// A message breaks the spec's rules and was not encoded.
public struct SDLValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var issues: [SDLCodingIssue]

    public init(issues: [SDLCodingIssue]) {
        self.issues = issues
    }

    public var description: String {
        issues.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")
    }
}
