import SDLRPC
import SDLRuntime
import Testing

private func json(_ text: String) -> [UInt8] { Array(text.utf8) }
private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite struct JSONCodingTests {
    @Test func encodesTheSpecShapeWithWireNames() throws {
        let show = Show(
            mainField1: "Hello \"SDL\"", alignment: .centered,
            softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1)])
        let encoded = text(try SDLJSON.encode(show))
        #expect(encoded == #"{"mainField1":"Hello \"SDL\"","alignment":"CENTERED","softButtons":[{"type":"TEXT","text":"Skip","softButtonID":1}]}"#)
    }

    @Test func decodesAndIgnoresUnknownKeysButListsThem() throws {
        let decoded = try SDLJSON.decode(
            OnHMIStatus.self,
            from: json(#"{"hmiLevel":"FULL","audioStreamingState":"AUDIBLE","systemContext":"MAIN","futureKey":{"a":[1,2]},"windowID":0}"#))
        #expect(decoded.value.hmiLevel == .full)
        #expect(decoded.value.windowID == 0)
        #expect(decoded.unknownKeys.map(\.description) == ["OnHMIStatus.futureKey"])
        #expect(decoded.warnings.isEmpty)
    }

    @Test func keepsUnknownEnumValuesWithAWarning() throws {
        let decoded = try SDLJSON.decode(
            OnHMIStatus.self,
            from: json(#"{"hmiLevel":"HYPER","audioStreamingState":"AUDIBLE","systemContext":"MAIN"}"#))
        #expect(decoded.value.hmiLevel == .unrecognized("HYPER"))
        #expect(decoded.warnings.map(\.description) == [#"OnHMIStatus.hmiLevel: "HYPER" is not an element of HMILevel"#])
        // Sending it back is an error unless the caller opts out.
        #expect(throws: SDLValidationError.self) { try SDLJSON.encode(decoded.value) }
        _ = try SDLJSON.encode(decoded.value, options: SDLEncodingOptions(allowUnknownEnumValues: true))
    }

    @Test func reportsEveryViolationWithItsPath() {
        let long = String(repeating: "x", count: 501)
        let body =
            #"{"mainField1":5,"softButtons":[{"type":"TEXT","softButtonID":1},{"type":"TEXT","softButtonID":70000},{"type":"TEXT","softButtonID":3,"text":"\#(long)"},{"text":"no type"}]}"#
        do {
            _ = try SDLJSON.decode(Show.self, from: json(body))
            Issue.record("decoding should fail")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "Show.mainField1: expected String, found Integer",
                    "Show.softButtons[1].softButtonID: 70000 is out of range, maxvalue is 65535",
                    "Show.softButtons[2].text: 501 characters, maxlength is 500",
                    "Show.softButtons[3].type: mandatory parameter is missing",
                    "Show.softButtons[3].softButtonID: mandatory parameter is missing",
                ])
        }
    }

    @Test func validatesBeforeSending() {
        let show = Show(softButtons: [SoftButton(type: .text, text: String(repeating: "y", count: 501), softButtonID: 1)])
        #expect(throws: SDLValidationError.self) { try SDLJSON.encode(show) }
        let issues = SDLValidator.validate(show)
        #expect(issues.map(\.description) == ["Show.softButtons[0].text: 501 characters, maxlength is 500"])
    }

    @Test func emptyBodyMeansNoParameters() throws {
        let decoded = try SDLJSON.decode(ListFiles.self, from: [])
        #expect(decoded.value == ListFiles())
    }

    @Test func floatsAcceptIntegralNumbers() throws {
        let decoded = try SDLJSON.decode(GPSData.self, from: json(#"{"longitudeDegrees":10,"latitudeDegrees":-45.5}"#))
        #expect(decoded.value.longitudeDegrees == 10)
        #expect(decoded.value.latitudeDegrees == -45.5)
    }

    @Test func roundTripsThroughBSON() throws {
        let show = Show(mainField1: "Hi", softButtons: [SoftButton(type: .image, softButtonID: 7)])
        let bytes = try SDLBSON.encode(show)
        let decoded = try SDLBSON.decode(Show.self, from: bytes)
        #expect(decoded.value == show)
    }
}
