// Writes the HMI API benchmark corpus, Benchmarks/HMIPayloads/*.json: realistic JSON-RPC messages
// between SDL Core and an HMI, built from the generated SDLHMIRPC types and encoded with
// SDLJSONRPC (compact, validated, as on the wire). Run through `Benchmarks/hmi-codecs.sh --regenerate`.
import Foundation
import SDLHMIRPC
import SDLRuntime

// MARK: - UI.Show request: show strings with metadata, two graphics, six soft buttons

func show() -> UI.Show {
    func color(_ red: Int, _ green: Int, _ blue: Int) -> Common.RGBColor { Common.RGBColor(red: red, green: green, blue: blue) }
    func text(_ name: Common.TextFieldName, _ text: String, _ types: [Common.MetadataType]? = nil) -> Common.TextFieldStruct {
        Common.TextFieldStruct(fieldName: name, fieldText: text, fieldTypes: types)
    }
    return UI.Show(
        showStrings: [
            text(.mainField1, "Bohemian Rhapsody", [.mediaTitle]),
            text(.mainField2, "Queen", [.mediaArtist]),
            text(.mainField3, "A Night at the Opera (2011 Remaster)", [.mediaAlbum]),
            text(.mainField4, "Up next: You're My Best Friend", [.mediaGenre]),
            text(.statusBar, "Streaming · 320 kbps"),
            text(.mediaClock, "2:41 / 5:55"),
            text(.mediaTrack, "11 of 12"),
            text(.templateTitle, "Now Playing"),
        ],
        alignment: .leftAligned,
        graphic: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/album_art_a_night_at_the_opera.png", imageType: .dynamic, isTemplate: false),
        secondaryGraphic: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/app_logo_dark.png", imageType: .dynamic, isTemplate: true),
        softButtons: [
            Common.SoftButton(
                type: .image, image: Common.Image(value: "0x11", imageType: .static, isTemplate: true), isHighlighted: false, softButtonID: 101,
                systemAction: .defaultAction),
            Common.SoftButton(
                type: .both, text: "Like",
                image: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/thumbs_up.png", imageType: .dynamic, isTemplate: true),
                isHighlighted: true, softButtonID: 102, systemAction: .defaultAction),
            Common.SoftButton(
                type: .both, text: "Dislike",
                image: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/thumbs_down.png", imageType: .dynamic, isTemplate: true),
                isHighlighted: false, softButtonID: 103, systemAction: .defaultAction),
            Common.SoftButton(type: .text, text: "Shuffle", isHighlighted: false, softButtonID: 104, systemAction: .keepContext),
            Common.SoftButton(
                type: .both, text: "Queue",
                image: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/queue.png", imageType: .dynamic, isTemplate: true), isHighlighted: false,
                softButtonID: 105, systemAction: .stealFocus),
            Common.SoftButton(type: .text, text: "More…", isHighlighted: false, softButtonID: 106, systemAction: .defaultAction),
        ],
        customPresets: ["Favorites", "Discover Weekly", "Rock Classics", "Road Trip", "Chill", "Workout"],
        appID: 1_843_529_117,
        windowID: 0,
        templateConfiguration: Common.TemplateConfiguration(
            template: "MEDIA",
            dayColorScheme: Common.TemplateColorScheme(
                primaryColor: color(30, 215, 96), secondaryColor: color(25, 20, 20), backgroundColor: color(245, 245, 245)),
            nightColorScheme: Common.TemplateColorScheme(
                primaryColor: color(30, 215, 96), secondaryColor: color(179, 179, 179), backgroundColor: color(18, 18, 18))
        )
    )
}

// MARK: - UI.Alert request: three lines, an icon, three soft buttons

