import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Subscription buttons against the stateful emulator: one SubscribeButton per button however
/// many observers, the guide's rules before sending, and presses reaching the app.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ButtonManagerTests {
    static let appID = "buttons"

    static func start(_ headUnit: SDLHeadUnitEmulator, types: [AppHMIType] = [.media]) async throws -> SDLManager {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.appTypes = types
        let manager = SDLManager(configuration: configuration)
        try await startRunning(manager)
        // Safety timeout: bounds the wait for FULL, so a missing activation ends in failed checks, not a hang.
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        return manager
    }

    /// `start`'s manager for the duration of `body`, stopped afterwards even when `body` throws.
    static func withManager(
        _ headUnit: SDLHeadUnitEmulator, types: [AppHMIType] = [.media], _ body: (SDLManager) async throws -> Void
    ) async throws {
        try await stopping(start(headUnit, types: types), body)
    }

    /// The button requests the app sent, as "SubscribeButton OK".
    static func sent(_ headUnit: SDLHeadUnitEmulator, appID: String = appID) async -> [String] {
        await headUnit.recordedRPCs(appID: appID).filter {
            $0.direction == "in" && ["SubscribeButton", "UnsubscribeButton"].contains($0.functionName)
        }.map { record in
            if case .string(let name)? = record.parameters?["buttonName"] { return "\(record.functionName) \(name)" }
            return record.functionName
        }
    }

    @Test func oneSubscriptionServesEveryObserverAndTheLastOneUnsubscribes() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let first = try await manager.buttons.subscribe(.ok)
            let seen = Locked<[ButtonPressMode]>([])
            let (handled, handledSink) = AsyncStream<Void>.makeStream()
            let second = try await manager.buttons.subscribe(.ok) { input in
                if case .press(let press) = input {
                    seen.withLock { $0.append(press.buttonPressMode) }
                    handledSink.yield()
                }
            }
            #expect(await Self.sent(headUnit) == ["SubscribeButton OK"])

            await headUnit.press(.ok, mode: .long)
            var inputs = first.makeAsyncIterator()
            #expect(await inputs.next() == .event(OnButtonEvent(buttonName: .ok, buttonEventMode: .buttondown)))
            #expect(await inputs.next() == .event(OnButtonEvent(buttonName: .ok, buttonEventMode: .buttonup)))
            #expect(await inputs.next() == .press(OnButtonPress(buttonName: .ok, buttonPressMode: .long)))
            for await _ in handled { break }
            #expect(seen.withLock { $0 } == [.long])

            await manager.buttons.unsubscribe(second)
            #expect(await Self.sent(headUnit) == ["SubscribeButton OK"])
            await manager.buttons.unsubscribe(first.observer)
            #expect(await Self.sent(headUnit) == ["SubscribeButton OK", "UnsubscribeButton OK"])
            #expect(await manager.buttons.subscribedButtons.isEmpty)
        }
    }

    @Test func droppingTheSequenceUnsubscribes() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let events = headUnit.events()
            // Pressed once the subscription is confirmed (the head unit has recorded it by then).
            let (subscribed, confirmed) = AsyncStream<Void>.makeStream()
            let reader = Task {
                let subscription = try await manager.buttons.subscribe(.preset1)
                confirmed.yield()
                for await _ in subscription.presses { break }
            }
            for await _ in subscribed { break }
            await headUnit.press(.preset1)
            try await reader.value
            for await event in events {
                if case .requestReceived(_, "UnsubscribeButton") = event { break }
            }
            #expect(await Self.sent(headUnit) == ["SubscribeButton PRESET_1", "UnsubscribeButton PRESET_1"])
        }
    }

    @Test func theGuidesRulesAreCheckedBeforeSending() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit, types: [.default]) { manager in
            await expectSDLError(SDLButtonError.self) { _ = try await manager.buttons.subscribe(.seekleft) }
            do throws(SDLButtonError) {
                _ = try await detailed(SDLButtonError.self) { try await manager.buttons.subscribe(.playPause) }
                Issue.record("PLAY_PAUSE for a non-media app")
            } catch .wrongAppType(let button, let needs) {
                #expect(button == .playPause)
                #expect(needs == .media)
            }
            do throws(SDLButtonError) {
                _ = try await detailed(SDLButtonError.self) { try await manager.buttons.subscribe(.navZoomIn) }
                Issue.record("NAV_ZOOM_IN for a non-navigation app")
            } catch .wrongAppType(_, let needs) {
                #expect(needs == .navigation)
            }
            // The emulator's display offers 8 presets: PRESET_8 is the ninth.
            do throws(SDLButtonError) {
                _ = try await detailed(SDLButtonError.self) { try await manager.buttons.subscribe(.preset8) }
                Issue.record("PRESET_8 beyond the display's presets")
            } catch .presetUnavailable(_, let available) {
                #expect(available == 8)
            }
            _ = try await manager.buttons.subscribe(.preset7)
            #expect(await Self.sent(headUnit) == ["SubscribeButton PRESET_7"])
        }
    }

    @Test func navigationButtonsNeedRPC6() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 5, 1)
        try await Self.withManager(headUnit, types: [.navigation]) { manager in
            do throws(SDLButtonError) {
                _ = try await detailed(SDLButtonError.self) { try await manager.buttons.subscribe(.navPanUp) }
                Issue.record("NAV_PAN_UP on RPC 5.1")
            } catch .notSent(.unsupportedByHeadUnit(let what, _, _)) {
                #expect(what == "button NAV_PAN_UP")
            }
            #expect(await Self.sent(headUnit).isEmpty)
        }
    }

    @Test func playPauseIsOKBeforeRPC5AndOKPressesReachIt() async throws {
        let headUnit = VersionGateTests.headUnit(rpc: 4, 5)
        try await Self.withManager(headUnit) { manager in
            let subscription = try await manager.buttons.subscribe(.playPause)
            #expect(await Self.sent(headUnit) == ["SubscribeButton OK"])
            await headUnit.press(.ok)
            var presses = subscription.presses.makeAsyncIterator()
            #expect(await presses.next()?.buttonName == .ok)
        }
    }

    @Test func subscriptionsAreRenewedAfterAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let subscription = try await manager.buttons.subscribe(.preset2)
            let events = headUnit.events()
            #expect(try await manager.dropAndReconnect(on: headUnit, appID: Self.appID))
            for await event in events {
                if case .requestReceived(_, "SubscribeButton") = event { break }
            }
            #expect(await Self.sent(headUnit) == ["SubscribeButton PRESET_2", "SubscribeButton PRESET_2"])
            await headUnit.press(.preset2)
            var presses = subscription.presses.makeAsyncIterator()
            #expect(await presses.next()?.buttonName == .preset2)
        }
    }

    @Test func sequencesEndWhenUnsubscribedOrStoppedAndANewManagerHearsPressesAgain() async throws {
        let headUnit = SDLHeadUnitEmulator()
        // Stopped inside; `stopping` stops it again at the end (a no-op), also when something throws.
        try await stopping(Self.start(headUnit)) { manager in
            let ok = try await manager.buttons.subscribe(.ok)
            let ended = Task {
                for await _ in ok {}
                return true
            }
            await manager.buttons.unsubscribe(.ok)
            #expect(await ended.value)

            let preset = try await manager.buttons.subscribe(.preset3)
            let presetEnded = Task {
                for await _ in preset {}
                return true
            }
            await manager.stop()
            #expect(await presetEnded.value)
            // A manager runs once.
            await expectSDLError(SDLManagerError.alreadyStopped) { try await manager.run() }
        }
        // The app connects again with a new manager, which hears the presses.
        try await Self.withManager(headUnit) { manager in
            let again = try await manager.buttons.subscribe(.preset3)
            await headUnit.press(.preset3)
            var presses = again.presses.makeAsyncIterator()
            #expect(await presses.next()?.buttonName == .preset3)
        }
    }
}
