import SDLRPC
import SDLRuntime

/// The Core half's view of its HMIs, as SDL Core's message broker and HMI capabilities keep it:
/// the connections, which connection registered which component, who subscribed to which
/// notification, whether the HMI is ready, what it answered at start-up, and the requests that
/// wait for its answers.
struct HMIBridge {
    private(set) var connections: [Int: any SDLHMIConnection] = [:]
    private var nextConnectionID = 0
    /// The connection of each registered component (`UI`, `VR`, `BasicCommunication`...).
    var components: [String: Int] = [:]
    /// SDL Core's message broker numbers the components' ID ranges 1000, 2000...
    var registeredComponents = 0
    /// Which connections hear which of Core's notifications (`MB.subscribeTo`).
    var subscriptions: [String: Set<Int>] = [:]
    /// OnReady came.
    var saidReady = false
    /// The start-up questions not yet answered (nor timed out).
    var startUpPending: Set<Int> = []
    /// The start-up answers, by method (`UI.GetCapabilities`...): the `result` objects.
    var answers: [String: SDLJSONValue] = [:]
    /// The components that answered IsReady `available: false`: SDL Core sends them nothing and
    /// answers what needed them UNSUPPORTED_RESOURCE.
    var unavailable: Set<String> = []
    /// Core's request IDs count up from 1.
    var nextRequestID = 0
    /// Core's requests to the HMI that wait for an answer, by request ID.
    var pending: [Int: HMIPendingRequest] = [:]
    /// App requests that wait for the HMI's answers, by exchange number.
    var exchanges: [Int: HMIExchange] = [:]
    var nextExchange = 0
    /// The Core half's waits for its questions' answers (`askHMI`), and answers that came before
    /// the wait began, by request ID.
    var waiters: [Int: CheckedContinuation<HMIComponentResult, Never>] = [:]
    var earlyAnswers: [Int: HMIComponentResult] = [:]
    /// The HMI's numeric ID of each app, by the app's key on the head unit (its policy app ID).
    var appIDs: [String: Int] = [:]
    private var nextAppID = 0

    var isConnected: Bool { !connections.isEmpty }

    /// Ready: OnReady came and every start-up question is answered or timed out.
    var isReady: Bool { saidReady && startUpPending.isEmpty && isConnected }

    mutating func connect(_ connection: any SDLHMIConnection) -> Int {
        nextConnectionID += 1
        connections[nextConnectionID] = connection
        return nextConnectionID
    }

    /// Forgets the connection, its components and subscriptions; the requests that waited for
    /// it come back to be answered.
    mutating func disconnect(_ id: Int) -> [Int: HMIPendingRequest] {
        connections[id] = nil
        components = components.filter { $0.value != id }
        for name in subscriptions.keys { subscriptions[name]?.remove(id) }
        if connections.isEmpty {
            saidReady = false
            unavailable = []
        }
        let lost = pending.filter { !$0.value.builtIn && components[Self.component(of: $0.value.method)] == nil }
        for id in lost.keys { pending[id] = nil }
        startUpPending.subtract(lost.keys)
        return lost
    }

    mutating func requestID() -> Int {
        nextRequestID += 1
        return nextRequestID
    }

    /// The app's HMI ID, made at its first registration and kept for its later ones (as Core
    /// keeps an app's ID for the life of the process).
    mutating func appID(of key: String) -> Int {
        if let id = appIDs[key] { return id }
        nextAppID += 1
        let id = 1_000_000 + nextAppID
        appIDs[key] = id
        return id
    }

    /// The app whose HMI ID is `id`.
    func appKey(of id: Int) -> String? {
        appIDs.first { $0.value == id }?.key
    }

    /// Where a message to `recipient` goes.
    func connections(for recipient: HMIRecipient) -> [any SDLHMIConnection] {
        switch recipient {
        case .component(let name): components[name].flatMap { connections[$0] }.map { [$0] } ?? []
        case .subscribers(let name): (subscriptions[name] ?? []).sorted().compactMap { connections[$0] }
        case .connection(let id): connections[id].map { [$0] } ?? []
        }
    }

    /// `UI` of `UI.Show`; SDL's own requests (`SDL.ActivateApp`) belong to BasicCommunication.
    static func component(of method: String) -> String {
        let name = String(method.prefix { $0 != "." })
        return name == "SDL" ? "BasicCommunication" : name
    }
}

/// One of Core's requests to the HMI waiting for its answer.
struct HMIPendingRequest: Sendable {
    let method: String
    /// The app request it is part of; nil for Core's own questions.
    let exchange: Int?
    let startUp: Bool
    /// Held by the built-in HMI (an interaction or speech it answers later), not by a connection.
    var builtIn = false
    /// A question the Core half waits for (`askHMI`).
    var awaited = false
    /// A StartStream or StartAudioStream for this app's stream.
    var streamOf: String?
}

/// An HMI message as the Core half writes it: JSON-RPC 2.0, members in SDL Core's order.
enum HMIMessage {
    static func request(id: Int, method: String, params: SDLJSONValue) -> [UInt8] {
        SDLJSONValue.object([
            .init(key: "id", value: .integer(id)), .init(key: "jsonrpc", value: .string("2.0")), .init(key: "method", value: .string(method)),
            .init(key: "params", value: params),
        ]).jsonBytes
    }

    static func notification(method: String, params: SDLJSONValue) -> [UInt8] {
        SDLJSONValue.object([.init(key: "jsonrpc", value: .string("2.0")), .init(key: "method", value: .string(method)), .init(key: "params", value: params)])
            .jsonBytes
    }

    /// A response with `code` (a `Common.Result` number) and the result's other members.
    static func response(id: SDLJSONRPCID, method: String, code: Int = 0, result: [SDLJSONValue.Member] = []) -> [UInt8] {
        SDLJSONValue.object([
            .init(key: "id", value: id.jsonValue), .init(key: "jsonrpc", value: .string("2.0")),
            .init(key: "result", value: .object([.init(key: "code", value: .integer(code)), .init(key: "method", value: .string(method))] + result)),
        ]).jsonBytes
    }

    /// The message broker's plain answers: a number or "OK" as the result.
    static func brokerResult(id: SDLJSONRPCID, _ result: SDLJSONValue) -> [UInt8] {
        SDLJSONValue.object([.init(key: "id", value: id.jsonValue), .init(key: "jsonrpc", value: .string("2.0")), .init(key: "result", value: result)])
            .jsonBytes
    }

    static func error(id: SDLJSONRPCID?, code: Int, message: String, method: String? = nil) -> [UInt8] {
        var error: [SDLJSONValue.Member] = [.init(key: "code", value: .integer(code)), .init(key: "message", value: .string(message))]
        if let method { error.append(.init(key: "data", value: .object([.init(key: "method", value: .string(method))]))) }
        return SDLJSONValue.object([
            .init(key: "id", value: id?.jsonValue ?? .null), .init(key: "jsonrpc", value: .string("2.0")), .init(key: "error", value: .object(error)),
        ]).jsonBytes
    }
}

extension SDLJSONRPCID {
    var jsonValue: SDLJSONValue {
        switch self {
        case .number(let number): .integer(number)
        case .string(let string): .string(string)
        }
    }
}

/// Who an outgoing HMI message goes to.
enum HMIRecipient: Sendable, Hashable {
    /// The connection that registered the method's component (a request).
    case component(String)
    /// The connections subscribed to the notification.
    case subscribers(String)
    /// One connection (an answer to its request).
    case connection(Int)
}
