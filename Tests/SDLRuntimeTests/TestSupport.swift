import Foundation
import SDLRuntime
import SDLTestSupport
import Testing

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// SDL Core 8.2.0's RegisterAppInterface response (9622 bytes of JSON, tab-indented), from
    /// a recorded session (shared/captures/sdl-core-8.2.0-session).
    static func registerAppInterfaceResponse() throws -> [UInt8] {
        try bytes("sdl-core-register-app-interface-response.json")
    }

    /// The same with what SDL Core leaves out: ten of its twelve `imageFields` lack the mandatory
    /// `imageTypeSupported`, so the message as sent does not decode.
    static func validRegisterAppInterfaceResponse() throws -> [UInt8] {
        let text = String(decoding: try registerAppInterfaceResponse(), as: UTF8.self)
        // In those ten, and nowhere else, `"name"` follows the `imageResolution` object.
        let gap = "},\n\t\t\t\t\"name\" : "
        return utf8(text.replacing(gap, with: "},\n\t\t\t\t\"imageTypeSupported\" : [\"GRAPHIC_PNG\"],\n\t\t\t\t\"name\" : "))
    }

    /// SDL Core 8.2.0's StartServiceACK payload from the same session: keys in its hash-map order,
    /// `mtu` int64, an empty `secondaryTransports` array.
    static let startServiceACK = hex(
        "0101000004766964656f536572766963655472616e73706f727473000c0000001030000100000000106861736849640001000100"
            + "026d6f64656c000800000047656e6572696300126d7475000000020000000000026d6f64656c5965617200050000003230313900"
            + "026d616b65000400000053444c00047365636f6e646172795472616e73706f7274730005000000000273797374656d536f6674"
            + "7761726556657273696f6e000900000031323334355f555300027472696d000300000053450004617564696f53657276696365"
            + "5472616e73706f727473000c00000010300001000000000270726f746f636f6c56657273696f6e0006000000352e342e300000")
}

/// Bytes from hex digits; spaces and newlines are ignored.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") })
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hex digit: \(c)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

// MARK: - Hostile input

/// Lets other tests run every `every` iterations of a long loop. Swift Testing runs tests on the
/// shared cooperative pool, two threads on two cores: a loop that never suspends would starve
/// the async tests of other suites until their timeouts fire.
func pause(_ iteration: Int, every: Int = 64) async {
    if iteration % every == every - 1 { await Task.yield() }
}

/// Whatever the bytes, decoding ends in a value or in an `SDLDecodingError` with at least one
/// error, every error at a path under the root type. A crash or a hang fails the whole run.
@discardableResult
func expectGraceful<T: SDLCodable>(
    _ type: T.Type, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
    _ decode: () throws(SDLDecodingError) -> SDLDecoded<T>
) -> SDLDecodingError? {
    do {
        _ = try decode()
        return nil
    } catch {
        #expect(!error.errors.isEmpty, "\(what()): an error without errors", sourceLocation: sourceLocation)
        for issue in error.errors where issue.path.root != T.structInfo.name {
            Issue.record("\(what()): \(issue) is not under \(T.structInfo.name)", sourceLocation: sourceLocation)
        }
        return error
    }
}

/// The error lines of decoding `bytes` as `T` from JSON; empty when it decodes.
@discardableResult
func jsonErrors<T: SDLCodable>(_ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    let error = expectGraceful(T.self, String(decoding: bytes.prefix(200), as: UTF8.self), sourceLocation: sourceLocation) {
        () throws(SDLDecodingError) in try SDLJSON.decode(T.self, from: bytes)
    }
    return error?.errors.map(\.description) ?? []
}

@discardableResult
func jsonErrors<T: SDLCodable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    jsonErrors(T.self, utf8(text), sourceLocation: sourceLocation)
}
