import ArgumentParser
import Foundation
import SDLRPC
import SDLRuntime
import SDLTransport
import SmartDeviceLink
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An app built on `SDLManager`, in tours that print each step; exits 0 only when every step it
/// ran succeeded. Runs against `sdl headunit` and against SDL Core 8.2.
@main
struct Example: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdl-example",
        abstract: "Tours of the SmartDeviceLink manager against a head unit.",
        discussion: """
            swift run sdl headunit --port 12345 --control-port 8080 &
            swift run sdl-example --port 12345 --tour lifecycle --control-url http://127.0.0.1:8080
            As a cloud app, head units dialing in:
            swift run sdl-example --serve --port 8080 &
            swift run sdl headunit --cloud-app ws://127.0.0.1:8080/ --cloud-apps 3
            Without --control-url (as against SDL Core) the steps that need a driver wait for the HMI instead.
            """)

    @Option(help: "Head unit host.") var host = "127.0.0.1"
    @Option(help: "Head unit TCP port.") var port = 12345
    @Option(
        help:
            "Which tour: lifecycle, files, vehicle, buttons, services, screen, alerts, navigation, or all; driver waits for a person to play the driver in the emulator's page; encryption needs sdl headunit --security."
    )
    var tour = "all"
    @Option(help: "The emulator's control API, to play the driver.") var controlURL: String?
    @Option(help: "App ID to register.") var appID = "8675309"
    @Option(help: "Seconds to wait for the HMI to activate the app.") var activationTimeout: Double = 30
    @Option(help: "Where the alerts tour writes its audio pass-thru recording.") var wavPath = "sdl-example-recording.wav"
    @Flag(help: "Keep the last tour's app registered afterwards, until Ctrl-C or SIGTERM (to look at it in the emulator's page).")
    var stay = false
    @Flag(help: "Run as a cloud app: a WebSocket server head units dial into (--port, --host, --path); the tours that need no driver run for each vehicle.")
    var serve = false
    @Option(help: "With --serve: the WebSocket path head units ask for.") var path = "/"
    @Option(
        help: ArgumentHelp(
            "The encryption tour's app certificate (PEM, subject serialNumber = the app ID), for a head unit with its own CA.", valueName: "path"))
    var cert: String?
    @Option(help: ArgumentHelp("The private key of --cert (PEM).", valueName: "path"))
    var key: String?

    func run() async throws {
        let runner = ManagerRunner()
        try await runner.withScope { () async -> Result<Void, any Error> in
            do {
                return .success(try await runTours(runner: runner))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    private func runTours(runner: ManagerRunner) async throws {
        if serve {
            return try await CloudServe(host: host, port: port, path: path, appID: appID, activationTimeout: activationTimeout).run()
        }
        let tours = ["lifecycle", "files", "vehicle", "buttons", "services", "screen", "alerts", "navigation"]
        guard tours.contains(tour) || ["all", "driver", "encryption"].contains(tour) else {
            throw ValidationError("unknown tour \(tour); try \(tours.joined(separator: ", ")), all, driver or encryption")
        }
        var ok = true
        let driver = Driver(appID: appID, controlURL: controlURL, activationTimeout: activationTimeout)
        if tour == "driver" {
            // Not part of "all": it waits for a person.
            let place = TourPlace(host: host, port: port, appID: appID, driver: driver, runner: runner)
            if !(await DriverTour(place: place).run()) { throw ExitCode.failure }
            return
        }
        if tour == "encryption" {
            // Not part of "all": it needs a head unit with a security manager (sdl headunit --security).
            let place = TourPlace(
                host: host, port: port, appID: appID, driver: driver, keeper: ManagerKeeper(keepingAfter: stay ? "encryption" : nil), runner: runner)
            let ok = await EncryptionTour(place: place, certificatePath: cert, keyPath: key).run()
            await place.keeper.holdUntilInterrupted()
            if !ok { throw ExitCode.failure }
            return
        }
        let running = tours.filter { tour == $0 || tour == "all" }
        let keeper = ManagerKeeper(keepingAfter: stay ? running.last : nil)
        let place = TourPlace(host: host, port: port, appID: appID, driver: driver, keeper: keeper, runner: runner)
        for name in running {
            switch name {
            case "lifecycle": ok = await LifecycleTour(place: place).run() && ok
            case "files": ok = await FilesTour(place: place).run() && ok
            case "vehicle": ok = await VehicleTour(place: place).run() && ok
            case "buttons": ok = await ButtonsTour(place: place).run() && ok
            case "screen": ok = await ScreenTour(place: place).run() && ok
            case "alerts": ok = await AlertsTour(place: place, wavPath: wavPath).run() && ok
            case "navigation": ok = await NavigationTour(place: place).run() && ok
            default: ok = await ServicesTour(place: place).run() && ok
            }
        }
        await keeper.holdUntilInterrupted()
        if !ok { throw ExitCode.failure }
    }
}

/// One line on standard output, written at once (a log file or pipe sees it as it happens).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data("\(text)\n".utf8))
}

/// Prints one line per step and remembers whether any failed.
final class Steps: @unchecked Sendable {
    private(set) var failed = false
    /// Put before each line: which vehicle, when several run at once (`--serve`).
    let prefix: String
    init(prefix: String = "") { self.prefix = prefix }
    func pass(_ text: String) { say("\(prefix)✔ \(text)") }
    func note(_ text: String) { say("\(prefix)· \(text)") }

    /// Runs one step: its description on success, its error on failure.
    func run(_ label: String, _ body: () async throws -> String) async {
        do {
            pass("\(label): \(try await body())")
        } catch {
            fail("\(label): \(error)")
        }
    }
    func fail(_ text: String) {
        failed = true
        say("\(prefix)✘ \(text)")
    }
}

/// Plays the driver: through the emulator's control API when given, else waits for the HMI.
struct Driver {
    let appID: String
    let controlURL: String?
    let activationTimeout: Double

    /// Brings the app to FULL; true once it is there.
    @discardableResult
    func activate(_ manager: SDLManager, steps: Steps) async -> Bool {
        if let controlURL {
            do {
                try await post("\(controlURL)/apps/\(appID)/activate")
                steps.pass("asked the emulator to activate the app")
            } catch {
                steps.fail("control API: \(error)")
            }
        } else {
            steps.note("no --control-url: waiting up to \(Int(activationTimeout)) s for the HMI to activate the app")
        }
        let full = await manager.waitForHMILevel(.full, timeout: .milliseconds(Int(activationTimeout * 1000)))
        if full { steps.pass("HMI level FULL") } else { steps.fail("the app was not activated") }
        return full
    }

    /// Sends `body` to the emulator's control API at `path`; false (with the step failed) when
    /// it did not answer 2xx. Needs `--control-url`.
    @discardableResult
    func control(_ method: String, _ path: String, _ body: String = "{}", steps: Steps) async -> Bool {
        guard let controlURL else { return false }
        do {
            try await post("\(controlURL)\(path)", method: method, body: body)
            return true
        } catch {
            steps.fail("control API \(method) \(path): \(error)")
            return false
        }
    }

    /// `control`, retried for up to 5 s while the head unit has nothing to answer yet (the
    /// interaction the app just asked for is on its way).
    @discardableResult
    func controlWhenShown(_ method: String, _ path: String, _ body: String = "{}", steps: Steps) async -> Bool {
        guard let controlURL else { return false }
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                try await post("\(controlURL)\(path)", method: method, body: body)
                return true
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        steps.fail("control API \(method) \(path): \(lastError.map { "\($0)" } ?? "no answer")")
        return false
    }

    /// The body of a GET on the control API; nil without `--control-url` or on failure.
    func fetch(_ path: String) async -> Data? {
        guard let controlURL, let address = URL(string: "\(controlURL)\(path)") else { return nil }
        guard let (data, response) = try? await URLSession.shared.data(from: address),
            let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode)
        else { return nil }
        return data
    }

    /// POSTs `body` to the control API and returns the answer's body; nil without `--control-url`
    /// or on failure.
    func postReading(_ path: String, _ body: String) async -> Data? {
        guard let controlURL else { return nil }
        return try? await post("\(controlURL)\(path)", body: body)
    }

    /// The body of a 2xx answer; anything else throws.
    @discardableResult
    private func post(_ url: String, method: String = "POST", body: String? = nil) async throws -> Data {
        guard let address = URL(string: url) else { throw ValidationError("bad URL \(url)") }
        var request = URLRequest(url: address)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw ValidationError("\(url) answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        return data
    }
}

/// What the permission observer said, in order, for a tour step to wait on.
private final class Heard: Sendable {
    private let values = Mutex<[Bool]>([])

    func append(_ value: Bool) { values.withLock { $0.append(value) } }

    /// Whether the values heard become `expected` within 10 s.
    func wait(for expected: [Bool]) async -> Bool {
        for _ in 0..<100 {
            if values.withLock({ $0 }) == expected { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

struct LifecycleTour {
    let place: TourPlace
    var driver: Driver { place.driver }

    /// The lock screen's status line, and with the control API the car moving off and stopping.
    func lockScreen(of manager: SDLManager, steps: Steps) async {
        func line(_ state: SDLLockScreenState) -> String {
            let logo = state.oemIcon.map { "head unit logo \($0.count) bytes" } ?? "no head unit logo"
            return "\(state.status.rawValue), \(state.isShown ? "shown" : "not shown")\(state.isDismissible ? ", dismissible" : ""), \(logo)"
        }
        steps.pass("lock screen: \(line(await manager.lockScreen.state))")
        // The head unit's logo comes from its LOCK_SCREEN_ICON_URL through the HTTP client.
        let states = manager.lockScreen.states()
        if let logo = await within(
            5,
            {
                for await state in states { if let icon = state.oemIcon { return icon.count } }
                return nil
            })
        {
            steps.pass("lock screen logo: \(logo) bytes from the head unit's LOCK_SCREEN_ICON_URL")
        } else {
            steps.note("lock screen logo: none within 5 s (the head unit's LOCK_SCREEN_ICON_URL unreachable?)")
        }
        guard await driver.control("PUT", "/driver-distraction", #"{"state": "DD_ON"}"#, steps: steps) else { return }
        for await state in manager.lockScreen.states() where state.status == .required {
            steps.pass("lock screen once the car moves: \(line(state))")
            break
        }
        await driver.control("PUT", "/driver-distraction", #"{"state": "DD_OFF"}"#, steps: steps)
        for await state in manager.lockScreen.states() where state.status != .required {
            steps.pass("lock screen once it stops: \(line(state))")
            break
        }
    }

    /// The guide's permission observer outlives a connection: a second app, which reconnects,
    /// hears Show become allowed in FULL, stop being allowed when the head unit drops its
    /// connection (it registers again in NONE), and become allowed again, on one stream.
    func permissionsAcrossReconnection(steps: Steps) async {
        guard let controlURL = driver.controlURL else {
            steps.note("no --control-url: not dropping a connection to show the permission observer across a reconnection")
            return
        }
        let appID = "\(place.appID)-reconnecting"
        var configuration = place.configuration(appID: appID, name: "SDL Example Reconnecting")
        configuration.reconnectPolicy = .standard
        guard let manager = await place.start(configuration, steps: steps, label: "a second app that reconnects: ready") else { return }
        let second = Driver(appID: appID, controlURL: controlURL, activationTimeout: driver.activationTimeout)
        let changes = await manager.permissionChanges(of: ["Show"], .allAllowed)
        let heard = Heard()
        let reader = Task {
            for await change in changes { heard.append(change.values.allSatisfy(\.isAllowed)) }
        }
        await steps.run("permission observer across a reconnection") {
            guard await second.activate(manager, steps: steps), await heard.wait(for: [true]) else { throw TourError("Show was never allowed in FULL") }
            await second.control("POST", "/apps/\(appID)/disconnect", steps: steps)
            guard await heard.wait(for: [true, false]) else { throw TourError("the dropped connection was not heard") }
            guard await second.activate(manager, steps: steps), await heard.wait(for: [true, false, true]) else {
                throw TourError("Show was not allowed again after reconnecting")
            }
            return
                "Show allowed in FULL, not allowed once the head unit dropped the connection and the app registered again, allowed again in FULL: one observer throughout"
        }
        reader.cancel()
        await manager.stop()
    }

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: lifecycle")
        var configuration = place.configuration()
        configuration.languagesSupported = [.enUs]
        let manager = SDLManager(configuration: configuration)
        let stateWatcher = Task {
            for await state in manager.stateChanges() { steps.note("state: \(state)") }
        }
        defer { stateWatcher.cancel() }
        let running = Task { try await manager.run() }
        do {
            try await manager.waitUntilReady()
            steps.pass("ready")
        } catch {
            steps.fail("could not get ready: \(error)")
            running.cancel()
            return false
        }
        if let response = manager.registerResponse {
            let vehicle = response.vehicleType.map { "\($0.make ?? "?") \($0.model ?? "?") \($0.modelYear ?? "")" } ?? "unknown vehicle"
            steps.pass("registered: RPC \(manager.negotiatedRPCVersion), \(vehicle), display \(response.displayCapabilities?.displayName ?? "?")")
        }
        if let warning = manager.registrationWarning { steps.note("registration warning: \(warning.rawValue)") }
        await capabilities(of: manager, steps: steps)

        // The driver brings the app to the screen: the control API plays the driver on the emulator.
        let full = await driver.activate(manager, steps: steps)
        if full, let permissions = manager.permissions {
            let allowed = await permissions.waitUntilAllowed("Show", timeout: .seconds(10))
            if allowed { steps.pass("permissions: Show allowed in FULL") } else { steps.fail("Show never became allowed") }
            do {
                let shown = try await manager.send(Show(mainField1: "Hello from Swift", mainField2: "SmartDeviceLink"))
                shown.success ? steps.pass("Show: \(shown.resultCode.rawValue)") : steps.fail("Show: \(shown.resultCode.rawValue)")
            } catch {
                steps.fail("Show: \(error)")
            }
        }

        if full { await lockScreen(of: manager, steps: steps) }
        await permissionsAcrossReconnection(steps: steps)

        // Version gating: a parameter newer than the head unit is caught before sending.
        let rpc = manager.negotiatedRPCVersion
        if rpc < .version(6, 0) {
            do {
                _ = try await manager.send(Show(mainField1: "x", templateTitle: "Title"))
                steps.fail("a 6.0 parameter went to an RPC \(rpc) head unit")
            } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
                steps.pass("version gate: \(error.message)")
            } catch {
                steps.fail("version gate: \(error)")
            }
        } else {
            steps.note("version gate: the head unit speaks RPC \(rpc), as new as this library; nothing to refuse")
        }

        // A batch: three menu commands at once, with progress.
        if full {
            let commands: [any SDLRequest] = (1...3).map { AddCommand(cmdID: 100 + $0, menuParams: MenuParams(menuName: "Example \($0)")) }
            let results = await manager.sendConcurrently(commands) { progress in
                steps.note("batch: \(progress.completed)/\(progress.total)")
            }
            let succeeded = results.filter { ((try? $0.get()) as? AddCommandResponse)?.success == true }.count
            succeeded == 3 ? steps.pass("batch: 3 AddCommand succeeded") : steps.fail("batch: \(succeeded) of 3 succeeded")
        }

        if place.keeper.keeps(after: "lifecycle") {
            // The run goes on; the keeper stops the manager at Ctrl-C, which ends it.
            place.keeper.hold([manager])
            steps.note("staying registered (--stay)")
        } else {
            await manager.stop()
            _ = await running.result
            steps.pass("stopped")
        }
        say(steps.failed ? "Tour lifecycle: FAILED" : "Tour lifecycle: OK")
        return !steps.failed
    }

    /// What the head unit can do: the main window (6.0 model, converted before 6.0), the types
    /// it has, and one fetched on demand where GetSystemCapability exists.
    func capabilities(of manager: SDLManager, steps: Steps) async {
        let capabilities = manager.systemCapabilities
        if let main = await capabilities.defaultMainWindowCapability {
            let templates = main.templatesAvailable ?? []
            steps.pass(
                "capabilities: main window with \(main.textFields?.count ?? 0) text fields, \(templates.count) templates (\(templates.prefix(3).joined(separator: ", "))...)"
            )
        } else {
            steps.fail("capabilities: no main window capability")
        }
        let types: [SystemCapabilityType] = [.navigation, .phoneCall, .videoStreaming, .remoteControl, .appServices, .seatLocation, .driverDistraction]
        var supported: [String] = []
        for type in types where await capabilities.isSupported(type) { supported.append(type.rawValue) }
        steps.note("capabilities: the head unit has \(supported.isEmpty ? "none of the system capability types" : supported.joined(separator: ", "))")
        guard supported.contains(SystemCapabilityType.navigation.rawValue), manager.negotiatedRPCVersion >= .version(4, 5) else { return }
        do {
            let navigation = try await capabilities.update(.navigation)
            steps.pass("capabilities: NAVIGATION sendLocationEnabled=\(navigation.navigationCapability?.sendLocationEnabled ?? false)")
        } catch {
            steps.fail("capabilities: NAVIGATION: \(error)")
        }
    }
}
