import Foundation
import SDLRuntime
import SDLSpec
import SDLTestSupport
import Testing

@testable import sdl

/// `sdl validate`: the generated 8.0.0 types and a spec file's model give the same verdicts.
@Suite struct ValidateMessagesTests {
    static func specValidator(_ version: String) throws -> SpecModelValidator {
        guard let path = SharedData.specFile(version) else { try Test.cancel(Comment(rawValue: SharedData.missingSpec(version))) }
        let spec = try SpecLoader.load(path: path)
        return SpecModelValidator(interface: spec.interface)
    }

    /// Output line for `line` through both validators, which must agree for spec 8.0.0.
    func verdict(_ line: String) throws -> String {
        let generated = ValidateMessages.report(ValidateMessages.check(Array(line.utf8), with: GeneratedTypesValidator())).jsonString
        let model = ValidateMessages.report(ValidateMessages.check(Array(line.utf8), with: try Self.specValidator("8.0.0"))).jsonString
        #expect(generated == model, "generated types and spec model disagree on \(line)")
        return generated
    }

    @Test func validMessagesPass() throws {
        #expect(
            try verdict(
                #"{"function":"Show","messageType":"request","params":{"mainField1":"hi","softButtons":[{"type":"TEXT","softButtonID":1,"text":"ok"}]}}"#)
                == #"{"valid":true}"#)
        #expect(try verdict(#"{"function":"ListFiles","messageType":"request"}"#) == #"{"valid":true}"#)
        // Unknown keys are ignored, as a head unit ignores them.
        #expect(
            try verdict(
                #"{"function":"OnHMIStatus","messageType":"notification","params":{"hmiLevel":"FULL","audioStreamingState":"AUDIBLE","systemContext":"MAIN","later":1}}"#
            ) == #"{"valid":true}"#)
    }

    @Test func everyRuleIsReportedWithItsPath() throws {
        let line =
            #"{"function":"Show","messageType":"request","params":{"mainField1":5,"alignment":"SIDEWAYS","softButtons":[{"type":"TEXT","softButtonID":70000},{"type":"TEXT"}]}}"#
        #expect(
            try verdict(line)
                == #"{"valid":false,"errors":[{"path":"Show.mainField1","message":"expected String, found Integer"},{"path":"Show.alignment","message":"\"SIDEWAYS\" is not an element of TextAlignment"},{"path":"Show.softButtons[0].softButtonID","message":"70000 is out of range, maxvalue is 65535"},{"path":"Show.softButtons[1].softButtonID","message":"mandatory parameter is missing"}]}"#
        )
        let long = String(repeating: "x", count: 501)
        #expect(
            try verdict(#"{"function":"Show","messageType":"request","params":{"softButtons":[{"type":"TEXT","softButtonID":1,"text":"\#(long)"}]}}"#)
                == #"{"valid":false,"errors":[{"path":"Show.softButtons[0].text","message":"501 characters, maxlength is 500"}]}"#)
        #expect(
            try verdict(#"{"function":"Speak","messageType":"request","params":{"ttsChunks":[]}}"#)
                == #"{"valid":false,"errors":[{"path":"Speak.ttsChunks","message":"0 items, minsize is 1"}]}"#)
    }

    @Test func envelopeProblems() throws {
        #expect(try verdict("not json").contains(#""message":"not JSON:"#))
        #expect(try verdict(#"{"messageType":"request"}"#) == #"{"valid":false,"errors":[{"path":"function","message":"missing or not a string"}]}"#)
        #expect(try verdict(#"{"function":"Show","messageType":"order"}"#).contains(#""path":"messageType""#))
        #expect(try verdict(#"{"function":"Show","messageType":"request","params":[]}"#).contains(#""path":"params""#))
        #expect(
            try verdict(#"{"function":"Nope","messageType":"request"}"#)
                == #"{"valid":false,"errors":[{"path":"function","message":"spec 8.0.0 has no request named \"Nope\""}]}"#)
    }

    @Test func anOlderSpecKnowsLess() throws {
        // CancelInteraction arrived in RPC spec 6.0.
        let line = Array(#"{"function":"CancelInteraction","messageType":"request","params":{"functionID":10}}"#.utf8)
        #expect(ValidateMessages.check(line, with: GeneratedTypesValidator()).isEmpty)
        let old = ValidateMessages.check(line, with: try Self.specValidator("4.5.1"))
        #expect(old.map(\.description) == [#"function: spec 4.5.1 has no request named "CancelInteraction""#])
    }
}
