import HummingbirdWSClient
import Logging
import SDLHMIRPC
import SDLHeadUnit
import SDLRPC
import SDLRuntime

/// A headless HMI that speaks the HMI API to SDL Core (or to `sdl headunit --hmi-port`): it
/// registers its components, says OnReady, answers Core's questions and requests as SDL's
/// stand-in HMI does (SUCCESS, the vehicle's values), shows interactions until the driver
/// answers them or their time runs out, and plays the driver's actions as HMI messages. As an
/// ``SDLHMIDriver`` it takes the emulator's control API: set on the emulator, the control API's
/// driver routes act through it, so every step of a test or a tour goes through the HMI API.
public actor SDLStandInHMI {
    /// What the HMI answers about itself.
    public struct Configuration: Sendable {
        /// The car's values, for VehicleInfo.GetVehicleData; the driver's changes update them.
        public var vehicle = SDLSimulatedVehicle()
        /// Its language (UI, VR and TTS), and the languages it lists as supported.
        public var language = "EN-US"
        public var supportedLanguages: [String] = Common.Language.allCases.filter(\.isRecognized).map(\.rawValue)
        public var logger = Logger(label: "SDLStandInHMI")

        public init() {}
    }

    /// An app as the HMI knows it, by its HMI app ID.
    struct App {
        let policyAppID: String
        let appTypes: [String]
        /// Menu commands (cmdID → parentID, nil at the top) and sub-menus.
        var commands: [Int: Int?] = [:]
        var subMenus: Set<Int> = []
        var menuOpen = false
        /// The soft buttons of its screen (UI.Show).
        var softButtons: [SDLJSONValue] = []
        var keypressMode = "RESEND_CURRENT_ENTRY"
        /// Core's requests shown over the app (an interaction's parts), oldest first.
        var held: [Held] = []
    }

    /// One of Core's requests the HMI shows until the driver or its time answers it.
    struct Held {
        let id: Int
        let method: String
        let params: SDLJSONValue
    }

    public let configuration: Configuration
    var vehicle: SDLSimulatedVehicle
    var apps: [Int: App] = [:]
    private var send: (@Sendable ([UInt8]) async throws -> Void)?
    private var nextID = 0
    /// The HMI's own requests (the broker's, SDL.ActivateApp) waiting for Core's answers.
    private var waiting: [Int: CheckedContinuation<SDLJSONValue, Never>] = [:]
    /// Driver actions waiting for Core to tell the HMI of their app, by wait.
    var registrationWaiters: [Int: (policyAppID: String, waiter: CheckedContinuation<Void, Never>)] = [:]
    var nextWait = 0
    /// Answers that came before their wait began, by request ID.
    private var early: [Int: SDLJSONValue] = [:]
    private var asked: Set<Int> = []
    private let timerRequests: AsyncStream<(id: Int, after: Duration)>
    private let timerIntake: AsyncStream<(id: Int, after: Duration)>.Continuation
    /// Touch time stamps count from here.
    let started = ContinuousClock.now
    private let shownMethods: AsyncStream<String>
    private let shownIntake: AsyncStream<String>.Continuation

    /// The components SDL's HMIs register, and the notifications of Core they follow.
    static let components = ["BasicCommunication", "UI", "VR", "TTS", "Buttons", "VehicleInfo", "Navigation", "RC"]
    static let subscriptions = ["BasicCommunication.OnAppRegistered", "BasicCommunication.OnAppUnregistered", "Navigation.OnVideoDataStreaming"]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.vehicle = configuration.vehicle
        (timerRequests, timerIntake) = AsyncStream.makeStream()
        (shownMethods, shownIntake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100))
    }

    /// The methods of what the HMI shows as it shows it (`UI.PerformInteraction`...), for one
    /// reader to wait on before it plays the driver; the newest 100 unread are kept.
    public nonisolated var shownRequests: AsyncStream<String> { shownMethods }

    // MARK: Running

    /// Connects to Core's HMI port at `url` (`ws://127.0.0.1:8087`) and serves until the
    /// connection ends or the task is cancelled; `onReady` runs once Core has its OnReady.
    public func run(url: String, onReady: @escaping @Sendable () async -> Void = {}) async throws {
        try await WebSocketClient.connect(url: url, logger: configuration.logger) { inbound, outbound, _ in
            try await self.serve(
                messages: inbound.messages(maxSize: 1 << 24).compactMap { message -> [UInt8]? in
                    if case .text(let text) = message { Array(text.utf8) } else { nil }
                },
                send: { bytes in try await outbound.write(.text(String(decoding: bytes, as: UTF8.self))) }, onReady: onReady)
        }
    }

    /// Serves one connection: its messages in, `send` out (one connection at a time).
    func serve<Messages: AsyncSequence & Sendable>(
        messages: Messages, send: @escaping @Sendable ([UInt8]) async throws -> Void, onReady: @escaping @Sendable () async -> Void
    ) async throws where Messages.Element == [UInt8] {
        self.send = send
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in messages { await self.received(message) }
                } catch {
                    await self.connectionEnded()
                    throw error
                }
                await self.connectionEnded()
            }
            group.addTask {
                // The shown requests' timeouts, each a child of the run.
                try await withThrowingDiscardingTaskGroup { timers in
                    for await timer in self.timerRequests {
                        timers.addTask {
                            try await Task.sleep(for: timer.after)
                            await self.timedOut(timer.id)
                        }
                    }
                }
            }
            await startUp()
            if self.send != nil { await onReady() }  // still connected after the start-up questions
            // The connection's end ends the HMI.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The connection ended: nothing more is sent, and what waited for Core's answers hears `.null`
    /// (a start-up cut short ends at once).
    private func connectionEnded() {
        send = nil
        for waiter in waiting.values { waiter.resume(returning: .null) }
        (waiting, early, asked) = ([:], [:], [])
    }

    /// SDL's start-up: components, subscriptions, OnReady.
    private func startUp() async {
        for (index, component) in Self.components.enumerated() {
            let range = await ask("MB.registerComponent", [.init(key: "componentName", value: .string(component))])
            // The HMI's own requests take IDs from its first component's range, by which Core's
            // broker routes the answers back.
            if index == 0, case .integer(let first) = range { nextID = first }
        }
        for name in Self.subscriptions {
            _ = await ask("MB.subscribeTo", [.init(key: "propertyName", value: .string(name))])
        }
        await notify("BasicCommunication.OnReady", [])
    }

    // MARK: Sending

    private func write(_ message: SDLJSONValue) async {
        guard let send else { return }
        do {
            try await send(message.jsonBytes)
        } catch {
            configuration.logger.warning("could not send to Core: \(error)")
        }
    }

    func notify(_ method: String, _ params: [SDLJSONValue.Member]) async {
        await write(
            .object([
                .init(key: "jsonrpc", value: .string("2.0")), .init(key: "method", value: .string(method)), .init(key: "params", value: .object(params)),
            ]))
    }

    /// Sends one of the HMI's requests and waits for Core's answer (`.null` if the connection ended).
    func ask(_ method: String, _ params: [SDLJSONValue.Member]) async -> SDLJSONValue {
        nextID += 1
        let id = nextID
        let request = SDLJSONValue.object([
            .init(key: "id", value: .integer(id)), .init(key: "jsonrpc", value: .string("2.0")), .init(key: "method", value: .string(method)),
            .init(key: "params", value: .object(params)),
        ])
        asked.insert(id)
        await write(request)
        guard send != nil else { return .null }
        // The answer may have come while the request was written.
        return await withCheckedContinuation { waiter in
            if let answer = early.removeValue(forKey: id) {
                asked.remove(id)
                waiter.resume(returning: answer)
            } else {
                waiting[id] = waiter
            }
        }
    }

    private func respond(_ id: Int, _ method: String, _ code: Common.Result = .success, _ result: [SDLJSONValue.Member] = []) async {
        await write(
            .object([
                .init(key: "id", value: .integer(id)), .init(key: "jsonrpc", value: .string("2.0")),
                .init(key: "result", value: .object([.init(key: "code", value: .integer(code.code)), .init(key: "method", value: .string(method))] + result)),
            ]))
    }

    // MARK: Receiving

    private func received(_ bytes: [UInt8]) async {
        guard let message = try? SDLJSONValue(parsing: bytes) else {
            configuration.logger.warning("Core sent something that is not JSON")
            return
        }
        let method: String? = if case .string(let name)? = message["method"] { name } else { nil }
        let id: Int? = if case .integer(let number)? = message["id"] { number } else { nil }
        let params = message["params"] ?? .object([])
        switch (method, id) {
        case (let method?, let id?):
            await requested(method, params, id: id)
        case (let method?, nil):
            notified(method, params)
        case (nil, let id?):
            let answer = message["result"] ?? message["error"] ?? .null
            if let waiter = waiting.removeValue(forKey: id) {
                asked.remove(id)
                waiter.resume(returning: answer)
            } else if asked.contains(id) {
                early[id] = answer
            }
        default:
            break
        }
    }

    private func notified(_ method: String, _ params: SDLJSONValue) {
        switch method {
        case "BasicCommunication.OnAppRegistered":
            guard let application = params["application"], case .integer(let id)? = application["appID"],
                case .string(let policyAppID)? = application["policyAppID"]
            else { return }
            let types: [String] =
                if case .array(let list)? = application["appType"] {
                    list.compactMap { if case .string(let type) = $0 { type } else { nil } }
                } else { [] }
            apps[id] = App(policyAppID: policyAppID, appTypes: types)
            for (wait, waiting) in registrationWaiters where waiting.policyAppID == policyAppID {
                registrationWaiters[wait] = nil
                waiting.waiter.resume()
            }
        case "BasicCommunication.OnAppUnregistered":
            if case .integer(let id)? = params["appID"] { apps[id] = nil }
        case "BasicCommunication.UpdateAppList":
            // Apps it missed (it subscribed late); the ones it knows keep their screens.
            for application in Self.list(params["applications"]) where Self.integer(application["appID"]).map({ apps[$0] == nil }) ?? false {
                notified("BasicCommunication.OnAppRegistered", .object([.init(key: "application", value: application)]))
            }
        default:
            break
        }
    }

    /// Core's request: answered at once, or shown until the driver or its time answers it.
    private func requested(_ method: String, _ params: SDLJSONValue, id: Int) async {
        let appID: Int? = if case .integer(let number)? = params["appID"] { number } else { nil }
        switch method {
        case let name where name.hasSuffix(".IsReady"):
            await respond(id, method, .success, [.init(key: "available", value: .bool(true))])
        case "UI.GetLanguage", "VR.GetLanguage", "TTS.GetLanguage":
            await respond(id, method, .success, [.init(key: "language", value: .string(configuration.language))])
        case "UI.GetSupportedLanguages", "VR.GetSupportedLanguages", "TTS.GetSupportedLanguages":
            await respond(id, method, .success, [.init(key: "languages", value: .array(configuration.supportedLanguages.map(SDLJSONValue.string)))])
        case "BasicCommunication.GetSystemInfo":
            await respond(
                id, method, .success,
                [
                    .init(key: "ccpu_version", value: .string("sdl-stand-in-hmi")), .init(key: "language", value: .string(configuration.language)),
                    .init(key: "wersCountryCode", value: .string("WAEGB")),
                ])
        case "VehicleInfo.GetVehicleData":
            // The items asked for (`"speed": true`), with the car's values.
            guard case .object(let asked) = params else { return await respond(id, method) }
            let items = asked.filter { $0.key != "appID" && $0.value == .bool(true) }.map(\.key)
            await respond(id, method, .success, vehicle.get(items))
        case "BasicCommunication.UpdateAppList":
            notified(method, params)
            await respond(id, method)
        case "UI.Show":
            if let appID { apps[appID]?.softButtons = Self.list(params["softButtons"]) }
            await respond(id, method)
        case "UI.AddCommand":
            if let appID, case .integer(let cmdID)? = params["cmdID"] {
                let parent: Int? = if case .integer(let parentID)? = params["menuParams"]?["parentID"] { parentID } else { nil }
                apps[appID]?.commands[cmdID] = .some(parent)
            }
            await respond(id, method)
        case "UI.DeleteCommand":
            if let appID, case .integer(let cmdID)? = params["cmdID"] { apps[appID]?.commands[cmdID] = nil }
            await respond(id, method)
        case "UI.AddSubMenu":
            if let appID, case .integer(let menuID)? = params["menuID"] { apps[appID]?.subMenus.insert(menuID) }
            await respond(id, method)
        case "UI.DeleteSubMenu":
            if let appID, case .integer(let menuID)? = params["menuID"] { apps[appID]?.subMenus.remove(menuID) }
            await respond(id, method)
        case "UI.SetGlobalProperties":
            if let appID, case .string(let mode)? = params["keyboardProperties"]?["keypressMode"] { apps[appID]?.keypressMode = mode }
            await respond(id, method)
        case "UI.CancelInteraction":
            await cancelInteraction(params, id: id)
        case "UI.EndAudioPassThru":
            // Done: its answer, then the recording's.
            guard let appID, let recording = apps[appID]?.held.first(where: { $0.method == "UI.PerformAudioPassThru" }) else {
                return await respond(id, method, .rejected)
            }
            await respond(id, method)
            await close(appID, [recording.id: (.success, [])])
        case "UI.Alert", "UI.SubtleAlert", "UI.PerformInteraction", "VR.PerformInteraction", "UI.Slider", "UI.ScrollableMessage", "UI.PerformAudioPassThru":
            guard let appID, apps[appID] != nil else { return await respond(id, method, .applicationNotRegistered) }
            await show(Held(id: id, method: method, params: params), on: appID)
        default:
            // Everything else the stand-in HMI accepts as it comes.
            await respond(id, method)
        }
    }

    /// Shows `held` over the app until the driver answers it or its time runs out.
    private func show(_ held: Held, on appID: Int) async {
        let wasShowing = !(apps[appID]?.held.isEmpty ?? true)
        apps[appID]?.held.append(held)
        shownIntake.yield(held.method)
        let milliseconds: Int =
            switch held.method {
            case "UI.Alert", "UI.SubtleAlert": Self.integer(held.params["duration"]) ?? 5_000
            case "UI.ScrollableMessage": Self.integer(held.params["timeout"]) ?? 30_000
            case "UI.PerformAudioPassThru": Self.integer(held.params["maxDuration"]) ?? 10_000
            default: Self.integer(held.params["timeout"]) ?? 10_000
            }
        timerIntake.yield((held.id, .milliseconds(milliseconds)))
        if !wasShowing, held.method.hasPrefix("UI.") {
            let context = held.method.hasSuffix("Alert") ? "ALERT" : "HMI_OBSCURED"
            await notify("UI.OnSystemContext", [.init(key: "systemContext", value: .string(context)), .init(key: "appID", value: .integer(appID))])
        }
    }

    /// A shown request's time ran out: alerts, messages and recordings close SUCCESS, choices and
    /// sliders TIMED_OUT.
    private func timedOut(_ id: Int) async {
        guard let (appID, held) = shown(id) else { return }
        let closesWell = ["UI.Alert", "UI.SubtleAlert", "UI.ScrollableMessage", "UI.PerformAudioPassThru"].contains(held.method)
        await close(appID, [held.id: (closesWell ? .success : .timedOut, [])])
    }

    /// Answers shown requests of the app (by request ID) and takes them off the screen.
    func close(_ appID: Int, _ answers: [Int: (Common.Result, [SDLJSONValue.Member])]) async {
        guard var app = apps[appID] else { return }
        let closing = app.held.filter { answers[$0.id] != nil }
        app.held.removeAll { answers[$0.id] != nil }
        apps[appID] = app
        for held in closing {
            let (code, result) = answers[held.id]!
            await respond(held.id, held.method, code, result)
        }
        // Read again: the answers gave other calls their turn.
        if let app = apps[appID], app.held.isEmpty, !closing.isEmpty {
            await notify(
                "UI.OnSystemContext",
                [.init(key: "systemContext", value: .string(app.menuOpen ? "MENU" : "MAIN")), .init(key: "appID", value: .integer(appID))])
        }
    }

    private func shown(_ id: Int) -> (Int, Held)? {
        for (appID, app) in apps { if let held = app.held.first(where: { $0.id == id }) { return (appID, held) } }
        return nil
    }

    private func cancelInteraction(_ params: SDLJSONValue, id: Int) async {
        let functionID = Self.integer(params["functionID"])
        let cancelID = Self.integer(params["cancelID"])
        let methods: [Int: [String]] = [
            Int(SDLAlert.wireFunctionID ?? 0): ["UI.Alert"], Int(SubtleAlert.wireFunctionID ?? 0): ["UI.SubtleAlert"],
            Int(PerformInteraction.wireFunctionID ?? 0): ["UI.PerformInteraction", "VR.PerformInteraction"],
            Int(SDLSlider.wireFunctionID ?? 0): ["UI.Slider"], Int(ScrollableMessage.wireFunctionID ?? 0): ["UI.ScrollableMessage"],
        ]
        let appID: Int? = if case .integer(let number)? = params["appID"] { number } else { nil }
        guard let appID, let app = apps[appID], let functionID, let names = methods[functionID] else {
            return await respond(id, "UI.CancelInteraction", .ignored)
        }
        let matching = app.held.filter { names.contains($0.method) && (cancelID == nil || Self.integer($0.params["cancelID"]) == cancelID) }
        guard !matching.isEmpty else { return await respond(id, "UI.CancelInteraction", .ignored) }
        await close(appID, Dictionary(uniqueKeysWithValues: matching.map { ($0.id, (Common.Result.aborted, [SDLJSONValue.Member]())) }))
        await respond(id, "UI.CancelInteraction")
    }

    // MARK: Helpers

    static func list(_ value: SDLJSONValue?) -> [SDLJSONValue] {
        if case .array(let items)? = value { items } else { [] }
    }

    static func integer(_ value: SDLJSONValue?) -> Int? {
        if case .integer(let number)? = value { number } else { nil }
    }
}
