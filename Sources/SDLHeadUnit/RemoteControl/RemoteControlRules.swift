import SDLProtocol
import SDLRPC
import SDLRuntime

/// Remote control as SDL Core runs it: only REMOTE_CONTROL apps, modules addressed by type and
/// 6.0 module ID (the type's default module without one), the user's seat against each
/// module's service area, one app holding a module at a time (another takes it over only when
/// the module allows multiple access and the driver consented), read-only settings, and
/// OnInteriorVehicleData / OnRCStatus to the apps concerned.
extension SDLHeadUnitEmulator {
    /// DISALLOWED for an app whose `appHMIType` lacks REMOTE_CONTROL; nil for an RC app.
    private func remoteControlRefusal(_ appID: String) -> Reply? {
        guard apps[appID]?.appTypes.contains(.remoteControl) == true else {
            return .failure(.disallowed, "the app is not a remote-control app")
        }
        return nil
    }

    /// The module `type`/`id` addresses, or the UNSUPPORTED_RESOURCE answer.
    private func module(_ type: ModuleType, id: String?) -> Result<Int, RemoteControlRefusal> {
        guard let index = remoteControl.index(of: type, id: id) else {
            let what = id.map { "\(type.rawValue) module with ID \($0)" } ?? "\(type.rawValue) module"
            return .failure(RemoteControlRefusal(reply: .failure(.unsupportedResource, "the car has no \(what)")))
        }
        return .success(index)
    }

    /// The module an RC app addresses: DISALLOWED for an app that is not one, UNSUPPORTED_RESOURCE
    /// for a module the car lacks.
    private func controlledModule(_ type: ModuleType, id: String?, appID: String) -> Result<Int, RemoteControlRefusal> {
        if let refusal = remoteControlRefusal(appID) { return .failure(RemoteControlRefusal(reply: refusal)) }
        return module(type, id: id)
    }

    /// Gives the module to the app for a change (SetInteriorVehicleData, ButtonPress): REJECTED
    /// from outside its service area, else `allocate`'s answer.
    private func take(_ module: RemoteControlModule, for appID: String) -> Result<[Effect], RemoteControlRefusal> {
        if let refusal = seatRefusal(appID, module: module) { return .failure(RemoteControlRefusal(reply: refusal)) }
        return allocate(module.key, to: appID, shared: module.info.allowMultipleAccess ?? true)
    }

    /// The app's seat: SetGlobalProperties `userLocation.grid`, the driver's seat by default.
    func userSeat(of appID: String) -> SDLGrid {
        if let grid = apps[appID]?.screen.globalProperties["userLocation"]?["grid"],
            let seat = try? SDLJSON.decode(SDLGrid.self, from: grid.jsonBytes).value
        {
            return seat
        }
        return RemoteControlState.driverSeat
    }

    /// REJECTED when the app's seat is outside the module's service area.
    private func seatRefusal(_ appID: String, module: RemoteControlModule) -> Reply? {
        let seat = userSeat(of: appID)
        // The driver's seat may control every module, whatever its service area. A missing level
        // or span takes its spec default (0, 1): {col 0, row 0} is the driver however written.
        let driver = RemoteControlState.driverSeat
        func normalized(_ grid: SDLGrid) -> [Int] { [grid.col, grid.row, grid.level ?? 0, grid.colspan ?? 1, grid.rowspan ?? 1, grid.levelspan ?? 1] }
        if normalized(seat) == normalized(driver) { return nil }
        guard let area = module.info.serviceArea ?? module.info.location, !area.contains(seat) else { return nil }
        return .failure(.rejected, "the user's seat (col \(seat.col), row \(seat.row)) is outside the service area of \(module.info.moduleId)")
    }

    /// Gives the module to the app (SetInteriorVehicleData, ButtonPress): a free module is
    /// allocated, one of another app is taken over only with multiple access and the driver's
    /// consent, else IN_USE. The effects are the OnRCStatus notifications of a change.
    private func allocate(_ key: ModuleKey, to appID: String, shared: Bool) -> Result<[Effect], RemoteControlRefusal> {
        if let holder = remoteControl.allocations[key], holder != appID {
            guard shared, remoteControl.consents[appID]?[key] == true else {
                let reason = shared ? "the driver has not consented to the app taking it" : "it cannot be shared"
                return .failure(RemoteControlRefusal(reply: .failure(.inUse, "\(key) is in use by another app and \(reason)")))
            }
        } else if remoteControl.allocations[key] == appID {
            return .success([])
        }
        remoteControl.allocations[key] = appID
        return .success(remoteControlStatusEffects())
    }

