import ArgumentParser
import Logging
import SDLCloudServer
import SDLRPC
import SDLWebSocket
import ServiceLifecycle
import SmartDeviceLink
import Synchronization
import UnixSignals

/// `--serve`: the example app as a cloud app. Head units dial in over WebSocket; for each, the
/// steps of the tours that need no driver run on that vehicle's own manager, then the session
/// stays open until the head unit leaves. SIGINT or SIGTERM unregisters every vehicle and exits.
struct CloudServe {
    let host: String
    let port: Int
    let path: String
    let appID: String
    let activationTimeout: Double

    func run() async throws {
        var app = SDLManager.Configuration(appName: "SDL Example", appID: appID)
        app.shortAppName = "SDLEx"
        app.appTypes = [.media]
        var logger = Logger(label: "sdl-example.cloud")
        logger.logLevel = .warning
        app.logger = logger
        let server = SDLWebSocketServer(listening: .init(host: host, port: port, path: path), app: app, logger: logger) { manager in
            try await Self.tour(manager, activationTimeout: activationTimeout)
        }
        let events = server.host.events()
        let eventPrinter = Task {
            for await event in events { say("cloud: \(event)") }
        }
        defer { eventPrinter.cancel() }
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let announcer = Task {
            if let bound = await server.port() { say("cloud app listening on ws://\(host):\(bound)\(path)") }
        }
        defer { announcer.cancel() }
        try await group.run()
        say("cloud: stopped")
    }

    /// What runs for each vehicle: registration facts, FULL, Show, a 64 KB file, the screen's
    /// text, template and menu, speech and the media clock, one vehicle-data reading.
    static func tour(_ manager: SDLManager, activationTimeout: Double) async throws {
        try await manager.waitUntilReady()
        let vehicle = manager.registerResponse?.vehicleType
        let steps = Steps(prefix: "[\(manager.authToken ?? "no token") \(vehicle?.make ?? "?") \(vehicle?.model ?? "?")] ")
        steps.pass("ready: RPC \(manager.negotiatedRPCVersion), auth token \(manager.authToken ?? "none")")
        let place = TourPlace(
            host: "", port: 0, appID: manager.configuration.appID,
            driver: Driver(appID: manager.configuration.appID, controlURL: nil, activationTimeout: activationTimeout))
        await LifecycleTour(place: place).capabilities(of: manager, steps: steps)
        guard await manager.waitForHMILevel(.full, timeout: .milliseconds(Int(activationTimeout * 1000))) else {
            steps.fail("the app was not activated")
            say("\(steps.prefix)Vehicle: FAILED")
            return
        }
        steps.pass("HMI level FULL")
        await steps.run("Show") {
            let shown = try await manager.send(Show(mainField1: "Hello from the cloud", mainField2: "SmartDeviceLink in Swift"))
            guard shown.success else { throw TourError(shown.resultCode.rawValue) }
            return shown.resultCode.rawValue
        }
        await steps.run("64 KB file") {
            let file = SDLFile(name: "cloud-64k.bin", bytes: (0..<65_536).map { UInt8(truncatingIfNeeded: $0) }, type: .binary, overwrite: true)
            return "\(try await manager.files.upload(file))"
        }
        let screen = ScreenTour(place: place)
        await screen.textAndTemplate(manager, steps: steps)
        await screen.menu(manager.screen, steps: steps)
        await AlertsTour(place: place, wavPath: "").speechAndClock(manager, steps: steps)
        if await within(activationTimeout, { await manager.vehicleData.waitUntilAllowed(\.speed) ? true : nil }) ?? false {
            await steps.run("GetVehicleData") {
                let reading = try await manager.vehicleData.get(\.speed)
                return "speed \(reading.speed.map { "\($0) km/h" } ?? "-")"
            }
        } else {
            steps.fail("speed was not allowed")
        }
        say("\(steps.prefix)Vehicle: \(steps.failed ? "FAILED" : "OK")")
    }
}
