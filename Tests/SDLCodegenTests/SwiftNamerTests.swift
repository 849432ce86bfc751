import Testing

@testable import SDLCodegen

/// One test per naming rule of `SwiftNamer` (README, "Naming rules").
@Suite struct SwiftNamerTests {
    // MARK: typeName

    @Test(arguments: ["TTSChunk", "HMILevel", "Temperature", "Language", "FunctionID", "SDLImage"])
    func typeNamesKeepTheSpecName(_ name: String) {
        #expect(SwiftNamer.typeName(name) == name)
    }

    /// Names of standard library and Foundation types would shadow them in app code.
    @Test(arguments: ["Result", "Int", "Data", "URL", "Date", "Error", "Set", "Notification", "Locale"])
    func standardLibraryAndFoundationNamesGetThePrefix(_ name: String) {
        #expect(SwiftNamer.typeName(name) == "SDL" + name)
    }

    /// An app's view code imports SwiftUI beside the generated types.
    @Test(arguments: ["Image", "Alert", "Slider", "Grid", "Rectangle", "TextField", "Text", "Button", "Color"])
    func swiftUINamesGetThePrefix(_ name: String) {
        #expect(SwiftNamer.typeName(name) == "SDL" + name)
        // In a namespace (an HMI interface: `Common.Image`) the name is always qualified.
        #expect(SwiftNamer.nestedTypeName(name) == name)
    }

    @Test(arguments: ["Type", "Self", "Any", "Protocol"])
    func keywordNamesGetThePrefix(_ name: String) {
        #expect(SwiftNamer.typeName(name) == "SDL" + name)
    }

    /// `MobileAPI` is the catalog every generated module declares; `SDLRuntime` is the runtime module.
    @Test(arguments: ["MobileAPI", "SDLRuntime", "SDLRPC"])
    func thisPackagesNamesGetThePrefix(_ name: String) {
        #expect(SwiftNamer.typeName(name) == "SDL" + name)
    }

    @Test func typeNamesDropCharactersThatCannotAppearInIdentifiers() {
        #expect(SwiftNamer.typeName("Image-Field") == "ImageField")
        #expect(SwiftNamer.typeName("display_type") == "DisplayType")
        #expect(SwiftNamer.typeName("seat.location") == "SeatLocation")
    }

    @Test func typeNamesStartingWithADigitGetThePrefix() {
        #expect(SwiftNamer.typeName("3DMode") == "SDL3DMode")
    }

    @Test func emptyTypeNamesGetAPlaceholder() {
        #expect(SwiftNamer.typeName("") == "Unnamed")
        #expect(SwiftNamer.typeName("-") == "Unnamed")
    }

    // MARK: messageTypeName

    @Test func requestsAndNotificationsTakeTheFunctionName() {
        #expect(SwiftNamer.messageTypeName("Show", messageType: "request") == "Show")
        #expect(SwiftNamer.messageTypeName("OnHMIStatus", messageType: "notification") == "OnHMIStatus")
    }

    @Test func responsesAppendResponse() {
        #expect(SwiftNamer.messageTypeName("Show", messageType: "response") == "ShowResponse")
    }

    @Test func responsesAlreadyEndingInResponseKeepTheirName() {
        #expect(SwiftNamer.messageTypeName("GenericResponse", messageType: "response") == "GenericResponse")
    }

    /// The request takes the type rules; the response's name is checked as a whole.
    @Test func messageNamesFollowTheTypeRules() {
        #expect(SwiftNamer.messageTypeName("Data", messageType: "request") == "SDLData")
        #expect(SwiftNamer.messageTypeName("Data", messageType: "response") == "DataResponse")
        #expect(SwiftNamer.messageTypeName("Alert", messageType: "request") == "SDLAlert")
        #expect(SwiftNamer.messageTypeName("Alert", messageType: "response") == "AlertResponse")
        #expect(SwiftNamer.messageTypeName("Alert", messageType: "request", nested: true) == "Alert")
    }

    // MARK: memberName

    @Test func upperSnakeCaseBecomesLowerCamelCase() {
        #expect(SwiftNamer.memberName("HMI_FULL") == "hmiFull")
        #expect(SwiftNamer.memberName("VEHICLE_DATA_NOT_AVAILABLE") == "vehicleDataNotAvailable")
        #expect(SwiftNamer.memberName("SUCCESS") == "success")
    }

    @Test func hyphensSeparateWords() {
        #expect(SwiftNamer.memberName("EN-US") == "enUs")
        #expect(SwiftNamer.memberName("NON-MEDIA") == "nonMedia")
    }

