import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The screen manager's text, images and template against the stateful emulator: the exact
/// RPC sequence it produced, from the emulator's record.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ScreenManagerTests {
    static let appID = "screen"

    static func start(_ headUnit: SDLHeadUnitEmulator, media: Bool = true) async throws -> SDLManager {
        let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, appID: appID, media: media))
        try await startRunning(manager)
        return manager
    }

    /// `start`'s manager, in FULL unless `inFull` is false, for the duration of `body`; stopped
    /// afterwards even when `body` throws (a failed `#require`, say).
    static func withManager(
        _ headUnit: SDLHeadUnitEmulator, media: Bool = true, inFull: Bool = true, _ body: (SDLManager) async throws -> Void
    ) async throws {
        try await stopping(start(headUnit, media: media)) { manager in
            // Safety timeout: bounds the wait for FULL, so a missing activation ends in failed checks, not a hang.
            if inFull { _ = await manager.waitForHMILevel(.full, timeout: .seconds(60)) }
            try await body(manager)
        }
    }

    /// The screen requests the app sent, in order, as "Show {params}" lines (keys sorted).
    static func sent(_ headUnit: SDLHeadUnitEmulator, _ functions: Set<String> = ["Show", "SetDisplayLayout", "PutFile"]) async -> [String] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && functions.contains($0.functionName) }.map { record in
            guard let parameters = record.parameters else { return record.functionName }
            return record.functionName == "PutFile" ? "PutFile" : "\(record.functionName) \(sortedKeys(parameters).jsonString)"
        }
    }

    static func sortedKeys(_ value: SDLJSONValue) -> SDLJSONValue {
        switch value {
        case .object(let members): .object(members.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: sortedKeys($0.value)) })
        case .array(let items): .array(items.map(sortedKeys))
        default: value
        }
    }

    /// A display with one 10-character line and no image fields.
    static func smallDisplay() -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        guard case .object(var members) = configuration.capabilities else { return SDLHeadUnitEmulator() }
        members = members.map { member in
            guard member.key == "displayCapabilities", case .object(var display) = member.value else { return member }
            display = display.map { field in
                switch field.key {
                case "textFields":
                    return .init(
                        key: field.key,
                        value: (try? SDLJSONValue(parsing: Array(#"[{"name":"mainField1","characterSet":"UTF_8","width":10,"rows":1}]"#.utf8))) ?? .array([]))
                case "imageFields": return .init(key: field.key, value: .array([]))
                default: return field
                }
            }
            return .init(key: member.key, value: .object(display))
        }.map { member in
            guard member.key == "softButtonCapabilities" else { return member }
            return .init(
                key: member.key,
                value: (try? SDLJSONValue(
                    parsing: Array(
                        #"[{"shortPressAvailable":true,"longPressAvailable":true,"upDownAvailable":true,"imageSupported":false,"textSupported":true}]"#.utf8)))
                    ?? .array([]))
        }
        configuration.capabilities = .object(members)
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    static let art = SDLArtwork(bytes: FileManagerTests.bytes(3_000, seed: 9), format: .png, name: "cover.png")

    @Test func severalChangesInOneUpdateAreOneShow() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let result = try await manager.screen.update {
                $0.textField1 = "Song"
                $0.textField2 = "Artist"
                $0.textField1Type = .mediaTitle
                $0.alignment = .centered
            }
            #expect(result == .applied)
            #expect(
                await Self.sent(headUnit) == [
                    #"Show {"alignment":"CENTERED","mainField1":"Song","mainField2":"Artist","mainField3":"","mainField4":"","metadataTags":{"mainField1":["mediaTitle"]}}"#
                ])
            #expect(await manager.screen.shownContent.textField2 == "Artist")
            // Clearing a line sends it empty.
            try await manager.screen.update { $0.textField2 = nil }
            #expect(
                await Self.sent(headUnit).last
                    == #"Show {"alignment":"CENTERED","mainField1":"Song","mainField2":"","mainField3":"","mainField4":"","metadataTags":{"mainField1":["mediaTitle"]}}"#
            )
            // Nothing changed: nothing sent.
            try await manager.screen.update { $0.textField1 = "Song" }
            #expect(await Self.sent(headUnit).count == 2)
        }
    }

    @Test func textGoesFirstThenTheUploadedImageInAnImageOnlyShow() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.update {
                $0.textField1 = "Now playing"
                $0.primaryGraphic = Self.art
            }
            let sent = await Self.sent(headUnit)
            #expect(
                sent == [
                    #"Show {"mainField1":"Now playing","mainField2":"","mainField3":"","mainField4":""}"#,
                    "PutFile",
                    #"Show {"graphic":{"imageType":"DYNAMIC","isTemplate":false,"value":"cover.png"}}"#,
                ])
            #expect(await manager.screen.shownContent.primaryGraphic == Self.art)
            #expect(try await headUnit.screen(appID: Self.appID)["graphic"] != nil)
            // A static icon needs no upload: it goes with the text.
            try await manager.screen.update {
                $0.textField1 = "Albums"
                $0.primaryGraphic = .staticIcon(.album)
            }
            let afterIcon = await Self.sent(headUnit)
            #expect(afterIcon.last?.contains(#""graphic":{"imageType":"STATIC""#) == true, "\(afterIcon)")
            #expect(await Self.sent(headUnit).filter { $0 == "PutFile" }.count == 1)
        }
    }

    /// SDL Core 8.2 with its stand-in HMI: GetSystemCapability(DISPLAYS) is DATA_NOT_AVAILABLE, and
    /// the registration's `imageFields` leave out the mandatory `imageTypeSupported`. The manager
    /// must still see the `graphic` field there and send the image.
    @Test func sdlCoresLegacyDisplayCapabilitiesStillShowTheGraphic() async throws {
        guard case .object(var response) = SDLHeadUnitEmulator.Configuration.defaultCapabilities,
            let index = response.firstIndex(where: { $0.key == "displayCapabilities" }),
            case .object(var display) = response[index].value,
            let fields = display.firstIndex(where: { $0.key == "imageFields" }),
            case .array(let imageFields) = display[fields].value
        else {
            Issue.record("unexpected default capabilities")
            return
        }
        // As SDL Core sends them: only locationImage and alertIcon keep `imageTypeSupported`.
        display[fields].value = .array(
            imageFields.map { field in
                guard case .object(let members) = field, field["name"] != .string("locationImage"), field["name"] != .string("alertIcon") else { return field }
                return .object(members.filter { $0.key != "imageTypeSupported" })
            })
        response[index].value = .object(display)
        var configuration = SDLHeadUnitEmulator.Configuration(capabilities: .object(response))
        configuration.unavailableCapabilities = [.displays]
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit) { manager in
            #expect(
                await ScreenTestSupport.sent(headUnit, appID: Self.appID, "GetSystemCapability").contains { $0["systemCapabilityType"] == .string("DISPLAYS") })
            try await manager.screen.update {
                $0.textField1 = "Swift SDL"
                $0.primaryGraphic = Self.art
            }
            #expect(await manager.screen.shownContent.primaryGraphic == Self.art)
            #expect(await Self.sent(headUnit).last == #"Show {"graphic":{"imageType":"DYNAMIC","isTemplate":false,"value":"cover.png"}}"#)
        }
    }

    @Test func updatesWaitInNoneAndTheNewestSupersedesTheQueuedOne() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.withManager(headUnit, inFull: false) { manager in
            let events = headUnit.events()
            let first = Task { try await manager.screen.update { $0.textField1 = "first" } }
            // The first is queued (held in NONE) before the second comes.
            try await until { await !manager.screen.queue.isEmpty }
            let second = Task { try await manager.screen.update { $0.textField2 = "second" } }
            #expect(try await first.value == .superseded)
            #expect(await Self.sent(headUnit).isEmpty)  // still NONE: nothing went out
            try await headUnit.activate(appID: Self.appID)
            #expect(try await second.value == .applied)
            #expect(await Self.sent(headUnit) == [#"Show {"mainField1":"first","mainField2":"second","mainField3":"","mainField4":""}"#])
            _ = events
        }
    }

    @Test func aSmallDisplayGetsOneJoinedCutLineAndNoImages() async throws {
        let headUnit = Self.smallDisplay()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.update {
                $0.textField1 = "One"
                $0.textField2 = "Two"
                $0.textField3 = "Three"
                $0.primaryGraphic = Self.art
            }
            #expect(await Self.sent(headUnit) == [#"Show {"mainField1":"One - Two "}"#])
        }
    }

    @Test func templatesUseShowFrom6AndSetDisplayLayoutBefore() async throws {
        let colors = TemplateColorScheme(primaryColor: RGBColor(red: 255, green: 0, blue: 0))
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            // NON-MEDIA: SDL's HMI gives every app type that one (and refuses GRAPHIC_WITH_TEXT).
            try await manager.screen.changeLayout(SDLTemplate(.nonMedia, dayColors: colors))
            let layout = await Self.sent(headUnit)
            #expect(
                layout.first?.contains(#""templateConfiguration":{"dayColorScheme":{"primaryColor":{"blue":0,"green":0,"red":255}},"template":"NON-MEDIA"}"#)
                    == true, "\(layout)")
            // Colours alone, without a template change, do not apply: refused before sending.
            do throws(SDLScreenError) {
                try await detailed(SDLScreenError.self) { try await manager.screen.changeLayout(SDLTemplate(.nonMedia, dayColors: nil)) }
                Issue.record("a colour change without a template change went out")
            } catch .colorsNeedTemplateChange {}
            #expect(await Self.sent(headUnit).count == 1)
        }

        let old = VersionGateTests.headUnit(rpc: 5, 0)
        try await Self.withManager(old) { legacy in
            try await legacy.screen.update {
                $0.template = SDLTemplate(.nonMedia)
                $0.textField1 = "Hi"
            }
            #expect(
                await Self.sent(old) == [
                    #"SetDisplayLayout {"displayLayout":"NON-MEDIA"}"#,
                    #"Show {"mainField1":"Hi","mainField2":"","mainField3":"","mainField4":""}"#,
                ])
        }
    }

    @Test func theContentIsSentAgainAfterAReconnection() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.update { $0.textField1 = "Still here" }
            let events = headUnit.events()
            #expect(try await manager.dropAndReconnect(on: headUnit, appID: Self.appID))
            for await event in events {
                if case .requestReceived(_, "Show") = event { break }
            }
            #expect(
                await Self.sent(headUnit) == Array(repeating: #"Show {"mainField1":"Still here","mainField2":"","mainField3":"","mainField4":""}"#, count: 2))
        }
    }

    @Test func fittingJoinsLinesAsTheGuideShows() {
        let lines: [String?] = ["a", "b", "c", "d"]
        let none: [MetadataType?] = [nil, nil, nil, nil]
        #expect(TextFitting.fit(lines: lines, types: none, count: 1).fields == ["a - b - c - d"])
        #expect(TextFitting.fit(lines: lines, types: none, count: 2).fields == ["a - b", "c - d"])
        #expect(TextFitting.fit(lines: ["a", "b", nil, nil], types: none, count: 2).fields == ["a", "b"])
        #expect(TextFitting.fit(lines: lines, types: none, count: 3).fields == ["a", "b", "c - d"])
        #expect(TextFitting.fit(lines: lines, types: [.mediaTitle, .mediaArtist, nil, nil], count: 1).tags == [[.mediaTitle, .mediaArtist]])
        #expect(TextFitting.cut("Hello world", to: 5) == "Hello")
    }

    @Test func softButtonsWithStatesIDsPressesAndTransitions() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.withManager(headUnit) { manager in
            let pressed = Locked<[String]>([])
            let (handled, handledSink) = AsyncStream<Void>.makeStream()
            let like = SDLSoftButton(
                name: "like",
                states: [
                    SDLSoftButtonState(name: "off", text: "Like"),
                    SDLSoftButtonState(name: "on", text: "Liked", isHighlighted: true),
                ]
            ) { _ in
                pressed.withLock { $0.append("like") }
                handledSink.yield()
            }
            let icon = SDLSoftButton(name: "icon", text: "Art", artwork: Self.art)
            try await manager.screen.setSoftButtons([like, icon])
            let likeID = try #require(await manager.screen.softButtonID("like"))
            let iconID = try #require(await manager.screen.softButtonID("icon"))
            #expect(
                await Self.sent(headUnit) == [
                    #"Show {"softButtons":[{"isHighlighted":false,"softButtonID":\#(likeID),"text":"Like","type":"TEXT"},{"isHighlighted":false,"softButtonID":\#(iconID),"text":"Art","type":"TEXT"}]}"#,
                    "PutFile",
                    #"Show {"softButtons":[{"isHighlighted":false,"softButtonID":\#(likeID),"text":"Like","type":"TEXT"},{"image":{"imageType":"DYNAMIC","isTemplate":false,"value":"cover.png"},"isHighlighted":false,"softButtonID":\#(iconID),"text":"Art","type":"BOTH"}]}"#,
                ])
            let presses = await manager.screen.softButtonPresses("like")
            try await headUnit.pressSoftButton(appID: Self.appID, id: likeID)
            var iterator = presses.makeAsyncIterator()
            #expect(await iterator.next()?.customButtonID == likeID)
            for await _ in handled { break }
            #expect(pressed.withLock { $0 } == ["like"])

            try await manager.screen.transition("like", to: "on")
            #expect(await Self.sent(headUnit).last?.contains(#""isHighlighted":true,"softButtonID":\#(likeID),"text":"Liked""#) == true)
            // The guide's rules, before sending.
            await expectSDLError(SDLScreenError.self) { try await manager.screen.setSoftButtons([like, like]) }
            await expectSDLError(SDLScreenError.self) { try await manager.screen.transition("like", to: "maybe") }
            #expect(await Self.sent(headUnit).count == 4)
        }
    }

    @Test func softButtonsWithoutImageSupportFallBackToTextAndWithholdImageOnlyOnes() async throws {
        let headUnit = Self.smallDisplay()
        try await Self.withManager(headUnit) { manager in
            try await manager.screen.setSoftButtons([
                SDLSoftButton(name: "both", text: "Both", artwork: Self.art),
                SDLSoftButton(name: "picture", artwork: Self.art),
            ])
            let id = try #require(await manager.screen.softButtonID("both"))
            #expect(await Self.sent(headUnit) == [#"Show {"softButtons":[{"isHighlighted":false,"softButtonID":\#(id),"text":"Both","type":"TEXT"}]}"#])
        }
    }
}
