import SDLRPC
import SDLRuntime
import Testing

/// Behaviour of the committed 8.0.0 output through the runtime protocols.
@Suite struct GeneratedTypesTests {
    @Test func catalogListsEveryDefinitionOfSpec800() {
        #expect(MobileAPI.version == .version(8, 0, 0))
        #expect(MobileAPI.interfaceName == "SmartDeviceLink RAPI")
        #expect(MobileAPI.enumerations.count == 111)
        #expect(MobileAPI.structures.count == 121)
        #expect(MobileAPI.requests.count == 63)
        #expect(MobileAPI.responses.count == 64)
        #expect(MobileAPI.notifications.count == 25)
        #expect(MobileAPI.specSHA256.count == 64)
    }

    /// The example in README.md, kept compiling.
    @Test func readmeExample() {
        let show = Show(mainField1: "Now playing", softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1)])
        #expect(show.softButtons?.first?.softButtonID == 1)
        #expect(Show.functionIDValue == 13)
        #expect(Show.Response.self == ShowResponse.self)
        #expect(Show.structInfo.parameter(named: "mainField1")?.maxLength == 500)
        #expect(HMILevel(rawValue: "FROM_THE_FUTURE") == .unrecognized("FROM_THE_FUTURE"))
    }

    @Test func enumsAreOpen() {
        let level = HMILevel(rawValue: "HYPER_FULL")
        #expect(level == .unrecognized("HYPER_FULL"))
        #expect(level.rawValue == "HYPER_FULL")
        #expect(!level.isRecognized)
        #expect(HMILevel(rawValue: "FULL") == .full)
        #expect(HMILevel.full.isRecognized)
    }

    @Test func everyEnumCaseRoundTripsThroughItsSpecName() {
        for type in MobileAPI.enumerations {
            checkRoundTrip(type)
        }
    }

    private func checkRoundTrip<E: SDLEnumeration>(_ type: E.Type) {
        #expect(E.allCases.count == E.enumInfo.elements.count, "\(E.enumInfo.name)")
        for (value, element) in zip(E.allCases, E.enumInfo.elements) {
            #expect(value.rawValue == element.name)
            #expect(E(rawValue: element.name) == value)
        }
        #expect(Set(E.allCases).count == E.allCases.count, "\(E.enumInfo.name) has duplicate cases")
    }

    @Test func namingRulesShowInTheAPI() {
        #expect(SDLResult.success.rawValue == "SUCCESS")
        #expect(SamplingRate._8khz.rawValue == "8KHZ")
        #expect(Language.enUs.rawValue == "EN-US")
        #expect(SDLImage(value: "icon.png", imageType: .dynamic).isTemplate == nil)
        #expect(Temperature.structInfo.name == "Temperature")
    }

    @Test func messagesKnowTheirFunctionIDAndType() {
        #expect(Show.functionName == "Show")
        #expect(Show.functionIDValue == 13)
        #expect(Show.functionID == .showID)
        #expect(Show.messageType == .request)
        #expect(ShowResponse.messageType == .response)
        #expect(OnHMIStatus.messageType == .notification)
        #expect(Show.Response.self == ShowResponse.self)
        #expect(GenericResponse.functionName == "GenericResponse")

        var requestIDs: Set<Int> = []
        for request in MobileAPI.requests {
            #expect(request.messageType == .request)
            #expect(requestIDs.insert(request.functionIDValue).inserted, "\(request.functionName) shares its FunctionID")
            #expect(FunctionID(value: request.functionIDValue) != nil)
        }
        for notification in MobileAPI.notifications {
            #expect(FunctionID(value: notification.functionIDValue) != nil, "\(notification.functionName)")
        }
    }

    @Test func mandatoryParamsAreNonOptionalAndMetadataCarriesBounds() throws {
        let image = SDLImage.structInfo
        #expect(image.parameter(named: "value")?.isMandatory == true)
        #expect(image.parameter(named: "value")?.maxLength == 65535)
        #expect(image.parameter(named: "isTemplate")?.availability.since == .version(5, 0))

        let show = Show.structInfo
        let softButtons = try #require(show.parameter(named: "softButtons"))
        #expect(softButtons.isArray)
        #expect(softButtons.type == .structure("SoftButton"))
        #expect(softButtons.minSize == 0)
        #expect(softButtons.maxSize == 8)
        #expect(show.parameter(named: "mediaClock")?.availability.isDeprecated == true)

        let softButton = SoftButton.structInfo
        #expect(softButton.parameter(named: "isHighlighted")?.defaultValue == "false")
        #expect(softButton.parameter(named: "systemAction")?.defaultValue == "DEFAULT_ACTION")
    }

    @Test func structInfoMatchesTheDeclaredProperties() {
        for type in MobileAPI.structures {
            #expect(!type.structInfo.name.isEmpty)
            let names = type.structInfo.parameters.map(\.name)
            #expect(Set(names).count == names.count, "\(type.structInfo.name) repeats a parameter")
        }
    }
}
