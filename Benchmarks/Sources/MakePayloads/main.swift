// Writes the benchmark corpus, Benchmarks/Payloads/*.json: realistic messages built from the
// generated types, validated and encoded with SDLJSON (compact, as on the wire).
// Usage: swift run --package-path Benchmarks --scratch-path Benchmarks/.build MakePayloads Benchmarks/Payloads
import Foundation
import SDLRPC
import SDLRuntime

// MARK: - RegisterAppInterface response: a head unit with a full set of capabilities

func registerAppInterfaceResponse() -> RegisterAppInterfaceResponse {
    let textFieldNames: [(TextFieldName, Int, Int)] = [
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
    let images: [FileType] = [.graphicBmp, .graphicJpeg, .graphicPng]
    let imageFieldNames: [(ImageFieldName, Int)] = [
        (.softButtonImage, 70), (.choiceImage, 70), (.choiceSecondaryImage, 35), (.vrHelpItem, 35),
        (.turnIcon, 70), (.menuIcon, 35), (.cmdIcon, 35), (.appIcon, 70), (.graphic, 360),
        (.secondaryGraphic, 360), (.showConstantTBTIcon, 70), (.showConstantTBTNextTurnIcon, 70),
        (.locationImage, 70), (.alertIcon, 70), (.subMenuIcon, 35), (.subtleAlertIcon, 70),
        (.menuCommandSecondaryImage, 35), (.menuSubMenuSecondaryImage, 35),
    ]
    let display = DisplayCapabilities(
        displayType: .sdlGeneric,
        displayName: "SYNC3",
        textFields: textFieldNames.map { SDLTextField(name: $0.0, characterSet: .utf8, width: $0.1, rows: $0.2) },
        imageFields: imageFieldNames.map {
            ImageField(name: $0.0, imageTypeSupported: images, imageResolution: ImageResolution(resolutionWidth: $0.1, resolutionHeight: $0.1))
        },
        mediaClockFormats: [.clock1, .clock2, .clock3, .clocktext1, .clocktext2, .clocktext3, .clocktext4],
        graphicSupported: true,
        templatesAvailable: [
            "DEFAULT", "MEDIA", "NON-MEDIA", "ONSCREEN_PRESETS", "NAV_FULLSCREEN_MAP", "NAV_LIST", "NAV_KEYBOARD",
            "GRAPHIC_WITH_TEXT", "TEXT_WITH_GRAPHIC", "TILES_ONLY", "TEXTBUTTONS_ONLY", "GRAPHIC_WITH_TILES",
            "TILES_WITH_GRAPHIC", "GRAPHIC_WITH_TEXT_AND_SOFTBUTTONS", "TEXT_AND_SOFTBUTTONS_WITH_GRAPHIC",
            "GRAPHIC_WITH_TEXTBUTTONS", "TEXTBUTTONS_WITH_GRAPHIC", "LARGE_GRAPHIC_WITH_SOFTBUTTONS",
            "DOUBLE_GRAPHIC_WITH_SOFTBUTTONS", "LARGE_GRAPHIC_ONLY", "WEB_VIEW",
        ],
        screenParams: ScreenParams(
            resolution: ImageResolution(resolutionWidth: 800, resolutionHeight: 480),
            touchEventAvailable: TouchEventCapabilities(pressAvailable: true, multiTouchAvailable: true, doublePressAvailable: false)
        ),
        numCustomPresetsAvailable: 8
    )
    let buttonNames: [ButtonName] = [
        .ok, .playPause, .seekleft, .seekright, .tuneup, .tunedown, .preset0, .preset1, .preset2, .preset3,
        .preset4, .preset5, .preset6, .preset7, .preset8, .preset9, .search, .shuffle, .repeat,
        .navCenterLocation, .navZoomIn, .navZoomOut, .navPanUp, .navPanRight, .navPanDown, .navPanLeft,
        .navTiltToggle, .navRotateClockwise, .navRotateCounterclockwise, .navHeadingToggle,
    ]
    let buttons = buttonNames.enumerated().map { index, name in
        ButtonCapabilities(
            name: name,
            moduleInfo: ModuleInfo(
                moduleId: "hmi-buttons-\(index / 10)",
                location: SDLGrid(col: 0, row: 0, level: 0, colspan: 2, rowspan: 1, levelspan: 1),
                serviceArea: SDLGrid(col: 0, row: 0, level: 0, colspan: 3, rowspan: 2, levelspan: 1),
                allowMultipleAccess: true
            ),
            shortPressAvailable: true,
            longPressAvailable: name != .playPause,
            upDownAvailable: true
        )
    }
    let pcm16k = AudioPassThruCapabilities(samplingRate: ._16khz, bitsPerSample: ._16Bit, audioType: .pcm)
    return RegisterAppInterfaceResponse(
        success: true,
        resultCode: .success,
        info: "Application registered; language of the head unit matches the request.",
        syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
        language: .enUs,
        hmiDisplayLanguage: .enUs,
        displayCapabilities: display,
        buttonCapabilities: buttons,
        softButtonCapabilities: (0..<8).map { _ in
            SoftButtonCapabilities(shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true, imageSupported: true, textSupported: true)
        },
        presetBankCapabilities: PresetBankCapabilities(onScreenPresetsAvailable: true),
        hmiZoneCapabilities: [.front, .back],
        speechCapabilities: [.text, .sapiPhonemes, .lhplusPhonemes, .preRecorded, .silence, .file],
        prerecordedSpeech: [.helpJingle, .initialJingle, .listenJingle, .positiveJingle, .negativeJingle],
        vrCapabilities: [.text],
        audioPassThruCapabilities: [
            AudioPassThruCapabilities(samplingRate: ._8khz, bitsPerSample: ._8Bit, audioType: .pcm),
            pcm16k,
            AudioPassThruCapabilities(samplingRate: ._22khz, bitsPerSample: ._16Bit, audioType: .pcm),
            AudioPassThruCapabilities(samplingRate: ._44khz, bitsPerSample: ._16Bit, audioType: .pcm),
        ],
        pcmStreamCapabilities: pcm16k,
        vehicleType: VehicleType(make: "Ford", model: "Mustang Mach-E", modelYear: "2023", trim: "Premium AWD Extended Range"),
        supportedDiagModes: [0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x18, 0x19, 0x22, 0x3E],
        hmiCapabilities: HMICapabilities(
            navigation: true, phoneCall: true, videoStreaming: true, remoteControl: true,
            appServices: true, displays: true, seatLocation: true, driverDistraction: true
        ),
        sdlVersion: "8.0.0",
        systemSoftwareVersion: "SYNC 3.4 Build 19274_PRODUCT",
        iconResumed: false
    )
}

// MARK: - GetVehicleData response with every field

func getVehicleDataResponse() -> GetVehicleDataResponse {
    func grid(_ col: Int, _ row: Int) -> SDLGrid { SDLGrid(col: col, row: row, level: 0, colspan: 1, rowspan: 1, levelspan: 1) }
    let tire = { (pressure: Double) in SingleTireStatus(status: .normal, tpms: .systemActive, pressure: pressure) }
    let seats = [grid(0, 0), grid(2, 0), grid(0, 1), grid(1, 1), grid(2, 1)]
    return GetVehicleDataResponse(
        success: true,
        resultCode: .success,
        info: "All requested vehicle data is available.",
        gps: GPSData(
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
            FuelRange(type: .gasoline, range: 412.6, level: 47.5, levelState: .normal, capacity: 61.0, capacityUnit: .liters),
            FuelRange(type: .battery, range: 38.2, level: 81.0, levelState: .normal, capacity: 14.4, capacityUnit: .kilowatthours),
        ],
        climateData: ClimateData(
            externalTemperature: Temperature(unit: .celsius, value: 18.5),
            cabinTemperature: Temperature(unit: .celsius, value: 21.0),
            atmosphericPressure: 101.3
        ),
        externalTemperature: 18.5,
        turnSignal: .off,
        vin: "1FMCU9J94NUA12345",
        gearStatus: GearStatus(userSelectedGear: .drive, actualGear: .sixth, transmissionType: .automatic),
        prndl: .drive,
        tirePressure: TireStatus(
            pressureTelltale: .off, leftFront: tire(238.5), rightFront: tire(240.1), leftRear: tire(231.7),
            rightRear: tire(233.0), innerLeftRear: tire(229.4), innerRightRear: tire(230.2)
        ),
        odometer: 48213,
        beltStatus: BeltStatus(
            driverBeltDeployed: .no, passengerBeltDeployed: .no, passengerBuckleBelted: .yes, driverBuckleBelted: .yes,
            leftRow2BuckleBelted: .no, passengerChildDetected: .no, rightRow2BuckleBelted: .yes,
            middleRow2BuckleBelted: .no, middleRow3BuckleBelted: .notSupported, leftRow3BuckleBelted: .notSupported,
            rightRow3BuckleBelted: .notSupported, leftRearInflatableBelted: .no, rightRearInflatableBelted: .no,
            middleRow1BeltDeployed: .no, middleRow1BuckleBelted: .no
        ),
        bodyInformation: BodyInformation(
            parkBrakeActive: false, ignitionStableStatus: .ignitionSwitchStable, ignitionStatus: .run,
            driverDoorAjar: false, passengerDoorAjar: false, rearLeftDoorAjar: false, rearRightDoorAjar: false,
            doorStatuses: [grid(0, 0), grid(2, 0), grid(0, 1), grid(2, 1)].map { DoorStatus(location: $0, status: .locked) },
            gateStatuses: [GateStatus(location: grid(1, 2), status: .closed)],
            roofStatuses: [RoofStatus(location: grid(1, 0), status: .closed, state: WindowState(approximatePosition: 0, deviation: 2))]
        ),
        deviceStatus: DeviceStatus(
            voiceRecOn: false, btIconOn: true, callActive: false, phoneRoaming: false, textMsgAvailable: true,
            battLevelStatus: .fourLevelBars, stereoAudioOutputMuted: false, monoAudioOutputMuted: false,
            signalLevelStatus: .threeLevelBars, primaryAudioSource: .bluetoothStereoBtst, eCallEventActive: false
        ),
        driverBraking: .no,
        wiperStatus: .autoOff,
        headLampStatus: HeadLampStatus(lowBeamsOn: true, highBeamsOn: false, ambientLightSensorStatus: .twilight2),
        engineTorque: 187.25,
        accPedalPosition: 23.5,
        steeringWheelAngle: -4.75,
        engineOilLife: 72.5,
        electronicParkBrakeStatus: .open,
        cloudAppVehicleID: "2b9b6d1c-5f0e-4a57-9c41-7d3e8a0f6b12",
        stabilityControlsStatus: StabilityControlsStatus(escSystem: .on, trailerSwayControl: .off),
        eCallInfo: ECallInfo(eCallNotificationStatus: .normal, auxECallNotificationStatus: .normal, eCallConfirmationStatus: .normal),
        airbagStatus: AirbagStatus(
            driverAirbagDeployed: .no, driverSideAirbagDeployed: .no, driverCurtainAirbagDeployed: .no,
            passengerAirbagDeployed: .no, passengerCurtainAirbagDeployed: .no, driverKneeAirbagDeployed: .no,
            passengerSideAirbagDeployed: .no, passengerKneeAirbagDeployed: .no
        ),
        emergencyEvent: EmergencyEvent(
            emergencyEventType: .noEvent, fuelCutoffStatus: .normalOperation, rolloverEvent: .no,
            maximumChangeVelocity: 0, multipleEvents: .no
        ),
        clusterModeStatus: ClusterModeStatus(
            powerModeActive: true, powerModeQualificationStatus: .powerModeOk, carModeStatus: .normal, powerModeStatus: .running2
        ),
        myKey: MyKey(e911Override: .off),
        windowStatus: [grid(0, 0), grid(2, 0), grid(0, 1), grid(2, 1)].map {
            WindowStatus(location: $0, state: WindowState(approximatePosition: 100, deviation: 1))
        },
        handsOffSteering: false,
        seatOccupancy: SeatOccupancy(
            seatsOccupied: seats.enumerated().map { SeatStatus(seatLocation: SeatLocation(grid: $0.element), conditionActive: $0.offset < 3) },
            seatsBelted: seats.enumerated().map { SeatStatus(seatLocation: SeatLocation(grid: $0.element), conditionActive: $0.offset < 3) }
        )
    )
}

// MARK: - Show with soft buttons and graphics

func show() -> Show {
    func color(_ red: Int, _ green: Int, _ blue: Int) -> RGBColor { RGBColor(red: red, green: green, blue: blue) }
    return Show(
        mainField1: "Bohemian Rhapsody",
        mainField2: "Queen",
        mainField3: "A Night at the Opera (2011 Remaster)",
        mainField4: "Up next: You're My Best Friend",
        alignment: .leftAligned,
        statusBar: "Streaming · 320 kbps",
        mediaClock: "2:41 / 5:55",
        mediaTrack: "11 of 12",
        graphic: SDLImage(value: "album_art_a_night_at_the_opera.png", imageType: .dynamic, isTemplate: false),
        secondaryGraphic: SDLImage(value: "app_logo_dark.png", imageType: .dynamic, isTemplate: true),
        softButtons: [
            SoftButton(
                type: .image, image: SDLImage(value: "0x11", imageType: .static, isTemplate: true), isHighlighted: false, softButtonID: 101,
                systemAction: .defaultAction),
            SoftButton(
                type: .both, text: "Like", image: SDLImage(value: "thumbs_up.png", imageType: .dynamic, isTemplate: true), isHighlighted: true,
                softButtonID: 102,
                systemAction: .defaultAction),
            SoftButton(
                type: .both, text: "Dislike", image: SDLImage(value: "thumbs_down.png", imageType: .dynamic, isTemplate: true), isHighlighted: false,
                softButtonID: 103, systemAction: .defaultAction),
            SoftButton(type: .text, text: "Shuffle", isHighlighted: false, softButtonID: 104, systemAction: .keepContext),
            SoftButton(
                type: .both, text: "Queue", image: SDLImage(value: "queue.png", imageType: .dynamic, isTemplate: true), isHighlighted: false, softButtonID: 105,
                systemAction: .stealFocus),
            SoftButton(type: .text, text: "More…", isHighlighted: false, softButtonID: 106, systemAction: .defaultAction),
        ],
        customPresets: ["Favorites", "Discover Weekly", "Rock Classics", "Road Trip", "Chill", "Workout"],
        metadataTags: MetadataTags(mainField1: [.mediaTitle], mainField2: [.mediaArtist], mainField3: [.mediaAlbum], mainField4: [.mediaGenre]),
        templateTitle: "Now Playing",
        windowID: 0,
        templateConfiguration: TemplateConfiguration(
            template: "MEDIA",
            dayColorScheme: TemplateColorScheme(primaryColor: color(30, 215, 96), secondaryColor: color(25, 20, 20), backgroundColor: color(245, 245, 245)),
            nightColorScheme: TemplateColorScheme(primaryColor: color(30, 215, 96), secondaryColor: color(179, 179, 179), backgroundColor: color(18, 18, 18))
        )
    )
}

// MARK: - OnHMIStatus

func onHMIStatus() -> OnHMIStatus {
    OnHMIStatus(hmiLevel: .full, audioStreamingState: .audible, systemContext: .main, videoStreamingState: .notStreamable, windowID: 0)
}

// MARK: - CreateInteractionChoiceSet with 100 choices

func createInteractionChoiceSet() -> CreateInteractionChoiceSet {
    let stations = [
        "Classic Rock", "Jazz Lounge", "Morning News", "Country Hits", "Indie Mix", "Top 40", "Blues Alley",
        "Hip-Hop Now", "Lo-Fi Beats", "Symphony Hall",
    ]
    let cities = ["Detroit", "Chicago", "Toronto", "Boston", "Seattle", "Austin", "Denver", "Miami", "Phoenix", "Portland"]
    let choices = (0..<100).map { index in
        let name = "\(stations[index % 10]) \(cities[index / 10])"
        return Choice(
            choiceID: 1000 + index,
            menuName: name,
            vrCommands: [name, "\(stations[index % 10]) in \(cities[index / 10])", "Station \(index + 1)"],
            image: SDLImage(value: "station_\(index % 10).png", imageType: .dynamic, isTemplate: false),
            secondaryText: "\(88 + Double(index % 20) * 0.9) FM · \(cities[index / 10])",
            tertiaryText: index % 3 == 0 ? "Live now" : "Playlist",
            secondaryImage: index % 4 == 0 ? SDLImage(value: "0x9C", imageType: .static, isTemplate: true) : nil
        )
    }
    return CreateInteractionChoiceSet(interactionChoiceSetID: 42, choiceSet: choices)
}

// MARK: - Write

func write<T: SDLCodable>(_ value: T, to file: String, in directory: String) throws {
    let bytes = try SDLJSON.encode(value)
    // The file must decode cleanly: no issues, no unknown keys, and the same value.
    let decoded = try SDLJSON.decode(T.self, from: bytes)
    precondition(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty && decoded.value == value, "\(file) does not round-trip")
    try Data(bytes + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: directory).appendingPathComponent(file))
    print("\(file): \(bytes.count) bytes")
}

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Payloads"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
try write(registerAppInterfaceResponse(), to: "RegisterAppInterfaceResponse.json", in: directory)
try write(getVehicleDataResponse(), to: "GetVehicleDataResponse.json", in: directory)
try write(show(), to: "Show.json", in: directory)
try write(onHMIStatus(), to: "OnHMIStatus.json", in: directory)
try write(createInteractionChoiceSet(), to: "CreateInteractionChoiceSet.json", in: directory)
