import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

@testable import SDLHeadUnit

/// Buffers have limits: a reader that falls behind loses the oldest, never the process's memory.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct BufferBoundsTests {
    @Test func aSlowNotificationReaderKeepsOnlyTheNewest() async throws {
        let headUnit = FakeHeadUnit()
        let session = SDLProtocolSession(transport: headUnit.appTransport, configuration: Connection.patient)
        let client = SDLRPCClient(session: session, notificationBufferLimit: 4)
        let running = Task { try await client.run() }
        try await session.start()
        let slow = client.notifications(OnHashChange.self)
        let marker = client.notifications(OnDriverDistraction.self)
        for index in 0..<10 { try await headUnit.notify(OnHashChange(hashID: "\(index)")) }
        try await headUnit.notify(OnDriverDistraction(state: .ddOff))
        // Dispatch is in order: once the marker is seen, all ten were delivered (or dropped).
        for await _ in marker { break }
        await client.close()
        var kept: [String] = []
        for await change in slow { kept.append(change.hashID) }
        #expect(kept == ["6", "7", "8", "9"])
        _ = try? await running.value
    }

    @Test func mediaForAServiceNobodyReadsIsDroppedAndReadersAreBounded() async throws {
        var configuration = Connection.patient
        configuration.mediaBufferLimit = 3
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit, configuration: configuration)
        let video = await connection.session.media(for: .video)
        let marker = connection.client.notifications(OnDriverDistraction.self)
        for index in 0..<10 {
            for service in [SDLServiceType.audio, .video] {
                let message = SDLProtocolMessage(version: 5, serviceType: service, sessionID: 1, messageID: UInt32(index), payload: [UInt8(index)])
                var bytes: [UInt8] = []
                SDLFramer.encode(message, maxPayloadSize: 1000, into: &bytes)
                try await headUnit.transport.send(bytes)
            }
        }
        try await headUnit.notify(OnDriverDistraction(state: .ddOff))
        for await _ in marker { break }
        await connection.client.close()
        var kept: [[UInt8]] = []
        for await message in video { kept.append(message.payload) }
        #expect(kept == [[7], [8], [9]])
        // Audio had no reader: a reader that comes now gets nothing old.
        var late: [SDLProtocolMessage] = []
        for await message in await connection.session.media(for: .audio) { late.append(message) }
        #expect(late.isEmpty)
    }
}

/// Protocol 1: no binary header, the JSON wrapped with name and correlation ID (a 12-byte binary RPC header is protocol 2+).
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ProtocolOneTests {
    @Test func anAppOnProtocolOneTalksToTheEmulator() async throws {
        var configuration = Connection.patient
        configuration.protocolVersion = SDLProtocolVersion(1)
        let lines = Locked<[SDLJSONValue]>([])
        var emulator = SDLHeadUnitEmulator.Configuration()
        emulator.log = { line in lines.withLock { $0.append(line) } }
        let connection = try await Connection.toEmulator(emulator, configuration: configuration)
        let negotiated = try #require(await connection.session.session)
        #expect(negotiated.majorVersion == 1)
        #expect(negotiated.mtu == SDLFramer.legacyMaxPayloadSize)
        let statuses = connection.client.notifications(OnHMIStatus.self)
        let response = try await connection.client.send(ClientEmulatorTests.registration)
        #expect(response.success)
        #expect(response.syncMsgVersion?.majorVersion == 8)
        var iterator = statuses.makeAsyncIterator()
        #expect(await iterator.next()?.hmiLevel == HMILevel.none)
        #expect(try await connection.client.send(Show(mainField1: "one")).success)
        await connection.client.close()
        // Both directions used version-1 headers with the envelope.
        let rpcFrames = lines.current.filter { $0["rpcType"] != nil }
        #expect(!rpcFrames.isEmpty)
        #expect(rpcFrames.allSatisfy { $0["version"] == .integer(1) })
    }
}

