import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Sub-managers an app never touches are never made (a cloud server holds thousands of
/// managers); one made late behaves as if it had been there from the start.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct OnDemandSubManagerTests {
    static let appID = "on-demand"

    static func manager(_ headUnit: SDLHeadUnitEmulator, types: [AppHMIType] = [.default]) -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.appTypes = types
        return SDLManager(configuration: configuration)
    }

    /// The names of the sub-managers made so far.
    static func made(_ manager: SDLManager) -> [String] {
        let made = manager.madeSubManagers()
        let all: [(String, Bool)] = [
            ("vehicleData", made.vehicleData != nil), ("buttons", made.buttons != nil), ("appServices", made.appServices != nil),
            ("screen", made.screen != nil), ("navigation", made.navigation != nil), ("phone", made.phone != nil),
            ("remoteControl", made.remoteControl != nil), ("videoStreaming", made.videoStreaming != nil),
            ("audioStreaming", made.audioStreaming != nil), ("touch", made.touch != nil), ("haptics", made.haptics != nil),
        ]
        return all.filter(\.1).map(\.0)
    }

    @Test func anAppThatOnlySendsRPCsMakesNoSubManager() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let manager = Self.manager(headUnit)
        try await stopping(manager) { manager in
            try await startRunning(manager)
            _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
            _ = try await manager.send(Show(mainField1: "Hello"))
            #expect(Self.made(manager).isEmpty)
            _ = manager.screen
            _ = manager.screen
            #expect(Self.made(manager) == ["screen"])
        }
    }

    @Test func aStreamingAppHasItsStreamingManagersFromTheStart() {
        let manager = Self.manager(SDLHeadUnitEmulator(), types: [.navigation])
        #expect(Self.made(manager) == ["videoStreaming", "audioStreaming", "haptics"])
    }

    @Test func aButtonManagerMadeWhileReadySubscribesOnceAndRenewsOnTheNextConnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let manager = Self.manager(headUnit, types: [.media])
        try await stopping(manager) { manager in
            try await startRunning(manager)
            _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
            #expect(!Self.made(manager).contains("buttons"))
            let subscription = try await manager.buttons.subscribe(.preset1)
            #expect(await ButtonManagerTests.sent(headUnit, appID: Self.appID) == ["SubscribeButton PRESET_1"])

            // Made during the first connection, it gets the next one's hooks.
            let renewed = headUnit.events()
            #expect(try await manager.dropAndReconnect(on: headUnit, appID: Self.appID))
            for await event in renewed {
                if case .requestReceived(Self.appID, "SubscribeButton") = event { break }
            }
            #expect(await ButtonManagerTests.sent(headUnit, appID: Self.appID) == ["SubscribeButton PRESET_1", "SubscribeButton PRESET_1"])
            await headUnit.press(.preset1)
            var presses = subscription.presses.makeAsyncIterator()
            #expect(await presses.next()?.buttonName == .preset1)
        }
    }

    @Test func aSubManagerMadeAfterTheRunEndedIsStoppedLikeTheOthers() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let manager = Self.manager(headUnit, types: [.default])
        try await startRunning(manager)
        await manager.stop()
        #expect(Self.made(manager).isEmpty)

        // Streams end instead of waiting for a run that is over; prompts end unplayed.
        for await _ in await manager.touch.gestures() {}
        var states: [String] = []
        for await state in manager.videoStreaming.states() { states.append(state.description) }
        #expect(states == ["stopped"])
        let prompt = SDLAudioPrompt(try SDLPCMBuffer(sampleRate: 16_000, bitsPerSample: 16, bytes: [UInt8](repeating: 0, count: 320)))
        #expect(await manager.audioStreaming.play(prompt) == .cancelled)
        await #expect(throws: (any Error).self) { try await manager.screen.update { $0.textField1 = "Late" } }
    }
}
