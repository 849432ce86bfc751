import SDLAsyncHTTPClient
import SDLHeadUnit
import SDLHeadUnitControl
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl headunit`'s wiring as a library Service: the same assembly the tool runs, here with
/// free ports, an app over TCP and the control API over HTTP, then a clean stop.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct HeadUnitServiceTests {
    @Test func servesAppsAndTheControlAPIAndStopsWhenCancelled() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        let (listening, announce) = AsyncStream<SDLHeadUnitService.Endpoints>.makeStream()
        let service = SDLHeadUnitService(emulator: emulator, port: 0, controlPort: 0) { announce.yield($0) }
        let running = Task { try await service.run() }
        // A bind that fails ends the service at once: its error reaches the test, no wait.
        let endpoints: SDLHeadUnitService.Endpoints
        if let first = await listening.first(where: { _ in true }) {
            endpoints = first
        } else {
            try await running.value
            Issue.record("the service ended without listening")
            return
        }
        let controlPort = try #require(endpoints.controlPort)
        #expect(endpoints.appPort > 0 && controlPort > 0 && endpoints.appPort != controlPort)

        var app = SDLManager.Configuration(appName: "Served", appID: "served", transport: .tcp(host: "127.0.0.1", port: endpoints.appPort))
        app.appTypes = [.default]
        try await withSDLManager(app) { manager in
            let http = SDLAsyncHTTPClient()
            let activated = try await http.send(SDLHTTPRequest(url: "http://127.0.0.1:\(controlPort)/apps/served/activate", method: "POST"))
            #expect(activated.status == 200)
            for await level in manager.hmiLevels() where level == .full { break }
            #expect(try await manager.send(Show(mainField1: "Served")).success)
            let apps = try await http.send(SDLHTTPRequest(url: "http://127.0.0.1:\(controlPort)/apps", method: "GET"))
            #expect(String(decoding: apps.body, as: UTF8.self).contains(#""served""#))
        }
        running.cancel()
        _ = await outcome { try await running.value }
    }

    @Test func aPortInUseFailsTheServiceAtOnce() async throws {
        let emulator = SDLHeadUnitEmulator()
        let (listening, announce) = AsyncStream<SDLHeadUnitService.Endpoints>.makeStream()
        let first = Task { try await SDLHeadUnitService(emulator: emulator, port: 0) { announce.yield($0) }.run() }
        let port = try #require(await listening.first(where: { _ in true })?.appPort)
        await #expect(throws: (any Error).self) { try await SDLHeadUnitService(emulator: emulator, port: port).run() }
        first.cancel()
        _ = await outcome { try await first.value }
    }
}
