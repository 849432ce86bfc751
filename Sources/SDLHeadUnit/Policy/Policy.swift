import SDLRPC
import SDLRuntime
import Synchronization

/// Which RPCs (and vehicle-data parameters) an app may use at each HMI level, in SDL Core's
/// policy-table vocabulary: functional groups (`rpcs` → `hmi_levels`, `parameters`) and app
/// entries by app ID (`groups`), with `default` for apps without one and `pre_DataConsent` for
/// an app before the head unit's policy update (SDL Core grants vehicle data only after it).
public struct SDLHeadUnitPolicy: Sendable, Hashable {
    /// One RPC's entry in a functional group: the HMI levels it may be sent in and, for vehicle
    /// data, the parameters it may ask for.
    public struct Permission: Sendable, Hashable {
        /// The HMI levels the RPC is allowed in (`hmi_levels`); in any other level the app gets
        /// DISALLOWED.
        public var levels: Set<HMILevel>
        /// nil: the RPC has no parameter permissions; else the parameters allowed.
        public var parameters: Set<String>?
        /// A group holding it has `encryption_required`: sent in plain text it is answered
        /// ENCRYPTION_NEEDED (unless the app's entry says `encryption_required: false`).
        public var requiresEncryption = false

        /// A permission in `levels`, for `parameters`, with or without encryption.
        public init(levels: Set<HMILevel>, parameters: Set<String>? = nil, requiresEncryption: Bool = false) {
            self.levels = levels
            self.parameters = parameters
            self.requiresEncryption = requiresEncryption
        }
    }

    /// The functional groups by name (`functional_groupings`), each mapping RPC names to their
    /// permission.
    public var groups: [String: [String: Permission]] {
        didSet {
            merged = Self.merge(groups, appGroups)
            encoded = EncodedPermissions()
        }
    }
    /// The group names each app gets, by app ID (`app_policies`). `default` serves apps without an
    /// entry of their own; `pre_DataConsent` serves every app until its policy update.
    public var appGroups: [String: [String]] {
        didSet {
            merged = Self.merge(groups, appGroups)
            encoded = EncodedPermissions()
        }
    }
    /// Each app entry's (and `pre_DataConsent`'s) groups merged once, not per request.
    private var merged: [String: [String: Permission]]
    /// The app types each app entry allows (`AppHMIType`), by app ID; an app without a list may
    /// register with any type but WEB_VIEW.
    public var appHMITypes: [String: [AppHMIType]] = [:]
    /// App entries with their own `encryption_required` (false lifts the groups' requirement).
    public var appEncryptionRequired: [String: Bool] = [:] { didSet { encoded = EncodedPermissions() } }
    /// OnPermissionsChange as sent, by app entry: shared by the copies of this policy (every
    /// vehicle of `sdl headunit --cloud-apps N` starts from one), made again when it changes.
    private var encoded = EncodedPermissions()

    /// A policy built in code; `init(parsing:)` reads SDL Core's JSON policy table instead.
    public init(groups: [String: [String: Permission]], appGroups: [String: [String]]) {
        self.groups = groups
        self.appGroups = appGroups
        self.merged = Self.merge(groups, appGroups)
    }

    private static func merge(_ groups: [String: [String: Permission]], _ appGroups: [String: [String]]) -> [String: [String: Permission]] {
        appGroups.mapValues { names in
            var merged: [String: Permission] = [:]
            for name in names {
                for (rpc, permission) in groups[name] ?? [:] {
                    if var existing = merged[rpc] {
                        existing.levels.formUnion(permission.levels)
                        existing.requiresEncryption = existing.requiresEncryption || permission.requiresEncryption
                        if let parameters = permission.parameters { existing.parameters = (existing.parameters ?? []).union(parameters) }
                        merged[rpc] = existing
                    } else {
                        merged[rpc] = permission
                    }
                }
            }
            return merged
        }
    }

    /// The same policy with `group` added to the app's entry (made from `default` when the app
    /// has none), as an OEM grants an app a functional group: `HapticGroup` for touches, say.
    public func granting(_ group: String, to appID: String) -> SDLHeadUnitPolicy {
        var policy = self
        var groups = appGroups[appID] ?? appGroups["default"] ?? []
        if !groups.contains(group) { groups.append(group) }
        policy.appGroups[appID] = groups
        return policy
    }

