import Testing

@testable import SDLSpec

/// Anything the reader does not understand is reported as a warning at its line, never
/// dropped silently, and does not stop the load.
@Suite("Unknown vocabulary")
struct UnknownVocabularyTests {
    @Test func unknownElementsAtEveryLevel() throws {
        let spec = try Fixture.load(
            """
            <typedef name="T"/>
            <enum name="E">
                <element name="A">
                    <note/>
                </element>
                <value name="B"/>
            </enum>
            <struct name="S">
                <param name="p" type="E">
                    <range/>
                </param>
                <field name="q"/>
            </struct>
            <struct name="D">
                <description>text <b>bold</b></description>
            </struct>
            """)
        #expect(
            spec.diagnostics.map(\.description) == [
                "test.xml:2: warning: unknown element <typedef> inside <interface> is ignored",
                "test.xml:5: warning: unknown element <note> inside <element> is ignored",
                "test.xml:7: warning: unknown element <value> inside <enum> is ignored",
                "test.xml:11: warning: unknown element <range> inside <param> is ignored",
                "test.xml:13: warning: unknown element <field> inside <struct> is ignored",
                "test.xml:16: warning: unknown element <b> inside <description> is ignored",
            ])
        // The known parts around them are still there.
        #expect(spec.interface.enumDefinition(named: "E")?.elements.map(\.name) == ["A"])
        #expect(spec.interface.structDefinition(named: "S")?.parameters.map(\.name) == ["p"])
    }

    @Test func unknownAttributesAtEveryLevel() throws {
        let document = """
            <interface name="Test" version="8.0.0" color="blue">
            \(Fixture.functionIDs("OnID"))
            <enum name="E" size="2">
                <element name="A" label="a"/>
            </enum>
            <struct name="S" final="true">
                <param name="p" type="E" unit="cm">
                    <element name="A" value="1"/>
                    <description lang="en">words</description>
                    <issue creator="me" severity="low">more words</issue>
                </param>
            </struct>
            <function name="On" functionID="OnID" messagetype="notification" async="true">
                <history kind="old">
                    <function name="On" functionID="OnID" messagetype="notification" since="1.0" until="2.0"/>
                </history>
            </function>
            </interface>
            """
        #expect(
            Fixture.diagnostics(ofDocument: document).map(\.description) == [
                "test.xml:1: warning: unknown attribute 'color' on <interface> is ignored",
                "test.xml:3: warning: unknown attribute 'size' on <enum> is ignored",
                "test.xml:4: warning: unknown attribute 'label' on <element> is ignored",
                "test.xml:6: warning: unknown attribute 'final' on <struct> is ignored",
                "test.xml:7: warning: unknown attribute 'unit' on <param> is ignored",
                "test.xml:8: warning: unknown attribute 'value' on <element> is ignored",
                "test.xml:9: warning: unknown attribute 'lang' on <description> is ignored",
                "test.xml:10: warning: unknown attribute 'severity' on <issue> is ignored",
                "test.xml:13: warning: unknown attribute 'async' on <function> is ignored",
                "test.xml:14: warning: unknown attribute 'kind' on <history> is ignored",
            ])
    }

    @Test func wrongKindInsideHistory() throws {
        let spec = try Fixture.load(
            """
            <struct name="S">
                <param name="p" type="String">
                    <history>
                        <struct name="Old"/>
                        <param name="p" type="String" since="1.0" until="2.0"/>
                    </history>
                </param>
            </struct>
            """)
        #expect(
            spec.diagnostics.map(\.description) == [
                "test.xml:5: warning: <struct> inside the <history> of a <param> is ignored; history holds earlier <param>s"
            ])
        #expect(spec.interface.structs.first?.parameters.first?.history.count == 1)
    }

    @Test func textDirectlyInsideInterface() throws {
        let spec = try Fixture.load("stray words")
        #expect(spec.diagnostics.map(\.description) == ["test.xml:1: warning: text directly inside <interface> is ignored"])
    }

    @Test func boundsThatDoNotApplyToTheType() throws {
        let spec = try Fixture.load(
            """
            <struct name="S">
                <param name="b" type="Boolean" minvalue="0"/>
                <param name="i" type="Integer" maxlength="3"/>
                <param name="s" type="String" maxsize="3"/>
                <param name="t" type="S2"><element name="X"/></param>
            </struct>
            <struct name="S2"/>
            """)
        #expect(
            spec.diagnostics.map(\.description) == [
                "test.xml:3: warning: param 'S.b' has minvalue/maxvalue, which only apply to Integer and Float; they are ignored",
                "test.xml:4: warning: param 'S.i' has minlength/maxlength, which only apply to String; they are ignored",
                "test.xml:5: warning: param 'S.s' has minsize/maxsize but is not an array; they are ignored",
                "test.xml:6: warning: param 'S.t' lists <element>s, but its type S2 is not an enum",
            ])
    }

    @Test func realSpecsHaveNoUnknownVocabulary() throws {
        // Every element and attribute the published 8.0.0 spec uses is understood.
        let warnings = try SpecFiles.load800().diagnostics.filter { $0.message.hasPrefix("unknown") }
        #expect(warnings.isEmpty, "\(warnings)")
    }
}
