import SDLProtocol
import SDLRPC
import SDLRuntime

/// A simulated vehicle: a plausible value for every vehicle-data item of the spec, built from
/// the generated metadata (the items of GetVehicleDataResponse), with realistic values where a
/// default would look odd (speed, rpm, a real GPS fix...). Values can be replaced item by item,
/// from a JSON object or the control API, and are checked against the spec first.
public struct SDLSimulatedVehicle: Sendable {
    /// Every vehicle-data item of the spec, by its parameter name.
    public static let itemNames: [String] = GetVehicleDataResponse.structInfo.parameters.map(\.name).filter {
        !["success", "resultCode", "info"].contains($0)
    }

    private static let itemInfo: [String: SDLParameterInfo] = Dictionary(
        GetVehicleDataResponse.structInfo.parameters.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// Every item of the spec by its parameter name (`speed`, `gps`...), as JSON. Change them with
    /// `set(_:to:)`, which checks each value against the spec.
    public private(set) var values: [String: SDLJSONValue]
    /// OEM custom items (RPC 6.0+) by name: any JSON, unchecked, as their format is the OEM's.
    public private(set) var customValues: [String: SDLJSONValue]
    /// The navigation route (GetWayPoints, OnWayPointChange): the stops in order, the
    /// destination last.
    public var wayPoints: [LocationDetails] = Self.defaultWayPoints

    /// A fuel stop on the way, then the destination, near the simulated GPS fix.
    public static let defaultWayPoints: [LocationDetails] = [
        LocationDetails(
            coordinate: Coordinate(latitudeDegrees: 42.3086, longitudeDegrees: -83.2312), locationName: "Fuel stop",
            addressLines: ["22000 Michigan Ave", "Dearborn, MI 48124"], locationDescription: "Fuel and coffee",
            phoneNumber: "+1 313 555 0100",
            searchAddress: OASISAddress(
                countryName: "United States", countryCode: "US", postalCode: "48124", administrativeArea: "MI", locality: "Dearborn",
                thoroughfare: "Michigan Ave", subThoroughfare: "22000")),
        LocationDetails(
            coordinate: Coordinate(latitudeDegrees: 42.3314, longitudeDegrees: -83.0458), locationName: "Destination",
            addressLines: ["2 Woodward Ave", "Detroit, MI 48226"], locationDescription: "City centre",
            searchAddress: OASISAddress(
                countryName: "United States", countryCode: "US", postalCode: "48226", administrativeArea: "MI", locality: "Detroit",
                thoroughfare: "Woodward Ave", subThoroughfare: "2")),
    ]

    /// The custom item every emulated vehicle has, named as in the guide's example; the built-in
    /// policy grants it.
    public static let defaultCustomValues: [String: SDLJSONValue] = [
        "OEM-X-Vehicle-Data": .object([.init(key: "level", value: .integer(3)), .init(key: "label", value: .string("eco"))])
    ]

    /// A car with a value for every item: realistic ones for what people look at first (speed,
    /// rpm, fuel, a GPS fix near Detroit...), the spec's smallest valid value for the rest, the
    /// custom items of `defaultCustomValues` and the route of `defaultWayPoints`.
    public init() {
        self.customValues = Self.defaultCustomValues
        let defaults = DefaultValues.shared
        var values: [String: SDLJSONValue] = [:]
        for name in Self.itemNames {
            guard let info = Self.itemInfo[name] else { continue }
            values[name] = Self.realistic[name].flatMap { try? SDLJSONValue(parsing: Array($0.utf8)) } ?? defaults.complete(info)
        }
        self.values = values
    }

    /// Realistic values for the items people look at first; every other item comes from the
    /// spec's metadata.
    private static let realistic: [String: String] = [
        "speed": "50.5", "rpm": "1800", "fuelLevel": "62.5", "fuelLevel_State": #""NORMAL""#, "instantFuelConsumption": "7.2",
        "externalTemperature": "21.5", "vin": #""1SDLEMU0000000001""#, "prndl": #""DRIVE""#, "odometer": "12345",
        "engineTorque": "120.5", "accPedalPosition": "12.5", "steeringWheelAngle": "0.0", "engineOilLife": "80.0",
        "turnSignal": #""OFF""#, "driverBraking": #""NO_EVENT""#, "wiperStatus": #""OFF""#, "electronicParkBrakeStatus": #""OPEN""#,
        "cloudAppVehicleID": #""emulated-vehicle""#, "handsOffSteering": "false",
        "tirePressure":
            #"{"pressureTelltale":"OFF","leftFront":{"status":"NORMAL","tpms":"SYSTEM_ACTIVE","pressure":240.0},"rightFront":{"status":"NORMAL","tpms":"SYSTEM_ACTIVE","pressure":240.0},"leftRear":{"status":"NORMAL","tpms":"SYSTEM_ACTIVE","pressure":230.0},"rightRear":{"status":"NORMAL","tpms":"SYSTEM_ACTIVE","pressure":230.0},"innerLeftRear":{"status":"NOT_SUPPORTED","tpms":"UNKNOWN","pressure":0.0},"innerRightRear":{"status":"NOT_SUPPORTED","tpms":"UNKNOWN","pressure":0.0}}"#,
        "gearStatus": #"{"userSelectedGear":"DRIVE","actualGear":"FOURTH","transmissionType":"AUTOMATIC"}"#,
        "fuelRange": #"[{"type":"GASOLINE","range":420.0,"level":62.5,"levelState":"NORMAL","capacity":55.0,"capacityUnit":"LITERS"}]"#,
        "climateData":
            #"{"externalTemperature":{"unit":"CELSIUS","value":21.5},"cabinTemperature":{"unit":"CELSIUS","value":22.0},"atmosphericPressure":101.3}"#,
        "seatOccupancy":
            #"{"seatsOccupied":[{"seatLocation":{"grid":{"col":0,"row":0,"level":0,"colspan":1,"rowspan":1,"levelspan":1}},"conditionActive":true},{"seatLocation":{"grid":{"col":2,"row":0,"level":0,"colspan":1,"rowspan":1,"levelspan":1}},"conditionActive":false}],"seatsBelted":[{"seatLocation":{"grid":{"col":0,"row":0,"level":0,"colspan":1,"rowspan":1,"levelspan":1}},"conditionActive":true},{"seatLocation":{"grid":{"col":2,"row":0,"level":0,"colspan":1,"rowspan":1,"levelspan":1}},"conditionActive":false}]}"#,
        "stabilityControlsStatus": #"{"escSystem":"ON","trailerSwayControl":"OFF"}"#,
        "gps":
            #"{"longitudeDegrees":-83.2101,"latitudeDegrees":42.3015,"utcYear":2026,"utcMonth":11,"utcDay":23,"utcHours":12,"utcMinutes":0,"utcSeconds":0,"compassDirection":"NORTH","pdop":1.0,"hdop":1.0,"vdop":1.0,"actual":true,"satellites":9,"dimension":"3D","altitude":180.0,"heading":0.0,"speed":50.5}"#,
    ]

    /// The value of each of `items` (unknown names are left out).
    public func get(_ items: [String]) -> [SDLJSONValue.Member] {
        items.compactMap { name in (values[name] ?? customValues[name]).map { SDLJSONValue.Member(key: name, value: $0) } }
    }

    /// Whether `name` is one of the OEM custom items.
    public func isCustom(_ name: String) -> Bool { customValues[name] != nil }

    /// Adds or replaces an OEM custom item (a name the spec does not have).
    public mutating func setCustom(_ name: String, to value: SDLJSONValue) throws(SDLSimulatedVehicleError) {
        guard !Self.itemNames.contains(name) else { throw .invalidValue(name, "is an item of the spec, not a custom one") }
        customValues[name] = value
    }

    /// Replaces an item's value after checking it against the spec; the error names the path.
    public mutating func set(_ item: String, to value: SDLJSONValue) throws(SDLSimulatedVehicleError) {
        if customValues[item] != nil {
            customValues[item] = value
            return
        }
        guard let info = Self.itemInfo[item], Self.itemNames.contains(item) else { throw .unknownItem(item) }
        let wrapped = SDLJSONValue.object([
            .init(key: "success", value: .bool(true)), .init(key: "resultCode", value: .string("SUCCESS")), .init(key: item, value: value),
        ])
        do {
            _ = try SDLJSON.decode(GetVehicleDataResponse.self, from: wrapped.jsonBytes)
        } catch {
            throw .invalidValue(item, error.errors.first.map { "\($0)" } ?? "\(error)")
        }
        _ = info
        values[item] = value
    }

    /// Sets every item of a JSON object (a `--vehicle-data` file), all or nothing.
    public mutating func set(_ object: SDLJSONValue) throws(SDLSimulatedVehicleError) {
        guard case .object(let members) = object else { throw .invalidValue("", "expected an object of vehicle-data items") }
        var copy = self
        for member in members { try copy.set(member.key, to: member.value) }
        self = copy
    }

    /// The `VehicleDataType` SDL Core reports for an item in Subscribe/UnsubscribeVehicleData.
    static func dataType(of item: String) -> VehicleDataType {
        let exceptions: [String: String] = [
            "externalTemperature": "VEHICLEDATA_EXTERNTEMP", "driverBraking": "VEHICLEDATA_BRAKING",
            "instantFuelConsumption": "VEHICLEDATA_FUELCONSUMPTION", "batteryVoltage": "VEHICLEDATA_BATTVOLTAGE",
        ]
        if let name = exceptions[item] { return VehicleDataType(rawValue: name) }
        let normalized = item.uppercased().filter { $0 != "_" }
        let candidates = VehicleDataType.allCases.filter(\.isRecognized).map { ($0, $0.rawValue.dropFirst("VEHICLEDATA_".count).filter { $0 != "_" }) }
        if let exact = candidates.first(where: { $0.1 == normalized }) { return exact.0 }
        if let prefix = candidates.filter({ normalized.hasPrefix($0.1) }).max(by: { $0.1.count < $1.1.count }) { return prefix.0 }
        return .vehicledataOemCustomData
    }
}

/// Why the simulated vehicle refused a value.
public enum SDLSimulatedVehicleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name is neither a vehicle-data item of the spec nor one of the custom items.
    case unknownItem(String)
    /// The value does not fit what the spec says of the item: the item's name, then why (with the
    /// path inside the value).
    case invalidValue(String, String)

