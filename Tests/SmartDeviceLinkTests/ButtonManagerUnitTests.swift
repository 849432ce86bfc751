import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import Synchronization
import Testing

@testable import SmartDeviceLink

/// A sub-manager context with no manager behind it: records what is sent, answers SUCCESS (or
/// what a test sets), and delivers notifications a test pushes. Its child tasks run in a scope
/// the test owns, so they end with the test.
final class FakeSubManagerContext: SDLSubManagerContext {
    let parts = FakeContextParts()
    private let appTypesValue: Set<AppHMIType>
    private let version: SDLSpecVersion
    private let window: WindowCapability?
    private struct State {
        var sent: [String] = []
        var resultCodes: [String: SDLResult] = [:]
    }
    private let state = Mutex(State())

    init(appTypes: Set<AppHMIType> = [.media], rpcVersion: SDLSpecVersion = .version(8, 0), presets: Int? = 8) {
        appTypesValue = appTypes
        version = rpcVersion
        window = presets.map { WindowCapability(numCustomPresetsAvailable: $0) }
    }

    /// "SubscribeButton OK"-style lines, in order.
    var sent: [String] { state.withLock { $0.sent } }

    /// The head unit's answer to the next `function` requests.
    func answer(_ function: String, with result: SDLResult) {
        state.withLock { $0.resultCodes[function] = result }
    }

    /// Delivers a notification to the readers of its function ID.
    func deliver<N: SDLNotification>(_ notification: N) throws { try parts.deliver(notification) }

    var appTypes: Set<AppHMIType> { get async { appTypesValue } }
    func rpcVersion() async -> SDLSpecVersion { version }
    func mainWindowCapability() async -> WindowCapability? { window }

