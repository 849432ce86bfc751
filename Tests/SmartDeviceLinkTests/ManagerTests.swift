import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The manager against the stateful emulator, in memory.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ManagerLifecycleTests {
    /// The manager's timers (back-off, permission waits, heartbeats, deadlines) run on a manual
    /// clock, so reconnections cost no real time; tests advance it through `manager.manualClock`.
    static func configuration(
        _ headUnit: SDLHeadUnitEmulator, appID: String = "8675309", media: Bool = false, clock: ManualClock = ManualClock()
    ) -> SDLManager.Configuration {
        // Each app its own name: SDL Core refuses a name another app has (DUPLICATE_NAME).
        var configuration = SDLManager.Configuration(
            appName: "Hello \(appID)", appID: appID,
            transport: .custom {
                let (app, car) = SDLMemoryTransport.pair()
                Task { await headUnit.serve(car) }
                return app
            })
        configuration.appTypes = media ? [.media] : [.default]
        // Safety timeouts on the manual clock: never reached unless a test advances it that far.
        configuration.session.controlTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        configuration.session.clock = SDLClock(clock)
        return configuration
    }

    @Test func startsRegistersAndIsReadyThenStops() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let events = headUnit.events()
        let states = Locked<[SDLManager.State]>([])
        try await withSDLManager(Self.configuration(headUnit, media: true)) { manager in
            let watcher = Task { for await state in manager.stateChanges() { states.withLock { $0.append(state) } } }
            defer { watcher.cancel() }
            #expect(manager.state == .ready)
            #expect(manager.registerResponse?.success == true)
            #expect(manager.registrationWarning == nil)
            for await level in manager.hmiLevels() where level == .full { break }
            let shown = try await manager.send(Show(mainField1: "Hello"))
            #expect(shown.success)
        }
        // Stopping unregistered the app.
        var unregistered = false
        for await event in events {
            if case .appUnregistered("8675309") = event {
                unregistered = true
                break
            }
        }
        #expect(unregistered)
        #expect(await headUnit.requestsReceived(from: "8675309").suffix(1) == ["UnregisterAppInterface"])
    }

    @Test func aRequestBeforeReadyFailsAtOnce() async throws {
        let manager = SDLManager(configuration: Self.configuration(SDLHeadUnitEmulator()))
        await expectSDLError(SDLManagerError.notReady(.stopped)) { try await manager.send(ListFiles()) }
    }

    @Test func anRPCTheLevelForbidsIsRefusedBeforeSending() async throws {
        var emulator = SDLHeadUnitEmulator.Configuration()
        emulator.activationDelay = nil
        let headUnit = SDLHeadUnitEmulator(configuration: emulator)
        try await withSDLManager(Self.configuration(headUnit, appID: "none")) { manager in
            #expect(manager.hmiLevel == HMILevel.none)
            await expectSDLError(SDLManagerError.disallowed(rpc: "Show", level: .none, allowedIn: ["BACKGROUND", "FULL", "LIMITED"])) {
                try await manager.send(Show(mainField1: "x"))
            }
            #expect(await headUnit.requestsReceived(from: "none").contains("Show") == false)
            // The opt-out sends it, and the head unit answers as SDL Core does.
            let answer = try await manager.send(Show(mainField1: "x"), checkingPermissions: false)
            #expect(answer.resultCode == .disallowed)
        }
    }

    @Test func aWrongLanguageIsSuccessWithAWarning() async throws {
        let headUnit = SDLHeadUnitEmulator()
        var configuration = Self.configuration(headUnit)
        configuration.language = .deDe
        try await withSDLManager(configuration) { manager in
            #expect(manager.registrationWarning == .wrongLanguage)
            #expect(manager.registerResponse?.language == .enUs)
        }
    }

    @Test func aRefusedRegistrationIsAnError() async throws {
        let headUnit = SDLHeadUnitEmulator()
        // The same app ID twice: the second is refused.
        try await withSDLManager(Self.configuration(headUnit, appID: "twice")) { _ in
            var configuration = Self.configuration(headUnit, appID: "twice")
            configuration.reconnectPolicy = .never
            await expectSDLError(SDLManagerError.registrationFailed(.applicationRegisteredAlready, info: nil)) {
                try await withSDLManager(configuration) { _ in }
            }
        }
    }

    @Test func aDropIsFollowedByReconnectionWithTheResumptionHash() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let events = headUnit.events()
        try await withSDLManager(Self.configuration(headUnit, appID: "again")) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            _ = try await manager.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
            // The manager holds the hash of that change; the drop comes after.
            for await _ in manager.resumeHashes() { break }
            let sawReconnecting = try await manager.dropAndReconnect(on: headUnit, appID: "again")
            #expect(sawReconnecting)
            #expect(manager.registerResponse?.info == "Data resumption successful")
            for await level in manager.hmiLevels() where level == .full { break }
            let again = try await manager.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
            #expect(again.resultCode == .invalidId)
        }
        _ = events
    }

    @Test func aStopBeforeRunIsKeptAndRunReturnsAtOnce() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let manager = SDLManager(configuration: Self.configuration(headUnit, appID: "early"))
        await manager.stop()
        try await manager.run()
        #expect(manager.state == .stopped)
        #expect(await headUnit.requestsReceived(from: "early").isEmpty)
        await expectSDLError(SDLManagerError.notReady(.stopped)) { try await manager.waitUntilReady() }
    }

    @Test func aStopWhileDialingEndsTheRunWithoutAnError() async throws {
        // A head unit that never answers the dial.
        var configuration = SDLManager.Configuration(
            appName: "Hello", appID: "dialing",
            transport: .custom {
                try await Task.sleep(for: .seconds(3600))
                throw CancellationError()
            })
        configuration.session.clock = SDLClock(ManualClock())
        let manager = SDLManager(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let states = manager.stateChanges()
            group.addTask { try await manager.run() }
            for await state in states where state == .connecting { break }
            await manager.stop()
            #expect(manager.state == .stopped)
            try await group.waitForAll()
        }
    }

    /// With a listener in the manager's scope too (a button subscription's): it ends with the
    /// stop, and the run does not wait for it for ever.
    @Test(arguments: [false, true]) func aStopWhileReconnectingCancelsTheBackOff(listening: Bool) async throws {
        let headUnit = SDLHeadUnitEmulator()
        let clock = ManualClock()
        let manager = SDLManager(configuration: Self.configuration(headUnit, appID: "backoff", clock: clock))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await manager.run() }
            try await manager.waitUntilReady()
            let presses = listening ? try await manager.buttons.subscribe(.ok) : nil
            let states = manager.stateChanges()
            try await headUnit.disconnect(appID: "backoff")
            for await state in states where state == .reconnecting { break }
            // The clock never moves: the back-off would last for ever; stop ends it.
            await manager.stop()
            try await group.waitForAll()
            withExtendedLifetime(presses) {}
        }
        #expect(manager.state == .stopped)
        await expectSDLError(SDLManagerError.alreadyStopped) { try await manager.run() }
    }

    @Test func runIsAService() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let manager = SDLManager(configuration: Self.configuration(headUnit))
        let running = Task { try await manager.run() }
        try await manager.waitUntilReady()
        await expectSDLError(SDLManagerError.alreadyRunning) { try await manager.run() }
        await manager.stop()
        try await running.value
        #expect(manager.state == .stopped)
    }
}

