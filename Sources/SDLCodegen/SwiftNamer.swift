/// Turns spec names into Swift names by fixed, tested rules (README, "Naming rules").
///
/// - Types keep their spec name (`TTSChunk`, `HMILevel`). A name that is a Swift keyword, or a
///   top-level type of the Swift standard library, Foundation or SwiftUI that apps use daily
///   (`Result`, `Data`, `URL`, `Image`, `Alert`), gets the prefix `SDL` (`SDLResult`, `SDLImage`),
///   so importing the module beside them never makes their names ambiguous. Characters that cannot appear in an identifier are dropped at word boundaries. A
///   name the generated types declare inside themselves gets the suffix `Type`
///   (`Response` → `ResponseType`, since every request has `typealias Response`).
/// - Requests and notifications take the function name (`Show`, `OnHMIStatus`); responses add
///   `Response` (`ShowResponse`) unless the name already ends in it (`GenericResponse`). A
///   function name taken by a type gets `Request` or `Notification` appended.
/// - Enum cases and properties are lowerCamelCase: `HMI_FULL` → `hmiFull`, `EN-US` → `enUs`,
///   `AddCommandID` → `addCommandID`, `fuelLevel_State` → `fuelLevelState`, `URL` → `url`.
///   A name starting with a digit gets a leading underscore (`8KHZ` → `_8khz`, `2D` → `_2d`);
///   digits on both sides of a separator keep an underscore (`GEN3_8-INCH` → `gen3_8Inch`).
/// - Swift keywords are escaped with backticks (`` `protocol` ``, `` `default` ``).
/// - Names the generated code declares itself (`unrecognized`, `hashValue`, `self`, ...) get a
///   trailing underscore; two spec names that map to the same Swift name get `_2`, `_3`, ...
package enum SwiftNamer {
    /// Swift keywords that must be escaped as identifiers.
    package static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate",
        "func", "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias",
        "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "await", "false",
        "is", "nil", "self", "Self", "super", "throws", "true", "try", "Any", "Type", "Protocol", "_",
    ]

    /// Type names that would shadow the Swift standard library or Foundation in app code,
    /// or that name this package's own modules.
    package static let reservedTypeNames: Set<String> = [
        // Swift keywords and special types usable as identifiers only with backticks.
        "Any", "AnyObject", "Self", "Type", "Protocol",
        // Swift standard library.
        "Array", "Bool", "Character", "ClosedRange", "Codable", "Collection", "Comparable", "Decodable",
        "Dictionary", "Double", "Duration", "Encodable", "Equatable", "Error", "Float", "Float16", "Float32",
        "Float64", "Hashable", "Hasher", "Identifiable", "Int", "Int8", "Int16", "Int32", "Int64", "KeyPath",
        "Mirror", "Never", "Optional", "Range", "Regex", "Result", "Sendable", "Sequence", "Set", "Slice",
        "StaticString", "String", "Substring", "Task", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Unicode", "Void",
        // Foundation.
        "AttributedString", "Bundle", "Calendar", "CharacterSet", "Data", "Date", "DateComponents",
        "Decimal", "FileHandle", "FileManager", "IndexPath", "IndexSet", "JSONDecoder", "JSONEncoder",
        "Locale", "Measurement", "Notification", "NotificationCenter", "NSError", "NSNumber", "NSObject",
        "NSString", "Operation", "OperationQueue", "Pipe", "Process", "ProcessInfo", "Progress", "RunLoop",
        "Scanner", "Thread", "TimeInterval", "TimeZone", "Timer", "Unit", "URL", "URLComponents",
        "URLRequest", "URLSession", "UUID",
        // SwiftUI (and the names UIKit and AppKit apps meet through it): an app's view code imports
        // SwiftUI beside the generated types, and an unqualified `Image` or `Alert` must stay
        // SwiftUI's. SDL's `Image` becomes `SDLImage`, as in SDL's iOS library.
        "Alert", "Angle", "Animation", "Button", "Canvas", "Capsule", "Circle", "Color", "ColorPicker",
        "DatePicker", "Divider", "Edge", "Ellipse", "Font", "Form", "Gauge", "Gradient", "Grid", "GridRow",
        "Group", "Image", "Label", "Layout", "Link", "List", "Material", "Menu", "Path", "Picker",
        "Rectangle", "Scene", "Section", "Shape", "Slider", "Spacer", "Stepper", "Tab", "Table", "Text",
        "TextEditor", "TextField", "Toggle", "Transaction", "View", "Window",
        // This package.
        "SDLRuntime", "SDLRPC", "MobileAPI", "SDLHMIRPC", "HMIAPI",
    ]

    /// Members every generated enum or struct declares or inherits. `self` is here too: a
    /// parameter named `` `self` `` would shadow `self` in the memberwise initializer.
    package static let reservedMemberNames: Set<String> = [
        "self", "unrecognized", "rawValue", "isRecognized", "allCases", "enumInfo", "structInfo", "hashValue",
        "hash", "functionName", "functionIDValue", "messageType", "description", "method",
        // Names the generated coding functions use for their own parameters and locals.
        "reader", "writer", "validator", "key", "parameters",
    ]

    // MARK: Types

    package static func typeName(_ specName: String) -> String {
        unreserved(upperCamelCase(specName))
    }

    /// `name` prefixed with `SDL` when it is reserved (or starts with a digit), suffixed with
    /// `Type` when the generated types declare it inside themselves. `nested`: declared in a
    /// namespace, so every use is qualified and only what cannot follow a dot is reserved.
    private static func unreserved(_ name: String, nested: Bool = false) -> String {
        var name = name
        let reserved = nested ? ["Type", "Protocol", "Self"].contains(name) : reservedTypeNames.contains(name)
        if let first = name.first, first.isNumber || reserved || keywords.contains(name) {
            name = "SDL" + name
        }
        if memberTypeNames.contains(name) { name += "Type" }
        return name
    }

    /// The words of `specName`, each capitalized, joined: `Unnamed` when there are none.
    private static func upperCamelCase(_ specName: String) -> String {
        let name = splitWords(specName).map { word in
            guard let first = word.first else { return "" }
            return first.uppercased() + word.dropFirst()
        }.joined()
        return name.isEmpty ? "Unnamed" : name
    }

    /// Type names the generated types declare inside themselves (`typealias Response` in every
    /// request), which would shadow a spec type of that name there.
    package static let memberTypeNames: Set<String> = ["Response"]

    /// The name of a type nested in a namespace (an HMI interface: `Common.Result`). Every use
    /// is qualified, so it may reuse standard library and framework names; only what cannot
    /// follow a dot (`Type`, `Protocol`, `Self`, keywords, a leading digit) is changed.
    package static func nestedTypeName(_ specName: String) -> String {
        unreserved(upperCamelCase(specName), nested: true)
    }

    /// The Swift name of an HMI interface's namespace: the interface's name when it is an
    /// identifier (`UI`, `BasicCommunication`), else as a type name.
    package static func namespaceName(_ interfaceName: String) -> String {
        let isIdentifier =
            interfaceName.first.map { $0.isLetter || $0 == "_" } == true
            && interfaceName.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return isIdentifier && !keywords.contains(interfaceName) && !reservedTypeNames.contains(interfaceName)
            ? interfaceName : typeName(interfaceName)
    }

    /// A response's name is checked as a whole: `Alert`'s is `AlertResponse`, though its request
    /// is `SDLAlert`. `nested`: the message is declared in a namespace (an HMI interface's
    /// `UI.Alert`), so only what cannot follow a dot is changed, as for `nestedTypeName(_:)`.
    package static func messageTypeName(_ functionName: String, messageType: String, nested: Bool = false) -> String {
        var name = upperCamelCase(functionName)
        if messageType == "response" && !name.hasSuffix("Response") { name += "Response" }
        return unreserved(name, nested: nested)
    }

    // MARK: Members

    /// The lowerCamelCase Swift name for an enum element or parameter, escaped if it is a keyword.
    package static func memberName(_ specName: String) -> String {
        let words = splitWords(specName)
        let allUppercase = !specName.contains { $0.isLowercase }
        var name = ""
        for (index, word) in words.enumerated() {
            var piece: String
            if allUppercase {
                piece = word.lowercased()
                if index > 0, let first = piece.first { piece = first.uppercased() + piece.dropFirst() }
            } else if index == 0 {
                piece = lowercasingLeadingCapitals(word)
            } else {
                piece = word.prefix(1).uppercased() + word.dropFirst()
            }
            if let last = name.last, last.isNumber, let first = piece.first, first.isNumber {
                name += "_"
            }
            name += piece
        }
        if name.isEmpty { name = "unnamed" }
        if let first = name.first, first.isNumber { name = "_" + name }
        if reservedMemberNames.contains(name) { name += "_" }
        return escaped(name)
    }

    /// `` `name` `` for keywords, `name` otherwise.
    package static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Gives each name in `names` a distinct Swift name, suffixing later duplicates with `_2`, `_3`...
    package static func uniqueMemberNames(_ names: [String]) -> [String] {
        var used: Set<String> = []
        return names.map { specName in
            let base = memberName(specName)
            var candidate = base
            var counter = 2
            while used.contains(unescaped(candidate)) {
                candidate = escaped(unescaped(base) + "_\(counter)")
                counter += 1
            }
            used.insert(unescaped(candidate))
            return candidate
        }
    }

    static func unescaped(_ name: String) -> String {
        name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
    }

    // MARK: Words

    /// Splits at characters that cannot appear in an identifier (`_`, `-`, spaces, dots).
    static func splitWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text {
            if character.isASCII && (character.isLetter || character.isNumber) {
                current.append(character)
            } else if !character.isASCII && (character.isLetter || character.isNumber) {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `URLString` → `urlString`, `AddCommandID` → `addCommandID`, `Timeout` → `timeout`, `CT` → `ct`.
    static func lowercasingLeadingCapitals(_ word: String) -> String {
        let characters = Array(word)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        if upperRun == 0 { return word }
        if upperRun == characters.count {
            return word.lowercased()
        }
        // Keep the capital that starts the next word: `URLString` → `url` + `String`.
        let lowered = upperRun > 1 && characters[upperRun].isLetter ? upperRun - 1 : upperRun
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }
}
