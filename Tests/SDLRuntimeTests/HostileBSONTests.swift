import SDLRPC
import SDLRuntime
import SDLTestSupport
import Testing

// MARK: - Building BSON by hand

private func int32LE(_ value: Int32) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// One element: type byte, key, NUL, payload.
private func element(_ type: UInt8, _ key: [UInt8], _ payload: [UInt8]) -> [UInt8] {
    [type] + key + [0] + payload
}

private func element(_ type: UInt8, _ key: String, _ payload: [UInt8]) -> [UInt8] {
    element(type, utf8(key), payload)
}

/// A document around `elements`, with its length.
private func document(_ elements: [UInt8]...) -> [UInt8] {
    let body = elements.flatMap { $0 }
    return int32LE(Int32(body.count + 5)) + body + [0]
}

private func stringPayload(_ bytes: [UInt8]) -> [UInt8] {
    int32LE(Int32(bytes.count + 1)) + bytes + [0]
}

/// `bytes` with the int32 at `offset` replaced.
private func patching(_ bytes: [UInt8], at offset: Int, with value: Int32) -> [UInt8] {
    var result = bytes
    result.replaceSubrange(offset..<offset + 4, with: int32LE(value))
    return result
}

/// `levels` documents (or arrays), each the only value of the one outside it, key "a" ("0").
private func nested(_ levels: Int, arrays: Bool = false) -> [UInt8] {
    let (type, key): (UInt8, [UInt8]) = arrays ? (0x04, utf8("0")) : (0x03, utf8("a"))
    // Lengths from the inside out; then all the openings, the empty core, all the closings.
    var lengths = [5]
    for _ in 1..<levels { lengths.append(4 + 1 + key.count + 1 + lengths.last! + 1) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(lengths.last!)
    for length in lengths.dropFirst().reversed() { bytes += int32LE(Int32(length)) + [type] + key + [0] }
    bytes += [5, 0, 0, 0, 0]
    bytes += repeatElement(0, count: levels - 1)
    return bytes
}

// MARK: - Checks

/// Decodes `bytes` as a document. A success must survive re-encoding; an error must point
/// into the input. Returns the error, if any.
@discardableResult
private func bsonError(
    _ bytes: [UInt8], maxDepth: Int = BSONDocument.defaultMaxDepth, sourceLocation: SourceLocation = #_sourceLocation
) -> BSONError? {
    do {
        let decoded = try BSONDocument(decoding: bytes, maxDepth: maxDepth)
        #expect(try BSONDocument(decoding: decoded.encoded(), maxDepth: maxDepth) == decoded, sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect((0...bytes.count).contains(error.offset), "\(error) outside \(bytes.count) bytes", sourceLocation: sourceLocation)
        return error
    }
}

/// What a `BSONError` says, to compare in one expectation.
private struct Failure: Equatable {
    var reason: BSONError.Reason
    var offset: Int
    var path: String

    init(_ reason: BSONError.Reason, _ offset: Int, _ path: String) {
        self.reason = reason
        self.offset = offset
        self.path = path
    }
}

private func failure(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Failure? {
    bsonError(bytes, sourceLocation: sourceLocation).map { Failure($0.reason, $0.offset, $0.path) }
}

/// The error lines of decoding `bytes` as `T` from BSON; empty when it decodes.
@discardableResult
private func bsonErrors<T: SDLCodable>(_ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    let error = expectGraceful(T.self, hexString(Array(bytes.prefix(100))), sourceLocation: sourceLocation) {
        () throws(SDLDecodingError) in try SDLBSON.decode(T.self, from: bytes)
    }
    return error?.errors.map(\.description) ?? []
}

/// Hostile BSON: every input ends in a document or a typed `BSONError` that says where (byte
/// offset and key path), and `SDLBSON.decode` in a value or an `SDLDecodingError`; never a
/// crash or a hang.
@Suite(.timeLimit(.minutes(2))) struct HostileBSONTests {
    private static let show = Show(
        mainField1: "Now playing", mainField2: "é 🚗", alignment: .centered,
        graphic: SDLImage(value: "cover.png", imageType: .dynamic),
        softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1), SoftButton(type: .image, softButtonID: 2)],
        customPresets: ["A", "B"], windowID: 0)

    private static func realMessages() throws -> [(String, [UInt8])] {
        let response = try SDLJSON.decode(RegisterAppInterfaceResponse.self, from: try Fixtures.validRegisterAppInterfaceResponse()).value
        return [
            ("StartServiceACK", Fixtures.startServiceACK),
            ("Show", try SDLBSON.encode(show)),
            ("RegisterAppInterfaceResponse", try SDLBSON.encode(response)),
        ]
    }

    // MARK: Truncation

    @Test func truncatedAtEveryOffset() async throws {
        for (name, message) in try Self.realMessages() {
            #expect(bsonError(message) == nil, "\(name) should decode")
            for count in 0..<message.count {
                await pause(count)
                let prefix = Array(message[..<count])
                // As cut: the declared length is longer than what is there.
                let cut = bsonError(prefix)
                if count < 4 {
                    #expect(cut?.reason == .truncated, "\(name)[..<\(count)]")
                } else {
                    #expect(cut?.reason == .lengthMismatch(declared: message.count, available: count), "\(name)[..<\(count)]")
                }
                guard count >= 5 else { continue }
                // Cut with the length made to fit, so that decoding reaches the cut element.
                #expect(bsonError(patching(prefix, at: 0, with: Int32(count))) != nil, "\(name)[..<\(count)] with its length")
                // And with a terminator after the cut: may happen to be a document. (At every
                // 8th offset only in the 7.7 KB message, to keep the test short.)
                guard message.count < 1024 || count % 8 == 0 else { continue }
                bsonError(patching(prefix + [0], at: 0, with: Int32(count + 1)))
                bsonErrors(Show.self, patching(prefix + [0], at: 0, with: Int32(count + 1)))
            }
        }
    }

    // MARK: Nesting

    @Test func deepNestingStopsAtTheLimitWithAPath() throws {
        let limit = BSONDocument.defaultMaxDepth
        for arrays in [false, true] {
            let component = arrays ? "0" : "a"
            let expectedPath = Array(repeating: component, count: limit).joined(separator: ".")
            let error = bsonError(nested(100_000, arrays: arrays))
            #expect(error?.reason == .tooDeep(limit: limit))
            #expect(error?.path == expectedPath)
            // The root is level 1: the limit itself is fine, one more is not.
            #expect(bsonError(nested(limit, arrays: arrays)) == nil)
            #expect(bsonError(nested(limit + 1, arrays: arrays))?.path == expectedPath)
        }
        #expect(bsonError(nested(1), maxDepth: 1) == nil)
        #expect(bsonError(nested(2), maxDepth: 1)?.reason == .tooDeep(limit: 1))
        #expect(bsonError(nested(1), maxDepth: 0)?.reason == .tooDeep(limit: 0))
        // Through the codec: one malformed error at the root, saying why and where.
        let errors = bsonErrors(Show.self, nested(100_000))
        #expect(errors.count == 1 && errors[0].hasPrefix("Show: a.a.a.") && errors[0].hasSuffix("nested deeper than \(limit) levels"), "\(errors)")
    }

    // MARK: Declared lengths

    @Test func documentLengthsThatDoNotFit() {
        let valid = document(element(0x02, "s", stringPayload(utf8("abc"))))
        let count = valid.count
        for declared in [Int32.max, Int32.min, -1, 0, 4, Int32(count + 1), 0x0100_0000] {
            let error = bsonError(patching(valid, at: 0, with: declared))
            #expect(error?.reason == .lengthMismatch(declared: Int(declared), available: count), "\(declared)")
            #expect(error?.offset == 0 && error?.path == "")
        }
        // Shorter than the content: the last element runs past the declared end.
        #expect(bsonError(patching(valid, at: 0, with: Int32(count - 1))) != nil)
        #expect(bsonError(patching(valid, at: 0, with: 5)) != nil)
        #expect(bsonError([])?.reason == .truncated)
        #expect(bsonError([5, 0, 0, 0])?.reason == .lengthMismatch(declared: 5, available: 4))
        #expect(bsonError([5, 0, 0, 0, 1])?.reason == .missingTerminator)  // no room for a key
        #expect(bsonError([6, 0, 0, 0, 0, 0])?.reason == .lengthMismatch(declared: 6, available: 5))  // ends early
    }

    @Test func nestedLengthsThatDoNotFit() {
        let inner = document(element(0x10, "x", int32LE(1)))
        let valid = document(element(0x03, "d", inner), element(0x10, "after", int32LE(2)))
        #expect(bsonError(valid) == nil)
        let innerOffset = 4 + 1 + 2
        for declared in [Int32.max, Int32.min, -1, 0, 4, Int32(valid.count)] {
            let error = bsonError(patching(valid, at: innerOffset, with: declared))
            #expect(error?.offset == innerOffset && error?.path == "d", "\(declared): \(String(describing: error))")
        }
        // Longer than the inner content but inside the outer document: overruns its parent.
        for declared in [Int32(inner.count + 1), Int32(inner.count + 7)] {
            #expect(bsonError(patching(valid, at: innerOffset, with: declared)) != nil, "\(declared)")
        }
    }

    @Test func stringLengthsThatDoNotFit() {
        let valid = document(element(0x02, "s", stringPayload(utf8("abc"))), element(0x08, "b", [1]))
        let at = 4 + 1 + 2
        for declared in [Int32.min, -1, 0] {
            #expect(failure(patching(valid, at: at, with: declared)) == Failure(.invalidStringLength(declared), at, "s"))
        }
        for declared in [Int32.max, 0x7FFF_FFF0, Int32(valid.count)] {
            #expect(failure(patching(valid, at: at, with: declared)) == Failure(.truncated, at + 4, "s"))
        }
        // Without the terminator in the count, and running into the next element.
        #expect(failure(patching(valid, at: at, with: 3)) == Failure(.missingTerminator, at, "s"))
        #expect(failure(patching(valid, at: at, with: 6)) == Failure(.missingTerminator, at, "s"))
    }

    @Test func binaryLengthsThatDoNotFit() {
        let valid = document(element(0x05, "b", int32LE(2) + [0x80, 1, 2]))
        let at = 4 + 1 + 2
        #expect(bsonError(valid) == nil)
        for declared in [Int32.min, -1] {
            #expect(failure(patching(valid, at: at, with: declared)) == Failure(.lengthMismatch(declared: Int(declared), available: 4), at, "b"))
        }
        for declared in [Int32.max, 0x7FFF_FFF0, 4] {
            #expect(failure(patching(valid, at: at, with: declared)) == Failure(.truncated, at + 5, "b"))
        }
    }

    // MARK: Text

    @Test(arguments: HostileJSONTests.invalidUTF8)
    func invalidUTF8InStringsAndKeys(_ bad: [UInt8]) {
        let value = document(element(0x03, "d", document(element(0x02, "s", stringPayload(bad)))))
        #expect(failure(value) == Failure(.invalidUTF8, 4 + 3 + 4 + 3, "d.s"))
        let key = document(element(0x03, "d", document(element(0x10, bad, int32LE(1)))))
        #expect(failure(key) == Failure(.invalidUTF8, 4 + 3 + 4 + 1, "d"))
        #expect(bsonErrors(Show.self, document(element(0x02, "mainField1", stringPayload(bad)))).count == 1)
    }

    @Test func keyWithoutTerminator() {
        let bytes = int32LE(9) + [0x10] + utf8("abc") + [1]
        #expect(bsonError(bytes)?.reason == .missingTerminator)
        // A NUL only past the document's end.
        #expect(bsonError(int32LE(7) + [0x10] + utf8("ab") + [0, 0, 0])?.reason == .truncated)
    }

    // MARK: Keys and types

    @Test func duplicateKeysAreErrorsAtTheirPath() {
        let one = element(0x10, "a", int32LE(1))
        #expect(failure(document(one, one)) == Failure(.duplicateKey("a"), 4 + one.count, "a"))
        let nested = document(element(0x03, "d", document(element(0x08, "x", [1]), element(0x0A, "y", []), element(0x08, "x", [0]))))
        #expect(bsonError(nested)?.path == "d.x")
        // Array keys are not checked for order (as in SDL's C library), but still for repeats.
        let array = document(element(0x04, "l", document(element(0x10, "0", int32LE(1)), element(0x10, "0", int32LE(2)))))
        #expect(bsonError(array)?.path == "l.0")
        #expect(bsonError(document(element(0x04, "l", document(element(0x10, "7", int32LE(1)), element(0x10, "x", int32LE(2)))))) == nil)
    }

    /// NFC and NFD spellings of a key are two keys on the wire (Swift's `==` calls them equal).
    @Test func keysThatDifferOnlyInNormalizationAreDistinct() throws {
        let bytes = document(element(0x10, "cl\u{e9}", int32LE(1)), element(0x10, "cle\u{301}", int32LE(2)))
        let decoded = try BSONDocument(decoding: bytes)
        #expect(decoded.elements.count == 2)
        #expect(decoded.encoded() == bytes)
    }

    @Test func unsupportedTypesAndBadBooleans() {
        for type: UInt8 in [0x06, 0x07, 0x09, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x11, 0x13, 0x14, 0x7F, 0x80, 0xFF] {
            let bytes = document(element(0x10, "ok", int32LE(1)), element(type, "key", int32LE(0) + int32LE(0)))
            #expect(failure(bytes) == Failure(.unsupportedType(type), 4 + 8, "key"), "0x\(String(type, radix: 16))")
        }
        for byte: UInt8 in [2, 0x80, 0xFF] {
            #expect(failure(document(element(0x08, "b", [byte]))) == Failure(.invalidBoolean(byte), 7, "b"))
        }
    }

    @Test func trailingBytes() {
        let valid = document(element(0x0A, "n", []))
        #expect(failure(valid + [0]) == Failure(.trailingBytes(1), valid.count, ""))
        #expect(bsonError(valid + valid)?.reason == .trailingBytes(valid.count))
    }

    // MARK: Values through the codec

    @Test func valuesThatDoNotFitTheSpec() {
        func gps(_ longitude: BSONValue) -> [UInt8] {
            (["latitudeDegrees": .int32(0), "longitudeDegrees": longitude] as BSONDocument).encoded()
        }
        #expect(bsonErrors(GPSData.self, gps(.double(.nan))) == ["GPSData.longitudeDegrees: number nan does not fit"])
        #expect(bsonErrors(GPSData.self, gps(.double(-.infinity))) == ["GPSData.longitudeDegrees: number -inf does not fit"])
        #expect(bsonErrors(GPSData.self, gps(.int64(.max))) == ["GPSData.longitudeDegrees: 9.223372036854776e+18 is out of range, maxvalue is 180"])
        #expect(bsonErrors(GPSData.self, gps(.double(-0.0))) == [])
        let button: BSONDocument = ["softButtons": .array([.document(["type": .string("TEXT"), "softButtonID": .int64(.min)])])]
        #expect(bsonErrors(Show.self, button.encoded()) == ["Show.softButtons[0].softButtonID: -9.223372036854776e+18 is out of range, minvalue is 0"])
    }

    // MARK: Size

    /// Many keys and many bad elements: work must grow about linearly.
    @Test func manyKeysAndManyErrorsStayFast() throws {
        let keys = 40_000
        let wide = BSONDocument((0..<keys).map { BSONDocument.Element(key: "k\($0)", value: .int32(0)) })
        #expect(try BSONDocument(decoding: wide.encoded()).elements.count == keys)
        #expect((try? SDLBSON.decode(Show.self, from: wide.encoded()))?.unknownKeys.count == keys)

        let buttons = 40_000
        let show: BSONDocument = ["softButtons": .array(Array(repeating: .document([:]), count: buttons))]
        #expect(bsonErrors(Show.self, show.encoded()).count == 2 * buttons + 1)
    }

    // MARK: Random input

    @Test func randomBytes() async {
        var random = SplitMix64(seed: 0x5D1_0003)
        for iteration in 0..<3000 {
            await pause(iteration)
            var bytes = random.bytes(Int.random(in: 0...64, using: &random))
            // Half with a fitting length and a terminator, to get past the first checks.
            if iteration % 2 == 0, bytes.count >= 5 {
                bytes[bytes.count - 1] = 0
                bytes = patching(bytes, at: 0, with: Int32(bytes.count))
            }
            bsonError(bytes)
            bsonErrors(Show.self, bytes)
        }
    }

    @Test func randomMutationsOfRealMessages() async throws {
        var random = SplitMix64(seed: 0x5D1_0004)
        for (name, message) in try Self.realMessages() {
            let rounds = message.count > 2000 ? 300 : 3000
            for iteration in 0..<rounds {
                await pause(iteration, every: rounds > 300 ? 64 : 8)
                var bytes = random.mutate(message)
                // Half with the length fixed, so that decoding gets to the mutation.
                if iteration % 2 == 0, bytes.count >= 4 { bytes = patching(bytes, at: 0, with: Int32(bytes.count)) }
                bsonError(bytes)
                if name == "RegisterAppInterfaceResponse" {
                    bsonErrors(RegisterAppInterfaceResponse.self, bytes)
                } else {
                    bsonErrors(Show.self, bytes)
                }
            }
        }
    }
}
