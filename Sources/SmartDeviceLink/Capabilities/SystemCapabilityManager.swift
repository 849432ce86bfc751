import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// What the head unit can do, cached and kept current (`manager.systemCapabilities`).
///
/// The registration response fills the legacy capabilities (display, buttons, soft buttons,
/// presets, speech, audio pass-thru...) and `hmiCapabilities`, which says which system
/// capability types exist. The types themselves (displays, navigation, phone, video streaming,
/// remote control, app services, seat location, driver distraction) come from
/// GetSystemCapability (RPC 4.5+). Subscribing keeps a type current: through
/// OnSystemCapabilityUpdated on RPC 5.1+, by polling every `pollInterval` before that (every
/// `update(_:)` result feeds the subscribers too). DISPLAYS is always kept: subscribed on 6.0+,
/// converted from the legacy model (registration and SetDisplayLayout responses) before.
///
/// State is per manager and survives reconnection: after a new registration the cache is
/// refilled and the app's subscriptions are renewed; the streams go on.
public actor SDLSystemCapabilityManager: SDLSubManager {
    private let logger: Logger
    private let pollInterval: Duration?
    private let clock: SDLClock
    private var client: SDLRPCClient?
    private var rpcVersion = MobileAPI.version
    private var cache = CapabilityCache()
    private var fanOuts: [SystemCapabilityType: StreamFanOut<SystemCapability>] = [:]
    /// Types the app subscribed to; renewed on every connection.
    private var subscriptions: Set<SystemCapabilityType> = []
    /// Types the head unit pushes to this connection (5.1+).
    private var headUnitSubscriptions: Set<SystemCapabilityType> = []
    /// The connection's task scope while polling runs on it (pre-5.1 head units).
    private var polling: TaskScope?
    private var connectionTasks: TaskScope?

    /// The latest registration response: the legacy capabilities.
    public private(set) var registration: RegisterAppInterfaceResponse?
    /// The legacy display model, from the registration, SetDisplayLayout or converted from DISPLAYS.
    public private(set) var displayCapabilities: DisplayCapabilities?
    /// The buttons the head unit has (short and long press, up/down), in the legacy model; kept
    /// in step with DISPLAYS.
    public private(set) var buttonCapabilities: [ButtonCapabilities]?
    /// What the main window's soft buttons can show (text, image, highlight), in the legacy
    /// model; kept in step with DISPLAYS.
    public private(set) var softButtonCapabilities: [SoftButtonCapabilities]?
    /// Whether the head unit has on-screen presets, from the registration or SetDisplayLayout.
    public private(set) var presetBankCapabilities: PresetBankCapabilities?

    init(logger: Logger, pollInterval: Duration?, clock: SDLClock) {
        self.logger = logger
        self.pollInterval = pollInterval
        self.clock = clock
    }

    // MARK: What the head unit has

    /// Which system capability types the head unit has (`hmiCapabilities`).
    public var hmiCapabilities: HMICapabilities? { registration?.hmiCapabilities }
    /// Where the head unit's HMI sits (front, back), from the registration.
    public var hmiZoneCapabilities: [HmiZoneCapabilities]? { registration?.hmiZoneCapabilities }
    /// The kinds of speech the head unit can speak (text, phonemes, prerecorded, silence...),
    /// from the registration.
    public var speechCapabilities: [SpeechCapabilities]? { registration?.speechCapabilities }
    /// The prerecorded sounds the head unit can play (listen, help, positive/negative jingles...),
    /// from the registration.
    public var prerecordedSpeech: [PrerecordedSpeech]? { registration?.prerecordedSpeech }
    /// The head unit's voice recognition capabilities, from the registration.
    public var vrCapabilities: [VrCapabilities]? { registration?.vrCapabilities }
    /// The audio formats audio pass-thru can record in, from the registration.
    public var audioPassThruCapabilities: [AudioPassThruCapabilities]? { registration?.audioPassThruCapabilities }
    /// The PCM format for streaming audio (navigation and projection apps), from the registration.
    public var pcmStreamCapability: AudioPassThruCapabilities? { registration?.pcmStreamCapabilities }

    /// The displays (6.0 model), whatever RPC version the head unit speaks.
    public var displays: [DisplayCapability]? { cache[.displays]?.displayCapabilities }

    /// A window's capabilities on the first display (text and image fields, templates, buttons,
    /// soft buttons, menu layouts, presets).
    public func windowCapability(_ windowID: Int) -> WindowCapability? {
        displays?.first?.windowCapabilities?.first { ($0.windowID ?? 0) == windowID }
    }

    /// The main window's capabilities: what the screen manager fits its updates to.
    public var defaultMainWindowCapability: WindowCapability? { windowCapability(0) }

    /// What the head unit's navigation offers (SendLocation, waypoints); nil until fetched or
    /// subscribed.
    public var navigationCapability: NavigationCapability? { cache[.navigation]?.navigationCapability }
    /// Whether the head unit can dial a number (DialNumber); nil until fetched or subscribed.
    public var phoneCapability: PhoneCapability? { cache[.phoneCall]?.phoneCapability }
    /// The head unit's video streaming formats, resolution and haptic support; nil until fetched
    /// or subscribed.
    public var videoStreamingCapability: VideoStreamingCapability? { cache[.videoStreaming]?.videoStreamingCapability }
    /// The vehicle modules remote control can reach (climate, radio, seats...); nil until fetched
    /// or subscribed.
    public var remoteControlCapability: RemoteControlCapabilities? { cache[.remoteControl]?.remoteControlCapability }
    /// The app services published on the head unit; nil until fetched or subscribed.
    public var appServicesCapabilities: AppServicesCapabilities? { cache[.appServices]?.appServicesCapabilities }
    /// The vehicle's seat layout, used to place remote-control service areas; nil until fetched
    /// or subscribed.
    public var seatLocationCapability: SeatLocationCapability? { cache[.seatLocation]?.seatLocationCapability }
    /// Limits on lists and submenus while driving; nil until fetched or subscribed.
    public var driverDistractionCapability: DriverDistractionCapability? { cache[.driverDistraction]?.driverDistractionCapability }

    /// The cached capability of a type, nil until fetched (`update(_:)`) or subscribed.
    public func capability(_ type: SystemCapabilityType) -> SystemCapability? { cache[type] }

    /// Whether the head unit has the type: known from `hmiCapabilities` (or a value already
    /// received). Before RPC 4.5 nothing can be fetched, but a true here still means the
    /// feature exists (the guide's advice for DialNumber and SendLocation on old head units).
    public func isSupported(_ type: SystemCapabilityType) -> Bool {
        if cache[type] != nil { return true }
        guard let flags = hmiCapabilities else { return false }
        switch type {
        case .navigation: return flags.navigation ?? false
        case .phoneCall: return flags.phoneCall ?? false
        case .videoStreaming: return flags.videoStreaming ?? false
        case .remoteControl: return flags.remoteControl ?? false
        case .appServices: return flags.appServices ?? false
        case .displays: return flags.displays ?? (displayCapabilities != nil)
        case .seatLocation: return flags.seatLocation ?? false
        case .driverDistraction: return flags.driverDistraction ?? false
        default: return false
        }
    }

    /// Whether the head unit pushes updates (OnSystemCapabilityUpdated, RPC 5.1+); when false,
    /// subscriptions are kept by polling.
    public var supportsSubscriptions: Bool { rpcVersion >= .version(5, 1) }

    // MARK: Fetching and subscribing

    /// Asks the head unit (GetSystemCapability) and returns its answer, which also updates the
    /// cache and every subscriber. DISPLAYS before 6.0 comes from the legacy model instead.
    @discardableResult
    public func update(_ type: SystemCapabilityType) async throws -> SystemCapability {
        do {
            return try await fetch(type, subscribe: nil)
        } catch {
            throw SDLError(error)
        }
    }

    /// The type's values, starting with the current one: the head unit's pushes on RPC 5.1+,
    /// polling results before. The first call per type fetches it (subscribing on 5.1+). The
    /// stream lasts until the manager stops.
    public func subscribe(to type: SystemCapabilityType) async throws -> AsyncStream<SystemCapability> {
        let stream = fanOut(type).subscribe()
        if !subscriptions.contains(type) {
            do {
                try await fetch(type, subscribe: true)
            } catch {
                throw SDLError(error)
            }
            subscriptions.insert(type)
            startPollingIfNeeded()
        }
        return stream
    }

    /// Stops keeping `type` current (the head unit is told on 5.1+); DISPLAYS stays subscribed.
    public func unsubscribe(from type: SystemCapabilityType) async {
        guard type != .displays, subscriptions.remove(type) != nil else { return }
        if headUnitSubscriptions.remove(type) != nil, let client {
            _ = try? await client.send(GetSystemCapability(systemCapabilityType: type, subscribe: false))
        }
    }

    private func fanOut(_ type: SystemCapabilityType) -> StreamFanOut<SystemCapability> {
        if let existing = fanOuts[type] { return existing }
        let created = StreamFanOut<SystemCapability>(bufferLimit: 16, replaysLatest: true, initial: cache[type])
        fanOuts[type] = created
        return created
    }

    @discardableResult
    private func fetch(_ type: SystemCapabilityType, subscribe: Bool?) async throws -> SystemCapability {
        if type == .displays, rpcVersion < .version(6, 0) {
            guard let legacy = cache[.displays] else { throw SDLCapabilityError.unavailable(type) }
            return legacy
        }
        guard let client else { throw SDLCapabilityError.notConnected }
        guard rpcVersion >= .version(4, 5) else { throw SDLCapabilityError.headUnitTooOld(type, headUnit: rpcVersion) }
        let subscribing = subscribe == true && supportsSubscriptions
        let response = try await client.send(GetSystemCapability(systemCapabilityType: type, subscribe: subscribing ? true : nil))
        guard response.success, let capability = response.systemCapability else {
            throw SDLCapabilityError.refused(type, response.resultCode, info: response.info)
        }
        if subscribing { headUnitSubscriptions.insert(type) }
        store(capability)
        return capability
    }

    /// Keeps a new value and hands it to subscribers when it differs from the cached one.
    private func store(_ capability: SystemCapability) {
        let type = capability.systemCapabilityType
        guard cache[type] != capability else { return }
        cache[type] = capability
        fanOuts[type]?.yield(capability)
        if type == .displays, let displays = capability.displayCapabilities,
            let legacy = SDLDisplayConversion.legacy(from: displays, previous: displayCapabilities)
        {
            displayCapabilities = legacy.displayCapabilities
            buttonCapabilities = legacy.buttonCapabilities ?? buttonCapabilities
            softButtonCapabilities = legacy.softButtonCapabilities ?? softButtonCapabilities
        }
    }

    // MARK: The head unit's pushes

    /// OnSystemCapabilityUpdated: DISPLAYS merges windows by ID, APP_SERVICES merges service
    /// records by ID (a REMOVED record goes), the others replace the cached value.
    func received(_ update: OnSystemCapabilityUpdated) {
        var capability = update.systemCapability
        switch capability.systemCapabilityType {
        case .displays:
            if let current = displays, let changed = capability.displayCapabilities {
                capability.displayCapabilities = SDLDisplayConversion.merge(changed, into: current)
            }
        case .appServices:
            var records = appServicesCapabilities?.appServices ?? []
            for change in capability.appServicesCapabilities?.appServices ?? [] {
                let id = change.updatedAppServiceRecord.serviceID
                records.removeAll { $0.updatedAppServiceRecord.serviceID == id }
                if change.updateReason != .removed { records.append(change) }
            }
            capability.appServicesCapabilities = AppServicesCapabilities(appServices: records)
        default:
            break
        }
        store(capability)
    }

    /// A SetDisplayLayout response carries the new template's legacy capabilities (before 6.0).
    func received(_ layout: SetDisplayLayoutResponse) {
        guard layout.success, let display = layout.displayCapabilities else { return }
        presetBankCapabilities = layout.presetBankCapabilities ?? presetBankCapabilities
        adoptLegacy(display, buttons: layout.buttonCapabilities ?? buttonCapabilities, softButtons: layout.softButtonCapabilities ?? softButtonCapabilities)
    }

    private func adoptLegacy(_ display: DisplayCapabilities, buttons: [ButtonCapabilities]?, softButtons: [SoftButtonCapabilities]?) {
        displayCapabilities = display
        buttonCapabilities = buttons
        softButtonCapabilities = softButtons
        let displays = SDLDisplayConversion.displays(from: display, buttons: buttons, softButtons: softButtons, presetBank: presetBankCapabilities)
        let capability = SystemCapability(systemCapabilityType: .displays, displayCapabilities: displays)
        guard cache[.displays] != capability else { return }
        cache[.displays] = capability
        fanOuts[.displays]?.yield(capability)
    }

    // MARK: Connections

    /// A new registration: the legacy capabilities, then (6.0+) the DISPLAYS subscription and
    /// the app's own subscriptions renewed. Failures are logged; they do not block Ready.
    func connected(client: SDLRPCClient, registration: RegisterAppInterfaceResponse, rpcVersion: SDLSpecVersion, tasks: TaskScope) async {
        connectionTasks = tasks
        self.client = client
        self.registration = registration
        self.rpcVersion = rpcVersion
        headUnitSubscriptions = []
        // Another head unit may answer this time: nothing cached is trusted.
        for type in cache.types where type != .displays { cache[type] = nil }
        presetBankCapabilities = registration.presetBankCapabilities
        if let display = registration.displayCapabilities {
            adoptLegacy(display, buttons: registration.buttonCapabilities, softButtons: registration.softButtonCapabilities)
        } else {
            displayCapabilities = nil
            buttonCapabilities = registration.buttonCapabilities
            softButtonCapabilities = registration.softButtonCapabilities
        }
        if rpcVersion >= .version(6, 0) {
            do {
                try await fetch(.displays, subscribe: true)
            } catch {
                logger.warning("could not subscribe to DISPLAYS; using the registration's display capabilities", metadata: ["error": "\(error)"])
            }
        }
        for type in subscriptions.sorted(by: { $0.rawValue < $1.rawValue }) where type != .displays {
            do {
                try await fetch(type, subscribe: true)
            } catch {
                logger.warning("could not renew a capability subscription", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
            }
        }
        startPollingIfNeeded()
    }

    /// The connection is gone: nothing can be fetched until the next one.
    func connectionEnded() {
        client = nil
        // The poll loop ran on the connection's scope and ends with it.
        polling = nil
        connectionTasks = nil
    }

    /// The manager stopped: every stream ends; a later start begins afresh.
    func managerStopped() {
        connectionEnded()
        for fanOut in fanOuts.values { fanOut.finish() }
        fanOuts = [:]
        subscriptions = []
    }

    private func startPollingIfNeeded() {
        guard polling == nil, let tasks = connectionTasks, client != nil, !supportsSubscriptions, rpcVersion >= .version(4, 5),
            let interval = pollInterval, subscriptions.contains(where: { $0 != .displays })
        else { return }
        let clock = self.clock
        polling = tasks
        tasks.spawn {
            var next = clock.now + interval
            while !Task.isCancelled {
                do { try await clock.sleep(until: next) } catch { return }
                next = clock.now + interval
                await self.poll()
            }
        }
    }

    /// One round of polling: every subscribed type, in a stable order.
    private func poll() async {
        for type in subscriptions.sorted(by: { $0.rawValue < $1.rawValue }) where type != .displays {
            guard client != nil else { return }
            do {
                try await fetch(type, subscribe: nil)
            } catch {
                logger.debug("capability poll failed", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
            }
        }
    }
}

/// Why a capability could not be had.
package enum SDLCapabilityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The manager is not connected.
    case notConnected
    /// GetSystemCapability exists from RPC 4.5.
    case headUnitTooOld(SystemCapabilityType, headUnit: SDLSpecVersion)
    /// The head unit answered without the capability.
    case refused(SystemCapabilityType, SDLResult, info: String?)
    /// The head unit has no such capability.
    case unavailable(SystemCapabilityType)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notConnected: "the manager is not connected to a head unit"
        case .headUnitTooOld(let type, let version):
            "\(type.rawValue) cannot be fetched: GetSystemCapability exists from RPC 4.5, the head unit speaks \(version)"
        case .refused(let type, let code, let info):
            "the head unit did not give the \(type.rawValue) capability: \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .unavailable(let type): "the head unit has no \(type.rawValue) capability"
        }
    }
}

/// The capabilities by type, each behind a reference: a `SystemCapability` is 682 bytes inline,
/// and a dictionary holding them directly kept 1.5 KB per session of a cloud server.
private struct CapabilityCache {
    private final class Entry: Sendable {
        let capability: SystemCapability
        init(_ capability: SystemCapability) { self.capability = capability }
    }

    private var entries: [SystemCapabilityType: Entry] = [:]

    subscript(type: SystemCapabilityType) -> SystemCapability? {
        get { entries[type]?.capability }
        set { entries[type] = newValue.map(Entry.init) }
    }

    var types: [SystemCapabilityType] { Array(entries.keys) }
}
