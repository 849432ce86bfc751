import Testing

@testable import SDLSpec

/// One test per error the builder or validator reports, each on a tiny inline spec. Snippets
/// start on line 2 of their document (see `Fixture.document`).
@Suite("Validation errors")
struct ValidationTests {
    @Test func cleanFixtureHasNoDiagnostics() throws {
        // The baseline the other tests add one mistake to.
        let spec = try Fixture.load(
            """
            \(Fixture.functionIDs("FID", "OnID"))
            <enum name="E"><element name="A"/><element name="B"/></enum>
            <struct name="S">
                <param name="count" type="Integer" minvalue="0" maxvalue="10" defvalue="5"/>
                <param name="ratio" type="Float" minvalue="0.5" maxvalue="0.5" defvalue="0.5"/>
                <param name="text" type="String" minlength="1" maxlength="3" defvalue="abc"/>
                <param name="list" type="E" array="true" minsize="1" maxsize="2" defvalue="A"/>
                <param name="flag" type="Boolean" defvalue="false" mandatory="false"/>
            </struct>
            <function name="F" functionID="FID" messagetype="request"><param name="s" type="S"/></function>
            <function name="F" functionID="FID" messagetype="response">
                <param name="e" type="E"><element name="B"/></param>
            </function>
            <function name="On" functionID="OnID" messagetype="notification" since="1.0" until="2.0"/>
            """)
        #expect(spec.diagnostics.isEmpty, "\(spec.diagnostics)")
    }

    // MARK: Names and types

    @Test func unresolvedTypeName() {
        Fixture.expectErrors(
            """
            <struct name="S">
                <param name="p" type="Nope"/>
            </struct>
            """, ["test.xml:3: error: param 'S.p' has type 'Nope', which is not defined"])
    }

    @Test func paramWithoutType() {
        Fixture.expectErrors(#"<struct name="S"><param name="p"/></struct>"#, ["test.xml:2: error: param 'p' has no 'type'"])
    }

    @Test func duplicateEnum() {
        Fixture.expectErrors(
            """
            <enum name="E"><element name="A"/></enum>
            <enum name="E"><element name="B"/></enum>
            """, ["test.xml:3: error: enum 'E' is already defined as enum at line 2"])
    }

    @Test func duplicateStruct() {
        Fixture.expectErrors(
            """
            <struct name="S"/>
            <struct name="S"/>
            """, ["test.xml:3: error: struct 'S' is already defined as struct at line 2"])
    }

    @Test func enumAndStructShareAName() {
        Fixture.expectErrors(
            """
            <enum name="X"/>
            <struct name="X"/>
            """, ["test.xml:3: error: struct 'X' is already defined as enum at line 2"])
    }

    @Test func structAndEnumShareAName() {
        // Reported at the second definition, whichever kind comes first in the file.
        Fixture.expectErrors(
            """
            <struct name="X"/>
            <enum name="X"/>
            """, ["test.xml:3: error: enum 'X' is already defined as struct at line 2"])
    }

    @Test func typeNamedLikeABuiltIn() {
        Fixture.expectErrors(#"<struct name="String"/>"#, ["test.xml:2: error: struct 'String' has the name of a built-in type"])
    }

    @Test func duplicateFunction() {
        // The same name may appear once per messagetype; a second request is a duplicate.
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="FID" messagetype="request"/>
            <function name="F" functionID="FID" messagetype="response"/>
            <function name="F" functionID="FID" messagetype="request"/>
            """, ["test.xml:5: error: function F (request) is already defined at line 3"])
    }

    @Test func duplicateParam() {
        Fixture.expectErrors(
            """
            <struct name="S">
                <param name="p" type="String"/>
                <param name="p" type="Integer"/>
            </struct>
            """, ["test.xml:4: error: param 'p' of S is already defined at line 3"])
    }

    @Test func duplicateFunctionParam() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("OnID"))
            <function name="On" functionID="OnID" messagetype="notification">
                <param name="p" type="String"/>
                <param name="p" type="String"/>
            </function>
            """, ["test.xml:5: error: param 'p' of On (notification) is already defined at line 4"])
    }

    @Test func duplicateElement() {
        Fixture.expectErrors(
            """
            <enum name="E">
                <element name="A"/>
                <element name="A"/>
            </enum>
            """, ["test.xml:4: error: element 'A' of enum 'E' is already defined at line 3"])
    }

    @Test(arguments: [
        (#"<enum/>"#, "<enum> has no 'name'"),
        (#"<enum name=""/>"#, "<enum> has no 'name'"),
        (#"<struct/>"#, "<struct> has no 'name'"),
        (#"<enum name="E"><element/></enum>"#, "<element> has no 'name'"),
        (#"<struct name="S"><param type="String"/></struct>"#, "<param> has no 'name'"),
        (#"<function functionID="FID" messagetype="request"/>"#, "<function> has no 'name'"),
    ])
    func missingName(snippet: String, message: String) {
        Fixture.expectErrors(snippet, ["test.xml:2: error: \(message)"])
    }

    // MARK: Bounds

    @Test(arguments: ["low", "nan", "inf", ""])
    func nonNumericBound(value: String) {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Float" maxvalue="\#(value)"/></struct>"#,
            ["test.xml:2: error: 'maxvalue' is '\(value)', which is not a number"])
    }

    @Test(arguments: ["-1", "1.5", "ten"])
    func lengthIsNotACount(value: String) {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="String" minlength="\#(value)"/></struct>"#,
            ["test.xml:2: error: 'minlength' is '\(value)', which is not a non-negative integer"])
    }

    @Test(arguments: [
        (#"type="Integer" minvalue="10" maxvalue="1""#, "minvalue 10 greater than maxvalue 1"),
        (#"type="Float" minvalue="0.5" maxvalue="0.25""#, "minvalue 0.5 greater than maxvalue 0.25"),
        (#"type="String" minlength="5" maxlength="2""#, "minlength 5 greater than maxlength 2"),
        (#"type="String" array="true" minsize="3" maxsize="1""#, "minsize 3 greater than maxsize 1"),
    ])
    func invertedBounds(attributes: String, message: String) {
        Fixture.expectErrors(
            """
            <struct name="S">
                <param name="p" \(attributes)/>
            </struct>
            """, ["test.xml:3: error: param 'S.p' has \(message)"])
    }

    @Test func integerWithFractionalBound() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Integer" minvalue="0.5" maxvalue="10"/></struct>"#,
            ["test.xml:2: error: param 'S.p' is an Integer, but its minvalue 0.5 is not a whole number"])
    }

    // MARK: Defaults

    @Test(arguments: [("101", "above its maxvalue 100"), ("-1", "below its minvalue 0")])
    func defaultOutOfRange(value: String, message: String) {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Integer" minvalue="0" maxvalue="100" defvalue="\#(value)"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue \(value) \(message)"])
    }

    @Test func defaultNotAnInteger() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Integer" defvalue="1.5"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue '1.5', which is not an integer"])
    }

    @Test func defaultNotANumber() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Float" defvalue="fast"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue 'fast', which is not a number"])
    }

    @Test func defaultNotInItsEnum() {
        Fixture.expectErrors(
            """
            <enum name="E"><element name="A"/></enum>
            <struct name="S"><param name="p" type="E" defvalue="B"/></struct>
            """, ["test.xml:3: error: param 'S.p' has defvalue 'B', which is not an element of enum 'E'"])
    }

    @Test(arguments: ["yes", "1", "TRUE", ""])
    func booleanDefaultNotTrueOrFalse(value: String) {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="Boolean" defvalue="\#(value)"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue '\(value)', which is not true or false"])
    }

    @Test func stringDefaultTooLong() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="String" maxlength="3" defvalue="abcd"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue of 4 characters, longer than its maxlength 3"])
    }