    func send<R: SDLRequest>(_ request: R) async throws -> R.Response {
        var line = R.functionName
        if case .object(let members) = try SDLJSONValue(parsing: SDLJSON.encode(request)), let name = members.first(where: { $0.key == "buttonName" }) {
            if case .string(let value) = name.value { line += " \(value)" }
        }
        let code = state.withLock { state in
            state.sent.append(line)
            return state.resultCodes[R.functionName] ?? .success
        }
        let success = code == .success || code == .warnings
        return try SDLJSON.decode(R.Response.self, from: Array(#"{"success":\#(success),"resultCode":"\#(code.rawValue)"}"#.utf8)).value
    }

    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> { parts.rawNotifications(functionIDs: functionIDs) }
    var isAttached: Bool { true }
    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response { try await send(request) }
    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> { AsyncStream { $0.finish() } }
    func isSupported(_ type: SystemCapabilityType) async -> Bool { false }
    func capability(_ type: SystemCapabilityType) async -> SystemCapability? { nil }
    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome { .alreadyOnHeadUnit }
    func send<R: SDLRequest>(_ type: R.Type, json: [UInt8]) async throws -> (response: R.Response, raw: SDLIncomingRPC) {
        throw SDLRPCError.notRunning
    }
    func permissions() async -> SDLPermissionTracker? { nil }

    @discardableResult
    func spawn(_ work: @escaping @Sendable () async -> Void) -> Bool { parts.tasks.spawn(work) }

    /// Runs `body` while the context's child tasks run; they are cancelled afterwards.
    func running(_ body: () async throws -> Void) async throws { try await parts.running(body) }
}

/// The button manager against a fake context: the guide's rules, one subscription per button,
/// presses to every observer, renewal on a new connection. No emulator, no socket.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct ButtonManagerUnitTests {
    static func buttons(_ context: FakeSubManagerContext) -> SDLButtonManager {
        SDLButtonManager(context: context, logger: Logger(label: "test"))
    }

    @Test func oneSubscriptionPerButtonAndTheLastObserverUnsubscribes() async throws {
        let context = FakeSubManagerContext()
        try await context.running {
            let buttons = Self.buttons(context)
            let first = try await buttons.subscribe(.ok) { _ in }
            let second = try await buttons.subscribe(.ok) { _ in }
            #expect(context.sent == ["SubscribeButton OK"])
            await buttons.unsubscribe(first)
            #expect(context.sent == ["SubscribeButton OK"])
            await buttons.unsubscribe(second)
            #expect(context.sent == ["SubscribeButton OK", "UnsubscribeButton OK"])
            #expect(await buttons.subscribedButtons.isEmpty)
        }
    }

    /// The rule `button`'s subscription breaks, or nil when it went out.
    static func refusal(_ buttons: SDLButtonManager, _ button: ButtonName) async -> SDLButtonError? {
        do throws(SDLButtonError) {
            _ = try await detailed(SDLButtonError.self) { try await buttons.subscribe(button) { _ in } }
            return nil
        } catch {
            return error
        }
    }

    @Test func theGuidesRulesRefuseBeforeSending() async throws {
        let context = FakeSubManagerContext(appTypes: [.default], rpcVersion: .version(8, 0), presets: 2)
        try await context.running {
            let buttons = Self.buttons(context)
            guard case .wrongAppType(.playPause, needs: .media)? = await Self.refusal(buttons, .playPause) else {
                Issue.record("media only")
                return
            }
            guard case .wrongAppType(.navZoomIn, needs: .navigation)? = await Self.refusal(buttons, .navZoomIn) else {
                Issue.record("navigation only")
                return
            }
            guard case .presetUnavailable(.preset2, available: 2)? = await Self.refusal(buttons, .preset2) else {
                Issue.record("beyond 2 presets")
                return
            }
            guard case .notSubscribable(.customButton)? = await Self.refusal(buttons, .customButton) else {
                Issue.record("soft buttons")
                return
            }
            #expect(context.sent.isEmpty)
            _ = try await buttons.subscribe(.preset1) { _ in }
            #expect(context.sent == ["SubscribeButton PRESET_1"])
        }
    }

    @Test func aButtonNewerThanTheHeadUnitIsRefusedBeforeSending() async throws {
        // NAV_* buttons exist from RPC 6.0.
        let context = FakeSubManagerContext(appTypes: [.navigation], rpcVersion: .version(5, 0))
        try await context.running {
            guard case .notSent(.unsupportedByHeadUnit)? = await Self.refusal(Self.buttons(context), .navZoomIn) else {
                Issue.record("NAV_ZOOM_IN on RPC 5.0")
                return
            }
            #expect(context.sent.isEmpty)
        }
    }

    @Test func aRefusalIsReportedAndNothingIsKept() async throws {
        let context = FakeSubManagerContext()
        context.answer("SubscribeButton", with: .rejected)
        try await context.running {
            let buttons = Self.buttons(context)
            do throws(SDLButtonError) {
                _ = try await detailed(SDLButtonError.self) { try await buttons.subscribe(.search) { _ in } }
                Issue.record("a refused subscription succeeded")
            } catch {
                guard case .refused(.search, .rejected, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(await buttons.subscribedButtons.isEmpty)
        }
    }

    @Test func pressesReachEveryObserverOfTheirButtonOnly() async throws {
        let context = FakeSubManagerContext()
        try await context.running {
            let buttons = Self.buttons(context)
            let ok = try await buttons.subscribe(.ok)
            let okAgain = try await buttons.subscribe(.ok)
            let preset = try await buttons.subscribe(.preset1)
            try context.deliver(OnButtonPress(buttonName: .preset1, buttonPressMode: .short))
            try context.deliver(OnButtonPress(buttonName: .ok, buttonPressMode: .long))
            var okPresses = ok.presses.makeAsyncIterator()
            var okAgainPresses = okAgain.presses.makeAsyncIterator()
            var presetPresses = preset.presses.makeAsyncIterator()
            #expect(await okPresses.next()?.buttonPressMode == .long)
            #expect(await okAgainPresses.next()?.buttonPressMode == .long)
            #expect(await presetPresses.next()?.buttonName == .preset1)
        }
    }

    @Test func aNewConnectionRenewsEveryObservedButton() async throws {
        let context = FakeSubManagerContext()
        try await context.running {
            let buttons = Self.buttons(context)
            _ = try await buttons.subscribe(.ok) { _ in }
            _ = try await buttons.subscribe(.preset3) { _ in }
            // The renewal runs on the connection's own scope.
            let connection = TaskScope()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await connection.run() }
                await buttons.connectionReady(SDLConnectionContext(tasks: connection, rpcVersion: .version(8, 0), permissions: nil))
                connection.finish()
                try await group.waitForAll()
            }
            #expect(context.sent == ["SubscribeButton OK", "SubscribeButton PRESET_3", "SubscribeButton OK", "SubscribeButton PRESET_3"])
        }
    }

    @Test func stoppingEndsEverySequence() async throws {
        let context = FakeSubManagerContext()
        try await context.running {
            let buttons = Self.buttons(context)
            let ok = try await buttons.subscribe(.ok)
            await buttons.managerStopped()
            var iterator = ok.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            #expect(await buttons.subscribedButtons.isEmpty)
        }
    }
}
