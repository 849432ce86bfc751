import SDLRPC
import SDLRuntime
import SDLTestSupport
import Testing

/// Hostile JSON: every input ends in a value or a typed `SDLDecodingError` whose errors name
/// their path (`Show.softButtons[0]`), never in a crash or a hang.
@Suite(.timeLimit(.minutes(2))) struct HostileJSONTests {
    private static let show = Show(
        mainField1: "Now playing", mainField2: "é 🚗 \"quoted\"\n", alignment: .centered,
        graphic: SDLImage(value: "cover.png", imageType: .dynamic),
        softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1), SoftButton(type: .image, softButtonID: 2)],
        customPresets: ["A", "B"], windowID: 0)

    private static func showJSON() throws -> [UInt8] { try SDLJSON.encode(show) }

    /// `count` copies of `text`, as bytes.
    private static func repeated(_ text: String, _ count: Int) -> [UInt8] {
        Array(repeatElement(Array(text.utf8), count: count).joined())
    }

    // MARK: Truncation

    /// Every proper prefix of a valid message (up to its closing brace) fails as malformed.
    private func expectEveryPrefixFails<T: SDLCodable>(_ type: T.Type, _ message: [UInt8]) async throws {
        #expect(jsonErrors(T.self, message) == [])
        let end = message.lastIndex(of: UInt8(ascii: "}"))!
        for count in 1...end {
            await pause(count)
            let error = expectGraceful(T.self, "prefix of \(count) bytes") { () throws(SDLDecodingError) in
                try SDLJSON.decode(T.self, from: Array(message[..<count]))
            }
            let malformed = error?.errors.contains { if case .malformed = $0.kind { true } else { false } } ?? false
            #expect(malformed, "prefix of \(count) bytes: \(error?.description ?? "decoded")")
        }
    }

    @Test func truncatedShowFailsAtEveryOffset() async throws {
        try await expectEveryPrefixFails(Show.self, try Self.showJSON())
    }

    @Test func truncatedRegisterAppInterfaceResponseFailsAtEveryOffset() async throws {
        try await expectEveryPrefixFails(RegisterAppInterfaceResponse.self, try Fixtures.validRegisterAppInterfaceResponse())
    }

    // MARK: Nesting

    @Test func deepNestingStopsAtTheLimitWithAPath() {
        let limit = SDLJSON.defaultMaxDepth
        let tooDeep = "nested deeper than \(limit) levels"
        let depth = 100_000
        // The error is at the value one level too deep: the message is level 1.
        let indexes = String(repeating: "[0]", count: limit - 1)
        // Unknown key, skipped: arrays, then objects.
        #expect(jsonErrors(Show.self, utf8(#"{"x":"#) + Self.repeated("[", depth)) == ["Show.x\(indexes): \(tooDeep)"])
        let keys = String(repeating: ".a", count: limit - 1)
        #expect(jsonErrors(Show.self, utf8(#"{"x":"#) + Self.repeated(#"{"a":"#, depth)) == ["Show.x\(keys): \(tooDeep)"])
        // A known array whose elements should be objects.
        #expect(
            jsonErrors(Show.self, utf8(#"{"softButtons":"#) + Self.repeated("[", depth))
                == ["Show.softButtons[0]: expected Object (SoftButton), found Array", "Show.softButtons\(indexes): \(tooDeep)"])
        // Not an object at all.
        #expect(jsonErrors(Show.self, Self.repeated("[", depth)) == ["Show: a message must be a JSON object, found an array"])
        // Balanced and just at the limit is fine; one more level is not (the message is level 1).
        func nested(_ levels: Int) -> [UInt8] {
            utf8(#"{"x":"#) + Self.repeated("[", levels - 1) + Self.repeated("]", levels - 1) + utf8("}")
        }
        #expect(jsonErrors(Show.self, nested(limit)) == [])
        #expect(jsonErrors(Show.self, nested(limit + 1)) == ["Show.x\(indexes): \(tooDeep)"])
    }

    @Test func customDepthLimit() throws {
        let bytes = utf8(#"{"graphic":{"value":"a","imageType":"STATIC","x":[[1]]}}"#)
        #expect(throws: Never.self) { try SDLJSON.decode(Show.self, from: bytes, maxDepth: 4) }
        #expect(throws: SDLDecodingError.self) { try SDLJSON.decode(Show.self, from: bytes, maxDepth: 3) }
        #expect(throws: SDLDecodingError.self) { try SDLJSON.decode(Show.self, from: utf8("{}"), maxDepth: 0) }
    }

    // MARK: Strings

    /// Ill-formed UTF-8: a lone continuation byte, overlongs, a surrogate, past U+10FFFF, a cut
    /// sequence, and bytes that never occur.
    static let invalidUTF8: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC3], [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF],
        [0x61, 0xE9, 0x62],  // Latin-1 "aéb"
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8InStringsAndKeys(_ bad: [UInt8]) {
        let places: [(String, [UInt8])] = [
            ("Show.mainField1", utf8(#"{"mainField1":""#) + bad + utf8(#""}"#)),
            ("Show.mainField1", utf8(#"{"mainField1":"\n"#) + bad + utf8(#""}"#)),  // after an escape
            ("Show", utf8(#"{""#) + bad + utf8(#"":1}"#)),
            ("Show.softButtons[0]", utf8(#"{"softButtons":[{""#) + bad + utf8(#"":1}]}"#)),
            ("Show.x[0]", utf8(#"{"x":[""#) + bad + utf8(#""]}"#)),
        ]
        for (path, bytes) in places {
            let errors = jsonErrors(Show.self, bytes)
            #expect(errors.contains { $0.hasPrefix("\(path): invalid UTF-8 in string at byte") }, "\(bytes): \(errors)")
        }
    }

    @Test func badEscapesAndUnpairedSurrogates() {
        let bad: [(String, String)] = [
            (#"\x"#, "invalid escape"), (#"\'"#, "invalid escape"), (#"\U0041"#, "invalid escape"),
            (#"\u12"#, #"invalid \u escape"#), (#"\u12G4"#, #"invalid \u escape"#), (#"\u"#, #"truncated \u escape"#),
            (#"\uD800"#, "unpaired surrogate"), (#"\uD800x"#, "unpaired surrogate"), (#"\uD800\u0041"#, "unpaired surrogate"),
            (#"\uDC00"#, "unpaired surrogate"), (#"\uDBFF\uDBFF"#, "unpaired surrogate"), (#"\uDE00\uD83D"#, "unpaired surrogate"),
            ("\u{1}", "control character in string"), ("\n", "control character in string"), ("\t", "control character in string"),
        ]
        for (body, reason) in bad {
            let errors = jsonErrors(Show.self, #"{"mainField1":""# + body + #""}"#)
            #expect(errors.contains { $0.hasPrefix("Show.mainField1: \(reason) at byte") }, "\(body): \(errors)")
        }
        // Unterminated, at the end of the input.
        for body in [#"\"#, #"\u00"#, #"abc"#, #"\uD83D"#] {
            let errors = jsonErrors(Show.self, #"{"mainField1":""# + body)
            #expect(errors.count == 1 && errors[0].hasPrefix("Show.mainField1: "), "\(body): \(errors)")
        }
        // What is allowed: NUL and astral characters by escape, raw multi-byte text, raw DEL.
        let good = #"{"mainField1":"\u0000\uD83D\uDE00\u00e9 e\u0301 😀\#u{7F}"}"#
        #expect(jsonErrors(Show.self, good) == [])
        #expect(
            (try? SDLJSON.decode(Show.self, from: utf8(good)))?.value.mainField1?.unicodeScalars.map(\.value)
                == [0, 0x1F600, 0xE9, 0x20, 0x65, 0x301, 0x20, 0x1F600, 0x7F])
    }

    // MARK: Keys

    @Test func duplicateKeysAreErrorsAtTheirPath() {
        #expect(jsonErrors(Show.self, #"{"mainField1":"a","mainField1":"b"}"#) == [#"Show.mainField1: key "mainField1" appears more than once"#])
        #expect(
            jsonErrors(Show.self, #"{"graphic":{"value":"a","imageType":"STATIC","value":"b"}}"#)
                == [#"Show.graphic.value: key "value" appears more than once"#])
        // Inside a skipped unknown value too, at the path of the value.
        #expect(
            jsonErrors(Show.self, #"{"x":1,"x":{"y":[2,{"z":3,"z":4}],"y":3}}"#) == [
                #"Show.x: key "x" appears more than once"#,
                #"Show.x.y[1].z: key "z" appears more than once"#,
                #"Show.x.y: key "y" appears more than once"#,
            ])
    }

    /// Keys are compared as bytes: Swift's `==` would call the NFC and NFD spellings of "clé" equal.
    @Test func keysThatDifferOnlyInNormalizationAreDistinct() throws {
        let decoded = try SDLJSON.decode(Show.self, from: utf8("{\"cl\u{e9}\":1,\"cle\u{301}\":2}"))
        #expect(decoded.unknownKeys.count == 2)
    }

    // MARK: Numbers

    @Test func numbersThatDoNotFit() {
        let thirty = "123456789012345678901234567890"
        #expect(jsonErrors(Show.self, #"{"windowID":\#(thirty)}"#) == ["Show.windowID: number \(thirty) does not fit"])
        #expect(jsonErrors(Show.self, #"{"windowID":-\#(thirty)}"#) == ["Show.windowID: number -\(thirty) does not fit"])
        #expect(jsonErrors(Show.self, #"{"windowID":9223372036854775808}"#) == ["Show.windowID: number 9223372036854775808 does not fit"])
        #expect(jsonErrors(Show.self, #"{"windowID":-9223372036854775809}"#) == ["Show.windowID: number -9223372036854775809 does not fit"])
        #expect(jsonErrors(Show.self, #"{"windowID":1e999}"#) == ["Show.windowID: expected Integer, found Float"])
        #expect(jsonErrors(Show.self, #"{"windowID":1.0}"#) == ["Show.windowID: expected Integer, found Float"])
        let gps = #""latitudeDegrees":0,"longitudeDegrees":"#
        #expect(jsonErrors(GPSData.self, "{\(gps)1e999}") == ["GPSData.longitudeDegrees: number 1e999 does not fit"])
        #expect(jsonErrors(GPSData.self, "{\(gps)-1e999}") == ["GPSData.longitudeDegrees: number -1e999 does not fit"])
        #expect(jsonErrors(GPSData.self, "{\(gps)\(thirty)}") == ["GPSData.longitudeDegrees: 1.2345678901234568e+29 is out of range, maxvalue is 180"])
        // Unusual but well-formed: zero with a sign, an exponent, the integer extremes.
        #expect(jsonErrors(GPSData.self, "{\(gps)-0}") == [])
        #expect(jsonErrors(GPSData.self, "{\(gps)1E-400}") == [])
        #expect((try? SDLJSON.decode(Show.self, from: utf8(#"{"windowID":-0}"#)))?.value.windowID == 0)
        #expect((try? SDLJSON.decode(Show.self, from: utf8(#"{"windowID":-9223372036854775808}"#)))?.value.windowID == .min)
    }

    @Test func malformedNumbers() {
        for number in ["-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "-Infinity", "--1", "1.5.5", "1e5e5", "١"] {
            let errors = jsonErrors(Show.self, #"{"windowID":\#(number)}"#)
            #expect(errors.contains { $0.hasPrefix("Show") && $0.contains("at byte") }, "\(number): \(errors)")
        }
    }

    // MARK: Around the message

    @Test func trailingGarbage() {
        for tail in ["x", "{}", ",", "]", "}", "\u{0}", " 1", "\u{FEFF}"] {
            let errors = jsonErrors(Show.self, "{}" + tail)
            #expect(errors.count == 1 && errors[0].hasPrefix("Show: unexpected "), "\(tail.debugDescription): \(errors)")
        }
        #expect(jsonErrors(Show.self, "{} \n\t\r") == [])
        #expect(jsonErrors(Show.self, " \n{}") == [])
    }

    @Test func notAnObject() {
        for text in ["[]", "\"x\"", "1", "null", "true", " ", "\u{FEFF}{}", "}", "{", "{\"a\"", "{\"a\":", "{\"a\":1,", "{,}", "{\"a\" 1}", "{1:2}"] {
            let errors = jsonErrors(Show.self, text)
            #expect(errors.count >= 1, "\(text.debugDescription) decoded")
        }
    }

    // MARK: Size

    /// Many keys and many bad elements: work must grow about linearly, or a message of a few
    /// hundred kilobytes would stall the reader (the time limit turns a stall into a failure).
    @Test func manyKeysAndManyErrorsStayFast() {
        let keys = 40_000
        var object = utf8("{")
        for index in 0..<keys { object += utf8((index == 0 ? "" : ",") + "\"k\(index)\":0") }
        object += utf8("}")
        #expect((try? SDLJSON.decode(Show.self, from: object))?.unknownKeys.count == keys)

        // Each `{}` misses two mandatory parameters: 80,000 errors, and the array is too long.
        let buttons = 40_000
        let bytes = utf8(#"{"softButtons":["#) + Self.repeated("{},", buttons - 1) + utf8("{}]}")
        let errors = jsonErrors(Show.self, bytes)
        #expect(errors.count == 2 * buttons + 1)
        #expect(errors.last == "Show.softButtons: 40000 items, maxsize is 8")
    }

    // MARK: Random input

    @Test func randomBytes() async {
        var random = SplitMix64(seed: 0x5D1_0001)
        for iteration in 0..<3000 {
            await pause(iteration)
            var bytes = random.bytes(Int.random(in: 0...64, using: &random))
            if iteration % 2 == 0 { bytes.insert(UInt8(ascii: "{"), at: 0) }  // get past the first check
            jsonErrors(Show.self, bytes)
            jsonErrors(RegisterAppInterfaceResponse.self, bytes)
        }
    }

    @Test func randomMutationsOfRealMessages() async throws {
        var random = SplitMix64(seed: 0x5D1_0002)
        let show = try Self.showJSON()
        for iteration in 0..<3000 {
            await pause(iteration)
            jsonErrors(Show.self, random.mutate(show))
        }
        let response = try Fixtures.validRegisterAppInterfaceResponse()
        for iteration in 0..<300 {
            await pause(iteration, every: 8)
            jsonErrors(RegisterAppInterfaceResponse.self, random.mutate(response))
        }
    }
}
