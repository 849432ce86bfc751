import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import Synchronization
import Testing

@testable import SmartDeviceLink

/// The screen manager against a fake context: what it sends for text, images and soft buttons,
/// the queue's superseding and waiting, presses, a resend on a new connection, and the end.
/// No emulator, no socket.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct ScreenManagerUnitTests {
    static let art = SDLArtwork(bytes: Array(repeating: 9, count: 300), format: .png, name: "cover.png")

    static func screen(_ context: FakeManagerContext) -> SDLScreenManager {
        SDLScreenManager(context: context, logger: Logger(label: "test"))
    }

    @Test func textThenTheUploadedImageThenNothingForAnUnchangedUpdate() async throws {
        let context = FakeManagerContext()
        context.allowShowing()
        try await context.running {
            let screen = Self.screen(context)
            let result = try await screen.update {
                $0.textField1 = "Song"
                $0.primaryGraphic = Self.art
            }
            #expect(result == .applied)
            #expect(
                context.sent == [
                    #"Show {"mainField1":"Song","mainField2":"","mainField3":"","mainField4":""}"#,
                    #"Show {"graphic":{"imageType":"DYNAMIC","isTemplate":false,"value":"cover.png"}}"#,
                ])
            #expect(context.uploads == ["cover.png"])
            #expect(await screen.shownContent.primaryGraphic == Self.art)
            try await screen.update { $0.textField1 = "Song" }
            #expect(context.sent.count == 2)
        }
    }

    @Test func queuedUpdatesWaitAndTheNewestSupersedesTheQueuedOne() async throws {
        let context = FakeManagerContext()
        try await context.running {
            let screen = Self.screen(context)
            try await withThrowingTaskGroup(of: SDLScreenUpdateResult.self) { group in
                group.addTask { try await screen.update { $0.textField1 = "first" } }
                // The queue waits for the screen with the first update still queued.
                try await until { context.waitingToShow > 0 }
                group.addTask { try await screen.update { $0.textField2 = "second" } }
                #expect(try await group.next() == .superseded)
                group.addTask { try await screen.update { $0.textField3 = "third" } }
                #expect(try await group.next() == .superseded)
                #expect(context.sent.isEmpty)
                context.allowShowing()
                #expect(try await group.next() == .applied)
            }
            // The newest carries the superseded ones' changes, in one Show.
            #expect(context.sent == [#"Show {"mainField1":"first","mainField2":"second","mainField3":"third","mainField4":""}"#])
        }
    }

    @Test func softButtonsGetIDsAndTheirPressesReachTheirHandlers() async throws {
        let context = FakeManagerContext(imageSupported: false)
        context.allowShowing()
        let (presses, pressed) = AsyncStream<String>.makeStream()
        try await context.running {
            let screen = Self.screen(context)
            try await screen.setSoftButtons([
                SDLSoftButton(name: "play", text: "Play") { _ in pressed.yield("play") },
                SDLSoftButton(name: "skip", text: "Skip", artwork: Self.art) { _ in pressed.yield("skip") },
            ])
            #expect(
                context.sent == [
                    #"Show {"softButtons":[{"isHighlighted":false,"softButtonID":1000,"text":"Play","type":"TEXT"},{"isHighlighted":false,"softButtonID":1001,"text":"Skip","type":"TEXT"}]}"#
                ])
            #expect(context.uploads.isEmpty)  // the head unit takes no soft-button images
            #expect(await screen.softButtonID("skip") == 1001)
            try context.deliver(OnButtonPress(buttonName: .customButton, buttonPressMode: .short, customButtonID: 1001))
            var iterator = presses.makeAsyncIterator()
            #expect(await iterator.next() == "skip")
        }
    }

    @Test func aNewConnectionGetsTheScreenAgainAndARefusalIsTyped() async throws {
        let context = FakeManagerContext()
        context.allowShowing()
        try await context.running {
            let screen = Self.screen(context)
            try await screen.update { $0.textField1 = "Hello" }
            let connection = TaskScope()
            await screen.connectionReady(SDLConnectionContext(tasks: connection, rpcVersion: .version(8, 0), permissions: nil))
            try await until { context.sent.count == 2 }
            #expect(context.sent == Array(repeating: #"Show {"mainField1":"Hello","mainField2":"","mainField3":"","mainField4":""}"#, count: 2))

            context.answer("Show", with: .rejected)
            let refusal = await expectSDLError(SDLScreenError.self) { try await screen.update { $0.textField1 = "No" } }
            guard case .refused("Show", .rejected, _)? = refusal else {
                Issue.record("unexpected \(String(describing: refusal))")
                return
            }
            #expect(await screen.shownContent.textField1 == "Hello")
        }
    }

    @Test func aStoppedManagerFailsQueuedAndNewOperations() async throws {
        let context = FakeManagerContext()
        try await context.running {
            let screen = Self.screen(context)
            let queued = Task { try await screen.update { $0.textField1 = "never" } }
            try await until { context.waitingToShow > 0 }
            await screen.managerStopped()
            context.detach()
            context.allowShowing()
            for cause in [
                await expectSDLError(SDLScreenError.self) { try await queued.value },
                await expectSDLError(SDLScreenError.self) { try await screen.update { $0.textField1 = "late" } },
            ] {
                guard case .stopped? = cause else {
                    Issue.record("unexpected \(String(describing: cause))")
                    continue
                }
            }
        }
    }

    /// A window without the choice lines and images: the cells go without them, and their
    /// artwork is not uploaded (the guide: like menu icons).
    @Test func choiceCellsLoseWhatTheWindowCannotShow() async throws {
        let context = FakeManagerContext()
        context.allowShowing()
        try await context.running {
            let screen = Self.screen(context)
            let cell = SDLChoiceCell(text: "Jazz", secondaryText: "Smooth", tertiaryText: "24/7", artwork: Self.art, secondaryArtwork: Self.art)
            try await screen.preloadChoices([cell])
            let created = try #require(context.sent.first { $0.hasPrefix("CreateInteractionChoiceSet") })
            #expect(created.contains("\"menuName\":\"Jazz\""))
            #expect(!created.contains("secondaryText") && !created.contains("tertiaryText") && !created.contains("image"))
            #expect(context.uploads.isEmpty)
        }
    }
}