    /// `item: reason`, ready for a command-line or control-API error.
    public var description: String {
        switch self {
        case .unknownItem(let name): "\(name) is not a vehicle-data item of the spec"
        case .invalidValue(let item, let reason): item.isEmpty ? reason : "\(item): \(reason)"
        }
    }
}

/// The vehicle-data area: the car's values and which app listens to which item.
struct VehicleDataState: Sendable {
    var vehicle: SDLSimulatedVehicle
    /// Vehicle-data items each app subscribed to.
    var subscriptions: [String: Set<String>] = [:]

    /// Subscribes (or unsubscribes) the app to an item: SUCCESS when that changed something.
    mutating func subscribe(_ appID: String, to item: String, _ subscribe: Bool) -> VehicleDataResultCode {
        let subscribed = subscriptions[appID, default: []].contains(item)
        if subscribe {
            if subscribed { return .dataAlreadySubscribed }
            subscriptions[appID, default: []].insert(item)
        } else {
            guard subscribed else { return .dataNotSubscribed }
            subscriptions[appID]?.remove(item)
        }
        return .success
    }

    /// The apps subscribed to `item`, by app ID.
    func subscribers(of item: String) -> [String] {
        subscriptions.keys.sorted().filter { subscriptions[$0]?.contains(item) == true }
    }
}