func alert() -> UI.Alert {
    UI.Alert(
        alertStrings: [
            Common.TextFieldStruct(fieldName: .alertText1, fieldText: "Low fuel"),
            Common.TextFieldStruct(fieldName: .alertText2, fieldText: "38 km to empty"),
            Common.TextFieldStruct(fieldName: .alertText3, fieldText: "Nearest station: Shell, 2.4 km ahead on the right"),
        ],
        duration: 10_000,
        softButtons: [
            Common.SoftButton(
                type: .both, text: "Navigate",
                image: Common.Image(value: "/opt/sdl/storage/1234567_0000000000000000/route.png", imageType: .dynamic, isTemplate: true), isHighlighted: true,
                softButtonID: 201, systemAction: .defaultAction),
            Common.SoftButton(type: .text, text: "Find others", isHighlighted: false, softButtonID: 202, systemAction: .stealFocus),
            Common.SoftButton(type: .text, text: "Dismiss", isHighlighted: false, softButtonID: 203, systemAction: .defaultAction),
        ],
        progressIndicator: false,
        alertType: .both,
        appID: 1_843_529_117,
        cancelID: 77,
        alertIcon: Common.Image(value: "0x9C", imageType: .static, isTemplate: true)
    )
}

// MARK: - UI.GetCapabilities response: a head unit's full display and audio capabilities

