import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Values many sessions receive byte for byte the same are decoded once per host: never shared
/// between different bytes, bounded, and what each manager sees is what its head unit sent.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SharedValuesTests {
    struct Failed: Error {}

    @Test func aValueIsMadeOncePerBytesAndTheOldestGoesPastTheCapacity() throws {
        let shared = SDLSharedValues(capacity: 2)
        let made = Locked(0)
        func value(_ bytes: [UInt8]) -> String {
            shared.value(String.self, from: bytes) { () -> String in
                made.withLock { $0 += 1 }
                return "made from \(bytes)"
            }
        }
        #expect(value([1]) == "made from [1]")
        #expect(value([1]) == "made from [1]")
        #expect(made.current == 1 && shared.hits == 1)
        // Other bytes, another value; another type under the same bytes, too.
        #expect(value([2]) == "made from [2]")
        #expect(shared.value(Int.self, from: [1]) { 7 } == 7)
        #expect(made.current == 2)
        // A third String pushes out the first.
        _ = value([3])
        _ = value([1])
        #expect(made.current == 4)
        // A failure is not kept.
        #expect(throws: Failed.self) { try shared.value(String.self, from: [9]) { () throws(Failed) -> String in throw Failed() } }
        #expect(shared.value(String.self, from: [9]) { "now" } == "now")
    }

    /// Two vehicles of one model under one policy: the second's registration, display
    /// capabilities and permission table come from what the first decoded; then a grant to one
    /// app reaches that app only.
    @Test func twoManagersShareTheirHeadUnitsValuesAndNothingElse() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.policy = SDLHeadUnitPolicy.sdlCoreDefault
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        let shared = SDLSharedValues()
        var first = ManagerLifecycleTests.configuration(headUnit, appID: "shared-1")
        first.sharedValues = shared
        var second = ManagerLifecycleTests.configuration(headUnit, appID: "shared-2")
        second.sharedValues = shared
        try await withSDLManager(first) { one in
            let hitsAfterOne = shared.hits
            try await withSDLManager(second) { two in
                #expect(shared.hits > hitsAfterOne)
                let oneResponse = one.registerResponse
                let twoResponse = two.registerResponse
                #expect(oneResponse?.displayCapabilities == twoResponse?.displayCapabilities)
                let before = try #require(await two.permissions?.permission(of: "Slider"))
                #expect(await one.permissions?.permission(of: "Slider").allowedLevels == before.allowedLevels)

                // A grant for the second app only: its table changes, the first's does not.
                let changes = await two.permissionChanges(of: ["Slider", "OnTouchEvent"])
                await headUnit.setPolicy(SDLHeadUnitPolicy.sdlCoreDefault.granting("HapticGroup", to: "shared-2"))
                var granted = false
                for await change in changes where change["OnTouchEvent"]?.allowedLevels != nil {
                    granted = true
                    break
                }
                #expect(granted)
                let oneHaptic = await one.permissions?.permission(of: "OnTouchEvent")
                let twoHaptic = await two.permissions?.permission(of: "OnTouchEvent")
                #expect(oneHaptic?.allowedLevels == nil, "\(String(describing: oneHaptic)) vs \(String(describing: twoHaptic)); before \(before)")
            }
        }
    }
}
