import Foundation
import Testing

@testable import SDLSpec

/// The published specs, 4.4.0 through 8.0.0, as they are.
@Suite("Real specs")
struct RealSpecTests {
    struct Counts: Equatable, CustomStringConvertible {
        var enums, structs, functions, requests, responses, notifications: Int
        var description: String {
            "\(enums) enums, \(structs) structs, \(functions) functions (\(requests) requests, \(responses) responses, \(notifications) notifications)"
        }
    }

    /// Top-level definitions per version, counted independently with an XML library outside Swift.
    static let expectedCounts: [String: Counts] = [
        "4.4.0": Counts(enums: 70, structs: 47, functions: 104, requests: 43, responses: 44, notifications: 17),
        "4.5.0": Counts(enums: 80, structs: 63, functions: 115, requests: 48, responses: 49, notifications: 18),
        "4.5.1": Counts(enums: 80, structs: 63, functions: 115, requests: 48, responses: 49, notifications: 18),
        "5.0.0": Counts(enums: 95, structs: 82, functions: 116, requests: 48, responses: 49, notifications: 19),
        "5.1.0": Counts(enums: 102, structs: 97, functions: 130, requests: 54, responses: 55, notifications: 21),
        "6.0.0": Counts(enums: 105, structs: 105, functions: 146, requests: 62, responses: 63, notifications: 21),
        "7.0.0": Counts(enums: 107, structs: 111, functions: 151, requests: 63, responses: 64, notifications: 24),
        "7.1.0": Counts(enums: 111, structs: 121, functions: 152, requests: 63, responses: 64, notifications: 25),
        "8.0.0": Counts(enums: 111, structs: 121, functions: 152, requests: 63, responses: 64, notifications: 25),
    ]

    @Test("loads with no errors", arguments: SpecFiles.versions)
    func loadsCleanly(version: String) throws {
        let spec = try SpecLoader.load(path: try SpecFiles.spec(version))
        let errors = spec.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map(\.description).joined(separator: "\n"))")

        let functions = spec.interface.functions
        let counts = Counts(
            enums: spec.interface.enums.count,
            structs: spec.interface.structs.count,
            functions: functions.count,
            requests: functions.count { $0.messageType == .request },
            responses: functions.count { $0.messageType == .response },
            notifications: functions.count { $0.messageType == .notification })
        #expect(counts == Self.expectedCounts[version], "spec \(version): \(counts)")
        #expect(spec.interface.version == SpecVersion(version))
    }

    @Test("validates against its own XSD", arguments: SpecFiles.schemaVersions)
    func matchesSchema(version: String) throws {
        let diagnostics = SchemaValidator.validate(specPath: try SpecFiles.spec(version), schemaPath: try SpecFiles.schema(version))
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics.map(\.description).joined(separator: "\n"))")
    }

    /// libxml2 used from several threads at once, as parallel tests and a server do: without
    /// its one-time set-up first (`LibXML2.initialize`), two threads' first parsers could
    /// deadlock in libxml2's lazy globals (it hung a CI run). The race is only open while
    /// nothing has used libxml2 yet in the process, so this catches a regression only when it
    /// runs first (as with `--filter`); the suite's time limits do not stop a deadlock, CI's do.
    @Test func validatesAndParsesOnManyThreadsAtOnce() async throws {
        let spec = try SpecFiles.spec("8.0.0")
        let schema = try SpecFiles.schema("8.0.0")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: spec)))
        let failures = await withTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return SchemaValidator.validate(specPath: spec, schemaPath: schema).filter { $0.severity == .error }.count
                    }
                    if case .failure = XMLReader.parse(bytes, path: spec) { return 1 }
                    return 0
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    @Test func schemaValidatorReportsViolationsWithLines() throws {
        // The 8.0.0 XSD requires `since` on every function; this one has none.
        let xml = Fixture.document(
            """
            <enum name="FunctionID" since="1.0"><element name="FID" value="1" since="1.0"/></enum>
            <function name="F" functionID="FID" messagetype="notification"/>
            """)
        let schema = try SpecFiles.schema("8.0.0")
        try withTemporaryFile(contents: xml) { path in
            let errors = SchemaValidator.validate(specPath: path, schemaPath: schema).filter { $0.severity == .error }
            #expect(!errors.isEmpty)
            #expect(errors.allSatisfy { $0.location == SourceLocation(file: path, line: 3) }, "\(errors)")
        }
    }
}

/// A close look at what the model keeps from 8.0.0 (and a few things only 4.4.0 has).
@Suite("Model details")
struct ModelDetailTests {
    @Test func interfaceAttributes() throws {
        let interface = try SpecFiles.load800().interface
        #expect(interface.name == "SmartDeviceLink RAPI")
        #expect(interface.version == SpecVersion(major: 8, minor: 0, patch: 0))
        #expect(interface.versionText == "8.0.0")
        #expect(interface.minVersion == "1.0")
        #expect(interface.date == "2021-10-27")
    }