func getCapabilitiesResponse() -> UI.GetCapabilitiesResponse {
    let textFieldNames: [(Common.TextFieldName, Int, Int)] = [
        (.mainField1, 500, 1), (.mainField2, 500, 1), (.mainField3, 500, 1), (.mainField4, 500, 1),
        (.statusBar, 500, 1), (.mediaClock, 500, 1), (.mediaTrack, 500, 1), (.templateTitle, 100, 1),
        (.alertText1, 500, 1), (.alertText2, 500, 1), (.alertText3, 500, 1), (.scrollableMessageBody, 500, 8),
        (.initialInteractionText, 500, 1), (.navigationText1, 500, 1), (.navigationText2, 500, 1),
        (.eta, 500, 1), (.totalDistance, 500, 1), (.audioPassThruDisplayText1, 500, 1),
        (.audioPassThruDisplayText2, 500, 1), (.sliderHeader, 500, 1), (.sliderFooter, 500, 1),
        (.menuName, 500, 1), (.secondaryText, 500, 1), (.tertiaryText, 500, 1), (.menuTitle, 500, 1),
        (.locationName, 500, 1), (.locationDescription, 500, 1), (.addressLines, 500, 4),
        (.phoneNumber, 500, 1), (.timeToDestination, 500, 1), (.turnText, 500, 1),
        (.subtleAlertText1, 500, 1), (.subtleAlertText2, 500, 1), (.subtleAlertSoftButtonText, 500, 1),
        (.menuCommandSecondaryText, 500, 1), (.menuCommandTertiaryText, 500, 1),
        (.menuSubMenuSecondaryText, 500, 1), (.menuSubMenuTertiaryText, 500, 1),
    ]
    let images: [Common.FileType] = [.graphicBmp, .graphicJpeg, .graphicPng]
    let imageFieldNames: [(Common.ImageFieldName, Int)] = [
        (.softButtonImage, 70), (.choiceImage, 70), (.choiceSecondaryImage, 35), (.vrHelpItem, 35),
        (.turnIcon, 70), (.menuIcon, 35), (.cmdIcon, 35), (.appIcon, 70), (.graphic, 360),
        (.secondaryGraphic, 360), (.showConstantTBTIcon, 70), (.showConstantTBTNextTurnIcon, 70),
        (.locationImage, 70), (.alertIcon, 70), (.subMenuIcon, 35), (.subtleAlertIcon, 70),
        (.menuCommandSecondaryImage, 35), (.menuSubMenuSecondaryImage, 35),
    ]
    let display = Common.DisplayCapabilities(
        displayType: .sdlGeneric,
        displayName: "SYNC3",
        textFields: textFieldNames.map { Common.TextField(name: $0.0, characterSet: .utf8, width: $0.1, rows: $0.2) },
        imageFields: imageFieldNames.map {
            Common.ImageField(name: $0.0, imageTypeSupported: images, imageResolution: Common.ImageResolution(resolutionWidth: $0.1, resolutionHeight: $0.1))
        },
        mediaClockFormats: [.clock1, .clock2, .clock3, .clocktext1, .clocktext2, .clocktext3, .clocktext4],
        imageCapabilities: [.static, .dynamic],
        graphicSupported: true,
        templatesAvailable: [
            "DEFAULT", "MEDIA", "NON-MEDIA", "ONSCREEN_PRESETS", "NAV_FULLSCREEN_MAP", "NAV_LIST", "NAV_KEYBOARD",
            "GRAPHIC_WITH_TEXT", "TEXT_WITH_GRAPHIC", "TILES_ONLY", "TEXTBUTTONS_ONLY", "GRAPHIC_WITH_TILES",
            "TILES_WITH_GRAPHIC", "GRAPHIC_WITH_TEXT_AND_SOFTBUTTONS", "TEXT_AND_SOFTBUTTONS_WITH_GRAPHIC",
            "GRAPHIC_WITH_TEXTBUTTONS", "TEXTBUTTONS_WITH_GRAPHIC", "LARGE_GRAPHIC_WITH_SOFTBUTTONS",
            "DOUBLE_GRAPHIC_WITH_SOFTBUTTONS", "LARGE_GRAPHIC_ONLY", "WEB_VIEW",
        ],
        screenParams: Common.ScreenParams(
            resolution: Common.ImageResolution(resolutionWidth: 800, resolutionHeight: 480),
            touchEventAvailable: Common.TouchEventCapabilities(pressAvailable: true, multiTouchAvailable: true, doublePressAvailable: false)
        ),
        numCustomPresetsAvailable: 8
    )
    let pcm16k = Common.AudioPassThruCapabilities(samplingRate: ._16khz, bitsPerSample: ._16Bit, audioType: .pcm)
    return UI.GetCapabilitiesResponse(
        displayCapabilities: display,
        audioPassThruCapabilities: pcm16k,
        audioPassThruCapabilitiesList: [
            Common.AudioPassThruCapabilities(samplingRate: ._8khz, bitsPerSample: ._8Bit, audioType: .pcm),
            pcm16k,
            Common.AudioPassThruCapabilities(samplingRate: ._22khz, bitsPerSample: ._16Bit, audioType: .pcm),
            Common.AudioPassThruCapabilities(samplingRate: ._44khz, bitsPerSample: ._16Bit, audioType: .pcm),
        ],
        hmiZoneCapabilities: .front,
        softButtonCapabilities: (0..<8).map { _ in
            Common.SoftButtonCapabilities(shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true, imageSupported: true, textSupported: true)
        },
        hmiCapabilities: Common.HMICapabilities(navigation: true, phoneCall: true, videoStreaming: true),
        systemCapabilities: Common.SystemCapabilities(
            navigationCapability: Common.NavigationCapability(sendLocationEnabled: true, getWayPointsEnabled: true),
            phoneCapability: Common.PhoneCapability(dialNumberEnabled: true),
            videoStreamingCapability: Common.VideoStreamingCapability(
                preferredResolution: Common.ImageResolution(resolutionWidth: 800, resolutionHeight: 350),
                maxBitrate: 20_000,
                supportedFormats: [
                    Common.VideoStreamingFormat(protocol: .raw, codec: .h264),
                    Common.VideoStreamingFormat(protocol: .rtp, codec: .h264),
                    Common.VideoStreamingFormat(protocol: .rtsp, codec: .theora),
                    Common.VideoStreamingFormat(protocol: .rtmp, codec: .vp8),
                    Common.VideoStreamingFormat(protocol: .webm, codec: .vp9),
                ],
                hapticSpatialDataSupported: true,
                diagonalScreenSize: 8.0,
                pixelPerInch: 117.0,
                scale: 1.0,
                preferredFPS: 30,
                additionalVideoStreamingCapabilities: [
                    Common.VideoStreamingCapability(
                        preferredResolution: Common.ImageResolution(resolutionWidth: 320, resolutionHeight: 200),
                        hapticSpatialDataSupported: true, diagonalScreenSize: 3.0, scale: 1.0),
                    Common.VideoStreamingCapability(
                        preferredResolution: Common.ImageResolution(resolutionWidth: 480, resolutionHeight: 320),
                        hapticSpatialDataSupported: true, diagonalScreenSize: 5.0, scale: 1.5),
                ]
            ),
            driverDistractionCapability: Common.DriverDistractionCapability(menuLength: 10, subMenuDepth: 3)
        ),
        pcmStreamCapabilities: pcm16k
    )
}

