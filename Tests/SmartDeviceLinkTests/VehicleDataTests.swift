import SDLConcurrency
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The vehicle-data manager against the stateful emulator: the exact requests on the wire and
/// what the app was told.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct VehicleDataTests {
    static let appID = "vehicle"

    /// Vehicle-data requests the app sent, as their parameters.
    static func sent(_ function: String, _ headUnit: SDLHeadUnitEmulator, appID: String = appID) async -> [SDLJSONValue] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == function }.compactMap(\.parameters)
    }

    static func answers(_ function: String, _ headUnit: SDLHeadUnitEmulator, appID: String = appID) async -> [String] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "out" && $0.functionName == function }.compactMap {
            if case .string(let code)? = $0.parameters?["resultCode"] { return code }
            return nil
        }
    }

    /// Started, activated and granted vehicle data by the emulator's policy update.
    static func start(_ headUnit: SDLHeadUnitEmulator, clock: SDLClock = .continuous) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.session.clock = clock
        let manager = SDLManager(configuration: configuration)
        try await startRunning(manager)
        let allowed = await manager.vehicleData.waitUntilAllowed(\.speed, \.rpm, rpc: "SubscribeVehicleData")
        #expect(allowed)
        return manager
    }

    /// `start`'s manager for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(
        _ headUnit: SDLHeadUnitEmulator, clock: SDLClock = .continuous, _ body: (SDLManager) async throws -> Void
    ) async throws {
        try await stopping(start(headUnit, clock: clock), body)
    }

    @Test func getReadsTheItemsAskedForAndOnlyThose() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            #expect(await manager.vehicleData.waitUntilAllowed(\.speed, \.rpm, \.gps))
            let reading = try await manager.vehicleData.get(\.speed, \.rpm)
            #expect(reading.speed == 50.5)
            #expect(reading.rpm == 1800)
            #expect(reading.gps == nil)
            let gps = try await manager.vehicleData.get(\.gps)
            #expect(gps.gps?.latitudeDegrees == 42.3015)
            let requests = await Self.sent("GetVehicleData", headUnit)
            #expect(requests.count == 2)
            #expect(Set(requests[0].objectKeys) == ["speed", "rpm"])
            #expect(requests[1].objectKeys == ["gps"])
        }
    }

    @Test func beforeThePolicyUpdateTheHeadUnitRefusesAndTheErrorSaysSo() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: Self.appID)) { manager in
            // NONE, pre_DataConsent: SDL Core has not mentioned GetVehicleData, so it goes out and is refused.
            do throws(SDLVehicleDataError) {
                _ = try await detailed(SDLVehicleDataError.self) { try await manager.vehicleData.get(\.speed) }
                Issue.record("GetVehicleData in NONE before the policy update succeeded")
            } catch .refused(let code, _, let items) {
                #expect(code == .disallowed)
                #expect(items == ["speed"])
            }
        }
    }

    @Test func itemsTheParameterPermissionsForbidAreRefusedBeforeSending() async throws {
        var policy = SDLHeadUnitPolicy.sdlCoreDefault
        for rpc in ["GetVehicleData", "SubscribeVehicleData", "UnsubscribeVehicleData", "OnVehicleData"] {
            policy.groups["VehicleInfo-3"]?[rpc]?.parameters = ["speed"]
        }
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.policy = policy
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: Self.appID)) { manager in
            #expect(await manager.vehicleData.waitUntilAllowed(\.speed))
            do throws(SDLVehicleDataError) {
                _ = try await detailed(SDLVehicleDataError.self) { try await manager.vehicleData.get(\.speed, \.rpm) }
                Issue.record("rpm was read without permission")
            } catch .itemsNotAllowed(let rpc, let items) {
                #expect(rpc == "GetVehicleData")
                #expect(items == ["rpm"])
            }
            #expect(await Self.sent("GetVehicleData", headUnit).isEmpty)
            #expect(try await manager.vehicleData.get(\.speed).speed == 50.5)
        }
    }

    @Test func subscribeStreamsUpdatesAndAlreadySubscribedCountsAsSubscribed() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let subscription = try await manager.vehicleData.subscribe(\.speed, \.rpm)
            #expect(subscription.results.succeeded == ["speed", "rpm"])
            #expect(subscription.results.isComplete)
            #expect(await manager.vehicleData.subscribedItems == ["speed", "rpm"])
            // The stream was open before the request: an update right after the answer is there.
            try await headUnit.setVehicleData("speed", to: .float(88.0))
            var updates = subscription.updates.makeAsyncIterator()
            #expect(await updates.next()?.speed == 88.0)

            // Again: SDL Core answers IGNORED with DATA_ALREADY_SUBSCRIBED inside, which is success.
            let again = try await manager.vehicleData.subscribe(\.speed)
            #expect(again.results.resultCode == .ignored)
            #expect(again.results.items["speed"]?.resultCode == .dataAlreadySubscribed)
            #expect(again.results.succeeded == ["speed"])
            #expect(again.results.failed.isEmpty)

            let dropped = try await manager.vehicleData.unsubscribe(\.speed)
            #expect(dropped.succeeded == ["speed"])
            let twice = try await manager.vehicleData.unsubscribe(\.speed)
            #expect(twice.resultCode == .ignored)
            #expect(twice.items["speed"]?.resultCode == .dataNotSubscribed)
            #expect(twice.succeeded == ["speed"])
            #expect(await manager.vehicleData.subscribedItems == ["rpm"])

            #expect(await Self.sent("SubscribeVehicleData", headUnit).map { Set($0.objectKeys) } == [["speed", "rpm"], ["speed"]])
            #expect(await Self.sent("UnsubscribeVehicleData", headUnit).map(\.objectKeys) == [["speed"], ["speed"]])
            #expect(await Self.answers("SubscribeVehicleData", headUnit) == ["SUCCESS", "IGNORED"])
        }
    }

    @Test func oneItemsValuesAsATypedStream() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let speeds = manager.vehicleData.updates(of: \.speed)
            _ = try await manager.vehicleData.subscribe(\.speed, \.rpm)
            try await headUnit.setVehicleData("rpm", to: .integer(2500))
            try await headUnit.setVehicleData("speed", to: .float(10.0))
            try await headUnit.setVehicleData("speed", to: .float(20.0))
            var iterator = speeds.makeAsyncIterator()
            #expect(await iterator.next() == 10.0)
            #expect(await iterator.next() == 20.0)
        }
    }

    @Test func getIsPacedToFivePerSecondOnTheSessionClock() async throws {
        let clock = ManualClock()
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.clock = SDLClock(clock)
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit, clock: SDLClock(clock)) { manager in
            let events = headUnit.events()
            let readings = Task {
                try await withThrowingTaskGroup(of: Double?.self) { group in
                    for _ in 0..<7 { group.addTask { try await manager.vehicleData.get(\.speed).speed } }
                    var speeds: [Double?] = []
                    for try await speed in group { speeds.append(speed) }
                    return speeds
                }
            }
            // Five reach the head unit within the second; the sixth and seventh wait for the clock.
            var answered = 0
            for await event in events {
                if case .requestReceived(_, "GetVehicleData") = event {
                    answered += 1
                    if answered == 5 { break }
                }
            }
            #expect(await Self.sent("GetVehicleData", headUnit).count == 5)
            clock.advance(by: .seconds(1))
            let speeds = try await readings.value
            #expect(speeds == Array(repeating: 50.5, count: 7))
            #expect(await Self.answers("GetVehicleData", headUnit) == Array(repeating: "SUCCESS", count: 7))
        }
    }

    @Test func subscriptionsAreRenewedAfterAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let updates = manager.vehicleData.updates(of: \.speed)
            _ = try await manager.vehicleData.subscribe(\.speed)
            let events = headUnit.events()
            #expect(try await manager.dropAndReconnect(on: headUnit, appID: Self.appID))
            // The renewal goes out once the new connection's policy update allows it.
            for await event in events {
                if case .requestReceived(_, "SubscribeVehicleData") = event { break }
            }
            #expect(await Self.sent("SubscribeVehicleData", headUnit).map(\.objectKeys) == [["speed"], ["speed"]])
            try await headUnit.setVehicleData("speed", to: .float(33.0))
            var iterator = updates.makeAsyncIterator()
            #expect(await iterator.next() == 33.0)
        }
    }

    @Test func oemCustomItemsByName() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            #expect(await manager.vehicleData.waitUntilAllowed(custom: ["OEM-X-Vehicle-Data"]))
            let reading = try await manager.vehicleData.get([\.speed], custom: ["OEM-X-Vehicle-Data"])
            #expect(reading.response.speed == 50.5)
            #expect(reading.custom["OEM-X-Vehicle-Data"]?["label"] == .string("eco"))

            let custom = manager.vehicleData.customUpdates()
            let subscription = try await manager.vehicleData.subscribe([], custom: ["OEM-X-Vehicle-Data"])
            #expect(subscription.results.items["OEM-X-Vehicle-Data"]?.dataType == .vehicledataOemCustomData)
            #expect(subscription.results.succeeded == ["OEM-X-Vehicle-Data"])
            try await headUnit.setVehicleData("OEM-X-Vehicle-Data", to: .integer(7))
            var iterator = custom.makeAsyncIterator()
            #expect(await iterator.next() == ["OEM-X-Vehicle-Data": .integer(7)])
            #expect(await Self.sent("SubscribeVehicleData", headUnit).map(\.objectKeys) == [["OEM-X-Vehicle-Data"]])

            // A spec item passed as custom is a mistake caught before sending.
            await expectSDLError(SDLVehicleDataError.self) { _ = try await manager.vehicleData.get([], custom: ["speed"]) }
        }
    }

    @Test func anItemNewerThanTheHeadUnitIsRefusedBeforeSendingWhateverThePolicy() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 6, 0)
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: Self.appID)
        configuration.newerParameterPolicy = .drop
        try await withSDLManager(configuration) { manager in
            #expect(await manager.vehicleData.waitUntilAllowed(\.speed))
            do throws(SDLVehicleDataError) {
                _ = try await detailed(SDLVehicleDataError.self) { try await manager.vehicleData.subscribe(\.speed, \.gearStatus) }  // gearStatus: RPC 7.0
                Issue.record("gearStatus went to an RPC 6.0 head unit")
            } catch .notSent(.unsupportedByHeadUnit(let what, _, _)) {
                #expect(what == "SubscribeVehicleData.gearStatus")
            }
            #expect(await Self.sent("SubscribeVehicleData", headUnit).isEmpty)
        }
    }
}

extension SDLJSONValue {
    var objectKeys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }

}
