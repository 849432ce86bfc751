import SDLHeadUnit
import SDLRuntime
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// Turn-by-turn guidance against the emulator: what goes on the wire (icons uploaded first),
/// what the head unit's screen then shows, and the requests refused before sending.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct TurnByTurnTests {
    static let appID = "route"
    static let turnRight = SDLArtwork(bytes: Array(repeating: 3, count: 200), format: .png, name: "turn-right")
    static let turnLeft = SDLArtwork(bytes: Array(repeating: 4, count: 200), format: .png, name: "turn-left")

    static func requests(_ headUnit: SDLHeadUnitEmulator) async -> [String] {
        await FeatureTestSupport.requests(headUnit, appID: appID, among: ["PutFile", "ShowConstantTBT", "AlertManeuver", "UpdateTurnList"])
    }

    @Test func theManeuverItsAlertAndTheTurnListAreShownWithTheirIconsUploadedFirst() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await stopping(VideoStreamingTests.start(headUnit, appID: Self.appID)) { manager in
            let navigation = manager.navigation
            var maneuver = SDLManeuver(text1: "Turn right", text2: "3 mi", icon: Self.turnRight)
            maneuver.eta = "12:30"
            maneuver.buttons = [SDLTurnButton(id: 7, text: "Mute")]
            try await navigation.showManeuver(maneuver)
            try await navigation.alertManeuver("In 3 miles turn right")
            try await navigation.updateTurnList([SDLTurn(text: "Turn right", icon: Self.turnRight), SDLTurn(text: "Turn left", icon: Self.turnLeft)])
            // Each icon once, before the request that shows it.
            #expect(await Self.requests(headUnit) == ["PutFile", "ShowConstantTBT", "AlertManeuver", "PutFile", "UpdateTurnList"])

            let shown = try await headUnit.turnByTurn(appID: Self.appID)
            #expect(shown["maneuver"]?["navigationText1"] == .string("Turn right"))
            #expect(shown["maneuver"]?["eta"] == .string("12:30"))
            #expect(shown["maneuver"]?["turnIcon"]?["value"] == .string("turn-right"))
            #expect(shown["maneuver"]?["softButtons"]?[0]?["softButtonID"] == .integer(7))
            #expect(shown["alertManeuver"]?["ttsChunks"]?[0]?["text"] == .string("In 3 miles turn right"))
            #expect(shown["turnList"]?["turnList"]?[1]?["navigationText"] == .string("Turn left"))
            // The control API's screen shows it too, with the icons as uploaded files.
            let screen = try await headUnit.screen(appID: Self.appID)
            #expect(screen["turnByTurn"] == shown)
            #expect(
                screen["images"]
                    == .array(
                        ["turn-left", "turn-right"].map { name in
                            .object([
                                .init(key: "name", value: .string(name)), .init(key: "url", value: .string("/apps/\(Self.appID)/files/\(name)")),
                                .init(key: "uploaded", value: .bool(true)),
                            ])
                        }))

            try await navigation.clearManeuver()
            let cleared = try await headUnit.turnByTurn(appID: Self.appID)
            #expect(cleared["maneuver"] == .object([]))
            #expect(cleared["alertManeuver"] == nil)
            #expect(cleared["turnList"] != nil, "the turn list stays")
        }
    }

    @Test func whatSDLCoreWouldRefuseIsRefusedBeforeSending() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await stopping(VideoStreamingTests.start(headUnit, appID: Self.appID)) { manager in
            let navigation = manager.navigation
            func refused(_ body: () async throws -> Void) async {
                do {
                    try await body()
                    Issue.record("sent")
                } catch {
                    #expect((error as? SDLError)?.code == .invalidArgument, "\(error)")
                }
            }
            await refused { try await navigation.showManeuver(SDLManeuver(text1: "Turn right\nthen left")) }
            await refused { try await navigation.alertManeuver(nil) }
            await refused { try await navigation.alertManeuver("Turn", buttons: (1...4).map { SDLTurnButton(id: $0, text: "B\($0)") }) }
            await refused { try await navigation.updateTurnList([]) }
            await refused { try await navigation.updateTurnList(Array(repeating: SDLTurn(text: "x"), count: 101)) }
            await refused { try await navigation.updateTurnList([SDLTurn(text: "Turn"), SDLTurn()]) }
            await refused {
                var maneuver = SDLManeuver(text1: "Turn")
                maneuver.buttons = [SDLTurnButton(id: 1)]
                try await navigation.showManeuver(maneuver)
            }
            #expect(await Self.requests(headUnit).isEmpty)
        }
    }
}
