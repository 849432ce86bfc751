import ArgumentParser
import Foundation
import SDLCodegen
import SDLSpec

/// A `--config` file (`sdlgen.json`) read for `sdlgen generate`. Problems print as
/// `PATH:LINE: error: message`, pointing at the offending key where there is one.
struct ConfigFile {
    var configuration = GeneratorConfiguration()
    /// The file's folder, which its relative paths start from (`""`: the current folder).
    var directory = ""
    /// The file, and the line of each key, for `PATH:LINE: error:`.
    var filePath = ""
    var text = ""

    /// A path the file gives, as seen from the current folder.
    /// A path the file gives, `${NAME}` replaced by the environment variable's value (a spec
    /// kept outside the repository: `"${SDL_RPC_SPEC_DIR}/8.0.0/MOBILE_API.xml"`), relative to
    /// the file's folder.
    func path(_ key: KeyPath<GeneratorConfiguration, String?>, named name: String) throws -> String? {
        guard let value = configuration[keyPath: key] else { return nil }
        do {
            let expanded = try GeneratorConfiguration.expandingVariables(in: value) { Environment.value($0) }
            return GeneratorConfiguration.resolve(expanded, relativeTo: directory)
        } catch {
            throw Self.fail(filePath, line: GeneratorConfiguration.line(ofKey: name, in: text), "\"\(name)\": \(error)")
        }
    }

    static func load(_ path: String) throws -> ConfigFile {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path)
        } catch {
            throw fail(path, line: nil, "cannot read the configuration file: \(error)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var file = ConfigFile()
        file.filePath = path
        file.text = text
        if let slash = path.lastIndex(of: "/") {
            file.directory = path[..<slash].isEmpty ? "/" : String(path[..<slash])
        }
        do {
            file.configuration = try JSONDecoder().decode(GeneratorConfiguration.self, from: Data(bytes))
        } catch let problem as GeneratorConfiguration.Problem {
            throw fail(path, line: problem.key.flatMap { GeneratorConfiguration.line(ofKey: $0, in: text) }, problem.message)
        } catch DecodingError.dataCorrupted {
            // JSONDecoder says only "not valid JSON"; the parser behind JSONSerialization says where.
            var detail = "the file is not valid JSON"
            var line: Int?
            do {
                _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            } catch {
                if let description = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String {
                    detail = "not valid JSON: " + description
                    line =
                        number(after: "line ", in: description)
                        ?? number(after: "character ", in: description).map { lineOf(offset: $0, in: bytes) }
                }
            }
            throw fail(path, line: line, detail)
        } catch {
            throw fail(path, line: nil, "cannot read the configuration: \(error)")
        }
        return file
    }

    private static func fail(_ path: String, line: Int?, _ message: String) -> ExitCode {
        Report.print([Diagnostic(.error, message, at: SourceLocation(file: path, line: line ?? 1))])
        return ExitCode.failure
    }

    /// Parsers say "around line 3, column 7" (Darwin) or "around character 42" (Linux).
    private static func number(after word: String, in text: String) -> Int? {
        guard let range = text.range(of: word) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    private static func lineOf(offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes.prefix(max(0, offset)).filter { $0 == UInt8(ascii: "\n") }.count
    }
}