    @Test func elementHistoryIsLinked() throws {
        let spec = try SpecFiles.load800()
        let field = try #require(spec.interface.enumDefinition(named: "TextFieldName")?.elements.first { $0.name == "mediaClock" })
        #expect(field.availability == Availability(since: SpecVersion("7.1"), deprecated: true))
        #expect(field.history.count == 1)
        let old = try #require(field.history.first)
        #expect(old.name == "mediaClock")
        #expect(old.availability == Availability(since: SpecVersion("1.0"), until: SpecVersion("7.1")))
        #expect(old.availability.isAvailable(in: SpecVersion(major: 7, minor: 0)))
        #expect(!old.availability.isAvailable(in: SpecVersion(major: 7, minor: 1)))
        #expect(old.location.line == field.location.line + 3)
    }

    @Test func parameterAndFunctionHistory() throws {
        let spec = try SpecFiles.load800()
        let show = try #require(spec.interface.function(named: "Show", type: .request))
        let clock = try #require(show.parameters.first { $0.name == "mediaClock" })
        #expect(clock.availability.deprecated)
        let old = try #require(clock.history.first)
        #expect(old.availability.until == SpecVersion("7.1"))
        #expect(old.type == .string && old.maxLength == 500 && old.minLength == 0 && !old.isMandatory)

        let encoded = try #require(spec.interface.function(named: "EncodedSyncPData", type: .request))
        #expect(encoded.history.map(\.availability) == [Availability(since: SpecVersion("1.0"), until: SpecVersion("7.1"))])
        #expect(encoded.history.first?.functionID == "EncodedSyncPDataID")
    }