// MARK: - BasicCommunication.OnAppRegistered: Core tells the HMI about a new app

func onAppRegistered() -> BasicCommunication.OnAppRegistered {
    func color(_ red: Int, _ green: Int, _ blue: Int) -> Common.RGBColor { Common.RGBColor(red: red, green: green, blue: blue) }
    let ttsName = [Common.TTSChunk(text: "Spotify", type: .text)]
    let vrSynonyms = ["Spotify", "Spotify Music", "Music"]
    return BasicCommunication.OnAppRegistered(
        application: Common.HMIApplication(
            appName: "Spotify",
            ngnMediaScreenAppName: "Spotify",
            icon: "/opt/sdl/storage/1234567_0000000000000000/icon.png",
            deviceInfo: Common.DeviceInfo(
                name: "Pixel 8 Pro", id: "4d3a1a5c2b0f9e8d7c6b5a49382716051f2e3d4c5b6a79881726354453627180",
                transportType: .bluetooth, isSDLAllowed: true),
            policyAppID: "324312b6-8b1b-4d47-8a4d-6e5a2c1f0e93",
            ttsName: ttsName,
            vrSynonyms: vrSynonyms,
            appID: 1_843_529_117,
            hmiDisplayLanguageDesired: .enUs,
            isMediaApplication: true,
            appType: [.media, .projection],
            greyOut: false,
            requestType: [.http, .fileResume, .authRequest, .lockScreenIconUrl, .iconUrl, .proprietary, .queryApps, .launchApp],
            requestSubType: ["SPOTIFY_METADATA", "SPOTIFY_ARTWORK"],
            dayColorScheme: Common.TemplateColorScheme(
                primaryColor: color(30, 215, 96), secondaryColor: color(25, 20, 20), backgroundColor: color(245, 245, 245)),
            nightColorScheme: Common.TemplateColorScheme(
                primaryColor: color(30, 215, 96), secondaryColor: color(179, 179, 179), backgroundColor: color(18, 18, 18)),
            isCloudApplication: false
        ),
        ttsName: ttsName,
        vrSynonyms: vrSynonyms,
        resumeVrGrammars: true,
        priority: .none
    )
}

// MARK: - VehicleInfo.GetVehicleData response with every item

