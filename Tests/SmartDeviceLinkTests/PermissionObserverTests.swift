import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The manager's permission observers: the guide's all-allowed group type hears the group
/// become allowed and stop being so, and observers outlive a reconnection.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct PermissionObserverTests {
    static func headUnit() -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    static func allAllowed(_ permissions: [String: SDLRPCPermission]?) -> Bool? {
        permissions.map { $0.values.allSatisfy(\.isAllowed) }
    }

    @Test func allAllowedHearsTheGroupBecomeAllowedAndStopBeingSo() async throws {
        let headUnit = Self.headUnit()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "watcher")) { manager in
            var changes = await manager.permissionChanges(of: ["Show", "AddCommand"], .allAllowed).makeAsyncIterator()
            // In NONE nothing is heard: Show is not allowed there.
            try await headUnit.activate(appID: "watcher")
            let change1 = await changes.next()
            #expect(Self.allAllowed(change1) == true)
            try await headUnit.exit(appID: "watcher")
            let change2 = await changes.next()
            #expect(Self.allAllowed(change2) == false)
            try await headUnit.activate(appID: "watcher")
            let change3 = await changes.next()
            #expect(Self.allAllowed(change3) == true)
        }
    }

    @Test func observersOutliveAReconnection() async throws {
        let headUnit = Self.headUnit()
        let clock = ManualClock()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "faithful", clock: clock)) { manager in
            var any = await manager.permissionChanges(of: ["Show"]).makeAsyncIterator()
            var all = await manager.permissionChanges(of: ["Show"], .allAllowed).makeAsyncIterator()
            // The current state at once: Show is not allowed in NONE.
            let change4 = await any.next()
            #expect(change4?["Show"]?.isAllowed == false)
            try await headUnit.activate(appID: "faithful")
            let change5 = await any.next()
            #expect(change5?["Show"]?.isAllowed == true)
            let change6 = await all.next()
            #expect(Self.allAllowed(change6) == true)

            let states = manager.stateChanges()
            try await headUnit.disconnect(appID: "faithful")
            #expect(await reconnected(states, clock: clock))
            // The new connection starts in NONE: both observers hear it, on the same streams.
            let change7 = await all.next()
            #expect(Self.allAllowed(change7) == false)
            try await headUnit.activate(appID: "faithful")
            let change8 = await all.next()
            #expect(Self.allAllowed(change8) == true)
            var sawAllowedAgain = false
            while let change = await any.next() {
                if change["Show"]?.isAllowed == true {
                    sawAllowedAgain = true
                    break
                }
            }
            #expect(sawAllowedAgain)
        }
        // The manager stopped: the streams ended.
    }
}
