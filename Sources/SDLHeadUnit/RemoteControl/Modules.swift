import SDLRPC
import SDLRuntime

/// Identifies one remote-control module: its type and its 6.0 module ID.
struct ModuleKey: Sendable, Hashable, CustomStringConvertible {
    let type: ModuleType
    let id: String

    var description: String { "\(type.rawValue) \(id)" }
}

/// One of the car's remote-control modules: where it is, who it serves, its buttons and its
/// current settings (the `*ControlData` object, as JSON so settings merge member by member).
struct RemoteControlModule: Sendable {
    let type: ModuleType
    /// `moduleName` in the capability.
    let name: String
    let info: ModuleInfo
    /// The buttons ButtonPress may press on this module.
    let buttons: [ButtonName]
    /// The module's capability minus `moduleName`/`moduleInfo` (the `*Available` flags...).
    let capability: String
    var controlData: SDLJSONValue

    var key: ModuleKey { ModuleKey(type: type, id: info.moduleId) }

    /// `climateControlData`, `radioControlData`...: the member of ModuleData for this type.
    var dataKey: String { Self.dataKey(of: type) }

    static func dataKey(of type: ModuleType) -> String {
        switch type {
        case .climate: "climateControlData"
        case .radio: "radioControlData"
        case .seat: "seatControlData"
        case .audio: "audioControlData"
        case .light: "lightControlData"
        case .hmiSettings: "hmiSettingsControlData"
        default: "\(type.rawValue.lowercased())ControlData"
        }
    }

    /// Settings only the car changes (SDL Core's read-only parameters).
    var readOnlyKeys: Set<String> {
        switch type {
        case .climate: ["currentTemperature"]
        case .radio: ["rdsData", "availableHDs", "availableHdChannels", "signalStrength", "signalChangeThreshold", "state", "sisData"]
        default: []
        }
    }

    /// `{"moduleType": …, "moduleId": …, "<type>ControlData": {…}}`.
    var moduleDataJSON: SDLJSONValue {
        .object([
            .init(key: "moduleType", value: .string(type.rawValue)), .init(key: "moduleId", value: .string(info.moduleId)),
            .init(key: dataKey, value: controlData),
        ])
    }

    /// `{"moduleType": …, "moduleId": …}`, as OnRCStatus lists modules.
    var referenceJSON: SDLJSONValue {
        .object([.init(key: "moduleType", value: .string(type.rawValue)), .init(key: "moduleId", value: .string(info.moduleId))])
    }

    /// The module's entry in the REMOTE_CONTROL capability.
    var capabilityJSON: SDLJSONValue {
        var members: [SDLJSONValue.Member] = [
            .init(key: "moduleName", value: .string(name)), .init(key: "moduleInfo", value: Self.json(info)),
        ]
        if case .object(let flags) = SDLHeadUnitEmulator.json(capability) { members += flags }
        return .object(members)
    }

    static func json<T: SDLCodable>(_ value: T) -> SDLJSONValue {
        (try? SDLJSON.encode(value)).flatMap { try? SDLJSONValue(parsing: $0) } ?? .object([])
    }
}

/// The car's modules with their state, shared by every app (it is one car), who holds which
/// module, who listens to which, and which consents the driver gave.
struct RemoteControlState: Sendable {
    var modules: [RemoteControlModule] = RemoteControlState.defaultModules
    /// The app each allocated module belongs to.
    var allocations: [ModuleKey: String] = [:]
    /// Modules each app subscribed to with GetInteriorVehicleData(subscribe: true).
    var subscriptions: [String: Set<ModuleKey>] = [:]
    /// The driver's answers to GetInteriorVehicleDataConsent, per app and module.
    var consents: [String: [ModuleKey: Bool]] = [:]
    /// What the driver answers to GetInteriorVehicleDataConsent now.
    var consent = true

    func index(of key: ModuleKey) -> Int? { modules.firstIndex { $0.key == key } }

    /// The module of `type` with `id`, or the type's default module (its first) when `id` is nil.
    func index(of type: ModuleType, id: String?) -> Int? {
        modules.firstIndex { $0.type == type && (id == nil || $0.info.moduleId == id) }
    }

