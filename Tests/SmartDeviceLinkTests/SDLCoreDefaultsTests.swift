import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The example's served steps against what a stock SDL Core 8.2 announces
/// (`SDLHeadUnitEmulator.Configuration.sdlCoreDefaults`: speech TEXT only, no DISPLAYS capability,
/// image fields without `imageTypeSupported`): each must succeed as it does against the emulator's
/// fuller defaults.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SDLCoreDefaultsTests {
    static let appID = "core-defaults"

    @Test func theProfileIsWhatStockCoreAnnounces() async throws {
        let configuration = SDLHeadUnitEmulator.Configuration.sdlCoreDefaults
        #expect(configuration.unavailableCapabilities == [.displays])
        #expect(configuration.capabilities["speechCapabilities"] == .array([.string("TEXT")]))
        guard case .array(let fields)? = configuration.capabilities["displayCapabilities"]?["imageFields"] else {
            Issue.record("no image fields")
            return
        }
        // Core keeps the image types of these two fields only.
        let typed = fields.filter { $0["imageTypeSupported"] != nil }.compactMap { $0["name"] }
        #expect(fields.count == 12 && typed == [.string("locationImage"), .string("alertIcon")])
    }

    @Test func theServedStepsSucceed() async throws {
        let headUnit = SDLHeadUnitEmulator(configuration: .sdlCoreDefaults)
        let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, appID: Self.appID, media: true))
        try await startRunning(manager)
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(60))
        try await stopping(manager) { manager in
            // The legacy display capabilities stand in for DISPLAYS, their image fields included.
            let window = try #require(await manager.systemCapabilities.defaultMainWindowCapability)
            #expect(window.imageFields?.contains { $0.name == .graphic } == true)

            let shown = try await manager.send(Show(mainField1: "Hello from the cloud", mainField2: "SmartDeviceLink in Swift"))
            #expect(shown.success)
            let file = SDLFile(name: "cloud-64k.bin", bytes: (0..<65_536).map { UInt8(truncatingIfNeeded: $0) }, type: .binary, overwrite: true)
            _ = try await manager.files.upload(file)

            // Text and image: the graphic is shown, not withheld.
            let cover = SDLArtwork(bytes: Array(repeating: 9, count: 400), format: .png, name: "cover.png")
            try await manager.screen.update {
                $0.textField1 = "Swift SDL"
                $0.primaryGraphic = cover
            }
            #expect(await manager.screen.shownContent.primaryGraphic == cover)
            try await manager.screen.changeLayout(SDLTemplate(.graphicWithText))
            try await manager.screen.setMenu([SDLMenuCell(title: "Play"), SDLMenuCell(title: "Settings", subCells: [SDLMenuCell(title: "Audio")])])

            // Speech: the SILENCE Core cannot say is left out, the rest spoken.
            #expect(try await manager.screen.speak("Welcome") == .spoken)
            #expect(try await manager.screen.speak(SDLSpeech([.text("one"), .silence, .text("two")])) == .spoken)
            let speak = await headUnit.recordedRPCs(appID: Self.appID).filter { $0.direction == "in" && $0.functionName == "Speak" }.last
            #expect(speak?.parameters?["ttsChunks"]?[1]?["text"] == .string("two"))

            try await manager.screen.setMediaClock(.countUp(from: .seconds(30), to: .seconds(253), indicator: .pause))
            try await manager.screen.setMediaClock(.clear())
            #expect(await manager.vehicleData.waitUntilAllowed(\.speed))
            _ = try await manager.vehicleData.get(\.speed)
        }
    }
}