    /// The same policy with `rpcs` in a functional group that has `encryption_required`, given
    /// to every app entry: sent in plain text they are answered ENCRYPTION_NEEDED, and
    /// OnPermissionsChange marks them `requireEncryption` (`sdl headunit --encryption-required`).
    public func requiringEncryption(for rpcs: [String], group: String = "EncryptionRequired") -> SDLHeadUnitPolicy {
        var policy = self
        // The levels the other groups allow, so only the encryption changes.
        func levels(of rpc: String) -> Set<HMILevel> {
            let known = groups.values.compactMap { $0[rpc]?.levels }
            return known.isEmpty ? [.none, .background, .limited, .full] : known.reduce(into: []) { $0.formUnion($1) }
        }
        policy.groups[group] = Dictionary(uniqueKeysWithValues: rpcs.map { ($0, Permission(levels: levels(of: $0), requiresEncryption: true)) })
        for entry in policy.appGroups.keys where !(policy.appGroups[entry]?.contains(group) ?? true) { policy.appGroups[entry]?.append(group) }
        return policy
    }

    /// The policy's answer to one request.
    public enum Decision: Sendable, Hashable {
        /// The request goes on to the head unit's rules.
        case allowed
        /// The request is answered `success=false`, DISALLOWED, with this text as `info`.
        case disallowed(String)
    }

    /// Each RPC's permission for the app, merged across its groups.
    func permissions(for appID: String, updated: Bool) -> [String: Permission] {
        merged[entry(for: appID, updated: updated)] ?? [:]
    }

    /// The app entry that decides for the app: `pre_DataConsent` until its policy update (when
    /// the policy has one), then its own, else `default`.
    private func entry(for appID: String, updated: Bool) -> String {
        if !updated, merged["pre_DataConsent"] != nil { return "pre_DataConsent" }
        return merged[appID] != nil ? appID : "default"
    }

    /// Whether `function` may run now; parameters the policy lists must be among the allowed.
    public func decide(_ function: String, level: HMILevel, appID: String, updated: Bool, parameters: @autoclosure () -> [String]) -> Decision {
        if ["RegisterAppInterface", "UnregisterAppInterface"].contains(function) { return .allowed }
        guard let permission = permissions(for: appID, updated: updated)[function] else {
            return .disallowed("\(function) is not allowed by the policies of this app")
        }
        guard permission.levels.contains(level) else {
            let allowed = permission.levels.map(\.rawValue).sorted().joined(separator: ", ")
            return .disallowed("\(function) is not allowed in HMI level \(level.rawValue) (allowed in \(allowed))")
        }
        if let allowed = permission.parameters, case let asked = parameters(), !asked.isEmpty, !asked.contains(where: allowed.contains) {
            return .disallowed("Requested parameters are disallowed by Policies")
        }
        return .allowed
    }

    /// Whether `function` must come encrypted from the app: a group of its entry requires it and
    /// the entry does not say `encryption_required: false` (SDL Core's rule).
    public func requiresEncryption(_ function: String, appID: String, updated: Bool) -> Bool {
        appRequiresEncryption(appID) && permissions(for: appID, updated: updated)[function]?.requiresEncryption == true
    }

    /// The app entry's `encryption_required` (absent: true, the groups decide).
    private func appRequiresEncryption(_ appID: String) -> Bool {
        appEncryptionRequired[appID] ?? appEncryptionRequired["default"] ?? true
    }

    /// The parameters the policy allows for `function` (nil: no parameter permissions).
    func allowedParameters(_ function: String, appID: String, updated: Bool) -> Set<String>? {
        permissions(for: appID, updated: updated)[function]?.parameters
    }

    /// OnPermissionsChange for the app as JSON: encoded once per app entry (and encryption flag)
    /// for this policy and its copies, not per app or per vehicle.
    func permissionsChangeJSON(for appID: String, updated: Bool) -> [UInt8] {
        encoded.json(for: EncodedPermissions.Key(entry: entry(for: appID, updated: updated), encryption: appRequiresEncryption(appID))) {
            (try? SDLJSON.encode(permissionsChange(for: appID, updated: updated))) ?? Array("{}".utf8)
        }
    }