    // MARK: The emulated car

    /// A grid area in the car's seat grid (3 columns, 2 rows, 1 level).
    static func grid(col: Int, row: Int, colspan: Int = 1, rowspan: Int = 1) -> SDLGrid {
        SDLGrid(col: col, row: row, level: 0, colspan: colspan, rowspan: rowspan, levelspan: 1)
    }

    static let frontRow = grid(col: 0, row: 0, colspan: 3)
    static let rearRow = grid(col: 0, row: 1, colspan: 3)
    static let wholeVehicle = grid(col: 0, row: 0, colspan: 3, rowspan: 2)
    static let driverSeat = grid(col: 0, row: 0)
    static let passengerSeat = grid(col: 2, row: 0)

    /// The seats of the SEAT_LOCATION capability: driver, front passenger, three rear seats.
    static let seats: [SDLGrid] = [driverSeat, passengerSeat, grid(col: 0, row: 1), grid(col: 1, row: 1), grid(col: 2, row: 1)]

    static func info(_ id: String, location: SDLGrid, serviceArea: SDLGrid? = nil, shared: Bool = true) -> ModuleInfo {
        ModuleInfo(moduleId: id, location: location, serviceArea: serviceArea ?? location, allowMultipleAccess: shared)
    }

    static func data(_ text: String) -> SDLJSONValue { SDLHeadUnitEmulator.json(text) }

    static let climateButtons: [ButtonName] = [.ac, .acMax, .recirculate, .fanUp, .fanDown, .tempUp, .tempDown]
    static let climateCapability =
        #"{"currentTemperatureAvailable":true,"fanSpeedAvailable":true,"desiredTemperatureAvailable":true,"acEnableAvailable":true,"acMaxEnableAvailable":true,"circulateAirEnableAvailable":true,"autoModeEnableAvailable":true,"dualModeEnableAvailable":true,"defrostZoneAvailable":true,"defrostZone":["FRONT","REAR","ALL","NONE"],"ventilationModeAvailable":true,"ventilationMode":["UPPER","LOWER","BOTH","NONE"],"heatedSteeringWheelAvailable":true,"heatedWindshieldAvailable":true,"heatedRearWindowAvailable":true,"heatedMirrorsAvailable":true,"climateEnableAvailable":true}"#
    static let climateData =
        #"{"fanSpeed":40,"currentTemperature":{"unit":"CELSIUS","value":22.5},"desiredTemperature":{"unit":"CELSIUS","value":21.0},"acEnable":true,"circulateAirEnable":false,"autoModeEnable":false,"defrostZone":"NONE","dualModeEnable":false,"acMaxEnable":false,"ventilationMode":"BOTH","heatedSteeringWheelEnable":false,"heatedWindshieldEnable":false,"heatedRearWindowEnable":false,"heatedMirrorsEnable":false,"climateEnable":true}"#
    static let seatCapability =
        #"{"heatingEnabledAvailable":true,"coolingEnabledAvailable":true,"heatingLevelAvailable":true,"coolingLevelAvailable":true,"horizontalPositionAvailable":true,"verticalPositionAvailable":true,"frontVerticalPositionAvailable":true,"backVerticalPositionAvailable":true,"backTiltAngleAvailable":true,"headSupportHorizontalPositionAvailable":true,"headSupportVerticalPositionAvailable":true,"massageEnabledAvailable":true,"massageModeAvailable":true,"massageCushionFirmnessAvailable":true,"memoryAvailable":true}"#

    static func seatData(_ seat: String) -> SDLJSONValue {
        data(
            #"{"id":"\#(seat)","heatingEnabled":false,"coolingEnabled":false,"heatingLevel":0,"coolingLevel":0,"horizontalPosition":50,"verticalPosition":50,"frontVerticalPosition":50,"backVerticalPosition":50,"backTiltAngle":40,"headSupportHorizontalPosition":50,"headSupportVerticalPosition":50,"massageEnabled":false,"massageMode":[{"massageZone":"LUMBAR","massageMode":"OFF"},{"massageZone":"SEAT_CUSHION","massageMode":"OFF"}],"massageCushionFirmness":[{"cushion":"MIDDLE_LUMBAR","firmness":50}]}"#
        )
    }