func getVehicleDataResponse() -> VehicleInfo.GetVehicleDataResponse {
    func grid(_ col: Int, _ row: Int) -> Common.Grid { Common.Grid(col: col, row: row, level: 0, colspan: 1, rowspan: 1, levelspan: 1) }
    let tire = { (pressure: Double) in Common.SingleTireStatus(status: .normal, tpms: .systemActive, pressure: pressure) }
    let seats = [grid(0, 0), grid(2, 0), grid(0, 1), grid(1, 1), grid(2, 1)]
    return VehicleInfo.GetVehicleDataResponse(
        gps: Common.GPSData(
            longitudeDegrees: -83.23441612, latitudeDegrees: 42.30142857, utcYear: 2024, utcMonth: 5, utcDay: 17,
            utcHours: 14, utcMinutes: 32, utcSeconds: 51, compassDirection: .northwest, pdop: 1.25, hdop: 0.82,
            vdop: 0.94, actual: true, satellites: 11, dimension: ._3d, altitude: 187.4, heading: 312.7,
            speed: 64.3, shifted: false
        ),
        speed: 64.3,
        rpm: 2150,
        fuelLevel: 47.5,
        fuelLevelState: .normal,
        instantFuelConsumption: 7.81,
        fuelRange: [
            Common.FuelRange(type: .gasoline, range: 412.6, level: 47.5, levelState: .normal, capacity: 61.0, capacityUnit: .liters),
            Common.FuelRange(type: .battery, range: 38.2, level: 81.0, levelState: .normal, capacity: 14.4, capacityUnit: .kilowatthours),
        ],
        externalTemperature: 18.5,
        climateData: Common.ClimateData(
            externalTemperature: Common.Temperature(unit: .celsius, value: 18.5),
            cabinTemperature: Common.Temperature(unit: .celsius, value: 21.0),
            atmosphericPressure: 101.3
        ),
        turnSignal: .off,
        vin: "1FMCU9J94NUA12345",
        gearStatus: Common.GearStatus(userSelectedGear: .drive, actualGear: .sixth, transmissionType: .automatic),
        prndl: .drive,
        tirePressure: Common.TireStatus(
            pressureTelltale: .off, leftFront: tire(238.5), rightFront: tire(240.1), leftRear: tire(231.7),
            rightRear: tire(233.0), innerLeftRear: tire(229.4), innerRightRear: tire(230.2)
        ),
        odometer: 48213,
        beltStatus: Common.BeltStatus(
            driverBeltDeployed: .no, passengerBeltDeployed: .no, passengerBuckleBelted: .yes, driverBuckleBelted: .yes,
            leftRow2BuckleBelted: .no, passengerChildDetected: .no, rightRow2BuckleBelted: .yes,
            middleRow2BuckleBelted: .no, middleRow3BuckleBelted: .notSupported, leftRow3BuckleBelted: .notSupported,
            rightRow3BuckleBelted: .notSupported, leftRearInflatableBelted: .no, rightRearInflatableBelted: .no,
            middleRow1BeltDeployed: .no, middleRow1BuckleBelted: .no
        ),
        bodyInformation: Common.BodyInformation(
            parkBrakeActive: false, ignitionStableStatus: .ignitionSwitchStable, ignitionStatus: .run,
            driverDoorAjar: false, passengerDoorAjar: false, rearLeftDoorAjar: false, rearRightDoorAjar: false,
            doorStatuses: [grid(0, 0), grid(2, 0), grid(0, 1), grid(2, 1)].map { Common.DoorStatus(location: $0, status: .locked) },
            gateStatuses: [Common.GateStatus(location: grid(1, 2), status: .closed)],
            roofStatuses: [Common.RoofStatus(location: grid(1, 0), status: .closed, state: Common.WindowState(approximatePosition: 0, deviation: 2))]
        ),
        deviceStatus: Common.DeviceStatus(
            voiceRecOn: false, btIconOn: true, callActive: false, phoneRoaming: false, textMsgAvailable: true,
            battLevelStatus: .fourLevelBars, stereoAudioOutputMuted: false, monoAudioOutputMuted: false,
            signalLevelStatus: .threeLevelBars, primaryAudioSource: .bluetoothStereoBtst, eCallEventActive: false
        ),
        driverBraking: .no,
        wiperStatus: .autoOff,
        headLampStatus: Common.HeadLampStatus(lowBeamsOn: true, highBeamsOn: false, ambientLightSensorStatus: .twilight2),
        engineTorque: 187.25,
        accPedalPosition: 23.5,
        steeringWheelAngle: -4.75,
        engineOilLife: 72.5,
        electronicParkBrakeStatus: .open,
        cloudAppVehicleID: "2b9b6d1c-5f0e-4a57-9c41-7d3e8a0f6b12",
        stabilityControlsStatus: Common.StabilityControlsStatus(escSystem: .on, trailerSwayControl: .off),
        windowStatus: [grid(0, 0), grid(2, 0), grid(0, 1), grid(2, 1)].map {
            Common.WindowStatus(location: $0, state: Common.WindowState(approximatePosition: 100, deviation: 1))
        },
        handsOffSteering: false,
        seatOccupancy: Common.SeatOccupancy(
            seatsOccupied: seats.enumerated().map { Common.SeatStatus(seatLocation: Common.SeatLocation(grid: $0.element), conditionActive: $0.offset < 3) },
            seatsBelted: seats.enumerated().map { Common.SeatStatus(seatLocation: Common.SeatLocation(grid: $0.element), conditionActive: $0.offset < 3) }
        ),
        eCallInfo: Common.ECallInfo(eCallNotificationStatus: .normal, auxECallNotificationStatus: .normal, eCallConfirmationStatus: .normal),
        airbagStatus: Common.AirbagStatus(
            driverAirbagDeployed: .no, driverSideAirbagDeployed: .no, driverCurtainAirbagDeployed: .no,
            passengerAirbagDeployed: .no, passengerCurtainAirbagDeployed: .no, driverKneeAirbagDeployed: .no,
            passengerSideAirbagDeployed: .no, passengerKneeAirbagDeployed: .no
        ),
        emergencyEvent: Common.EmergencyEvent(
            emergencyEventType: .noEvent, fuelCutoffStatus: .normalOperation, rolloverEvent: .no,
            maximumChangeVelocity: 0, multipleEvents: .no
        ),
        clusterModeStatus: Common.ClusterModeStatus(
            powerModeActive: true, powerModeQualificationStatus: .powerModeOk, carModeStatus: .normal, powerModeStatus: .running2
        ),
        myKey: Common.MyKey(e911Override: .off)
    )
}

