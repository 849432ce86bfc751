import Foundation
import SDLCodegen
import Testing

/// `sdlgen.json`, as `sdlgen generate --config` and the plugins read it.
@Suite struct GeneratorConfigurationTests {
    private func decode(_ json: String) throws -> GeneratorConfiguration {
        try JSONDecoder().decode(GeneratorConfiguration.self, from: Data(json.utf8))
    }

    private func problem(_ json: String) -> GeneratorConfiguration.Problem? {
        #expect(throws: GeneratorConfiguration.Problem.self) { try decode(json) }
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try decode(
            """
            {"spec": "API.xml", "output": "Gen", "templates": "T", "accessLevel": "package",
             "only": "Show|OnHMIStatus", "kinds": ["enums", "functions", "enums"], "dependencies": false}
            """)
        #expect(configuration.spec == "API.xml")
        #expect(configuration.output == "Gen")
        #expect(configuration.templates == "T")
        #expect(configuration.accessLevel == .package)
        #expect(configuration.only == "Show|OnHMIStatus")
        #expect(configuration.kinds == [.enums, .functions])
        #expect(configuration.dependencies == false)
    }

    @Test func anEmptyObjectLeavesEverythingToTheDefaults() throws {
        #expect(try decode("{}") == GeneratorConfiguration())
        #expect(try decode(#"{"only": null}"#) == GeneratorConfiguration())
    }

    @Test func unknownKeysAreRejected() {
        let typo = problem("{\n  \"accesLevel\": \"internal\"\n}")
        #expect(typo?.key == "accesLevel")
        #expect(typo?.message == "unknown key 'accesLevel'; did you mean 'accessLevel'?")

        let stranger = problem(#"{"colour": "blue"}"#)
        #expect(stranger?.message == "unknown key 'colour'; the keys are spec, output, templates, accessLevel, only, kinds, dependencies")
    }

    @Test func badValuesSayWhatIsAllowed() {
        #expect(problem(#"{"accessLevel": "private"}"#)?.message == "'accessLevel' is 'private'; use public, package or internal")
        #expect(problem(#"{"kinds": "enums"}"#)?.message == #"'kinds' must be an array of strings, like ["enums", "structs"]"#)
        #expect(problem(#"{"kinds": ["enums", "classes"]}"#)?.message == "unknown kind 'classes' in 'kinds'; use enums, structs or functions")
        #expect(problem(#"{"kinds": []}"#)?.key == "kinds")
        #expect(problem(#"{"dependencies": "yes"}"#)?.message == "'dependencies' must be true or false")
        #expect(problem(#"{"spec": 3}"#)?.message == "'spec' must be a string")
        #expect(problem(#"["spec"]"#)?.key == nil)
    }

    @Test func problemsPointAtTheLineOfTheirKey() {
        let text = "{\n  \"spec\": \"MOBILE_API.xml\",\n  \"kinds\" : [\"enums\"],\n  \"note\": \"kinds\"\n}\n"
        #expect(GeneratorConfiguration.line(ofKey: "spec", in: text) == 2)
        #expect(GeneratorConfiguration.line(ofKey: "kinds", in: text) == 3)
        #expect(GeneratorConfiguration.line(ofKey: "note", in: text) == 4)
        #expect(GeneratorConfiguration.line(ofKey: "only", in: text) == nil)
    }

    @Test func pathsAreRelativeToTheFilesFolder() {
        #expect(GeneratorConfiguration.resolve("MOBILE_API.xml", relativeTo: "Sources/App") == "Sources/App/MOBILE_API.xml")
        #expect(GeneratorConfiguration.resolve("../spec/API.xml", relativeTo: "/pkg/Sources/App/") == "/pkg/Sources/App/../spec/API.xml")
        #expect(GeneratorConfiguration.resolve("/abs/API.xml", relativeTo: "Sources/App") == "/abs/API.xml")
        #expect(GeneratorConfiguration.resolve("API.xml", relativeTo: "") == "API.xml")
    }

    /// A spec kept outside the repository is named through the environment (the benchmarks'
    /// Codable mirrors: `"${SDL_RPC_SPEC_DIR}/8.0.0/MOBILE_API.xml"`).
    @Test func environmentVariablesInPathsAreExpanded() throws {
        let environment = ["SPECS": "/data/rpc_spec", "V": "8.0.0"]
        let expanded = try GeneratorConfiguration.expandingVariables(in: "${SPECS}/${V}/MOBILE_API.xml") { environment[$0] }
        #expect(expanded == "/data/rpc_spec/8.0.0/MOBILE_API.xml")
        #expect(try GeneratorConfiguration.expandingVariables(in: "a$b{c}/$") { _ in nil } == "a$b{c}/$")
        #expect(throws: GeneratorConfiguration.UnsetVariable.self) {
            try GeneratorConfiguration.expandingVariables(in: "${MISSING}/API.xml") { environment[$0] }
        }
        #expect("\(GeneratorConfiguration.UnsetVariable(name: "MISSING"))" == "the environment variable MISSING is not set")
    }
}
