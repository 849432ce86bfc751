import Logging
import SDLRPC
import SDLRuntime

/// One module the app may control: climate, radio, seat, audio, light or HMI settings, with
/// its RPC 6.0 `moduleInfo` (nil before 6.0: one module per type, the default).
public struct SDLRemoteControlModule: Sendable, Hashable {
    /// The kind of module: climate, radio, seat, audio, light or HMI settings.
    public let type: ModuleType
    /// The module's name from the head unit's remote-control capabilities, for showing to the user.
    public let name: String
    /// Its RPC 6.0 `moduleInfo`: module ID, location, service area, shared access.
    public let info: ModuleInfo?
    /// The module ID to address it by (RPC 6.0+); nil means the type's default module.
    public var id: String? { info?.moduleId }
    /// Where the module serves: its service area, else its location, else the whole vehicle
    /// (nil), as the guide describes.
    public var serviceArea: SDLGrid? { info?.serviceArea ?? info?.location }
}

/// Remote control of the car's modules (RPC 4.5+): read, subscribe, set and press buttons,
/// with the guide's rules checked before sending.
///
/// - The app's `appTypes` must include REMOTE_CONTROL.
/// - On RPC 6.0+ a type may have several modules, addressed by module ID (the head unit's
///   default module when none is given).
/// - The user's seat (``setSeat(_:)``; the driver's by default) must be inside a module's service
///   area to set it or press its buttons.
/// - Before setting a module that several users may share (`allowMultipleAccess`), the driver's
///   consent is asked (GetInteriorVehicleDataConsent, RPC 6.0+) once; a refusal throws
///   `consentDenied` and nothing is set.
/// - Subscriptions read OnInteriorVehicleData from before the subscribing request, and are
///   renewed after a reconnection.
public actor SDLRemoteControlManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLSubManagerContext
    private let logger: Logger
    /// The user's seat; the driver's until set.
    public private(set) var seat = SeatLocation(grid: SDLGrid(col: 0, row: 0, level: 0, colspan: 1, rowspan: 1, levelspan: 1))
    private var consents: [ModuleKey: Bool] = [:]
    private var readers: [ModuleKey: [Int: AsyncStream<ModuleData>.Continuation]] = [:]
    private var nextReader = 0
    /// Whether the module-data listener runs (a child of the manager's run, started on first use).
    private var listening = false

    struct ModuleKey: Hashable {
        let type: ModuleType
        let id: String?
    }

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// The context while a manager is behind it.
    private var current: (any SDLSubManagerContext)? { context.isAttached ? context : nil }

    /// The same on `context` alone, for tests without a manager.
    init(context: any SDLSubManagerContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    // MARK: Modules

    /// The modules the head unit offers (REMOTE_CONTROL capability).
    public func modules() async throws -> [SDLRemoteControlModule] {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            return try await modules(manager)
        } catch {
            throw SDLError(error)
        }
    }

    private func modules(_ manager: any SDLSubManagerContext) async throws(SDLFeatureError) -> [SDLRemoteControlModule] {
        guard let capabilities = await manager.capability(.remoteControl)?.remoteControlCapability else {
            throw .unsupported("the head unit has no remote control")
        }
        var modules: [SDLRemoteControlModule] = []
        for climate in capabilities.climateControlCapabilities ?? [] {
            modules.append(.init(type: .climate, name: climate.moduleName, info: climate.moduleInfo))
        }
        for radio in capabilities.radioControlCapabilities ?? [] { modules.append(.init(type: .radio, name: radio.moduleName, info: radio.moduleInfo)) }
        for seat in capabilities.seatControlCapabilities ?? [] { modules.append(.init(type: .seat, name: seat.moduleName, info: seat.moduleInfo)) }
        for audio in capabilities.audioControlCapabilities ?? [] { modules.append(.init(type: .audio, name: audio.moduleName, info: audio.moduleInfo)) }
        if let light = capabilities.lightControlCapabilities { modules.append(.init(type: .light, name: light.moduleName, info: light.moduleInfo)) }
        if let settings = capabilities.hmiSettingsControlCapabilities {
            modules.append(.init(type: .hmiSettings, name: settings.moduleName, info: settings.moduleInfo))
        }
        return modules
    }

    /// The module `type`/`id` names: the first of its type (the head unit's default) when `id` is nil.
    private func module(_ type: ModuleType, _ id: String?, _ manager: any SDLSubManagerContext) async throws(SDLFeatureError) -> SDLRemoteControlModule {
        let all = try await modules(manager).filter { $0.type == type }
        guard let module = id.map({ id in all.first { $0.id == id } }) ?? all.first else {
            throw .unsupported("the head unit has no \(type.rawValue) module" + (id.map { " \($0)" } ?? ""))
        }
        return module
    }

    /// Sets the user's seat (SetGlobalProperties `userLocation`, RPC 6.0+): it decides which
    /// modules the user may control. Pick one of the SEAT_LOCATION capability's seats.
    public func setSeat(_ seat: SeatLocation) async throws {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            _ = try await manager.feature(SetGlobalProperties(userLocation: seat))
            self.seat = seat
        } catch {
            throw SDLError(error)
        }
    }

    // MARK: Data

    /// A module's data now (GetInteriorVehicleData).
    public func data(of type: ModuleType, moduleID: String? = nil) async throws -> ModuleData {
        do throws(SDLFeatureError) {
            return try await readData(of: type, moduleID: moduleID)
        } catch {
            throw SDLError(error)
        }
    }

    private func readData(of type: ModuleType, moduleID: String?) async throws(SDLFeatureError) -> ModuleData {
        let manager = try await requireApp()
        _ = try await module(type, moduleID, manager)
        let response = try await manager.feature(GetInteriorVehicleData(moduleType: type, moduleId: moduleID))
        guard let data = response.moduleData else {
            throw .refused(GetInteriorVehicleData.functionName, response.resultCode, info: "no moduleData in the answer")
        }
        return data
    }

    /// A module's data each time it changes (OnInteriorVehicleData), for as long as the sequence
    /// is read; the first element is its data now. The notification is read from before the
    /// subscribing request, as the guide requires; the last reader to leave unsubscribes.
    public func subscribe(to type: ModuleType, moduleID: String? = nil) async throws -> AsyncStream<ModuleData> {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            _ = try await module(type, moduleID, manager)
            startListening(manager)
            let key = ModuleKey(type: type, id: moduleID)
            let (stream, continuation) = AsyncStream<ModuleData>.makeStream(bufferingPolicy: .bufferingNewest(16))
            nextReader += 1
            let id = nextReader
            let first = readers[key, default: [:]].isEmpty
            readers[key, default: [:]][id] = continuation
            let context = self.context
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                context.spawn { await self.readerLeft(key, id) }
            }
            do {
                if first {
                    let response = try await manager.feature(GetInteriorVehicleData(moduleType: type, moduleId: moduleID, subscribe: true))
                    if let data = response.moduleData { continuation.yield(data) }
                } else {
                    continuation.yield(try await readData(of: type, moduleID: moduleID))
                }
            } catch {
                readers[key]?[id] = nil
                continuation.finish()
                throw error
            }
            return stream
        } catch {
            throw SDLError(error)
        }
    }

    private func readerLeft(_ key: ModuleKey, _ id: Int) async {
        guard readers[key]?.removeValue(forKey: id) != nil, readers[key]?.isEmpty == true, let manager = current else { return }
        readers[key] = nil
        _ = try? await manager.send(GetInteriorVehicleData(moduleType: key.type, moduleId: key.id, subscribe: false))
    }

    private func startListening(_ manager: any SDLSubManagerContext) {
        guard !listening else { return }
        let changes = manager.notifications(OnInteriorVehicleData.self)
        listening = context.spawn { [weak self] in
            for await change in changes { await self?.deliver(change.moduleData) }
        }
    }

    private func deliver(_ data: ModuleData) {
        for (key, group) in readers where key.type == data.moduleType && (key.id == nil || data.moduleId == nil || key.id == data.moduleId) {
            for reader in group.values { reader.yield(data) }
        }
    }

    // MARK: Control

    /// Asks the driver whether the app may control these modules (RPC 6.0+); the answers are
    /// kept for ``set(_:)``.
    @discardableResult
    public func askConsent(for type: ModuleType, moduleIDs: [String]) async throws -> [String: Bool] {
        do throws(SDLFeatureError) {
            return try await requestConsent(for: type, moduleIDs: moduleIDs)
        } catch {
            throw SDLError(error)
        }
    }

    private func requestConsent(for type: ModuleType, moduleIDs: [String]) async throws(SDLFeatureError) -> [String: Bool] {
        let manager = try await requireApp()
        let response = try await manager.feature(GetInteriorVehicleDataConsent(moduleType: type, moduleIds: moduleIDs))
        var answers: [String: Bool] = [:]
        for (index, id) in moduleIDs.enumerated() {
            let allowed = response.allowed.flatMap { index < $0.count ? $0[index] : nil } ?? false
            answers[id] = allowed
            consents[ModuleKey(type: type, id: id)] = allowed
        }
        return answers
    }

    /// Sets a module's data (SetInteriorVehicleData) and returns the module's data after it.
    /// Checks the user's seat against the module's service area and, for modules users share,
    /// asks consent first when not asked yet.
    @discardableResult
    public func set(_ data: ModuleData) async throws -> ModuleData {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            let module = try await module(data.moduleType, data.moduleId, manager)
            try checkSeat(module)
            try await checkConsent(module, manager)
            let response = try await manager.feature(SetInteriorVehicleData(moduleData: data))
            return response.moduleData ?? data
        } catch {
            throw SDLError(error)
        }
    }

    /// Presses a module's hardware button as the driver would (ButtonPress). The button must be
    /// one the REMOTE_CONTROL capability lists for the module.
    public func press(_ button: ButtonName, on type: ModuleType, moduleID: String? = nil, mode: ButtonPressMode = .short) async throws {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            let module = try await module(type, moduleID, manager)
            let buttons = await manager.capability(.remoteControl)?.remoteControlCapability?.buttonCapabilities ?? []
            let offered = buttons.contains { $0.name == button && ($0.moduleInfo == nil || module.id == nil || $0.moduleInfo?.moduleId == module.id) }
            guard offered else { throw .unsupported("the \(type.rawValue) module \(module.id ?? "") has no \(button.rawValue) button") }
            try checkSeat(module)
            _ = try await manager.feature(ButtonPress(moduleType: type, moduleId: moduleID, buttonName: button, buttonPressMode: mode))
        } catch {
            throw SDLError(error)
        }
    }

    /// Gives a module back so other users can control it (RPC 6.0+); the guide asks apps to do
    /// this when done.
    public func release(_ type: ModuleType, moduleID: String? = nil) async throws {
        do throws(SDLFeatureError) {
            let manager = try await requireApp()
            let response = try await SDLFeatureError.sending(ReleaseInteriorVehicleDataModule.functionName) {
                try await manager.send(ReleaseInteriorVehicleDataModule(moduleType: type, moduleId: moduleID))
            }
            // IGNORED: the module was not the app's; nothing to give back.
            guard response.success || response.resultCode == .ignored else {
                throw .refused(ReleaseInteriorVehicleDataModule.functionName, response.resultCode, info: response.info)
            }
            if let moduleID { consents[ModuleKey(type: type, id: moduleID)] = nil }
        } catch {
            throw SDLError(error)
        }
    }

    // MARK: Rules

    private func requireApp() async throws(SDLFeatureError) -> any SDLSubManagerContext {
        let manager = try SDLFeatureError.required(context)
        guard await manager.appTypes.contains(.remoteControl) else { throw .wrongAppType("remote control", needs: .remoteControl) }
        return manager
    }

    private func checkSeat(_ module: SDLRemoteControlModule) throws(SDLFeatureError) {
        guard let area = module.serviceArea, let grid = seat.grid else { return }
        func overlaps(_ start: Int, _ span: Int?, _ otherStart: Int, _ otherSpan: Int?) -> Bool {
            start < otherStart + max(1, otherSpan ?? 1) && otherStart < start + max(1, span ?? 1)
        }
        let inside =
            overlaps(grid.col, grid.colspan, area.col, area.colspan) && overlaps(grid.row, grid.rowspan, area.row, area.rowspan)
            && overlaps(grid.level ?? 0, grid.levelspan, area.level ?? 0, area.levelspan)
        guard inside else {
            throw .invalid(
                "the user's seat (col \(grid.col), row \(grid.row)) is outside the service area of the \(module.type.rawValue) module \(module.id ?? "")")
        }
    }

    private func checkConsent(_ module: SDLRemoteControlModule, _ manager: any SDLSubManagerContext) async throws(SDLFeatureError) {
        guard let id = module.id, module.info?.allowMultipleAccess == true, await manager.rpcVersion() >= .version(6, 0) else { return }
        let key = ModuleKey(type: module.type, id: id)
        let allowed: Bool
        if let known = consents[key] {
            allowed = known
        } else {
            allowed = try await requestConsent(for: module.type, moduleIDs: [id])[id] ?? false
        }
        guard allowed else { throw .consentDenied(module.type, moduleID: id) }
    }

    // MARK: Connections

    func connectionReady(_ connection: SDLConnectionContext) {
        consents = [:]
        guard let manager = current else { return }
        let keys = readers.filter { !$0.value.isEmpty }.map(\.key)
        guard !keys.isEmpty else { return }
        connection.tasks.spawn {
            for key in keys {
                do {
                    let response = try await manager.feature(GetInteriorVehicleData(moduleType: key.type, moduleId: key.id, subscribe: true))
                    if let data = response.moduleData { await self.deliver(data) }
                } catch {
                    self.logger.warning(
                        "could not renew a remote-control subscription", metadata: ["module": "\(key.type.rawValue) \(key.id ?? "")", "error": "\(error)"])
                }
            }
        }
    }

    func managerStopped() {
        listening = false
        consents = [:]
        let ending = readers.values.flatMap(\.values)
        readers = [:]
        for reader in ending { reader.finish() }
    }
}

extension GetInteriorVehicleDataResponse: SDLResultCarrying {}
extension SetInteriorVehicleDataResponse: SDLResultCarrying {}
extension GetInteriorVehicleDataConsentResponse: SDLResultCarrying {}
extension ButtonPressResponse: SDLResultCarrying {}
extension ReleaseInteriorVehicleDataModuleResponse: SDLResultCarrying {}
