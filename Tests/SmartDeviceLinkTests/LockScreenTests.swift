import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Synchronization
import Testing

@testable import SmartDeviceLink

/// The lock screen's status against the emulator (HMI level, driver distraction, the head
/// unit's logo) and its rules as a value (display modes, BACKGROUND, dismissal).
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct LockScreenTests {
    static let appID = "locked"
    static let logo: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]

    /// Waits for the first state matching `predicate` (the stream starts with the current one).
    static func state(_ manager: SDLManager, where predicate: (SDLLockScreenState) -> Bool) async -> SDLLockScreenState? {
        for await state in manager.lockScreen.states() where predicate(state) { return state }
        return nil
    }

    static func manager(_ headUnit: SDLHeadUnitEmulator, http: AppIconTests.FakeHTTP?, _ configure: (inout SDLLockScreenConfiguration) -> Void = { _ in })
        -> SDLManager
    {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.httpClient = http
        configure(&configuration.lockScreen)
        return SDLManager(configuration: configuration)
    }

    @Test func theStatusFollowsTheHMILevelAndTheDriverDistraction() async throws {
        var emulatorConfiguration = SDLHeadUnitEmulator.Configuration()
        emulatorConfiguration.activationDelay = nil
        let headUnit = SDLHeadUnitEmulator(configuration: emulatorConfiguration)
        let http = AppIconTests.FakeHTTP(body: Self.logo)
        let manager = Self.manager(headUnit, http: http)
        let distractions = manager.notifications(OnDriverDistraction.self)
        try await startRunning(manager)
        try await stopping(manager) { manager in
            // Both of SDL Core's OnDriverDistraction after registration heard before FULL.
            var heard = distractions.makeAsyncIterator()
            _ = await heard.next()
            _ = await heard.next()
            // In NONE: off. The head unit's logo came with LOCK_SCREEN_ICON_URL, through the HTTP client.
            let logo = await Self.state(manager) { $0.oemIcon != nil }
            #expect(logo?.status == .off && logo?.isShown == false)
            #expect(logo?.oemIcon == Self.logo)
            #expect(http.asked.withLock { $0 } == [emulatorConfiguration.lockScreenIconURL])

            // FULL with DD_OFF known: optional, not shown in requiredOnly mode; not dismissible
            // (SDL Core's last word after registration was DD_OFF with dismissal disabled).
            try await headUnit.activate(appID: Self.appID)
            let optional = await Self.state(manager) { $0.status == .optional }
            #expect(optional?.isShown == false)
            #expect(optional?.isDismissible == false)

            // The car moves: required and shown; the user dismisses it (a passenger).
            await headUnit.setDriverDistraction(true)
            let required = await Self.state(manager) { $0.status == .required }
            #expect(required?.isShown == true)
            // Dismissal enabled with Core's warning while the car moves.
            #expect(required?.isDismissible == true)
            #expect(required?.dismissalWarning == "Swipe down to dismiss, acknowledging that you are not the driver")
            #expect(await manager.lockScreen.dismiss())
            #expect(await manager.lockScreen.state.isShown == false)
            // A new word from the head unit brings it back once the car moves again.
            await headUnit.setDriverDistraction(false)
            _ = await Self.state(manager) { $0.status == .optional }
            await headUnit.setDriverDistraction(true)
            #expect(await Self.state(manager) { $0.status == .required }?.isShown == true)

            // BACKGROUND after the user opened the app: still required; NONE: off.
            try await headUnit.background(appID: Self.appID)
            for await level in manager.hmiLevels() where level == .background { break }
            #expect(await manager.lockScreen.state.status == .required)
            try await headUnit.exit(appID: Self.appID)
            #expect(await Self.state(manager) { $0.status == .off }?.isShown == false)
        }
    }

    @Test func theLogoIsNotFetchedWhenNotWanted() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let http = AppIconTests.FakeHTTP(body: Self.logo)
        let manager = Self.manager(headUnit, http: http) {
            $0.showDeviceLogo = false
            $0.displayMode = .always
        }
        try await startRunning(manager)
        try await stopping(manager) { manager in
            // `always`: shown from connection on, whatever the status.
            #expect(await manager.lockScreen.state.isShown)
            // The system request was handled (ListFiles after it returns in order) without a download.
            _ = try await manager.send(ListFiles())
            #expect(http.asked.withLock { $0 }.isEmpty)
            #expect(await manager.lockScreen.state.oemIcon == nil)
        }
    }

    // MARK: The rules as a value

    static func distraction(_ on: Bool, dismissal: Bool = false, warning: String? = nil) -> OnDriverDistraction {
        OnDriverDistraction(state: on ? .ddOn : .ddOff, lockScreenDismissalEnabled: dismissal, lockScreenDismissalWarning: warning)
    }

    @Test func theDisplayModesReadTheStatus() {
        for (mode, optional, required) in [
            (SDLLockScreenConfiguration.DisplayMode.never, false, false), (.requiredOnly, false, true),
            (.optionalOrRequired, true, true), (.always, true, true),
        ] {
            var rules = LockScreenRules(configuration: SDLLockScreenConfiguration(displayMode: mode))
            rules.connectionStarted()
            rules.hmiLevelChanged(.full)
            rules.driverDistraction(Self.distraction(false))
            #expect(rules.state.status == .optional)
            #expect(rules.state.isShown == optional, "\(mode) optional")
            rules.driverDistraction(Self.distraction(true))
            #expect(rules.state.isShown == required, "\(mode) required")
        }
    }

    @Test func withoutADistractionWordTheLockIsRequiredAndBackgroundNeedsTheUser() {
        var rules = LockScreenRules(configuration: SDLLockScreenConfiguration())
        rules.connectionStarted()
        #expect(rules.state.status == .off)
        // BACKGROUND straight from NONE: the user never opened it.
        rules.hmiLevelChanged(.background)
        #expect(rules.state.status == .off)
        // LIMITED before any OnDriverDistraction: assume the driver may be distracted.
        rules.hmiLevelChanged(.limited)
        #expect(rules.state.status == .required)
        rules.hmiLevelChanged(.background)
        #expect(rules.state.status == .required)
        rules.hmiLevelChanged(.none)
        rules.hmiLevelChanged(.background)
        #expect(rules.state.status == .off)
    }

    @Test func dismissalNeedsTheHeadUnitAndTheConfiguration() {
        var rules = LockScreenRules(configuration: SDLLockScreenConfiguration())
        rules.connectionStarted()
        rules.hmiLevelChanged(.full)
        rules.driverDistraction(Self.distraction(true))
        let refused = rules.dismiss()
        #expect(!refused)  // the head unit did not allow it
        rules.driverDistraction(Self.distraction(true, dismissal: true, warning: "Swipe down to dismiss, acknowledging that you are not the driver"))
        #expect(rules.state.isDismissible)
        #expect(rules.state.dismissalWarning == "Swipe down to dismiss, acknowledging that you are not the driver")
        let dismissed = rules.dismiss()
        #expect(dismissed && !rules.state.isShown)

        var strict = LockScreenRules(configuration: SDLLockScreenConfiguration(enableDismissGesture: false))
        strict.hmiLevelChanged(.full)
        strict.driverDistraction(Self.distraction(true, dismissal: true, warning: "Swipe"))
        #expect(!strict.state.isDismissible && strict.state.dismissalWarning == nil)
        let strictlyRefused = strict.dismiss()
        #expect(!strictlyRefused)
    }
}