/// GetVehicleData, Subscribe/UnsubscribeVehicleData and OnVehicleData, as SDL Core answers them.
extension SDLHeadUnitEmulator {
    /// The items a vehicle-data request asks for (`"speed": true`), within what the policy allows.
    func requestedItems(_ rpc: SDLRPCPayload, function: String, appID: String) -> [String] {
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return [] }
        let asked = members.filter { $0.value == .bool(true) }.map(\.key)
        let allowed = policy.allowedParameters(function, appID: appID, updated: apps[appID]?.policyUpdated ?? false)
        return asked.filter { allowed?.contains($0) ?? true }
    }

    /// SDL Core: a request whose items (`"x": true`) are all unknown to it, neither the spec's
    /// nor the policy's custom items, is INVALID_DATA. Core drops unknown parameters while it
    /// validates, before its policy check, so this comes before the policy too.
    func onlyUnknownItems(_ rpc: SDLRPCPayload, function: String) -> Reply? {
        let parameters: [SDLParameterInfo]
        switch function {
        case "GetVehicleData": parameters = GetVehicleData.structInfo.parameters
        case "SubscribeVehicleData": parameters = SubscribeVehicleData.structInfo.parameters
        case "UnsubscribeVehicleData": parameters = UnsubscribeVehicleData.structInfo.parameters
        default: return nil
        }
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return nil }
        let asked = members.filter { $0.value == .bool(true) }.map(\.key)
        let known = Set(parameters.map(\.name))
        guard !asked.isEmpty, !asked.contains(where: { known.contains($0) || vehicleState.vehicle.isCustom($0) }) else { return nil }
        return .failure(.invalidData, "RPC.msg_params: no known vehicle data item is requested")
    }

    func getVehicleData(rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let items = requestedItems(rpc, function: "GetVehicleData", appID: appID)
        return (.success(extra: vehicleState.vehicle.get(items)), [])
    }

    func subscribeVehicleData(rpc: SDLRPCPayload, appID: String, subscribe: Bool) -> (Reply, [Effect]) {
        let function = subscribe ? "SubscribeVehicleData" : "UnsubscribeVehicleData"
        let items = requestedItems(rpc, function: function, appID: appID)
        var results: [SDLJSONValue.Member] = []
        var changed = 0
        for item in items {
            let code = vehicleState.subscribe(appID, to: item, subscribe)
            if code == .success { changed += 1 }
            let custom = vehicleState.vehicle.isCustom(item)
            let result = VehicleDataResult(
                dataType: custom ? .vehicledataOemCustomData : SDLSimulatedVehicle.dataType(of: item), resultCode: code,
                oemCustomDataType: custom ? Self.jsonKind(vehicleState.vehicle.customValues[item]) : nil)
            if let json = try? SDLJSONValue(parsing: (try? SDLJSON.encode(result)) ?? []) {
                results.append(.init(key: Self.subscriptionResponseName(of: item), value: json))
            }
        }
        if changed == 0 {
            let info = subscribe ? "Already subscribed on provided VehicleData." : "Some provided VehicleData was not subscribed."
            return (.failure(.ignored, info, extra: results), [])
        }
        // Items that ended differently: SDL Core answers IGNORED, still success=true.
        if changed < items.count {
            let info = subscribe ? "Already subscribed on some provided VehicleData." : "Some provided VehicleData was not subscribed."
            return (.success(.ignored, info: info, extra: results), [hashChange(of: appID)])
        }
        return (.success(extra: results), [hashChange(of: appID)])
    }

    /// Changes a vehicle-data item; apps subscribed to it get OnVehicleData.
    public func setVehicleData(_ item: String, to value: SDLJSONValue) async throws(SDLSimulatedVehicleError) {
        try await setVehicleData(.object([.init(key: item, value: value)]))
    }

    /// Changes several items at once (all or nothing): each subscribed app gets one OnVehicleData
    /// with the items it follows, as a car reports values that change together.
    public func setVehicleData(_ items: SDLJSONValue) async throws(SDLSimulatedVehicleError) {
        if let hmiDriver {
            // Checked here, so a bad value is the caller's error; the HMI reports the good ones.
            var checked = vehicleState.vehicle
            try checked.set(items)
            return await hmiDriver.setVehicleData(items)
        }
        try await vehicleDataChanged(items)
    }

    /// The car's values change (the HMI's VehicleInfo.OnVehicleData): subscribed apps hear them.
    func vehicleDataChanged(_ items: SDLJSONValue) async throws(SDLSimulatedVehicleError) {
        try vehicleState.vehicle.set(items)
        guard case .object(let members) = items else { return }
        var effects: [Effect] = []
        for appID in apps.keys.sorted() {
            let followed = members.filter { vehicleState.subscriptions[appID]?.contains($0.key) == true }
            guard !followed.isEmpty else { continue }
            effects.append(
                .notify(
                    appID: appID,
                    SDLRPCPayload(
                        rpcType: .notification, functionID: OnVehicleData.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                        json: SDLJSONValue.object(followed).jsonBytes)))
        }
        await perform(effects)
        emit(.vehicleDataChanged(items: members.map(\.key)))
    }

    /// The spec names one item differently in Subscribe/UnsubscribeVehicleData responses.
    static func subscriptionResponseName(of item: String) -> String {
        item == "clusterModeStatus" ? "clusterModes" : item
    }

    /// Every item's current value, the OEM custom items last.
    public func vehicleData() -> SDLJSONValue {
        .object(
            SDLSimulatedVehicle.itemNames.compactMap { name in vehicleState.vehicle.values[name].map { .init(key: name, value: $0) } }
                + vehicleState.vehicle.customValues.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) })
    }

    /// How SDL Core's vehicle-data schema names a custom item's type.
    private static func jsonKind(_ value: SDLJSONValue?) -> String {
        switch value {
        case .bool: "Boolean"
        case .integer: "Integer"
        case .float: "Float"
        case .string: "String"
        case .array: "Array"
        default: "Struct"
        }
    }
}
