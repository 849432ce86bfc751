import Foundation
import SDLTestSupport
import Testing

@testable import SDLSpec

/// SDL Core's HMI API (`HMI_API.xml`): the same reader, model and validator as the mobile spec,
/// with what differs said by types (`SpecDocument.hmi`, `InterfaceSet`, `Scope`).
@Suite("HMI API spec")
struct HMISpecTests {
    static func hmiSpec() throws -> String {
        guard let path = SharedData.hmiSpecFile() else { try Test.cancel(Comment(rawValue: SharedData.missingHMISpec())) }
        return path
    }

    @Test func realSpecLoadsCleanlyWithItsInterfaces() throws {
        let spec = try SpecLoader.load(path: try Self.hmiSpec())
        #expect(spec.diagnostics.isEmpty, "\(spec.diagnostics.map(\.description).joined(separator: "\n"))")
        guard case .hmi(let set) = spec.document else {
            Issue.record("HMI_API.xml read as \(spec.document)")
            return
        }
        #expect(set.name == "SmartDeviceLink HMI API")
        #expect(
            set.interfaces.map(\.name) == [
                "Common", "Buttons", "BasicCommunication", "VR", "TTS", "UI", "Navigation", "VehicleInfo", "SDL", "RC", "AppService",
            ])
        // Counted independently with Python's ElementTree.
        #expect(set.interfaces.reduce(0) { $0 + $1.functions.count } == 265)
        #expect(set.interfaces.reduce(0) { $0 + $1.structs.count } == 124)
        #expect(set.interfaces.reduce(0) { $0 + $1.enums.count } == 118)
        let functions = spec.interface.functions
        #expect(functions.count { $0.messageType == .request } == 100)
        #expect(functions.count { $0.messageType == .response } == 100)
        #expect(functions.count { $0.messageType == .notification } == 65)