    /// OnRCStatus to every RC app of RPC 5.0+: the modules it holds and the free ones.
    func remoteControlStatusEffects() -> [Effect] {
        apps.values.sorted { $0.connectionID < $1.connectionID }.compactMap { app in remoteControlStatus(to: app.appID) }
    }

    /// OnRCStatus for one app (nil for an app that is not an RC app of RPC 5.0+).
    func remoteControlStatus(to appID: String) -> Effect? {
        guard let app = apps[appID], app.appTypes.contains(.remoteControl), app.rpcVersion.majorVersion >= 5 else { return nil }
        let allocated = remoteControl.modules.filter { remoteControl.allocations[$0.key] == appID }.map(\.referenceJSON)
        let free = remoteControl.modules.filter { remoteControl.allocations[$0.key] == nil }.map(\.referenceJSON)
        let json = SDLJSONValue.object([
            .init(key: "allowed", value: .bool(true)), .init(key: "allocatedModules", value: .array(allocated)),
            .init(key: "freeModules", value: .array(free)),
        ])
        return .notify(
            appID: appID,
            SDLRPCPayload(
                rpcType: .notification, functionID: OnRCStatus.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID, json: json.jsonBytes))
    }

    /// OnInteriorVehicleData with the module's data to every app subscribed to it.
    private func moduleChanged(_ index: Int) -> [Effect] {
        let module = remoteControl.modules[index]
        let json = SDLJSONValue.object([.init(key: "moduleData", value: module.moduleDataJSON)])
        return remoteControl.subscriptions.keys.sorted().filter { remoteControl.subscriptions[$0]?.contains(module.key) == true && apps[$0] != nil }.map {
            .notify(
                appID: $0,
                SDLRPCPayload(
                    rpcType: .notification, functionID: OnInteriorVehicleData.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                    json: json.jsonBytes))
        }
    }

    /// An RC app went away: the modules it held are free again (the other RC apps hear it), its
    /// subscriptions and consents go.
    func remoteControlAppGone(_ appID: String) -> [Effect] {
        remoteControl.subscriptions[appID] = nil
        remoteControl.consents[appID] = nil
        let held = remoteControl.allocations.filter { $0.value == appID }.map(\.key)
        guard !held.isEmpty else { return [] }
        for key in held { remoteControl.allocations[key] = nil }
        return remoteControlStatusEffects()
    }

    // MARK: Requests

    func getInteriorVehicleData(_ request: GetInteriorVehicleData, appID: String) -> (Reply, [Effect]) {
        let index: Int
        switch controlledModule(request.moduleType, id: request.moduleId, appID: appID) {
        case .success(let found): index = found
        case .failure(let refusal): return (refusal.reply, [])
        }
        let module = remoteControl.modules[index]
        var extra: [SDLJSONValue.Member] = [.init(key: "moduleData", value: module.moduleDataJSON)]
        if let subscribe = request.subscribe {
            if subscribe {
                remoteControl.subscriptions[appID, default: []].insert(module.key)
            } else {
                remoteControl.subscriptions[appID]?.remove(module.key)
            }
            extra.append(.init(key: "isSubscribed", value: .bool(subscribe)))
            // Module subscriptions are resumption data: SDL Core sends OnHashChange.
            return (.success(extra: extra), [hashChange(of: appID)])
        }
        return (.success(extra: extra), [])
    }