/// The negotiated RPC version gates what the manager sends (a head unit on RPC 4.5).
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct VersionGateTests {
    static func headUnit(rpc major: Int, _ minor: Int) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        guard case .object(var members) = configuration.capabilities else { return SDLHeadUnitEmulator() }
        members = members.map { member in
            guard member.key == "syncMsgVersion" else { return member }
            return .init(
                key: member.key,
                value: .object([
                    .init(key: "majorVersion", value: .integer(major)), .init(key: "minorVersion", value: .integer(minor)),
                    .init(key: "patchVersion", value: .integer(0)),
                ]))
        }
        configuration.capabilities = .object(members)
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    @Test func anRPCParameterOrValueTheHeadUnitLacksIsCaughtBeforeSending() async throws {
        let headUnit = Self.headUnit(rpc: 4, 5)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "old")) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            #expect(manager.negotiatedRPCVersion == .version(4, 5))
            await expectSDLError(SDLManagerError.unsupportedByHeadUnit(what: "CancelInteraction", available: "since 6.0.0", headUnit: .version(4, 5))) {
                try await manager.send(CancelInteraction(functionID: 25))
            }
            await expectSDLError(SDLManagerError.unsupportedByHeadUnit(what: "Show.templateTitle", available: "since 6.0.0", headUnit: .version(4, 5))) {
                try await manager.send(Show(mainField1: "x", templateTitle: "Title"))
            }
            // Nested: a soft button inside Show is checked too, and a plain Show goes through.
            let plain = try await manager.send(Show(mainField1: "x"))
            #expect(plain.success)
            #expect(await headUnit.requestsReceived(from: "old").contains("CancelInteraction") == false)
        }
    }

    @Test func playPauseBecomesOKBeforeRPCFive() async throws {
        let headUnit = Self.headUnit(rpc: 4, 5)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "tunes", media: true)) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            let subscribed = try await manager.send(SubscribeButton(buttonName: .playPause))
            #expect(subscribed.success)
            let sent = await headUnit.recordedRPCs(appID: "tunes").last { $0.direction == "in" && $0.functionName == "SubscribeButton" }
            #expect(sent?.parameters?["buttonName"] == .string("OK"))
        }
    }

    @Test func theDropPolicyLeavesNewerParametersOut() async throws {
        let headUnit = Self.headUnit(rpc: 4, 5)
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: "drop")
        configuration.newerParameterPolicy = .drop
        try await withSDLManager(configuration) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            let shown = try await manager.send(Show(mainField1: "x", templateTitle: "Title"))
            #expect(shown.success)
            let sent = await headUnit.recordedRPCs(appID: "drop").last { $0.direction == "in" && $0.functionName == "Show" }
            #expect(sent?.parameters == .object([.init(key: "mainField1", value: .string("x"))]))
        }
    }
}

