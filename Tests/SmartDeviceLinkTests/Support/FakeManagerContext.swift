import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

@testable import SmartDeviceLink

/// A sub-manager context (the screen's, the widest) with no manager behind it: a window of four text lines, a primary graphic
/// and soft buttons with images; records every request as "Function {params}" (keys sorted) and
/// every upload, answers SUCCESS (or what a test sets), and holds operations until the test
/// lets the screen change (`allowShowing`), as NONE holds them on a head unit.
final class FakeManagerContext: SDLScreenContext, SDLAppServiceContext {
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
        var capabilities: [SystemCapabilityType: SystemCapability] = [:]
        var answers: [String: String] = [:]
        var requestHandlers: [UInt32: @Sendable ([UInt8]) async throws -> [UInt8]] = [:]
        var capabilityReaders: [(type: SystemCapabilityType, sink: AsyncStream<SystemCapability>.Continuation)] = []
    }
    private let state = Mutex(State())
    private let window: WindowCapability

    init(imageSupported: Bool = true) {
        let lines: [TextFieldName] = [.mainField1, .mainField2, .mainField3, .mainField4]
        window = WindowCapability(
            textFields: lines.map { SDLTextField(name: $0, characterSet: .utf8, width: 500, rows: 1) },
            imageFields: [
                ImageField(name: .graphic, imageTypeSupported: [.graphicPng]), ImageField(name: .softButtonImage, imageTypeSupported: [.graphicPng]),
            ],
            imageTypeSupported: [.static, .dynamic],
            softButtonCapabilities: [
                SoftButtonCapabilities(shortPressAvailable: true, longPressAvailable: true, upDownAvailable: true, imageSupported: imageSupported)
            ])
    }

    /// What was sent, in order.
    var sent: [String] { state.withLock { $0.sent } }
    /// Names of the files uploaded, in order.
    var uploads: [String] { state.withLock { $0.uploads } }
    /// Operations waiting for `allowShowing()`.
    var waitingToShow: Int { state.withLock { $0.waiting } }

    func answer(_ function: String, with result: SDLResult) { state.withLock { $0.resultCodes[function] = result } }
    /// Answers `function` with this JSON (a record, data...) instead of a bare result code.
    func answer(_ function: String, json: String) { state.withLock { $0.answers[function] = json } }
    /// The head unit has this system capability.
    func set(_ capability: SystemCapability) { state.withLock { $0.capabilities[capability.systemCapabilityType] = capability } }
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
    func isSupported(_ type: SystemCapabilityType) async -> Bool { state.withLock { $0.capabilities[type] != nil } }
    func capability(_ type: SystemCapabilityType) async -> SystemCapability? { state.withLock { $0.capabilities[type] } }

    func send<R: SDLRequest>(_ request: R) async throws -> R.Response {
        try await send(request, timeout: nil)
    }

    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response {
        try await send(R.self, json: SDLJSON.encode(request)).response
    }

    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> { parts.rawNotifications(functionIDs: functionIDs) }

    /// Records the request's JSON as it is and answers with the code set for its function.
    func send<R: SDLRequest>(_ type: R.Type, json: [UInt8]) async throws -> (response: R.Response, raw: SDLIncomingRPC) {
        let parameters = ScreenManagerTests.sortedKeys(try SDLJSONValue(parsing: json))
        let code = state.withLock { state in
            state.sent.append("\(R.functionName) \(parameters.jsonString)")
            return state.resultCodes[R.functionName] ?? .success
        }
        let answer = Array(
            (state.withLock { $0.answers[R.functionName] }
                ?? #"{"success":\#(code == .success || code == .warnings),"resultCode":"\#(code.rawValue)"}"#).utf8)
        let raw = SDLIncomingRPC(payload: SDLRPCPayload(rpcType: .response, functionID: R.wireFunctionID ?? 0, json: answer))
        return (try SDLJSON.decode(R.Response.self, from: answer).value, raw)
    }

    func permissions() async -> SDLPermissionTracker? { nil }

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

    // MARK: App services

    var managerState: SDLManager.State { isAttached ? .ready : .stopped }

    func sendNotification<N: SDLNotification>(_ notification: N) async throws {
        let parameters = ScreenManagerTests.sortedKeys(try SDLJSONValue(parsing: SDLJSON.encode(notification)))
        state.withLock { $0.sent.append("\(N.functionName) \(parameters.jsonString)") }
    }

    func handleRequests<R: SDLRequest>(_ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response) async throws {
        let functionID = R.wireFunctionID ?? 0
        try state.withLock { state in
            guard state.requestHandlers[functionID] == nil else { throw SDLRequestRefusal(.rejected, info: "\(R.functionName) already handled") }
            state.requestHandlers[functionID] = { json in try SDLJSON.encode(try await handler(try SDLJSON.decode(R.self, from: json).value)) }
        }
    }

    func removeRequestHandler<R: SDLRequest>(_ type: R.Type) async {
        _ = state.withLock { $0.requestHandlers.removeValue(forKey: R.wireFunctionID ?? 0) }
    }

    /// Function IDs of the requests the app answers now.
    var handledRequests: Set<UInt32> { state.withLock { Set($0.requestHandlers.keys) } }

    /// The head unit sends `request` to the app; the app's answer (or its refusal).
    func headUnitAsks<R: SDLRequest>(_ request: R) async throws -> R.Response {
        guard let handler = state.withLock({ $0.requestHandlers[R.wireFunctionID ?? 0] }) else {
            throw SDLRequestRefusal(.unsupportedRequest, info: "no handler")
        }
        return try SDLJSON.decode(R.Response.self, from: try await handler(try SDLJSON.encode(request))).value
    }

    func cachedCapability(_ type: SystemCapabilityType) async -> SystemCapability? { await capability(type) }

    func fetchCapability(_ type: SystemCapabilityType) async throws -> SystemCapability {
        guard let capability = await capability(type) else { throw SDLCapabilityError.refused(type, .unsupportedResource, info: nil) }
        return capability
    }

    func capabilityUpdates(_ type: SystemCapabilityType) async throws -> AsyncStream<SystemCapability> {
        let (stream, sink) = AsyncStream<SystemCapability>.makeStream()
        state.withLock { $0.capabilityReaders.append((type, sink)) }
        return stream
    }

    /// The head unit's capability changes: cached, and pushed to its readers.
    func push(_ capability: SystemCapability) {
        set(capability)
        for reader in state.withLock({ $0.capabilityReaders }) where reader.type == capability.systemCapabilityType { reader.sink.yield(capability) }
    }
}