    @Test func mixedCaseKeepsInnerCapitals() {
        #expect(SwiftNamer.memberName("AddCommandID") == "addCommandID")
        #expect(SwiftNamer.memberName("mainField1") == "mainField1")
        #expect(SwiftNamer.memberName("fuelLevel_State") == "fuelLevelState")
        #expect(SwiftNamer.memberName("tz_hour") == "tzHour")
    }

    @Test func leadingCapitalRunsAreLowercased() {
        #expect(SwiftNamer.memberName("URL") == "url")
        #expect(SwiftNamer.memberName("CT") == "ct")
        #expect(SwiftNamer.memberName("URLString") == "urlString")
        #expect(SwiftNamer.memberName("Timeout") == "timeout")
    }

    @Test func leadingDigitsGetAnUnderscore() {
        #expect(SwiftNamer.memberName("8KHZ") == "_8khz")
        #expect(SwiftNamer.memberName("2D") == "_2d")
        #expect(SwiftNamer.memberName("16_BIT") == "_16Bit")
    }

    /// `GEN3_8` would read as one number `gen38` without the underscore.
    @Test func digitsOnBothSidesOfASeparatorKeepAnUnderscore() {
        #expect(SwiftNamer.memberName("GEN3_8-INCH") == "gen3_8Inch")
        #expect(SwiftNamer.memberName("GEN2_6_DMA") == "gen2_6Dma")
    }

    @Test(arguments: [
        ("protocol", "`protocol`"), ("default", "`default`"), ("class", "`class`"), ("INIT", "`init`"),
        ("Protocol", "`protocol`"), ("true", "`true`"),
    ])
    func keywordsAreEscaped(_ name: String, _ expected: String) {
        #expect(SwiftNamer.memberName(name) == expected)
    }

    /// `Type` is a keyword, `type` is not.
    @Test func keywordsAreMatchedAfterLowercasing() {
        #expect(SwiftNamer.memberName("Type") == "type")
    }

    /// Members the generated types declare themselves (`case unrecognized`, `hashValue`, ...) and
    /// `self`, which a parameter would shadow in the initializer.
    @Test(arguments: [
        ("UNRECOGNIZED", "unrecognized_"), ("unrecognized", "unrecognized_"), ("hashValue", "hashValue_"),
        ("RAW_VALUE", "rawValue_"), ("description", "description_"), ("self", "self_"), ("SELF", "self_"),
        ("allCases", "allCases_"), ("functionName", "functionName_"),
    ])
    func generatedMemberNamesGetATrailingUnderscore(_ name: String, _ expected: String) {
        #expect(SwiftNamer.memberName(name) == expected)
    }

    @Test func emptyMemberNamesGetAPlaceholder() {
        #expect(SwiftNamer.memberName("") == "unnamed")
        #expect(SwiftNamer.memberName("_") == "unnamed")
    }

    // MARK: uniqueMemberNames

    @Test func namesMappingToTheSameSwiftNameAreNumbered() {
        #expect(SwiftNamer.uniqueMemberNames(["EN-US", "EN_US", "en-us"]) == ["enUs", "enUs_2", "enUs_3"])
        #expect(SwiftNamer.uniqueMemberNames(["fuel_level", "fuelLevel"]) == ["fuelLevel", "fuelLevel_2"])
    }

    /// The numbered name of a keyword needs no backticks; a later spec name equal to a numbered
    /// name moves on to the next free number.
    @Test func numberingSkipsTakenNamesAndDropsBackticks() {
        #expect(SwiftNamer.uniqueMemberNames(["default", "DEFAULT"]) == ["`default`", "default_2"])
        #expect(SwiftNamer.uniqueMemberNames(["x1", "X1", "x1_2"]) == ["x1", "x1_2", "x1_2_2"])
    }

    @Test func distinctNamesAreUnchanged() {
        let names = ["mainField1", "mainField2", "protocol", "URL"]
        #expect(SwiftNamer.uniqueMemberNames(names) == names.map(SwiftNamer.memberName))
    }

    // MARK: escaped

    @Test func everyKeywordIsEscapedAndNothingElse() {
        for keyword in SwiftNamer.keywords {
            #expect(SwiftNamer.escaped(keyword) == "`\(keyword)`")
        }
        #expect(SwiftNamer.escaped("url") == "url")
        #expect(SwiftNamer.escaped("value") == "value")
    }

    /// Every request declares `typealias Response`, which would shadow a spec type of that name.
    @Test func aTypeNamedLikeAGeneratedMemberGetsASuffix() {
        #expect(SwiftNamer.typeName("Response") == "ResponseType")
        #expect(SwiftNamer.typeName("ResponseData") == "ResponseData")
    }
}
