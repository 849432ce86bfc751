import SDLRuntime
import SDLSpec
import Testing

/// Messages checked against a loaded spec's model: the same rules and words as the generated
/// decoders (the `sdl validate` tests compare the two verdict by verdict).
@Suite struct SpecModelValidatorTests {
    static func validator(_ version: String) throws -> SpecModelValidator {
        SpecModelValidator(interface: try SpecLoader.load(path: try SpecFiles.spec(version)).interface)
    }

    static func issues(_ version: String, _ function: String, _ type: SDLMessageType, _ params: String) throws -> [String] {
        try validator(version).issues(function: function, messageType: type, params: SDLJSONValue(parsing: params)).map(\.description)
    }

    @Test func aValidMessageHasNoIssues() throws {
        #expect(try Self.issues("8.0.0", "Show", .request, #"{"mainField1":"hi","softButtons":[{"type":"TEXT","softButtonID":1,"text":"ok"}]}"#).isEmpty)
        // Unknown keys are ignored, as a head unit ignores them.
        #expect(
            try Self.issues("8.0.0", "OnHMIStatus", .notification, #"{"hmiLevel":"FULL","audioStreamingState":"AUDIBLE","systemContext":"MAIN","later":1}"#)
                .isEmpty)
    }

    @Test func everyRuleIsReportedWithItsPath() throws {
        let issues = try Self.issues(
            "8.0.0", "Show", .request, #"{"mainField1":5,"alignment":"SIDEWAYS","softButtons":[{"type":"TEXT","softButtonID":70000},{"type":"TEXT"}]}"#)
        #expect(
            issues == [
                "Show.mainField1: expected String, found Integer",
                #"Show.alignment: "SIDEWAYS" is not an element of TextAlignment"#,
                "Show.softButtons[0].softButtonID: 70000 is out of range, maxvalue is 65535",
                "Show.softButtons[1].softButtonID: mandatory parameter is missing",
            ])
    }

    @Test func theSpecVersionDecides() throws {
        // CloseApplication exists from RPC 6.0: unknown to a 5.0.0 model.
        #expect(try Self.issues("8.0.0", "CloseApplication", .request, "{}").isEmpty)
        #expect(try !Self.issues("5.0.0", "CloseApplication", .request, "{}").isEmpty)
    }
}