    func setInteriorVehicleData(_ request: SetInteriorVehicleData, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        let type = request.moduleData.moduleType
        let index: Int
        switch controlledModule(type, id: request.moduleData.moduleId, appID: appID) {
        case .success(let found): index = found
        case .failure(let refusal): return (refusal.reply, [])
        }
        let module = remoteControl.modules[index]
        guard case .object(let moduleMembers)? = (try? SDLJSONValue(parsing: rpc.json))?["moduleData"] else {
            return (.failure(.invalidData, "RPC.msg_params: moduleData is missing"), [])
        }
        let controlKeys = moduleMembers.map(\.key).filter { $0.hasSuffix("ControlData") }
        guard let requested = moduleMembers.first(where: { $0.key == module.dataKey })?.value, case .object(let settings) = requested else {
            let sent = controlKeys.isEmpty ? "no control data" : controlKeys.joined(separator: ", ")
            return (.failure(.invalidData, "moduleData for a \(type.rawValue) module carries \(sent), not \(module.dataKey)"), [])
        }
        if let other = controlKeys.first(where: { $0 != module.dataKey }) {
            return (.failure(.invalidData, "moduleData for a \(type.rawValue) module also carries \(other)"), [])
        }
        // SDL Core: only read-only settings → READ_ONLY; read-only ones among others are cut off.
        let settable = settings.filter { !module.readOnlyKeys.contains($0.key) && !(type == .seat && $0.key == "id") }
        guard !settable.isEmpty else {
            if settings.contains(where: { module.readOnlyKeys.contains($0.key) }) {
                return (.failure(.readOnly, "All request params in module type are read only."), [])
            }
            return (.failure(.invalidData, "\(module.dataKey) has nothing to set"), [])
        }
        var effects: [Effect]
        switch take(module, for: appID) {
        case .success(let status): effects = status
        case .failure(let refusal): return (refusal.reply, [])
        }
        remoteControl.modules[index].controlData = Self.merge(module.controlData, with: settable)
        effects += moduleChanged(index)
        return (.success(extra: [.init(key: "moduleData", value: remoteControl.modules[index].moduleDataJSON)]), effects)
    }

    func getInteriorVehicleDataConsent(_ request: GetInteriorVehicleDataConsent, appID: String) -> (Reply, [Effect]) {
        if let refusal = remoteControlRefusal(appID) { return (refusal, []) }
        var keys: [ModuleKey] = []
        for id in request.moduleIds {
            guard let index = remoteControl.index(of: request.moduleType, id: id) else {
                return (.failure(.invalidData, "the car has no \(request.moduleType.rawValue) module with ID \(id)"), [])
            }
            keys.append(remoteControl.modules[index].key)
        }
        let answer = remoteControl.consent
        for key in keys { remoteControl.consents[appID, default: [:]][key] = answer }
        return (.success(extra: [.init(key: "allowed", value: .array(keys.map { _ in .bool(answer) }))]), [])
    }

    /// The HMI's answer to RC.GetInteriorVehicleDataConsent: its `allowed`, module by module
    /// (refused or unanswered: none allowed).
    func recordConsents(_ answer: Reply, moduleType: ModuleType, ids: [String], appID: String) {
        let allowed: [SDLJSONValue] =
            if answer.success, case .array(let list)? = answer.fields.first(where: { $0.key == "allowed" })?.value { list } else { [] }
        for (position, id) in ids.enumerated() {
            guard let index = remoteControl.index(of: moduleType, id: id) else { continue }
            remoteControl.consents[appID, default: [:]][remoteControl.modules[index].key] = position < allowed.count && allowed[position] == .bool(true)
        }
    }

    func releaseInteriorVehicleDataModule(_ request: ReleaseInteriorVehicleDataModule, appID: String) -> (Reply, [Effect]) {
        let index: Int
        switch controlledModule(request.moduleType, id: request.moduleId, appID: appID) {
        case .success(let found): index = found
        case .failure(let refusal): return (refusal.reply, [])
        }
        let key = remoteControl.modules[index].key
        guard remoteControl.allocations[key] == appID else {
            return (.failure(.ignored, "\(key) is not allocated to the app"), [])
        }
        remoteControl.allocations[key] = nil
        return (.success(), remoteControlStatusEffects())
    }

    func buttonPress(_ request: ButtonPress, appID: String) -> (Reply, [Effect]) {
        let index: Int
        switch controlledModule(request.moduleType, id: request.moduleId, appID: appID) {
        case .success(let found): index = found
        case .failure(let refusal): return (refusal.reply, [])
        }
        let module = remoteControl.modules[index]
        guard module.buttons.contains(request.buttonName) else {
            return (.failure(.invalidData, "\(module.info.moduleId) has no \(request.buttonName.rawValue) button"), [])
        }
        var effects: [Effect]
        switch take(module, for: appID) {
        case .success(let status): effects = status
        case .failure(let refusal): return (refusal.reply, [])
        }
        let pressed = Self.press(request.buttonName, on: module.controlData)
        if pressed != module.controlData {
            remoteControl.modules[index].controlData = pressed
            effects += moduleChanged(index)
        }
        return (.success(), effects)
    }

