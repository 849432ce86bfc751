import ArgumentParser
import Foundation
import SDLRPC
import SDLRuntime
import SDLSpec

/// `sdl validate`: checks messages in app teams' pipelines, one JSON line in, one JSON line out.
struct ValidateMessages: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate messages (JSON lines) against the RPC spec.",
        discussion: """
            Each input line is {"function": "Show", "messageType": "request", "params": {...}}.
            Each output line is {"valid": true} or {"valid": false, "errors": [{"path": "...", "message": "..."}]}.
            Unknown enum values are errors here; unknown keys are ignored, as a head unit would.
            Exits 0 when every message is valid, 1 otherwise.
            """
    )

    @Argument(help: ArgumentHelp("JSON-lines file (default: standard input).", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("Validate against this MOBILE_API.xml instead of the built-in 8.0.0 types.", valueName: "path"))
    var spec: String?

    func run() throws {
        let validator: any MessageValidator
        if let spec {
            let loaded: LoadedSpec
            do {
                loaded = try SpecLoader.load(path: spec)
            } catch {
                throw ValidationError("Cannot load the spec:\n\(error)")
            }
            guard !loaded.hasErrors else {
                throw ValidationError("The spec has errors:\n" + loaded.diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "\n"))
            }
            validator = SpecModelValidator(interface: loaded.interface)
        } else {
            validator = GeneratedTypesValidator()
        }

        let input: Data
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("Cannot read \(file).") }
            input = data
        } else {
            input = FileHandle.standardInput.readDataToEndOfFile()
        }

        var allValid = true
        var output = Data()
        for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let bytes = Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let issues = Self.check(bytes, with: validator)
            allValid = allValid && issues.isEmpty
            output.append(contentsOf: Self.report(issues).jsonBytes)
            output.append(UInt8(ascii: "\n"))
        }
        FileHandle.standardOutput.write(output)
        if !allValid { throw ExitCode.failure }
    }

    /// The errors of one input line.
    static func check(_ line: [UInt8], with validator: any MessageValidator) -> [SDLCodingIssue] {
        func problem(_ path: String, _ message: String) -> [SDLCodingIssue] {
            [SDLCodingIssue(path: SDLCodingPath(root: path), kind: .malformed(message))]
        }
        let envelope: SDLJSONValue
        do {
            envelope = try SDLJSONValue(parsing: line)
        } catch {
            return problem("", "not JSON: \(error)")
        }
        guard case .object = envelope else { return problem("", "a line must be a JSON object") }
        guard case .string(let function)? = envelope["function"] else {
            return problem("function", "missing or not a string")
        }
        guard case .string(let typeName)? = envelope["messageType"], let messageType = SDLMessageType(rawValue: typeName) else {
            return problem("messageType", "must be \"request\", \"response\" or \"notification\"")
        }
        let params = envelope["params"] ?? .object([])
        guard case .object = params else { return problem("params", "must be an object") }
        return validator.issues(function: function, messageType: messageType, params: params)
    }

    static func report(_ issues: [SDLCodingIssue]) -> SDLJSONValue {
        guard !issues.isEmpty else { return .object([.init(key: "valid", value: .bool(true))]) }
        let errors = issues.map { issue in
            SDLJSONValue.object([
                .init(key: "path", value: .string(issue.path.description)),
                .init(key: "message", value: .string(issue.message)),
            ])
        }
        return .object([.init(key: "valid", value: .bool(false)), .init(key: "errors", value: .array(errors))])
    }
}

/// Checks the params of one message; an empty result means valid.
protocol MessageValidator {
    func issues(function: String, messageType: SDLMessageType, params: SDLJSONValue) -> [SDLCodingIssue]
}

/// Through a spec file's model (SDLSpec), for spec versions other than the generated one.
extension SpecModelValidator: MessageValidator {}

/// Through the generated 8.0.0 types and their decoders.
struct GeneratedTypesValidator: MessageValidator {
    private let types: [String: any SDLMessage.Type]

    init() {
        var types: [String: any SDLMessage.Type] = [:]
        let all: [any SDLMessage.Type] = MobileAPI.requests + MobileAPI.responses + MobileAPI.notifications
        for type in all { types["\(type.messageType.rawValue) \(type.functionName)"] = type }
        self.types = types
    }

    func issues(function: String, messageType: SDLMessageType, params: SDLJSONValue) -> [SDLCodingIssue] {
        guard let type = types["\(messageType.rawValue) \(function)"] else {
            return [
                SDLCodingIssue(
                    path: SDLCodingPath(root: "function"), kind: .malformed("spec \(MobileAPI.version) has no \(messageType.rawValue) named \"\(function)\""))
            ]
        }
        return Self.decode(type, params.jsonBytes)
    }

    private static func decode<T: SDLMessage>(_ type: T.Type, _ bytes: [UInt8]) -> [SDLCodingIssue] {
        let issues: [SDLCodingIssue]
        do {
            issues = try SDLJSON.decode(T.self, from: bytes).warnings
        } catch {
            issues = error.issues
        }
        // A value the spec does not define is a warning for a receiver, an error for a sender.
        return issues.map { issue in
            var issue = issue
            issue.severity = .error
            return issue
        }
    }
}
