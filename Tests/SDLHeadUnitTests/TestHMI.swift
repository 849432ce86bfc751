import HummingbirdWSClient
import Logging
import SDLHMIRPC
import SDLRuntime
import Synchronization
import Testing

/// An HMI written for the tests, as an HMI is written for SDL Core: it dials the emulator's HMI
/// port over a real WebSocket, registers its components, subscribes to Core's notifications,
/// says OnReady, answers Core's questions (by `answer`, or by the test itself), and keeps every
/// message of both directions for the test to assert.
final class TestHMI: Sendable {
    /// A message from the emulator, its envelope read and its JSON at hand.
    struct Received: Sendable {
        /// The envelope as the codec reads it; nil for the message broker's plain answers
        /// (`"result": 1000`), which are not HMI API responses.
        let message: SDLJSONRPCMessage?
        let json: SDLJSONValue
        var method: String {
            if let method = message?.method { return method }
            if case .string(let method)? = json["method"] { return method }
            return ""
        }
        var params: SDLJSONValue { json["params"] ?? .object([]) }
        var id: Int? { if case .integer(let id)? = json["id"] { id } else { nil } }
        var isRequest: Bool { json["method"] != nil && json["id"] != nil }
    }

    /// How the HMI answers one of Core's requests by itself: a `Common.Result` and the result's
    /// members; nil leaves the request to the test.
    typealias Answer = @Sendable (_ method: String, _ params: SDLJSONValue) -> (code: Common.Result, result: [SDLJSONValue.Member])?

    private let outbound: WebSocketOutboundWriter
    private let answer: Answer
    private let inbox: AsyncStream<Received>
    private let intake: AsyncStream<Received>.Continuation
    private let state = Mutex((nextID: 5000, sent: [String](), received: [String]()))
    private let closer: AsyncStream<Void>.Continuation

    private init(outbound: WebSocketOutboundWriter, answer: @escaping Answer, closer: AsyncStream<Void>.Continuation) {
        self.outbound = outbound
        self.answer = answer
        self.closer = closer
        (inbox, intake) = AsyncStream.makeStream()
    }

    /// The methods the HMI sent and received, in order (responses as `→ UI.Show`).
    var sent: [String] { state.withLock { $0.sent } }
    var received: [String] { state.withLock { $0.received } }