        let ui = try #require(set.interface(named: "UI"))
        #expect(ui.versionText == "1.5.0" && ui.date == "2021-04-14")
        let show = try #require(ui.function(named: "Show", type: .request))
        let showStrings = try #require(show.parameters.first { $0.name == "showStrings" })
        #expect(showStrings.type == .structure("Common.TextFieldStruct") && showStrings.isArray)
        // The combined view qualifies every name, so tools that work by name need no HMI case.
        #expect(spec.interface.function(named: "UI.Show", type: .request) != nil)
        #expect(spec.interface.structDefinition(named: "Common.TextFieldStruct") != nil)
    }

    @Test func everyTypeReferenceResolvesToAQualifiedType() throws {
        let spec = try SpecLoader.load(path: try Self.hmiSpec())
        let combined = spec.interface
        let enums = Set(combined.enums.map(\.name))
        let structs = Set(combined.structs.map(\.name))
        var references = 0
        for parameter in combined.structs.flatMap(\.parameters) + combined.functions.flatMap(\.parameters) {
            switch parameter.type {
            case .enumeration(let name):
                #expect(enums.contains(name))
                references += 1
            case .structure(let name):
                #expect(structs.contains(name))
                references += 1
            case .unresolved(let name): Issue.record("\(parameter.name): \(name) unresolved")
            default: break
            }
        }
        // `grep -c 'type="Common\.' HMI_API.xml`: every reference is to a Common type.
        #expect(references == 565)
    }

    @Test func resultCodesAndScopeAreTyped() throws {
        let spec = try SpecLoader.load(path: try Self.hmiSpec())
        guard case .hmi(let set) = spec.document else { return }
        let results = try #require(set.interface(named: "Common")?.enumDefinition(named: "Result"))
        #expect(results.elements.first?.name == "SUCCESS" && results.elements.first?.value == 0)
        #expect(results.elements.first { $0.name == "WARNINGS" }?.value == 21)
        let sdl = try #require(set.interface(named: "SDL"))
        #expect(sdl.function(named: "GetUserFriendlyMessage", type: .request)?.scope == .internal)
        #expect(sdl.function(named: "ActivateApp", type: .request)?.scope == nil)
        #expect(set.interface(named: "Common")?.structDefinition(named: "UserFriendlyMessage")?.scope == .internal)
    }

    /// SDL Core 8.2's own schema types `minvalue` as xs:short, and its HMI_API.xml gives
    /// `UI.SetMediaClockTimer`'s Float `countRate` a minvalue of 0.1: libxml2 (and xmllint)
    /// report exactly that one finding, which is SDL Core's, not the spec reader's.
    @Test func schemaFindsOnlySDLCoresOwnMismatch() throws {
        let path = try Self.hmiSpec()
        guard let schema = SharedData.hmiSpecFile("HMI_API.xsd") else { try Test.cancel(Comment(rawValue: SharedData.missingHMISpec("HMI_API.xsd"))) }
        let findings = SchemaValidator.validate(specPath: path, schemaPath: schema)
        let line = try SpecFiles.line(containing: #"<param name="countRate" type="Float" minvalue="0.1""#, in: path)
        #expect(
            findings.map(\.description) == [
                "\(path):\(line): error: Element 'param', attribute 'minvalue': '0.1' is not a valid value of the atomic type 'xs:short'."
            ])
    }

    // MARK: Broken HMI specs

    /// Wraps interfaces in `<interfaces>` (line 1); a minimal Common with its Result first.
    static func document(_ interfaces: String) -> String {
        """
        <interfaces name="Test HMI API">
        <interface name="Common" version="1.0.0" date="2024-01-01">
        <enum name="Result"><element name="SUCCESS" value="0"/><element name="REJECTED" value="4"/></enum>
        <struct name="TextField"><param name="text" type="String"/></struct>
        </interface>
        \(interfaces)
        </interfaces>

        """
    }

    static func errors(_ interfaces: String) -> [String] {
        let diagnostics: [Diagnostic]
        do {
            diagnostics = try SpecLoader.load(bytes: Array(document(interfaces).utf8), path: "hmi.xml").diagnostics
        } catch {
            diagnostics = error.diagnostics
        }
        return diagnostics.filter { $0.severity == .error }.map(\.description)
    }

    @Test func cleanFixtureHasNoErrors() throws {
        let spec = try SpecLoader.load(
            bytes: Array(
                Self.document(
                    """
                    <interface name="UI" version="1.0.0" date="2024-01-01">
                    <function name="Show" messagetype="request"><param name="fields" type="Common.TextField" array="true"/></function>
                    <function name="Show" messagetype="response"/>
                    <function name="OnCommand" messagetype="notification" scope="internal"><param name="id" type="Integer"/></function>
                    </interface>
                    """
                ).utf8), path: "hmi.xml")
        #expect(spec.diagnostics.isEmpty, "\(spec.diagnostics)")
        #expect(spec.interface.function(named: "UI.OnCommand", type: .notification)?.scope == .internal)
    }

    @Test func unknownType() {
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="Show" messagetype="request"><param name="fields" type="Common.Nope"/></function>
                <function name="Show" messagetype="response"/>
                </interface>
                """) == ["hmi.xml:7: error: param 'UI.Show (request).fields' has type 'Common.Nope', which is not defined"])
    }

    @Test func typeOfAnotherInterfaceNeedsItsName() {
        // `TextField` alone means UI's own TextField, which UI does not have.
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="Show" messagetype="request"><param name="fields" type="TextField"/></function>
                <function name="Show" messagetype="response"/>
                </interface>
                """) == ["hmi.xml:7: error: param 'UI.Show (request).fields' has type 'TextField', which is not defined"])
    }

    @Test func responseWithoutItsRequest() {
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="Show" messagetype="response"/>
                </interface>
                """) == ["hmi.xml:7: error: response 'UI.Show' has no request with the same name"])
    }

    @Test func requestWithoutItsResponse() {
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="Show" messagetype="request"/>
                </interface>
                """) == ["hmi.xml:7: error: request 'UI.Show' has no response with the same name"])
    }

    @Test func duplicateFunction() {
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="OnCommand" messagetype="notification"/>
                <function name="OnCommand" messagetype="notification"/>
                </interface>
                """) == ["hmi.xml:8: error: function UI.OnCommand (notification) is already defined at line 7"])
    }

    @Test func duplicateInterface() {
        #expect(
            Self.errors(
                """
                <interface name="UI"></interface>
                <interface name="UI"></interface>
                """) == ["hmi.xml:7: error: interface 'UI' is already defined at line 6"])
    }

    @Test func unknownScope() {
        #expect(
            Self.errors(
                """
                <interface name="UI">
                <function name="OnCommand" messagetype="notification" scope="private"/>
                </interface>
                """) == ["hmi.xml:7: error: 'scope' is 'private'; the only scope is internal"])
    }

    @Test func interfaceWithoutName() {
        #expect(
            Self.errors("<interface></interface>") == [
                "hmi.xml:6: error: <interface> has no 'name'; the HMI API's methods and types are named by it"
            ])
    }

    @Test func resultCodesMustBeNumbered() {
        let xml = """
            <interfaces name="Test">
            <interface name="Common"><enum name="Result"><element name="SUCCESS"/></enum></interface>
            <interface name="UI"><function name="OnCommand" messagetype="notification"/></interface>
            </interfaces>
            """
        let errors = (try? SpecLoader.load(bytes: Array(xml.utf8), path: "hmi.xml").diagnostics.map(\.description)) ?? []
        #expect(errors == ["hmi.xml:2: error: Common.Result element 'SUCCESS' has no 'value'; JSON-RPC sends result codes as numbers"])
    }

    @Test func functionsNeedCommonResult() {
        let xml = """
            <interfaces name="Test">
            <interface name="UI"><function name="OnCommand" messagetype="notification"/></interface>
            </interfaces>
            """
        let errors = (try? SpecLoader.load(bytes: Array(xml.utf8), path: "hmi.xml").diagnostics.map(\.description)) ?? []
        #expect(errors == ["hmi.xml:1: error: the HMI API defines functions but no enum 'Common.Result' for their result codes"])
    }

    @Test func scopeIsNotPartOfTheMobileSpec() {
        #expect(
            Fixture.warnings(#"<struct name="S" scope="internal"><param name="p" type="String"/></struct>"#) == [
                "test.xml:2: warning: unknown attribute 'scope' on <struct> is ignored"
            ])
    }

    @Test func rootMustBeAnInterfaceOrInterfaces() {
        let errors = Fixture.diagnostics(ofDocument: "<api/>").map(\.description)
        #expect(errors == ["test.xml:1: error: the root element is <api>, expected <interface> (MOBILE_API) or <interfaces> (HMI_API)"])
    }
}
