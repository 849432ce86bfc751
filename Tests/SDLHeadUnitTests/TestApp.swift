import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport
import SmartDeviceLink

/// An app driven by a test: the library's client over an in-memory pair to `emulator`.
struct TestApp {
    let appID: String
    let client: SDLRPCClient
    let session: SDLProtocolSession
    let running: Task<Void, any Error>
    let statuses: AsyncStream<OnHMIStatus>
    let registration: RegisterAppInterfaceResponse

    static func register(
        to emulator: SDLHeadUnitEmulator, appID: String = "1234", name: String? = nil, media: Bool = false,
        types: [AppHMIType]? = nil, language: Language = .enUs, hashID: String? = nil, activate: Bool = true,
        fullAppID: String? = nil, vrSynonyms: [String]? = nil, version: SyncMsgVersion = SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
        over transport: (any SDLTransport)? = nil
    ) async throws -> TestApp {
        // An in-memory pair to the emulator, unless the test dialed it (over TCP) itself.
        let appSide: any SDLTransport
        if let transport {
            appSide = transport
        } else {
            let (app, headUnit) = SDLMemoryTransport.pair()
            Task { await emulator.serve(headUnit) }
            appSide = app
        }
        var configuration = SDLProtocolSession.Configuration()
        // Safety timeouts (both 120 s): generous bounds so a lost answer fails the test instead of hanging.
        configuration.controlTimeout = .seconds(120)
        let session = SDLProtocolSession(transport: appSide, configuration: configuration)
        let client = SDLRPCClient(session: session, requestTimeout: .seconds(120))
        let running = Task { try await client.run() }
        try await session.start()
        let statuses = client.notifications(OnHMIStatus.self)
        let distraction = client.notifications(OnDriverDistraction.self)
        let displays = client.notifications(OnSystemCapabilityUpdated.self)
        let response = try await client.send(
            RegisterAppInterface(
                // Each app its own name by default: SDL Core refuses a name another app has.
                syncMsgVersion: version, appName: name ?? "Demo \(appID)", vrSynonyms: vrSynonyms,
                isMediaApplication: media, languageDesired: language, hmiDisplayLanguageDesired: language,
                appHMIType: types ?? [media ? .media : .default], hashID: hashID, appID: appID, fullAppID: fullAppID))
        let app = TestApp(appID: fullAppID ?? appID, client: client, session: session, running: running, statuses: statuses, registration: response)
        // SDL Core's notifications follow the response; the last two are OnDriverDistraction.
        // Once the app has heard them, a test's own subscriptions start after them.
        if response.success {
            var heard = 0
            for await _ in distraction {
                heard += 1
                if heard == 2 { break }
            }
            // Then the main window's DISPLAYS capability, as SDL's HMI gives it at registration
            // (a head unit without the DISPLAYS capability, Core's stand-in HMI, gives none).
            if await !emulator.configuration.unavailableCapabilities.contains(.displays) {
                for await update in displays where update.systemCapability.systemCapabilityType == .displays { break }
            }
        }
        // Most rules are about an app on screen: bring it to FULL (SDL Core answers DISALLOWED
        // in NONE), and wait until the app has heard it.
        if activate && response.success {
            try await emulator.activate(appID: fullAppID ?? appID)
            _ = await app.status { $0.hmiLevel == HMILevel.full }
        }
        return app
    }

    /// A head unit that leaves apps in NONE until the test activates them.
    static func headUnit(clock: ManualClock? = nil) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        if let clock { configuration.clock = SDLClock(clock) }
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    /// Waits for the next OnHMIStatus matching `predicate`.
    func status(where predicate: (OnHMIStatus) -> Bool) async -> OnHMIStatus? {
        for await status in statuses where predicate(status) { return status }
        return nil
    }

    func close() async {
        await client.close()
    }
}