    /// OnPermissionsChange for the app: every RPC of its groups.
    func permissionsChange(for appID: String, updated: Bool) -> OnPermissionsChange {
        let order: [HMILevel] = [.background, .full, .limited, .none]
        let appRequires = appRequiresEncryption(appID)
        let items = permissions(for: appID, updated: updated).sorted { $0.key < $1.key }.map { rpc, permission in
            let encrypted = appRequires && permission.requiresEncryption
            return PermissionItem(
                rpcName: rpc,
                hmiPermissions: HMIPermissions(allowed: order.filter(permission.levels.contains), userDisallowed: []),
                parameterPermissions: ParameterPermissions(allowed: (permission.parameters ?? []).sorted(), userDisallowed: []),
                requireEncryption: encrypted ? true : nil)
        }
        // The top-level flag: some RPC of the app needs encryption.
        let any = items.contains { $0.requireEncryption == true }
        return OnPermissionsChange(permissionItem: items, requireEncryption: any ? true : nil)
    }

    // MARK: Reading SDL Core's format

    /// Reads a policy table (with or without the `policy_table` wrapper). Other SDL Core keys
    /// (`module_config`, `consumer_friendly_messages`...) are ignored; errors name the JSON path.
    public init(parsing bytes: [UInt8]) throws(SDLHeadUnitPolicyError) {
        let document: SDLJSONValue
        do {
            document = try SDLJSONValue(parsing: bytes)
        } catch {
            throw .invalid(path: "", "not JSON: \(error)")
        }
        let table = document["policy_table"] ?? document
        let tablePath = document["policy_table"] == nil ? "" : "policy_table."
        guard case .object(let groupMembers)? = table["functional_groupings"] else {
            throw .invalid(path: tablePath + "functional_groupings", "expected an object of functional groups")
        }
        var groups: [String: [String: Permission]] = [:]
        for group in groupMembers {
            let groupPath = "\(tablePath)functional_groupings.\(group.key)"
            guard case .object = group.value else { throw .invalid(path: groupPath, "expected an object") }
            var encryption = false
            if let flag = group.value["encryption_required"] {
                guard case .bool(let value) = flag else { throw .invalid(path: "\(groupPath).encryption_required", "expected true or false") }
                encryption = value
            }
            guard let rpcsValue = group.value["rpcs"] else {
                groups[group.key] = [:]
                continue
            }
            if case .null = rpcsValue {
                groups[group.key] = [:]
                continue
            }
            guard case .object(let rpcs) = rpcsValue else { throw .invalid(path: "\(groupPath).rpcs", "expected an object") }
            var permissions: [String: Permission] = [:]
            for rpc in rpcs {
                let rpcPath = "\(groupPath).rpcs.\(rpc.key)"
                guard case .array(let levels)? = rpc.value["hmi_levels"] else {
                    throw .invalid(path: "\(rpcPath).hmi_levels", "expected an array of HMI levels")
                }
                var set: Set<HMILevel> = []
                for (index, level) in levels.enumerated() {
                    guard case .string(let name) = level, HMILevel(rawValue: name).isRecognized else {
                        throw .invalid(path: "\(rpcPath).hmi_levels[\(index)]", "\(level.jsonString) is not an HMI level")
                    }
                    set.insert(HMILevel(rawValue: name))
                }
                var parameters: Set<String>?
                if let value = rpc.value["parameters"] {
                    guard case .array(let names) = value else { throw .invalid(path: "\(rpcPath).parameters", "expected an array of names") }
                    var collected: Set<String> = []
                    for (index, name) in names.enumerated() {
                        guard case .string(let text) = name else { throw .invalid(path: "\(rpcPath).parameters[\(index)]", "expected a string") }
                        collected.insert(text)
                    }
                    parameters = collected
                }
                permissions[rpc.key] = Permission(levels: set, parameters: parameters, requiresEncryption: encryption)
            }
            groups[group.key] = permissions
        }
        guard case .object(let appMembers)? = table["app_policies"] else {
            throw .invalid(path: tablePath + "app_policies", "expected an object of app entries")
        }
        var appGroups: [String: [String]] = [:]
        var appTypes: [String: [AppHMIType]] = [:]
        var appEncryption: [String: Bool] = [:]
        for app in appMembers {
            let appPath = "\(tablePath)app_policies.\(app.key)"
            // SDL Core allows an entry to name another (`"default"`); follow it.
            if case .string(let alias) = app.value {
                appGroups[app.key] = appMembers.first { $0.key == alias }.flatMap { Self.groupList($0.value) } ?? []
                continue
            }
            guard case .array(let names)? = app.value["groups"] else { throw .invalid(path: "\(appPath).groups", "expected an array of group names") }
            var list: [String] = []
            for (index, name) in names.enumerated() {
                guard case .string(let text) = name else { throw .invalid(path: "\(appPath).groups[\(index)]", "expected a string") }
                guard groups[text] != nil else { throw .invalid(path: "\(appPath).groups[\(index)]", "no functional group named \(text)") }
                list.append(text)
            }
            appGroups[app.key] = list
            if let flag = app.value["encryption_required"] {
                guard case .bool(let value) = flag else { throw .invalid(path: "\(appPath).encryption_required", "expected true or false") }
                appEncryption[app.key] = value
            }
            if case .array(let types)? = app.value["AppHMIType"] {
                appTypes[app.key] = types.compactMap { if case .string(let name) = $0 { AppHMIType(rawValue: name) } else { nil } }
            }
        }
        self.init(groups: groups, appGroups: appGroups)
        self.appHMITypes = appTypes
        self.appEncryptionRequired = appEncryption
    }

