import SDLHeadUnit
import Testing

@Suite struct HeadUnitConfigurationTests {
    @Test func theDefaultCapabilitiesParse() {
        #expect(SDLHeadUnitEmulator.Configuration.defaultCapabilities["syncMsgVersion"] != nil)
    }
}