    // MARK: Settings

    /// `settings` merged into `data` member by member; lights merge by their `id`.
    static func merge(_ data: SDLJSONValue, with settings: [SDLJSONValue.Member]) -> SDLJSONValue {
        guard case .object(var members) = data else { return .object(settings) }
        for setting in settings {
            var value = setting.value
            if setting.key == "lightState", case .array(let current)? = data["lightState"], case .array(let changes) = setting.value {
                var lights = current
                for change in changes {
                    if let position = lights.firstIndex(where: { $0["id"] == change["id"] }), case .object(let changed) = change {
                        lights[position] = merge(lights[position], with: changed)
                    } else {
                        lights.append(change)
                    }
                }
                value = .array(lights)
            }
            if let position = members.firstIndex(where: { $0.key == setting.key }) {
                members[position].value = value
            } else {
                members.append(.init(key: setting.key, value: value))
            }
        }
        return .object(members)
    }

    /// What a climate button does to the settings (other buttons change nothing the app sees).
    static func press(_ button: ButtonName, on data: SDLJSONValue) -> SDLJSONValue {
        func toggled(_ key: String) -> [SDLJSONValue.Member] {
            [.init(key: key, value: .bool(data[key] != .bool(true)))]
        }
        func fan(_ step: Int) -> [SDLJSONValue.Member] {
            guard case .integer(let speed)? = data["fanSpeed"] else { return [] }
            return [.init(key: "fanSpeed", value: .integer(min(100, max(0, speed + step))))]
        }
        func temperature(_ step: Double) -> [SDLJSONValue.Member] {
            guard let desired = data["desiredTemperature"], case .string(let unit)? = desired["unit"] else { return [] }
            let value: Double
            switch desired["value"] {
            case .float(let number)?: value = number
            case .integer(let number)?: value = Double(number)
            default: return []
            }
            return [
                .init(
                    key: "desiredTemperature",
                    value: .object([
                        .init(key: "unit", value: .string(unit)), .init(key: "value", value: .float(value + step)),
                    ]))
            ]
        }
        switch button {
        case .ac: return merge(data, with: toggled("acEnable"))
        case .acMax: return merge(data, with: toggled("acMaxEnable"))
        case .recirculate: return merge(data, with: toggled("circulateAirEnable"))
        case .fanUp: return merge(data, with: fan(10))
        case .fanDown: return merge(data, with: fan(-10))
        case .tempUp: return merge(data, with: temperature(0.5))
        case .tempDown: return merge(data, with: temperature(-0.5))
        default: return data
        }
    }

    // MARK: The driver

    /// The module's settings now; `moduleID` nil: the type's default module.
    public func moduleData(_ type: ModuleType, moduleID: String? = nil) -> ModuleData? {
        guard let index = remoteControl.index(of: type, id: moduleID) else { return nil }
        return try? SDLJSON.decode(ModuleData.self, from: remoteControl.modules[index].moduleDataJSON.jsonBytes).value
    }

    /// The driver (or the car) changes a module: the settings in `data` are merged into the
    /// module's (read-only ones included), and apps subscribed to it get OnInteriorVehicleData.
    /// Without `moduleId` the type's default module changes.
    public func setModuleData(_ data: ModuleData) async throws(SDLHeadUnitControlError) {
        guard let index = remoteControl.index(of: data.moduleType, id: data.moduleId) else {
            throw .unknownModule([data.moduleType.rawValue, data.moduleId].compactMap { $0 }.joined(separator: " "))
        }
        let key = remoteControl.modules[index].dataKey
        guard case .object(let settings)? = RemoteControlModule.json(data)[key] else {
            throw .invalidAnswer("a \(data.moduleType.rawValue) module's data goes in \(key)")
        }
        let type = data.moduleType
        let merged = Self.merge(remoteControl.modules[index].controlData, with: settings.filter { !(type == .seat && $0.key == "id") })
        remoteControl.modules[index].controlData = merged
        await perform(moduleChanged(index))
    }

    /// The driver's answer to the next GetInteriorVehicleDataConsent requests.
    public func setRemoteControlConsent(_ allowed: Bool) {
        remoteControl.consent = allowed
    }
}

/// A remote-control request's refusal, as an error so lookups can return it.
struct RemoteControlRefusal: Error {
    let reply: Reply
}
