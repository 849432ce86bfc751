import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
@testable import SmartDeviceLink
import Synchronization
import Testing

/// A screen context with no manager behind it: a window of four text lines, a primary graphic
/// and soft buttons with images; records every request as "Function {params}" (keys sorted) and
/// every upload, answers SUCCESS (or what a test sets), and holds operations until the test
/// lets the screen change (`allowShowing`), as NONE holds them on a head unit.
final class FakeScreenContext: SDLScreenContext {
    let parts = FakeContextParts()
    private struct State {
        var attached = true
        var sent: [String] = []
        var files: Set<String> = []
        var uploads: [String] = []
        var resultCodes: [String: SDLResult] = [:]
        var showable = false
        var showableWaiters: [CheckedContinuation<Bool, Never>] = []
        var waiting = 0
    }
    private let state = Mutex(State())
    private let window: WindowCapability

    init(imageSupported: Bool = true) {
        let lines: [TextFieldName] = [.mainField1, .mainField2, .mainField3, .mainField4]
        window = WindowCapability(
            textFields: lines.map { TextField(name: $0, characterSet: .utf8, width: 500, rows: 1) },
            imageFields: [ImageField(name: .graphic, imageTypeSupported: [.graphicPng]), ImageField(name: .softButtonImage, imageTypeSupported: [.graphicPng])],
            imageTypeSupported: [.static, .dynamic],
            softButtonCapabilities: [SoftButtonCapabilities(shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true, imageSupported: imageSupported)])
    }

    /// What was sent, in order.
    var sent: [String] { state.withLock { $0.sent } }
    /// Names of the files uploaded, in order.
    var uploads: [String] { state.withLock { $0.uploads } }
    /// Operations waiting for `allowShowing()`.
    var waitingToShow: Int { state.withLock { $0.waiting } }

    func answer(_ function: String, with result: SDLResult) { state.withLock { $0.resultCodes[function] = result } }
    func detach() { state.withLock { $0.attached = false } }

    /// The screen may change from now on (an HMI level above NONE, say).
    func allowShowing() {
        let waiters = state.withLock { state in
            state.showable = true
            defer { state.showableWaiters = [] }
            return state.showableWaiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Delivers a notification to the readers of its function ID.
    func deliver<N: SDLNotification>(_ notification: N) throws { try parts.deliver(notification) }

    var isAttached: Bool { state.withLock { $0.attached } }
    var appTypes: Set<AppHMIType> { get async { [.media] } }
    func rpcVersion() async -> SDLSpecVersion { .version(8, 0) }
    func mainWindowCapability() async -> WindowCapability? { window }
    func displayName() async -> String? { "FAKE" }
    func speechCapabilities() async -> (speech: [SpeechCapabilities]?, prerecorded: [PrerecordedSpeech]?) { ([.text], nil) }
    func audioPassThruCapabilities() async -> [AudioPassThruCapabilities]? { nil }

    func send<R: SDLRequest>(_ request: R) async throws -> R.Response {
        try await send(request, timeout: nil)
    }

    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response {
        let parameters = ScreenManagerTests.sortedKeys(try SDLJSONValue(parsing: SDLJSON.encode(request)))
        let code = state.withLock { state in
            state.sent.append("\(R.functionName) \(parameters.jsonString)")
            return state.resultCodes[R.functionName] ?? .success
        }
        let success = code == .success || code == .warnings
        return try SDLJSON.decode(R.Response.self, from: Array(#"{"success":\#(success),"resultCode":"\#(code.rawValue)"}"#.utf8)).value
    }

    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> { parts.rawNotifications(functionIDs: functionIDs) }

    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        AsyncStream { $0.finish() }
    }

    func observeNotifications(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        SDLNotificationObservation {}
    }

    func hasFile(named name: String) async -> Bool { state.withLock { $0.files.contains(name) } }

    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome {
        guard let file = artwork.file else { return .staticIcon }
        return try await uploadFile(file)
    }

    func uploadFile(_ file: SDLFile) async throws(SDLFileError) -> SDLUploadOutcome {
        state.withLock { state in
            state.uploads.append(file.name)
            state.files.insert(file.name)
        }
        return .uploaded(bytes: 0)
    }

    func waitUntilShowable() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.showable { return true }
                state.waiting += 1
                state.showableWaiters.append(continuation)
                return false
            }
            if now { continuation.resume(returning: true) }
        }
    }

    @discardableResult
    func spawn(_ work: @escaping @Sendable () async -> Void) -> Bool { parts.tasks.spawn(work) }

