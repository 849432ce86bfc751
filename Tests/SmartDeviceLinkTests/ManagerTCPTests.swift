import SDLConcurrency
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The manager over real TCP on loopback against the emulator, as an app meets SDL Core.
@Suite(.timeLimit(.minutes(2)), .runsManagers) struct ManagerTCPTests {
    @Test func registersSendsFollowsCapabilitiesReconnectsAndStopsOverTCP() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let listener = try await SDLTCPListener.bind(host: "127.0.0.1", port: 0)
        let serving = Task { try await listener.run { transport in await headUnit.serve(transport) } }
        defer { serving.cancel() }
        var configuration = SDLManager.Configuration(appName: "Over TCP", appID: "tcp", transport: .tcp(host: "127.0.0.1", port: listener.port))
        configuration.appTypes = [.media]
        // Safety timeouts on the manual clock below: never reached unless it is advanced that far.
        configuration.session.controlTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        // The reconnection back-off passes by advancing this clock (dropAndReconnect).
        configuration.session.clock = SDLClock(ManualClock())
        try await withSDLManager(configuration) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            let shown = try await manager.send(Show(mainField1: "Over TCP"))
            #expect(shown.success)
            #expect(await manager.systemCapabilities.defaultMainWindowCapability?.templatesAvailable?.isEmpty == false)
            let statuses = manager.notifications(OnHMIStatus.self)
            let reconnected = try await manager.dropAndReconnect(on: headUnit, appID: "tcp")
            #expect(reconnected)
            // The new TCP connection registered again and its statuses reach the same stream.
            for await status in statuses where status.hmiLevel == .full { break }
            let again = try await manager.send(Show(mainField1: "Again"))
            #expect(again.success)
            let batch = await manager.sendConcurrently((1...3).map { AddCommand(cmdID: $0, menuParams: MenuParams(menuName: "Item \($0)")) })
            #expect(batch.allSatisfy { (try? $0.get()) != nil })
        }
        let requests = await headUnit.recordedRPCs(appID: "tcp").filter { $0.direction == "in" }.map(\.functionName)
        #expect(requests.filter { $0 == "RegisterAppInterface" }.count == 2)
        #expect(requests.suffix(1) == ["UnregisterAppInterface"])
        #expect(requests.filter { $0 == "AddCommand" }.count == 3)
        await listener.close()
    }
}