    /// SDL Core's check of a registration's app types against the app's entry: WEB_VIEW the entry
    /// does not list is refused (`disallowed`); other types it does not list are replaced by the
    /// entry's, with a warning (`replaced`).
    enum AppTypeCheck: Sendable, Hashable {
        case allowed
        case disallowed(String)
        case replaced(with: [AppHMIType], info: String)
    }

    func checkAppTypes(_ requested: [AppHMIType], appID: String) -> AppTypeCheck {
        guard let listed = appHMITypes[appID], !listed.isEmpty else {
            return requested.contains(.webView)
                ? .disallowed("WEB_VIEW AppHmiType is absent in application policies, because they are empty") : .allowed
        }
        if requested.contains(.webView), !listed.contains(.webView) {
            return .disallowed("WEB_VIEW AppHmiType is absent in application policies")
        }
        let missing = requested.filter { !listed.contains($0) }
        guard !missing.isEmpty else { return .allowed }
        return .replaced(with: listed, info: "Following AppHmiTypes are not present in policy table:" + missing.map { $0.rawValue + "," }.joined())
    }

    private static func groupList(_ value: SDLJSONValue) -> [String]? {
        guard case .array(let names)? = value["groups"] else { return nil }
        return names.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    // MARK: The built-in default

    /// SDL Core's preloaded defaults as an app on SDL Core 8.2 sees them (the two
    /// OnPermissionsChange of a recorded session): before the policy update only "Base-4": in
    /// NONE what registration, files, global properties and system requests need (so Show,
    /// AddCommand, Alert and SubscribeButton are DISALLOWED there); Alert, Speak,
    /// PerformInteraction and PerformAudioPassThru in FULL and LIMITED; Slider,
    /// ScrollableMessage and ShowAppMenu in FULL only; the rest from BACKGROUND up. The update
    /// adds vehicle data, Alert in BACKGROUND, the navigation RPCs (AlertManeuver,
    /// ShowConstantTBT, UpdateTurnList) and diagnostics. RPCs Core's default app is not granted
    /// at all (app services, remote control, DialNumber, SendLocation, widgets...) the emulator
    /// grants from BACKGROUND up, so apps can use every feature; OnTouchEvent only with SDL
    /// Core's HapticGroup or OnTouchEventOnlyGroup.
    public static var sdlCoreDefault: SDLHeadUnitPolicy {
        let all: Set<HMILevel> = [.none, .background, .limited, .full]
        let visible: Set<HMILevel> = [.background, .limited, .full]
        let foreground: Set<HMILevel> = [.limited, .full]
        let fullOnly: Set<HMILevel> = [.full]
        let inNone: Set<String> = [
            "PutFile", "ListFiles", "DeleteFile", "SetAppIcon", "SystemRequest", "ChangeRegistration", "GetSystemCapability",
            "SetGlobalProperties", "ResetGlobalProperties", "SetDisplayLayout", "EncodedSyncPData", "RegisterAppInterface",
            "UnregisterAppInterface", "OnHMIStatus", "OnPermissionsChange", "OnHashChange", "OnSystemRequest", "OnAppInterfaceUnregistered",
            "OnLanguageChange", "OnDriverDistraction", "OnSystemCapabilityUpdated", "OnEncodedSyncPData",
            // Not in Core's default groups; the emulator lets a service provider publish from NONE.
            "PublishAppService", "UnpublishAppService", "GetAppServiceData", "PerformAppServiceInteraction", "OnAppServiceData",
        ]
        let fullOnlyRPCs: Set<String> = ["Slider", "ScrollableMessage", "ShowAppMenu"]
        let foregroundRPCs: Set<String> = ["Alert", "Speak", "PerformInteraction", "PerformAudioPassThru", "DialNumber"]
        let vehicleRPCs: Set<String> = ["GetVehicleData", "SubscribeVehicleData", "UnsubscribeVehicleData", "OnVehicleData"]
        let navigation: Set<String> = ["AlertManeuver", "ShowConstantTBT", "UpdateTurnList", "OnTBTClientState"]
        let diagnostics: Set<String> = ["DiagnosticMessage", "GetDTCs", "ReadDID"]
        let afterUpdate = navigation.union(diagnostics)
        var base: [String: Permission] = [:]
        let names = MobileAPI.requests.map { $0.functionName } + MobileAPI.notifications.map { $0.functionName }
        for name in names where !vehicleRPCs.contains(name) && !afterUpdate.contains(name) && name != "OnTouchEvent" {
            let levels = inNone.contains(name) ? all : fullOnlyRPCs.contains(name) ? fullOnly : foregroundRPCs.contains(name) ? foreground : visible
            base[name] = Permission(levels: levels, parameters: nil)
        }
        base["GenericResponse"] = Permission(levels: visible, parameters: nil)
        let items = Set(SDLSimulatedVehicle.itemNames).union(SDLSimulatedVehicle.defaultCustomValues.keys)
        var vehicle: [String: Permission] = [:]
        for name in vehicleRPCs {
            // Core's group lets an app read the VIN but not subscribe to it.
            let granted = name == "SubscribeVehicleData" || name == "UnsubscribeVehicleData" ? items.subtracting(["vin"]) : items
            vehicle[name] = Permission(levels: visible, parameters: granted)
        }
        func group(_ names: Set<String>) -> [String: Permission] {
            Dictionary(uniqueKeysWithValues: names.map { ($0, Permission(levels: visible, parameters: nil)) })
        }
        let touch = group(["OnTouchEvent"])
        return SDLHeadUnitPolicy(
            groups: [
                "Base-4": base, "VehicleInfo-3": vehicle, "Notifications": group(["Alert"]), "Navigation-1": group(navigation),
                "PropriataryData-1": group(diagnostics), "OnTouchEventOnlyGroup": touch, "HapticGroup": touch,
            ],
            appGroups: [
                "default": ["Base-4", "VehicleInfo-3", "Notifications", "Navigation-1", "PropriataryData-1"], "pre_DataConsent": ["Base-4"],
            ])
    }
}

/// Why a policy table could not be read (`SDLHeadUnitPolicy.init(parsing:)`).
public enum SDLHeadUnitPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value at `path` (e.g. `policy_table.app_policies.default.groups`) is not what SDL Core
    /// expects there; the second string says why.
    case invalid(path: String, String)

    /// `path: reason`, ready for a command-line error message.
    public var description: String {
        switch self {
        case .invalid(let path, let reason): path.isEmpty ? reason : "\(path): \(reason)"
        }
    }
}

/// Encoded OnPermissionsChange by app entry, behind a lock: the policy is a value copied into
/// every vehicle, this reference is what the copies share. Equal whatever it holds, so the
/// policy's equality is its tables'.
private final class EncodedPermissions: Sendable, Hashable {
    struct Key: Hashable {
        var entry: String
        var encryption: Bool
    }

    private let table = Mutex<[Key: [UInt8]]>([:])

    func json(for key: Key, make: () -> [UInt8]) -> [UInt8] {
        if let json = table.withLock({ $0[key] }) { return json }
        let json = make()
        table.withLock { $0[key] = json }
        return json
    }

    static func == (a: EncodedPermissions, b: EncodedPermissions) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