    /// Runs `body` with an HMI connected to `port`; a failed dial fails at once.
    static func with<T: Sendable>(
        port: Int, answer: @escaping Answer = TestHMI.standardAnswers, _ body: @escaping @Sendable (TestHMI) async throws -> T
    ) async throws -> T {
        let (connected, connect) = AsyncStream<TestHMI>.makeStream()
        let (done, finish) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                defer { connect.finish() }
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/", logger: Logger(label: "TestHMI")) { inbound, outbound, _ in
                    let hmi = TestHMI(outbound: outbound, answer: answer, closer: finish)
                    connect.yield(hmi)
                    try await withThrowingTaskGroup(of: Void.self) { connection in
                        connection.addTask {
                            defer { hmi.intake.finish() }
                            for try await message in inbound.messages(maxSize: 1 << 22) {
                                guard case .text(let text) = message else { continue }
                                do {
                                    try await hmi.receive(Array(text.utf8))
                                } catch is CancellationError {
                                    // The test is over and the HMI closing: an answer it could
                                    // not send then is no failure.
                                } catch {
                                    Issue.record("the test HMI could not read \(text): \(error)")
                                }
                            }
                        }
                        connection.addTask { for await _ in done {} }
                        try await connection.next()
                        connection.cancelAll()
                    }
                }
                return nil
            }
            var dialed = connected.makeAsyncIterator()
            guard let hmi = await dialed.next() else {
                // The dial failed: its error ends the test now.
                _ = try await group.next()
                throw TestHMIError.notConnected
            }
            do {
                let result = try await body(hmi)
                finish.finish()
                try await group.waitForAll()
                return result
            } catch {
                finish.finish()
                group.cancelAll()
                throw error
            }
        }
    }

    private func receive(_ bytes: [UInt8]) async throws {
        let json = try SDLJSONValue(parsing: bytes)
        let received = Received(message: try? SDLJSONRPC.read(bytes, policy: .lenient), json: json)
        state.withLock { $0.received.append(received.isRequest || json["id"] == nil ? received.method : "→ \(received.method)") }
        if received.isRequest, let id = received.id, let (code, result) = answer(received.method, received.params) {
            try await send(Self.response(id: .number(id), method: received.method, code: code, result: result), label: "→ \(received.method)")
        }
        intake.yield(received)
    }

    /// Closes the HMI's WebSocket now, as an HMI that crashes or is closed.
    func disconnect() {
        closer.finish()
    }

    // MARK: Sending

    private func send(_ bytes: [UInt8], label: String) async throws {
        state.withLock { $0.sent.append(label) }
        try await outbound.write(.text(String(decoding: bytes, as: UTF8.self)))
    }

    private func nextID() -> Int {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    /// A request of the message broker (not in the HMI API): its answer's `result`.
    func broker(_ method: String, _ params: [SDLJSONValue.Member]) async throws -> SDLJSONValue? {
        let id = nextID()
        let request = SDLJSONValue.object([
            .init(key: "jsonrpc", value: .string("2.0")), .init(key: "id", value: .integer(id)), .init(key: "method", value: .string(method)),
            .init(key: "params", value: .object(params)),
        ])
        try await send(request.jsonBytes, label: method)
        return await next { $0.id == id }?.json["result"]
    }

    /// SDL's start-up: components, subscriptions, OnReady; returns once the emulator asked its
    /// start-up questions (answered by `answer`).
    func start(components: [String] = ["BasicCommunication", "UI", "VR", "TTS", "Buttons", "VehicleInfo", "Navigation", "RC"], subscriptions: [String])
        async throws
    {
        for component in components { _ = try await broker("MB.registerComponent", [.init(key: "componentName", value: .string(component))]) }
        for name in subscriptions { _ = try await broker("MB.subscribeTo", [.init(key: "propertyName", value: .string(name))]) }
        try await notify(BasicCommunication.OnReady())
    }

    func notify<N: SDLHMINotification>(_ notification: N) async throws {
        try await send(SDLJSONRPC.encode(SDLJSONRPCNotification(params: notification)), label: N.method)
    }

    /// Sends a request of the HMI API and returns the emulator's answer.
    func request<R: SDLHMIRequest>(_ request: R) async throws -> Received? {
        let id = nextID()
        try await send(SDLJSONRPC.encode(SDLJSONRPCRequest(id: .number(id), params: request)), label: R.method)
        return await next { $0.id == id && $0.method == R.method }
    }

    /// Answers Core's request `id` (a request the `answer` closure left to the test).
    func respond(to received: Received, _ code: Common.Result, _ result: [SDLJSONValue.Member] = []) async throws {
        guard received.isRequest, let id = received.id else { throw TestHMIError.notARequest(received.method) }
        try await send(Self.response(id: .number(id), method: received.method, code: code, result: result), label: "→ \(received.method)")
    }

    private static func response(id: SDLJSONRPCID, method: String, code: Common.Result, result: [SDLJSONValue.Member]) -> [UInt8] {
        let idValue: SDLJSONValue =
            switch id {
            case .number(let number): .integer(number)
            case .string(let string): .string(string)
            }
        return SDLJSONValue.object([
            .init(key: "id", value: idValue), .init(key: "jsonrpc", value: .string("2.0")),
            .init(key: "result", value: .object([.init(key: "code", value: .integer(code.code)), .init(key: "method", value: .string(method))] + result)),
        ]).jsonBytes
    }

    // MARK: Receiving

    /// The next message from the emulator that `matches` (earlier ones are passed over); nil
    /// when the connection closed first.
    func next(_ matches: (Received) -> Bool) async -> Received? {
        for await message in inbox where matches(message) { return message }
        return nil
    }

    /// The next message of `method`.
    func next(_ method: String) async -> Received? {
        await next { $0.method == method }
    }

    /// SDL Core's start-up questions answered SUCCESS, with a vehicle, languages and system
    /// info of the test HMI's own; UpdateAppList and ActivateApp SUCCESS. Anything else is left
    /// to the test.
    static let standardAnswers: Answer = { method, _ in
        switch method {
        case let name where name.hasSuffix(".IsReady"): (.success, [.init(key: "available", value: .bool(true))])
        case "UI.GetLanguage", "VR.GetLanguage", "TTS.GetLanguage": (.success, [.init(key: "language", value: .string("EN-US"))])
        case "UI.GetSupportedLanguages", "VR.GetSupportedLanguages", "TTS.GetSupportedLanguages":
            (.success, [.init(key: "languages", value: .array([.string("EN-US"), .string("DE-DE")]))])
        case "VehicleInfo.GetVehicleType":
            (
                .success,
                [
                    .init(
                        key: "vehicleType",
                        value: .object([
                            .init(key: "make", value: .string("TestHMI Motors")), .init(key: "model", value: .string("Bench")),
                            .init(key: "modelYear", value: .string("2026")),
                        ]))
                ]
            )
        case "BasicCommunication.GetSystemInfo":
            (
                .success,
                [
                    .init(key: "ccpu_version", value: .string("test-hmi-1.0")), .init(key: "language", value: .string("EN-US")),
                    .init(key: "wersCountryCode", value: .string("WAEGB")),
                ]
            )
        case "UI.GetCapabilities", "VR.GetCapabilities", "TTS.GetCapabilities", "Buttons.GetCapabilities", "RC.GetCapabilities",
            "BasicCommunication.UpdateAppList", "BasicCommunication.ActivateApp":
            (.success, [])
        default: nil
        }
    }
}

enum TestHMIError: Error {
    case notConnected
    case notARequest(String)
}