    @Test func stringDefaultTooShort() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="String" minlength="2" defvalue="a"/></struct>"#,
            ["test.xml:2: error: param 'S.p' has defvalue of 1 characters, shorter than its minlength 2"])
    }

    @Test func structDefault() {
        Fixture.expectErrors(
            """
            <struct name="T"/>
            <struct name="S"><param name="p" type="T" defvalue="x"/></struct>
            """, ["test.xml:3: error: param 'S.p' has defvalue 'x', but struct 'T' cannot have a default"])
    }

    @Test func booleanAttributeNotTrueOrFalse() {
        Fixture.expectErrors(
            #"<struct name="S"><param name="p" type="String" mandatory="yes"/></struct>"#,
            ["test.xml:2: error: 'mandatory' is 'yes'; expected true or false"])
    }

    // MARK: Functions

    @Test func requestWithoutResponse() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="FID" messagetype="request"/>
            """, ["test.xml:3: error: request 'F' has no response with the same name"])
    }

    @Test func responseFunctionIDDiffersFromRequest() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID", "GID"))
            <function name="F" functionID="FID" messagetype="request"/>
            <function name="F" functionID="GID" messagetype="response"/>
            """, ["test.xml:4: error: response 'F' has functionID 'GID', but its request has 'FID'"])
    }

    @Test func functionIDElementWithoutValue() {
        Fixture.expectErrors(
            """
            <enum name="FunctionID"><element name="FID"/></enum>
            <function name="F" functionID="FID" messagetype="notification"/>
            """, ["test.xml:2: error: FunctionID element 'FID' has no 'value'"])
    }

    @Test func duplicateFunctionIDValue() {
        Fixture.expectErrors(
            """
            <enum name="FunctionID">
                <element name="FID" value="1"/>
                <element name="GID" value="1"/>
            </enum>
            <function name="F" functionID="FID" messagetype="notification"/>
            """, ["test.xml:4: error: FunctionID element 'GID' has value 1, already used by 'FID' at line 3"])
    }

    @Test func functionIDNotInTheEnum() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="Nope" messagetype="notification"/>
            """, ["test.xml:3: error: function F (notification) has functionID 'Nope', which is not an element of enum 'FunctionID'"])
    }

    @Test func functionIDNotInAnEmptyEnum() {
        Fixture.expectErrors(
            """
            <enum name="FunctionID"/>
            <function name="F" functionID="FID" messagetype="notification"/>
            """, ["test.xml:3: error: function F (notification) has functionID 'FID', which is not an element of enum 'FunctionID'"])
    }

    @Test func functionIDSharedByTwoFunctions() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="FID" messagetype="notification"/>
            <function name="G" functionID="FID" messagetype="notification"/>
            """, ["test.xml:4: error: function G (notification) uses functionID 'FID', already used by F at line 3"])
    }

    @Test(arguments: [#""#, #"functionID="""#])
    func functionWithoutFunctionID(attribute: String) {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" \(attribute) messagetype="notification"/>
            """, ["test.xml:3: error: function 'F' (notification) has no 'functionID'"])
    }

    @Test func noFunctionIDEnum() {
        Fixture.expectErrors(
            #"<function name="F" functionID="FID" messagetype="notification"/>"#,
            ["test.xml:1: error: the spec defines functions but no enum 'FunctionID'"])
    }

    @Test func badMessageType() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="FID" messagetype="event"/>
            """, ["test.xml:3: error: function 'F' has messagetype 'event'; expected request, response or notification"])
    }

    @Test func missingMessageType() {
        Fixture.expectErrors(
            """
            \(Fixture.functionIDs("FID"))
            <function name="F" functionID="FID"/>
            """, ["test.xml:3: error: function 'F' has no 'messagetype'"])
    }

    // MARK: Versions

    @Test(arguments: ["since", "until"], ["7.x", "abc", "1", "", "1.0.0.0", "v6.0"])
    func availabilityIsNotAVersion(attribute: String, value: String) {
        Fixture.expectErrors(
            """
            <struct name="S">
                <param name="p" type="String" \(attribute)="\(value)"/>
            </struct>
            """, ["test.xml:3: error: '\(attribute)' is '\(value)', which is not a version like 6.0"])
    }

    @Test func untilBeforeSince() {
        Fixture.expectErrors(
            #"<enum name="E" since="6.0" until="5.0"/>"#,
            ["test.xml:2: error: enum 'E' has until=5.0.0 before since=6.0.0"])
    }

    @Test func interfaceVersionIsNotAVersion() {
        let errors = Fixture.diagnostics(ofDocument: #"<interface name="T" version="eight" minVersion="1"/>"#)
            .filter { $0.severity == .error }.map(\.description)
        #expect(
            errors == [
                "test.xml:1: error: 'version' is 'eight', which is not a version like 8.0.0",
                "test.xml:1: error: 'minVersion' is '1', which is not a version like 1.0",
            ])
    }

    // MARK: Enum elements

    @Test func hexValueDoesNotMatchValue() {
        Fixture.expectErrors(
            #"<enum name="E"><element name="A" value="10" hexvalue="B"/></enum>"#,
            ["test.xml:2: error: 'hexvalue' B of element 'A' is 11, but 'value' is 10"])
    }

    @Test func hexValueIsNotHexadecimal() {
        Fixture.expectErrors(
            #"<enum name="E"><element name="A" value="10" hexvalue="G1"/></enum>"#,
            ["test.xml:2: error: 'hexvalue' of element 'A' is 'G1', which is not hexadecimal"])
    }

    @Test func valueIsNotAnInteger() {
        Fixture.expectErrors(
            #"<enum name="E"><element name="A" value="ten"/></enum>"#,
            ["test.xml:2: error: 'value' of element 'A' is 'ten', which is not an integer"])
    }

    @Test func paramElementNotInItsEnum() {
        Fixture.expectErrors(
            """
            <enum name="E"><element name="A"/></enum>
            <struct name="S">
                <param name="p" type="E">
                    <element name="A"/>
                    <element name="Z"/>
                </param>
            </struct>
            """, ["test.xml:4: error: param 'S.p' lists element 'Z', which is not in enum 'E'"])
    }

    // MARK: Document

    @Test func wrongRootElement() {
        let error = #expect(throws: SpecError.self) {
            try SpecLoader.load(bytes: Array("<?xml version=\"1.0\"?>\n<root/>\n".utf8), path: Fixture.path)
        }
        #expect(
            error?.diagnostics.map(\.description) == [
                "test.xml:2: error: the root element is <root>, expected <interface> (MOBILE_API) or <interfaces> (HMI_API)"
            ])
    }
}