    /// Runs `body` while the context's child tasks run; they are cancelled afterwards.
    func running(_ body: () async throws -> Void) async throws { try await parts.running(body) }
}

/// The screen manager against a fake context: what it sends for text, images and soft buttons,
/// the queue's superseding and waiting, presses, a resend on a new connection, and the end.
/// No emulator, no socket.
@Suite(.timeLimit(.minutes(1)))
struct ScreenManagerUnitTests {
    static let art = SDLArtwork(bytes: Array(repeating: 9, count: 300), format: .png, name: "cover.png")

    /// Returns once `condition` holds, yielding to the tasks that make it hold; ends with the
    /// test's time limit (cancellation) instead of spinning on.
    static func until(_ condition: () async -> Bool) async throws {
        while await !condition() {
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    static func screen(_ context: FakeScreenContext) -> SDLScreenManager {
        SDLScreenManager(context: context, logger: Logger(label: "test"))
    }

    @Test func textThenTheUploadedImageThenNothingForAnUnchangedUpdate() async throws {
        let context = FakeScreenContext()
        context.allowShowing()
        try await context.running {
            let screen = Self.screen(context)
            let result = try await screen.update {
                $0.textField1 = "Song"
                $0.primaryGraphic = Self.art
            }
            #expect(result == .applied)
            #expect(context.sent == [
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
        let context = FakeScreenContext()
        try await context.running {
            let screen = Self.screen(context)
            try await withThrowingTaskGroup(of: SDLScreenUpdateResult.self) { group in
                group.addTask { try await screen.update { $0.textField1 = "first" } }
                // The queue waits for the screen with the first update still queued.
                try await Self.until { context.waitingToShow > 0 }
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
        let context = FakeScreenContext(imageSupported: false)
        context.allowShowing()
        let (presses, pressed) = AsyncStream<String>.makeStream()
        try await context.running {
            let screen = Self.screen(context)
            try await screen.setSoftButtons([
                SDLSoftButton(name: "play", text: "Play") { _ in pressed.yield("play") },
                SDLSoftButton(name: "skip", text: "Skip", artwork: Self.art) { _ in pressed.yield("skip") },
            ])
            #expect(context.sent == [
                #"Show {"softButtons":[{"isHighlighted":false,"softButtonID":1000,"text":"Play","type":"TEXT"},{"isHighlighted":false,"softButtonID":1001,"text":"Skip","type":"TEXT"}]}"#,
            ])
            #expect(context.uploads.isEmpty)   // the head unit takes no soft-button images
            #expect(await screen.softButtonID("skip") == 1001)
            try context.deliver(OnButtonPress(buttonName: .customButton, buttonPressMode: .short, customButtonID: 1001))
            var iterator = presses.makeAsyncIterator()
            #expect(await iterator.next() == "skip")
        }
    }

    @Test func aNewConnectionGetsTheScreenAgainAndARefusalIsTyped() async throws {
        let context = FakeScreenContext()
        context.allowShowing()
        try await context.running {
            let screen = Self.screen(context)
            try await screen.update { $0.textField1 = "Hello" }
            let connection = TaskScope()
            await screen.connectionReady(SDLConnectionContext(tasks: connection, rpcVersion: .version(8, 0), permissions: nil))
            try await Self.until { context.sent.count == 2 }
            #expect(context.sent == Array(repeating: #"Show {"mainField1":"Hello","mainField2":"","mainField3":"","mainField4":""}"#, count: 2))

            context.answer("Show", with: .rejected)
            let refusal = await expectSDLError(SDLScreenError.self) { try await screen.update { $0.textField1 = "No" } }
            guard case .refused("Show", .rejected, _)? = refusal else { Issue.record("unexpected \(String(describing: refusal))"); return }
            #expect(await screen.shownContent.textField1 == "Hello")
        }
    }

    @Test func aStoppedManagerFailsQueuedAndNewOperations() async throws {
        let context = FakeScreenContext()
        try await context.running {
            let screen = Self.screen(context)
            let queued = Task { try await screen.update { $0.textField1 = "never" } }
            try await Self.until { context.waitingToShow > 0 }
            await screen.managerStopped()
            context.detach()
            context.allowShowing()
            for cause in [await expectSDLError(SDLScreenError.self) { try await queued.value },
                          await expectSDLError(SDLScreenError.self) { try await screen.update { $0.textField1 = "late" } }] {
                guard case .stopped? = cause else { Issue.record("unexpected \(String(describing: cause))"); continue }
            }
        }
    }
}