    @Test func parameterElementsBecomePossibleElements() throws {
        let spec = try SpecFiles.load800()
        let response = try #require(spec.interface.function(named: "RegisterAppInterface", type: .response))
        let resultCode = try #require(response.parameters.first { $0.name == "resultCode" })
        #expect(resultCode.type == .enumeration("Result"))
        #expect(resultCode.platform == "documentation")
        #expect(
            resultCode.possibleElements == [
                "SUCCESS", "INVALID_DATA", "OUT_OF_MEMORY", "TOO_MANY_PENDING_REQUESTS", "GENERIC_ERROR",
                "DUPLICATE_NAME", "TOO_MANY_APPLICATIONS", "APPLICATION_REGISTERED_ALREADY", "UNSUPPORTED_VERSION",
                "WRONG_LANGUAGE", "DISALLOWED", "WARNINGS", "RESUME_FAILED",
            ])
        #expect(resultCode.documentation.descriptions == ["See Result"])
    }

    @Test func functionIDValues() throws {
        let spec = try SpecFiles.load800()
        let ids = try #require(spec.interface.enumDefinition(named: "FunctionID"))
        #expect(ids.internalScope == "base")
        func element(_ name: String) throws -> EnumElement { try #require(ids.elements.first { $0.name == name }) }
        #expect(try element("RegisterAppInterfaceID").value == 1)
        #expect(try element("RegisterAppInterfaceID").hexValue == "1")
        #expect(try element("PerformInteractionID").value == 10)
        #expect(try element("PerformInteractionID").hexValue == "A")
        #expect(try element("OnEncodedSyncPDataID").value == 98304)
        #expect(try element("OnEncodedSyncPDataID").hexValue == "18000")
        // Every function names an existing FunctionID element.
        let names = Set(ids.elements.map(\.name))
        #expect(spec.interface.functions.allSatisfy { names.contains($0.functionID) })
    }

    @Test func parameterAttributes() throws {
        let spec = try SpecFiles.load800()
        let grid = try #require(spec.interface.structDefinition(named: "Grid"))
        let level = try #require(grid.parameters.first { $0.name == "level" })
        #expect(level.type == .integer)
        #expect(level.defaultValue == "0")
        #expect(level.minValue == -1 && level.maxValue == 100)
        #expect(!level.isMandatory && !level.isArray)
        let col = try #require(grid.parameters.first { $0.name == "col" })
        #expect(col.isMandatory && col.defaultValue == nil)

        // <param name="vrCommands" type="String" minsize="1" maxsize="100" maxlength="99" array="true" mandatory="false" since="5.0">
        let choice = try #require(spec.interface.structDefinition(named: "Choice"))
        let vrCommands = try #require(choice.parameters.first { $0.name == "vrCommands" })
        #expect(vrCommands.type == .string && vrCommands.isArray)
        #expect(vrCommands.minSize == 1 && vrCommands.maxSize == 100 && vrCommands.maxLength == 99 && vrCommands.minLength == nil)
        #expect(!vrCommands.isMandatory)
        #expect(vrCommands.history.first?.isMandatory == true)

        let allParameters = spec.interface.structs.flatMap(\.parameters) + spec.interface.functions.flatMap(\.parameters)
        let enumDefault = try #require(allParameters.first { $0.name == "systemAction" && $0.defaultValue != nil })
        #expect(enumDefault.type == .enumeration("SystemAction") && enumDefault.defaultValue == "DEFAULT_ACTION")
        let booleanDefault = try #require(allParameters.first { $0.name == "isHighlighted" })
        #expect(booleanDefault.type == .boolean && booleanDefault.defaultValue == "false")
    }

    @Test func rootScreenInternalNameAndPlatform() throws {
        let spec = try SpecFiles.load800()
        let layouts = try #require(spec.interface.enumDefinition(named: "PredefinedLayout"))
        #expect(layouts.platform == "documentation")
        #expect(layouts.availability.since == SpecVersion("3.0"))
        // Every one of the 21 layouts says rootscreen="true"; no other element says it at all.
        #expect(layouts.elements.count == 21)
        #expect(layouts.elements.allSatisfy { $0.rootScreen })
        #expect(!spec.interface.enums.filter { $0.name != "PredefinedLayout" }.flatMap(\.elements).contains { $0.rootScreen })
        // Multi-line descriptions lose the XML indentation but keep their line breaks.
        #expect(layouts.elements.first?.documentation.descriptions == ["Default media / non-media screen.\nCan be set as a root screen."])
        #expect(layouts.elements.first { $0.name == "NON-MEDIA" }?.internalName == "NON_MEDIA")
        #expect(spec.interface.enumDefinition(named: "Result")?.internalScope == "base")
        #expect(spec.interface.enumDefinition(named: "TextFieldName")?.internalScope == nil)
    }

    @Test func sourceLinesMatchTheFile() throws {
        let spec = try SpecFiles.load800()
        let path = try SpecFiles.spec("8.0.0")
        #expect(spec.path == path)
        #expect(spec.interface.location == SourceLocation(file: path, line: try SpecFiles.line(containing: "<interface ", in: path)))

        let ids = try #require(spec.interface.enumDefinition(named: "FunctionID"))
        #expect(ids.location.line == (try SpecFiles.line(containing: "<enum name=\"FunctionID\"", in: path)))
        let registerID = try #require(ids.elements.first { $0.name == "RegisterAppInterfaceID" })
        #expect(registerID.location.line == (try SpecFiles.line(containing: "<element name=\"RegisterAppInterfaceID\"", in: path)))

        let response = try #require(spec.interface.function(named: "RegisterAppInterface", type: .response))
        let responseLine = try SpecFiles.line(
            containing: "<function name=\"RegisterAppInterface\" functionID=\"RegisterAppInterfaceID\" messagetype=\"response\"", in: path)
        #expect(response.location == SourceLocation(file: path, line: responseLine))
        #expect(response.location.line == 5019)  // as `grep -n` shows it today
        let resultCode = try #require(response.parameters.first { $0.name == "resultCode" })
        #expect(resultCode.location.line == responseLine + 7)

        // And the last function, near the end of the file.
        let last = try #require(spec.interface.functions.last)
        #expect(
            last.location.line
                == (try SpecFiles.line(
                    containing: "<function name=\"\(last.name)\" functionID=\"\(last.functionID)\" messagetype=\"\(last.messageType.rawValue)\"", in: path)))
    }

    @Test func linesPast65535() throws {
        // libxml2 keeps 16-bit line numbers unless asked for more; definitions far down a file
        // must still point at their own line.
        let padding = String(repeating: "\n", count: 70_000)
        let spec = try Fixture.load(
            """
            \(padding)<enum name="E">
                <element name="A"/>
            </enum>
            <struct name="S"><param name="p" type="E"/></struct>
            """)
        #expect(spec.interface.enums.first?.location.line == 70_002)
        #expect(spec.interface.enums.first?.elements.first?.location.line == 70_003)
        #expect(spec.interface.structs.first?.location.line == 70_005)
        #expect(spec.interface.structs.first?.parameters.first?.location.line == 70_005)
    }

    @Test func olderVocabularyIn440() throws {
        let path = try SpecFiles.spec("4.4.0")
        let spec = try SpecLoader.load(path: path)
        #expect(spec.interface.name == "Ford Sync RAPI")
        #expect(spec.interface.minVersion == nil)
        #expect(spec.interface.date == "2017-04-27")

        let pending = try #require(spec.interface.enumDefinition(named: "Result")?.elements.first { $0.name == "TOO_MANY_PENDING_REQUESTS" })
        #expect(pending.documentation.designDescriptions == ["There may be a maximum of 1000 pending requests at a time."])

        let response = try #require(spec.interface.function(named: "RegisterAppInterface", type: .response))
        let zones = try #require(response.parameters.first { $0.name == "hmiZoneCapabilities" })
        #expect(zones.documentation.issues == [Documentation.Issue(creator: "rs", text: "If not used yet => remove")])
        #expect(zones.location.line == (try SpecFiles.line(containing: "<param name=\"hmiZoneCapabilities\"", in: path)))

        // `<param name="samplingRate" type="SamplingRate"/>` says nothing about mandatory: it is.
        let capabilities = try #require(spec.interface.structDefinition(named: "AudioPassThruCapabilities"))
        #expect(capabilities.parameters.map(\.isMandatory) == [true, true, true])
        // Specs before 5.0 have no since/until at all.
        #expect(spec.interface.functions.allSatisfy { $0.availability == Availability() })
    }
}
