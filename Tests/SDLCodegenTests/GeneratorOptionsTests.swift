import Foundation
import SDLSpec
import Testing

@testable import SDLCodegen

/// `GeneratorOptions`: selection, dependencies, kinds, access level and template overrides.
@Suite struct GeneratorOptionsTests {
    /// Spec names of what the render models hold, by file.
    struct Selection: Equatable {
        var enums: Set<String> = []
        var structs: Set<String> = []
        var requests: Set<String> = []
        var responses: Set<String> = []
        var notifications: Set<String> = []
    }

    private func selection(_ spec: LoadedSpec, _ options: GeneratorOptions) throws -> Selection {
        let models = try TestSupport.renderModels(spec, options: options)
        func names(_ file: String) -> Set<String> {
            Set((models[file]?.enums.map(\.specName) ?? []) + (models[file]?.structs.map(\.specName) ?? []))
        }
        return Selection(
            enums: names("Enums.swift"), structs: names("Structs.swift"), requests: names("Requests.swift"),
            responses: names("Responses.swift"), notifications: names("Notifications.swift"))
    }

    // MARK: --only

    @Test func onlyPullsInTheResponseAndEveryTypeUsed() throws {
        let spec = try TestSupport.loadRealSpec("8.0.0")
        let selected = try selection(spec, TestSupport.options { $0.only = "Show" })
        #expect(
            selected
                == Selection(
                    enums: ["Result", "TextAlignment", "ImageType", "SoftButtonType", "SystemAction", "MetadataType"],
                    structs: ["Image", "SoftButton", "MetadataTags", "TemplateConfiguration", "TemplateColorScheme", "RGBColor"],
                    requests: ["Show"], responses: ["Show"]))
    }

    @Test func onlyWithoutDependenciesTakesJustTheMatches() throws {
        let spec = try TestSupport.loadRealSpec("8.0.0")
        let selected = try selection(
            spec,
            TestSupport.options {
                $0.only = "Show"
                $0.includeDependencies = false
            })
        // The response matches `Show` itself; the types both messages use are left out.
        #expect(selected == Selection(requests: ["Show"], responses: ["Show"]))
    }

    /// `Show` must not select `ShowConstantTBT` or `ShowAppMenu`.
    @Test func onlyMatchesWholeNames() throws {
        let spec = try TestSupport.loadRealSpec("8.0.0")
        let exact = try selection(
            spec,
            TestSupport.options {
                $0.only = "Show"
                $0.includeDependencies = false
            })
        let prefixed = try selection(
            spec,
            TestSupport.options {
                $0.only = "Show.*"
                $0.includeDependencies = false
            })
        #expect(exact.requests == ["Show"])
        #expect(prefixed.requests == ["Show", "ShowConstantTBT", "ShowAppMenu"])
    }

    @Test func onlyMatchingNothingWarns() throws {
        let spec = try TestSupport.loadFixture("Constructs")
        let output = try Generator.generate(spec, options: TestSupport.options { $0.only = "NoSuchThing" }, templates: TemplateSet())
        #expect(output.diagnostics.contains { $0.severity == .warning && $0.message.contains("matches no definition") })
    }

    @Test func anInvalidRegexIsAnError() throws {
        let spec = try TestSupport.loadFixture("Constructs")
        let error = #expect(throws: SpecError.self) {
            try Generator.generate(spec, options: TestSupport.options { $0.only = "Show(" }, templates: TemplateSet())
        }
        let diagnostics = error?.diagnostics ?? []
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.severity == .error)
        #expect(diagnostics.first?.message.contains("not a valid regular expression") == true)
    }

    // MARK: kinds

    @Test func kindsFilterWhatIsSelected() throws {
        let spec = try TestSupport.loadFixture("Constructs")
        let enumsOnly = try selection(spec, TestSupport.options { $0.kinds = [.enums] })
        #expect(enumsOnly == Selection(enums: ["FunctionID", "Mode", "Level", "Retired", "Nothing"]))

        // Structs still pull in the enums they use, but no functions.
        let structsOnly = try selection(spec, TestSupport.options { $0.kinds = [.structs] })
        #expect(structsOnly == Selection(enums: ["Mode", "Level"], structs: ["Point", "Empty", "Everything", "Outdated"]))

        let functionsOnly = try selection(
            spec,
            TestSupport.options {
                $0.kinds = [.functions]
                $0.includeDependencies = false
            })
        #expect(
            functionsOnly
                == Selection(
                    requests: ["Probe", "Configure", "Retire"], responses: ["Probe", "Configure", "Retire"], notifications: ["OnPulse"]))
    }

    /// Build plugins declare their outputs up front, so every file is written even when empty.
    @Test func everyFileIsWrittenEvenWhenEmpty() throws {
        let spec = try TestSupport.loadFixture("Constructs")
        let files = try TestSupport.generate(spec, options: TestSupport.options { $0.kinds = [.enums] })
        #expect(Set(files.keys) == Set(RenderModelBuilder.fileNames))
        // Just the header.
        let structs = try #require(files["Structs.swift"])
        #expect(structs.contains("import SDLRuntime"))
        #expect(!structs.contains("SDLRuntime.SDLStructure {"))
        #expect(!structs.contains("Runtime conformances"))
    }

    // MARK: Access level

    @Test func internalAccessWritesNoModifier() throws {
        let files = try TestSupport.generate(try TestSupport.loadFixture("Constructs"), options: TestSupport.options { $0.accessLevel = .internal })
        for (name, contents) in files {
            #expect(!contents.contains("public "), "\(name)")
            #expect(!contents.contains("package "), "\(name)")
        }
        #expect(files["Enums.swift"]?.contains("\nnonisolated enum Mode: SDLRuntime.SDLEnumeration {\n") == true)
        #expect(files["Structs.swift"]?.contains("\n    var flag: Swift.Bool\n") == true)
    }

    @Test func packageAccessReplacesPublic() throws {
        let spec = try TestSupport.loadFixture("Constructs")
        let publicFiles = try TestSupport.generate(spec)
        let packageFiles = try TestSupport.generate(spec, options: TestSupport.options { $0.accessLevel = .package })
        for (name, contents) in packageFiles {
            #expect(!contents.contains("public "), "\(name)")
            // Exactly the public modifiers change; nothing else does.
            #expect(contents == publicFiles[name]?.replacingOccurrences(of: "public ", with: "package "), "\(name)")
        }
    }

    // MARK: Templates

    @Test func anOverrideFolderReplacesOneTemplate() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { TestSupport.removeTemporaryDirectory(directory) }
        try TestSupport.write("// Custom header for {{interfaceName}}\n", to: directory + "/Header.mustache")
        try TestSupport.write("not a template", to: directory + "/README.md")

        let templates = try TemplateSet(overridesIn: directory)
        #expect(templates.sources["Header"] == "// Custom header for {{interfaceName}}\n")
        #expect(templates.sources.filter { $0.key != "Header" } == EmbeddedTemplates.sources.filter { $0.key != "Header" })

        let spec = try TestSupport.loadFixture("Constructs")
        let standard = try TestSupport.generate(spec)
        let custom = try TestSupport.generate(spec, options: TestSupport.options { $0.templatesDirectory = directory })
        for name in RenderModelBuilder.fileNames {
            let contents = try #require(custom[name])
            #expect(contents.hasPrefix("// Custom header for Constructs Fixture\n"), "\(name)")
            #expect(!contents.contains("DO NOT EDIT"), "\(name)")
            // Everything after the header is rendered by the built-in templates as before.
            let body = try #require(standard[name]?.split(separator: "\n", maxSplits: 11, omittingEmptySubsequences: false).last)
            #expect(contents.hasSuffix(body), "\(name)")
        }
    }

    @Test func aMissingOverrideFolderIsAnError() throws {
        #expect(throws: SpecError.self) {
            try TemplateSet(overridesIn: "/nonexistent/sdlgen-templates")
        }
    }

    @Test func aTemplateThatDoesNotParseIsAnError() throws {
        let error = #expect(throws: SpecError.self) {
            try TemplateSet(sources: ["Header": "{{#open}} never closed"])
        }
        #expect(error?.diagnostics.first?.location?.file == "Header.mustache")
    }

    // MARK: Broken specs

    /// A spec with errors is refused before anything is rendered.
    @Test func aSpecWithErrorsIsRefused() throws {
        let spec = try TestSupport.loadSpec(
            xml: """
                <interface name="Broken" version="1.0.0">
                    <struct name="Holder">
                        <param name="thing" type="Missing" />
                    </struct>
                </interface>
                """)
        #expect(spec.hasErrors)
        let error = #expect(throws: SpecError.self) {
            try Generator.generate(spec, options: GeneratorOptions(), templates: TemplateSet())
        }
        #expect(error?.diagnostics.contains { $0.severity == .error && $0.message.contains("'Missing'") } == true)
    }

    /// Two spec names that become one Swift type name stop generation instead of producing code that cannot compile.
    @Test func typeNameClashesAreErrors() throws {
        let spec = try TestSupport.loadSpec(
            xml: """
                <interface name="Clash" version="1.0.0">
                    <struct name="Data"><param name="a" type="Integer" /></struct>
                    <struct name="SDLData"><param name="b" type="Integer" /></struct>
                </interface>
                """)
        #expect(!spec.hasErrors)
        let error = #expect(throws: SpecError.self) {
            try Generator.generate(spec, options: GeneratorOptions(), templates: TemplateSet())
        }
        #expect(error?.diagnostics.first?.message.contains("would both be named 'SDLData'") == true)
    }
}
