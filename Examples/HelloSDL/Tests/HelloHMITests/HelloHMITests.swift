import HelloHMI
import SDLRuntime
import Testing

@Suite struct HelloHMITests {
    @Test func answersAShow() throws {
        let show = #"{"jsonrpc":"2.0","id":12,"method":"UI.Show","params":{"showStrings":[{"fieldName":"mainField1","fieldText":"Hello"}],"appID":65537}}"#
        let (lines, reply) = try Screen.answer(Array(show.utf8))
        #expect(lines == ["Hello"])
        #expect(String(decoding: reply, as: UTF8.self) == #"{"jsonrpc":"2.0","id":12,"result":{"code":0,"method":"UI.Show"}}"#)
    }

    @Test func typesAreNestedInTheirInterface() {
        #expect(UI.Show.method == "UI.Show" && Common.Result(code: 21) == .warnings)
        #expect(HMIAPI.notifications.map { $0.method } == ["UI.OnCommand"])
    }
}
