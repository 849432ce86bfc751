import Foundation
import SDLSpec
import SDLTestSupport
import Testing

@testable import SDLCodegen

/// The HMI API through the same generator: types nested in their interface, messages that are
/// JSON-RPC methods, `Common.Result` sent by number.
@Suite("HMI API generation")
struct HMIGenerationTests {
    static let spec = """
        <interfaces name="Test HMI API">
        <interface name="Common" version="2.0.0" date="2024-01-01">
        <description>Types every interface uses.</description>
        <enum name="Result"><element name="SUCCESS" value="0"/><element name="REJECTED" value="4"/></enum>
        <enum name="Image"><element name="STATIC"/></enum>
        <struct name="TextFieldStruct">
            <param name="fieldText" type="String" maxlength="500" mandatory="true"/>
        </struct>
        </interface>
        <interface name="UI" version="1.5.0" date="2021-04-14">
        <function name="Show" messagetype="request">
            <description>Shows text.</description>
            <param name="showStrings" type="Common.TextFieldStruct" array="true" maxsize="8" mandatory="true"/>
            <param name="kind" type="Common.Image" mandatory="false"/>
        </function>
        <function name="Show" messagetype="response"/>
        <function name="OnCommand" messagetype="notification" scope="internal"><param name="cmdID" type="Integer" mandatory="true"/></function>
        </interface>
        </interfaces>
        """

    static func generated() throws -> [String: String] {
        try TestSupport.generate(try TestSupport.loadSpec(xml: spec), options: TestSupport.options { $0.specFileName = "HMI_API.xml" })
    }

    @Test func writesTheHMIFileSet() throws {
        #expect(Set(try Self.generated().keys) == Set(RenderModelBuilder.hmiFileNames))
    }

    @Test func typesAreNestedInTheirInterface() throws {
        let files = try Self.generated()
        let enums = try #require(files["Enums.swift"])
        #expect(
            enums.contains(
                "\nextension Common {\n    /// - Remark: Generated from enum `Common.Result` in HMI_API.xml, line 4.\n    nonisolated public enum Result: SDLRuntime.SDLEnumeration {\n"
            ))
        // A nested name may reuse a standard library or SwiftUI name: every use is qualified.
        #expect(enums.contains("    nonisolated public enum Image: SDLRuntime.SDLEnumeration {"))
        #expect(enums.contains("extension Common.Result {\n    public static let allCases: [Common.Result] = ["))
        let requests = try #require(files["Requests.swift"])
        #expect(
            requests.contains(
                """
                extension UI {
                    /// Shows text.
                    ///
                    /// - Remark: Generated from function `UI.Show (request)` in HMI_API.xml, line 11.
                    nonisolated public struct Show: SDLRuntime.SDLHMIRequest {
                        public typealias Response = UI.ShowResponse

                        /// Size: at most 8 items.
                        public var showStrings: [Common.TextFieldStruct]
                """))
        #expect(
            requests.contains(
                """
                extension UI.Show {
                    public static let functionName = "Show"
                    public static let method = "UI.Show"
                    public static let messageType = SDLRuntime.SDLMessageType.request

                    public static let structInfo = SDLRuntime.SDLStructInfo(name: "UI.Show", parameters: [
                        .init(name: "showStrings", type: .structure("Common.TextFieldStruct"), isArray: true, isMandatory: true, maxSize: 8),
                        .init(name: "kind", type: .enumeration("Common.Image"), isMandatory: false),
                """))
        #expect(!requests.contains("functionIDValue"))
        #expect(try #require(files["Responses.swift"]).contains("    nonisolated public struct ShowResponse: SDLRuntime.SDLHMIResponse {"))
        let notifications = try #require(files["Notifications.swift"])
        #expect(notifications.contains("- Note: Internal scope: between SDL Core and the OEM's own HMI components."))
        #expect(notifications.contains("    nonisolated public struct OnCommand: SDLRuntime.SDLHMINotification {"))
        // Blank lines stay blank inside the namespace.
        for (name, text) in files { #expect(!text.contains(" \n"), "\(name) has trailing spaces") }
    }

    @Test func catalogDeclaresTheNamespacesAndTheResultCode() throws {
        let catalog = try #require(try Self.generated()["HMIAPI.swift"])
        #expect(
            catalog.contains(
                """
                /// Types every interface uses.
                ///
                /// - Remark: Interface `Common` 2.0.0 (2024-01-01) in HMI_API.xml, line 2.
                nonisolated public enum Common {
                    /// The interface's `version` in the spec.
                    public static let interfaceVersion: SDLRuntime.SDLSpecVersion? = SDLRuntime.SDLSpecVersion.version(2, 0)
                """))
        #expect(catalog.contains("nonisolated public enum UI {"))
        #expect(catalog.contains("extension Common.Result: SDLRuntime.SDLHMIResultCode {"))
        #expect(catalog.contains("public typealias HMIResponse<Result: SDLRuntime.SDLHMIResponse> = SDLRuntime.SDLJSONRPCResponse<Result, Common.Result>"))
        #expect(catalog.contains("    public static let requests: [any SDLRuntime.SDLHMIRequest.Type] = [\n        UI.Show.self,\n    ]"))
    }

    @Test func onlySelectsByQualifiedName() throws {
        let spec = try TestSupport.loadSpec(xml: Self.spec)
        let files = try TestSupport.generate(spec, options: TestSupport.options { $0.only = #"UI\.Show"# })
        let requests = try #require(files["Requests.swift"])
        #expect(requests.contains("struct Show:"))
        #expect(!(try #require(files["Notifications.swift"])).contains("OnCommand"))
        // Its dependencies come along: the response and the types its params use.
        #expect(try #require(files["Structs.swift"]).contains("struct TextFieldStruct:"))
        #expect(try #require(files["Responses.swift"]).contains("struct ShowResponse:"))
    }

    @Test func realHMISpecGeneratesEveryDefinition() throws {
        guard let path = SharedData.hmiSpecFile() else { try Test.cancel(Comment(rawValue: SharedData.missingHMISpec())) }
        let spec = try TestSupport.loadSpec(at: path)
        let models = try TestSupport.renderModels(spec)
        let catalog = try #require(models["HMIAPI.swift"]?.hmiCatalog)
        #expect(catalog.enums.count == 118 && catalog.structs.count == 124)
        #expect(catalog.requests.count == 100 && catalog.responses.count == 100 && catalog.notifications.count == 65)
        #expect(catalog.interfaces.map(\.name).count == 11)
        #expect(catalog.resultCode == "Common.Result")
        // The committed module is this output (CI also runs `sdlgen generate --check`).
        let files = try TestSupport.generate(spec, options: TestSupport.options { $0.specFileName = "HMI_API.xml" })
        for (name, text) in files {
            #expect(try TestSupport.read(TestSupport.packageRoot + "/GeneratedHMI/" + name) == text, "GeneratedHMI/\(name) is stale")
        }
    }
}