@Suite(.timeLimit(.minutes(1)), .runsManagers) struct BatchTests {
    @Test func concurrentAndSequentialBatchesWithProgressAndCancellation() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "batch")) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            let fractions = Locked<[Double]>([])
            let commands: [any SDLRequest] = (1...5).map { AddCommand(cmdID: $0, menuParams: MenuParams(menuName: "Item \($0)")) }
            let results = await manager.sendConcurrently(commands) { progress in fractions.withLock { $0.append(progress.fraction) } }
            #expect(results.count == 5)
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            #expect(fractions.current.sorted() == [0.2, 0.4, 0.6, 0.8, 1.0])
            // Sequential: stop after the second; the rest is never sent.
            let more: [any SDLRequest] = (6...9).map { AddCommand(cmdID: $0, menuParams: MenuParams(menuName: "Item \($0)")) }
            let sequential = await manager.sendSequentially(more) { progress in progress.completed < 2 }
            #expect(sequential.prefix(2).allSatisfy { (try? $0.get()) != nil })
            #expect(
                sequential.suffix(2).allSatisfy {
                    if case .failure(let error) = $0 { error.code == .cancelled && error.underlying is SDLBatchCancelled } else { false }
                })
            let sent = await headUnit.requestsReceived(from: "batch").filter { $0 == "AddCommand" }.count
            #expect(sent == 7)
        }
    }

    @Test func aDropInTheMiddleOfABatchFailsTheRestAtOnce() async throws {
        let headUnit = SDLHeadUnitEmulator()
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: "dropped")
        configuration.reconnectPolicy = .never
        let manager = SDLManager(configuration: configuration)
        let running = Task { try await manager.run() }
        try await manager.waitUntilReady()
        for await level in manager.hmiLevels() where level == .full { break }
        // The third request waits for the driver; the car goes away while it does.
        let events = headUnit.events()
        let dropper = Task {
            for await event in events {
                if case .interactionStarted = event {
                    try? await headUnit.disconnect(appID: "dropped")
                    return
                }
            }
        }
        let batch: [any SDLRequest] = [
            AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "1")), AddCommand(cmdID: 2, menuParams: MenuParams(menuName: "2")),
            SDLSlider(numTicks: 3, position: 1, sliderHeader: "Fan"),
            AddCommand(cmdID: 3, menuParams: MenuParams(menuName: "3")), AddCommand(cmdID: 4, menuParams: MenuParams(menuName: "4")),
        ]
        let results = await manager.sendSequentially(batch)
        await dropper.value
        #expect(results.prefix(2).allSatisfy { (try? $0.get()) != nil })
        // The pending slider failed with the drop, at once; what came after was not sent.
        guard case .failure(let error) = results[2], error.code == .connectionClosed,
            case .connectionClosed(.transportClosed)? = error.underlying as? SDLRPCError
        else {
            Issue.record("the pending request should fail with the drop, got \(results[2])")
            return
        }
        #expect(results.suffix(2).allSatisfy { if case .failure = $0 { true } else { false } })
        _ = await running.result
    }
}

@Suite(.timeLimit(.minutes(1)), .runsManagers) struct LanguageTests {
    @Test func aRuntimeSwitchReRegistersInTheNewLanguageAndAsksForNames() async throws {
        let headUnit = SDLHeadUnitEmulator()
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: "polyglot")
        configuration.languagesSupported = [.enUs, .frCa]
        configuration.languageUpdate = { language, _ in language == .frCa ? SDLLanguageUpdate(appName: "Bonjour") : nil }
        try await withSDLManager(configuration) { manager in
            #expect(manager.languageChange == nil)
            let states = manager.stateChanges()
            await headUnit.setLanguage(.frCa)
            #expect(await reconnected(states, clock: manager.manualClock))
            #expect(manager.registerResponse?.language == .frCa)
            #expect(manager.registerResponse?.resultCode == .success)
            #expect(manager.languageChange?.success == true)
            #expect(await headUnit.registeredApps().first?.name == "Bonjour")
        }
    }
}