@Suite(.timeLimit(.minutes(1)), .runsManagers) struct PermissionTrackerTests {
    static func item(_ rpc: String, _ levels: [HMILevel], parameters: [String] = []) -> PermissionItem {
        PermissionItem(
            rpcName: rpc, hmiPermissions: HMIPermissions(allowed: levels, userDisallowed: []),
            parameterPermissions: ParameterPermissions(allowed: parameters, userDisallowed: []))
    }

    @Test func waitsUntilTheLevelAndThePolicyAllow() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let tracker = SDLPermissionTracker(client: connection.client)
        let following = Task { await tracker.run() }
        let waiting = Task { await tracker.waitUntilAllowed("GetVehicleData") }
        try await headUnit.notify(OnHMIStatus(hmiLevel: .none, audioStreamingState: .notAudible, systemContext: .main))
        try await headUnit.notify(OnPermissionsChange(permissionItem: [Self.item("GetVehicleData", [.full, .limited], parameters: ["speed"])]))
        // Allowed in FULL only: still waiting in NONE. FULL arrives, the waiter is let through.
        try await headUnit.notify(OnHMIStatus(hmiLevel: .full, audioStreamingState: .audible, systemContext: .main))
        #expect(await waiting.value)
        #expect(await tracker.hmiLevel == .full)
        #expect(await tracker.levels(allowing: "GetVehicleData") == [.full, .limited])
        #expect(await tracker.parameters(allowedFor: "GetVehicleData") == ["speed"])
        await connection.client.close()
        await following.value
        // After the end, waiting answers false at once instead of hanging.
        #expect(await tracker.waitUntilAllowed("NoSuchRPC") == false)
    }

    @Test func groupsAndObserversFollowLevelsAndChanges() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let tracker = SDLPermissionTracker(client: connection.client)
        let following = Task { await tracker.run() }
        let group = ["Show", "Alert"]
        let any = await tracker.observe(group, .anyChange)
        let all = await tracker.observe(group, .allAllowed)
        var anyIterator = any.makeAsyncIterator()
        var allIterator = all.makeAsyncIterator()
        #expect(await anyIterator.next()?["Show"]?.allowedLevels == nil)  // the current state: unknown
        #expect(await tracker.status(of: group) == .unknown)
        try await headUnit.notify(
            OnPermissionsChange(permissionItem: [
                Self.item("Show", [.background, .full]), Self.item("Alert", [.full]),
            ]))
        #expect(await anyIterator.next()?["Alert"]?.isAllowed == false)
        #expect(await tracker.status(of: group) == .disallowed)
        try await headUnit.notify(OnHMIStatus(hmiLevel: .background, audioStreamingState: .notAudible, systemContext: .main))
        #expect(await anyIterator.next()?["Show"]?.isAllowed == true)
        #expect(await tracker.status(of: group) == .mixed)
        try await headUnit.notify(OnHMIStatus(hmiLevel: .full, audioStreamingState: .audible, systemContext: .main))
        // The all-allowed observer speaks only now.
        let allAllowed = await allIterator.next()
        #expect(allAllowed?.values.allSatisfy(\.isAllowed) == true)
        #expect(await tracker.status(of: group) == .allowed)
        await connection.client.close()
        await following.value
    }

    @Test func aCancelledWaitReturnsFalse() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let tracker = SDLPermissionTracker(client: connection.client)
        let waiting = Task { await tracker.waitUntilAllowed("Show") }
        waiting.cancel()
        #expect(await waiting.value == false)
        await connection.client.close()
    }

    @Test func aWaitThatTimesOutReturnsFalseEvenWhenTheTrackerIsNotRunning() async throws {
        let headUnit = FakeHeadUnit()
        let connection = try await Connection.to(headUnit)
        let clock = ManualClock()
        let tracker = SDLPermissionTracker(client: connection.client, clock: SDLClock(clock))
        let waiting = Task { await tracker.waitUntilAllowed("Show", timeout: .seconds(5)) }
        // Once the timeout's timer is set, its deadline passes; the cancelled waiter is resumed
        // by its own cancellation handler, with no `run()` to help.
        await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        #expect(await waiting.value == false)
        await connection.client.close()
    }
}
