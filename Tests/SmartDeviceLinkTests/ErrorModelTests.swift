import Foundation
import SDLTestSupport
import SDLTransport
import Testing

@testable import SmartDeviceLink

/// One error model: every detailed error of the library says which `SDLError` it is
/// (`SDLErrorConvertible`), so none falls to `.unknown` by accident.
@Suite struct ErrorModelTests {
    /// The text of every Swift file of Sources/SmartDeviceLink.
    static func librarySources() throws -> [String] {
        let root = URL(fileURLWithPath: SharedData.packageRoot).appendingPathComponent("Sources/SmartDeviceLink")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Every error type declared in Sources/SmartDeviceLink (public or package) conforms, read
    /// from the sources so that a new type cannot be added without saying what it is.
    @Test func everyErrorTypeSaysWhichCodeItIs() throws {
        var declared: Set<String> = []
        var conforming: Set<String> = []
        let declaration = try Regex(#"(?:public|package) (?:enum|struct) (\w+Error)\b[^{]*:"#)
        let conformance = try Regex(#"(?:extension|(?:public|package) (?:enum|struct)) (\w+Error)\b[^{]*SDLErrorConvertible"#)
        for text in try Self.librarySources() {
            for match in text.matches(of: declaration) { if let name = match.output[1].substring { declared.insert(String(name)) } }
            for match in text.matches(of: conformance) { if let name = match.output[1].substring { conforming.insert(String(name)) } }
        }
        declared.remove("SDLError")
        #expect(declared.count >= 15)
        #expect(declared.subtracting(conforming).isEmpty, "these error types do not say which SDLError they are: \(declared.subtracting(conforming).sorted())")
        // And the transport's, which the session passes on.
        #expect(conforming.contains("SDLTransportError"))
    }

    /// Apps learn one error model: SmartDeviceLink's public error types are `SDLError` and the
    /// four that describe the connection and the RPC layer (issue 47); every other detailed
    /// error is `package`, reachable only as `SDLError.underlying`. A type is an error when its
    /// declaration, or an extension of it, conforms to `Error` or `SDLErrorConvertible`.
    @Test func atMostFivePublicErrorTypes() throws {
        let declaration = try Regex(#"public (?:enum|struct|final class|class|actor) (\w+)\b([^{]*)\{"#)
        let extensionDeclaration = try Regex(#"extension (\w+)\b([^{]*)\{"#)
        let isError = try Regex(#":[^{]*\b(?:Error|SDLErrorConvertible)\b"#)
        var publicTypes: Set<String> = []
        var errorTypes: Set<String> = []
        for text in try Self.librarySources() {
            for match in text.matches(of: declaration) {
                guard let name = match.output[1].substring.map(String.init), let clause = match.output[2].substring else { continue }
                publicTypes.insert(name)
                if clause.contains(isError) { errorTypes.insert(name) }
            }
            for match in text.matches(of: extensionDeclaration) {
                guard let name = match.output[1].substring.map(String.init), let clause = match.output[2].substring else { continue }
                if clause.contains(isError) { errorTypes.insert(name) }
            }
        }
        let publicErrors = errorTypes.intersection(publicTypes)
        #expect(publicErrors == ["SDLError", "SDLCloseReason", "SDLSessionError", "SDLRPCError", "SDLRequestRefusal"])
        #expect(publicErrors.count <= 5)
    }

    /// A sample of each kind maps to its code, never `.unknown`.
    @Test func detailedErrorsMapToTheirCodes() {
        let samples: [(any Error, SDLError.Code)] = [
            (SDLManagerError.notReady(.stopped), .notReady),
            (SDLRPCError.timeout(function: "Show", correlationID: 1, after: .seconds(10)), .timedOut),
            (SDLSessionError.controlTimeout(.startService, service: .rpc), .timedOut),
            (SDLTransportError.closed, .connectionClosed),
            (SDLTransportError.io("disk"), .io),
            (SDLVideoStreamingError.wrongAppType, .wrongAppType),
            (SDLVideoStreamingError.startRefused(reason: nil), .refusedByHeadUnit),
            (SDLWAVError.unwritable(path: "/read-only/a.wav"), .io),
            (SDLMenuError.duplicateTitle("Play"), .invalidArgument),
            (CancellationError(), .cancelled),
        ]
        for (error, code) in samples {
            let mapped = SDLError(error)
            #expect(mapped.code == code, "\(error) → \(mapped.code)")
            #expect(mapped.code != .unknown)
        }
    }

    @Test func anErrorThatDoesNotSayIsUnknownAndKeptAsItsCause() {
        struct CustomTransportFailure: Error {}
        let mapped = SDLError(CustomTransportFailure())
        #expect(mapped.code == .unknown)
        #expect(mapped.underlying is CustomTransportFailure)

        struct Overheated: SDLErrorConvertible {
            var sdlError: SDLError { SDLError(.io, "the radio overheated", underlying: self) }
        }
        #expect(SDLError(Overheated()).code == .io)
    }
}

/// Structured concurrency in the app library: long-lived work is a child of a run; the few
/// unstructured tasks left are handles the app asked for, each saying why.
@Suite struct UnstructuredTaskTests {
    @Test func atMostThreeUnstructuredTasksEachSayingWhy() throws {
        var found: [String] = []
        // `Task {` or `Task { () ... in`, not `group.addTask {` and not inside a comment.
        func startsTask(_ line: Substring) -> Bool {
            var rest = line[...]
            while let range = rest.range(of: "Task {") {
                let before = rest[..<range.lowerBound].last
                if before.map({ !$0.isLetter && !$0.isNumber && $0 != "." && $0 != "_" }) ?? true { return true }
                rest = rest[range.upperBound...]
            }
            return false
        }
        for text in try ErrorModelTests.librarySources() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && startsTask(line) {
                let before = lines[max(0, index - 4)..<index].joined(separator: "\n")
                #expect(before.contains("Unstructured"), "no comment says why: \(line)")
                found.append(String(line.trimmingCharacters(in: .whitespaces)))
            }
        }
        #expect(found.count <= 3, "\(found)")
    }
}