// MARK: - Buttons.OnButtonPress: a soft button pressed

func onButtonPress() -> Buttons.OnButtonPress {
    Buttons.OnButtonPress(name: .customButton, mode: .short, customButtonID: 102, appID: 1_843_529_117)
}

// MARK: - Write

/// Each message is checked to decode without issues to the same value, and to re-encode byte
/// for byte, before it is written.
func write(_ bytes: [UInt8], to file: String, in directory: String, check: ([UInt8]) throws -> Bool) throws {
    let roundTrips = try check(bytes)
    precondition(roundTrips, "\(file) does not round-trip")
    try Data(bytes + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: directory).appendingPathComponent(file))
    print("\(file): \(bytes.count) bytes")
}

func writeRequest<P: SDLHMIRequest>(_ params: P, id: SDLJSONRPCID, to file: String, in directory: String) throws {
    let request = SDLJSONRPCRequest(id: id, params: params)
    try write(try SDLJSONRPC.encode(request), to: file, in: directory) { bytes in
        let decoded = try SDLJSONRPC.decodeRequest(P.self, from: bytes)
        let again = try SDLJSONRPC.encode(decoded.value)
        return decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty && decoded.value == request && again == bytes
    }
}

func writeNotification<P: SDLHMINotification>(_ params: P, to file: String, in directory: String) throws {
    let notification = SDLJSONRPCNotification(params: params)
    try write(try SDLJSONRPC.encode(notification), to: file, in: directory) { bytes in
        let decoded = try SDLJSONRPC.decodeNotification(P.self, from: bytes)
        let again = try SDLJSONRPC.encode(decoded.value)
        return decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty && decoded.value == notification && again == bytes
    }
}

func writeResponse<R: SDLHMIResponse>(_ result: R, id: SDLJSONRPCID, to file: String, in directory: String) throws {
    let response = HMIResponse(id: id, code: .success, result: result)
    try write(try SDLJSONRPC.encode(response), to: file, in: directory) { bytes in
        let decoded = try SDLJSONRPC.decodeReply(R.self, code: Common.Result.self, from: bytes)
        guard decoded.warnings.isEmpty, decoded.unknownKeys.isEmpty, case .result(let again) = decoded.value else { return false }
        let reencoded = try SDLJSONRPC.encode(again)
        return again == response && reencoded == bytes
    }
}

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "HMIPayloads"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
try writeResponse(getCapabilitiesResponse(), id: 12, to: "UI.GetCapabilitiesResponse.json", in: directory)
try writeResponse(getVehicleDataResponse(), id: 4711, to: "VehicleInfo.GetVehicleDataResponse.json", in: directory)
try writeRequest(show(), id: 4712, to: "UI.Show.json", in: directory)
try writeRequest(alert(), id: 4713, to: "UI.Alert.json", in: directory)
try writeNotification(onAppRegistered(), to: "BasicCommunication.OnAppRegistered.json", in: directory)
try writeNotification(onButtonPress(), to: "Buttons.OnButtonPress.json", in: directory)