    /// Climate front (C0A) and rear (C1A), the radio (R0A), driver (S0A) and front passenger
    /// (S0C) seats, audio (A0A), lights (L0A) and HMI settings (H0A). Seats serve only their
    /// occupant and cannot be shared; everything else can. Built once per process (parsing
    /// the modules' JSON was 3 % of a fleet's CPU when every vehicle built its own).
    static let defaultModules: [RemoteControlModule] = {
        [
            RemoteControlModule(
                type: .climate, name: "Climate front", info: info("C0A", location: frontRow), buttons: climateButtons,
                capability: climateCapability, controlData: data(climateData)),
            RemoteControlModule(
                type: .climate, name: "Climate rear", info: info("C1A", location: rearRow), buttons: [.fanUp, .fanDown, .tempUp, .tempDown],
                capability: climateCapability,
                controlData: data(
                    #"{"fanSpeed":30,"currentTemperature":{"unit":"CELSIUS","value":23.0},"desiredTemperature":{"unit":"CELSIUS","value":22.0},"acEnable":true,"circulateAirEnable":false,"autoModeEnable":false,"ventilationMode":"LOWER","climateEnable":true}"#
                )),
            RemoteControlModule(
                type: .radio, name: "Radio", info: info("R0A", location: frontRow, serviceArea: wholeVehicle),
                buttons: [.volumeUp, .volumeDown, .eject, .source, .shuffle, .repeat],
                capability:
                    #"{"radioEnableAvailable":true,"radioBandAvailable":true,"radioFrequencyAvailable":true,"hdChannelAvailable":true,"rdsDataAvailable":true,"availableHdChannelsAvailable":true,"stateAvailable":true,"signalStrengthAvailable":true,"signalChangeThresholdAvailable":true,"hdRadioEnableAvailable":true,"siriusxmRadioAvailable":false}"#,
                controlData: data(
                    #"{"frequencyInteger":101,"frequencyFraction":1,"band":"FM","rdsData":{"PS":"SDL FM","RT":"The emulated station","CT":"2026-11-23T12:00:00.000Z","PI":"C0FE","PTY":5,"TP":false,"TA":false,"REG":"US"},"hdRadioEnable":false,"availableHdChannels":[],"signalStrength":80,"signalChangeThreshold":10,"radioEnable":true,"state":"ACQUIRED"}"#
                )),
            RemoteControlModule(
                type: .seat, name: "Driver seat", info: info("S0A", location: driverSeat, shared: false), buttons: [],
                capability: seatCapability, controlData: seatData("DRIVER")),
            RemoteControlModule(
                type: .seat, name: "Front passenger seat", info: info("S0C", location: passengerSeat, shared: false), buttons: [],
                capability: seatCapability, controlData: seatData("FRONT_PASSENGER")),
            RemoteControlModule(
                type: .audio, name: "Audio", info: info("A0A", location: frontRow, serviceArea: wholeVehicle), buttons: [],
                capability: #"{"sourceAvailable":true,"keepContextAvailable":true,"volumeAvailable":true,"equalizerAvailable":true,"equalizerMaxChannelId":3}"#,
                controlData: data(
                    #"{"source":"FM","keepContext":false,"volume":40,"equalizerSettings":[{"channelId":1,"channelName":"Bass","channelSetting":50},{"channelId":2,"channelName":"Mid","channelSetting":50},{"channelId":3,"channelName":"Treble","channelSetting":50}]}"#
                )),
            RemoteControlModule(
                type: .light, name: "Lights", info: info("L0A", location: wholeVehicle), buttons: [],
                capability:
                    #"{"supportedLights":[{"name":"FRONT_LEFT_HIGH_BEAM","statusAvailable":true,"densityAvailable":true,"rgbColorSpaceAvailable":false},{"name":"FRONT_RIGHT_HIGH_BEAM","statusAvailable":true,"densityAvailable":true,"rgbColorSpaceAvailable":false},{"name":"AMBIENT_LIGHTS","statusAvailable":true,"densityAvailable":true,"rgbColorSpaceAvailable":true},{"name":"HAZARD_LIGHTS","statusAvailable":true,"densityAvailable":false,"rgbColorSpaceAvailable":false}]}"#,
                controlData: data(
                    #"{"lightState":[{"id":"FRONT_LEFT_HIGH_BEAM","status":"OFF","density":1.0},{"id":"FRONT_RIGHT_HIGH_BEAM","status":"OFF","density":1.0},{"id":"AMBIENT_LIGHTS","status":"ON","density":0.5,"color":{"red":0,"green":120,"blue":255}},{"id":"HAZARD_LIGHTS","status":"OFF"}]}"#
                )),
            RemoteControlModule(
                type: .hmiSettings, name: "HMI settings", info: info("H0A", location: frontRow, serviceArea: wholeVehicle), buttons: [],
                capability: #"{"distanceUnitAvailable":true,"temperatureUnitAvailable":true,"displayModeUnitAvailable":true}"#,
                controlData: data(#"{"displayMode":"AUTO","temperatureUnit":"CELSIUS","distanceUnit":"KILOMETERS"}"#)),
        ]
    }()

    // MARK: Capabilities

    /// The REMOTE_CONTROL capability: every module with its `moduleInfo`, and the buttons
    /// ButtonPress can press, each with the module it belongs to.
    var capabilityJSON: SDLJSONValue {
        func list(_ type: ModuleType) -> [SDLJSONValue] { modules.filter { $0.type == type }.map(\.capabilityJSON) }
        var members: [SDLJSONValue.Member] = [
            .init(key: "climateControlCapabilities", value: .array(list(.climate))),
            .init(key: "radioControlCapabilities", value: .array(list(.radio))),
            .init(key: "seatControlCapabilities", value: .array(list(.seat))),
            .init(key: "audioControlCapabilities", value: .array(list(.audio))),
        ]
        // One light and one HMI-settings module: the spec has a single capability for each.
        if let light = list(.light).first { members.append(.init(key: "lightControlCapabilities", value: light)) }
        if let settings = list(.hmiSettings).first { members.append(.init(key: "hmiSettingsControlCapabilities", value: settings)) }
        let buttons: [SDLJSONValue] = modules.flatMap { module in
            module.buttons.map { button in
                .object([
                    .init(key: "name", value: .string(button.rawValue)),
                    .init(key: "moduleInfo", value: RemoteControlModule.json(module.info)),
                    .init(key: "shortPressAvailable", value: .bool(true)), .init(key: "longPressAvailable", value: .bool(true)),
                    .init(key: "upDownAvailable", value: .bool(true)),
                ])
            }
        }
        members.append(.init(key: "buttonCapabilities", value: .array(buttons)))
        return .object(members)
    }

    /// The SEAT_LOCATION capability: 2 rows, 3 columns, 1 level, five seats.
    static var seatLocationJSON: SDLJSONValue {
        .object([
            .init(key: "rows", value: .integer(2)), .init(key: "columns", value: .integer(3)), .init(key: "levels", value: .integer(1)),
            .init(key: "seats", value: .array(seats.map { .object([.init(key: "grid", value: RemoteControlModule.json($0))]) })),
        ])
    }
}

extension SDLGrid {
    /// Whether `other` lies entirely inside this area (a missing span counts 1, a missing level 0).
    func contains(_ other: SDLGrid) -> Bool {
        func inside(_ start: Int, _ span: Int?, within areaStart: Int, _ areaSpan: Int?) -> Bool {
            start >= areaStart && start + max(1, span ?? 1) <= areaStart + max(1, areaSpan ?? 1)
        }
        return inside(other.col, other.colspan, within: col, colspan) && inside(other.row, other.rowspan, within: row, rowspan)
            && inside(other.level ?? 0, other.levelspan, within: level ?? 0, levelspan)
    }
}
