import Hummingbird
import NIOCore
import SDLTestSupport

/// An HTTP server on 127.0.0.1 for the tests' policy server: records what it receives and
/// answers with the test's closure.
final class LoopbackHTTPServer: Sendable {
    struct Received: Sendable {
        var method: String
        var path: String
        var contentType: String?
        var body: [UInt8]
    }

    let port: Int
    private let received: Locked<[Received]>
    private let task: Task<Void, any Error>

    private init(port: Int, received: Locked<[Received]>, task: Task<Void, any Error>) {
        self.port = port
        self.received = received
        self.task = task
    }

    /// Starts serving; returns once the port is bound.
    static func start(answer: @escaping @Sendable (Received) -> (status: Int, body: [UInt8])) async throws -> LoopbackHTTPServer {
        let received = Locked<[Received]>([])
        let (bound, boundSink) = AsyncStream<Int>.makeStream()
        let application = Application(
            responder: Responder(received: received, answer: answer),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "policy-server"),
            onServerRunning: { channel in boundSink.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await application.runService() }
        var port = 0
        for await value in bound {
            port = value
            break
        }
        return LoopbackHTTPServer(port: port, received: received, task: task)
    }

    /// Serves for the duration of `body`, stopped afterwards even when `body` throws (a failed
    /// `#require`, say): `defer` cannot await.
    static func serving(
        answer: @escaping @Sendable (Received) -> (status: Int, body: [UInt8]), _ body: (LoopbackHTTPServer) async throws -> Void
    ) async throws {
        let server = try await start(answer: answer)
        try await run({ try await body(server) }, thenAlways: { await server.stop() })
    }

    /// Everything received so far.
    var requests: [Received] { received.current }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    private struct Responder: HTTPResponder {
        typealias Context = BasicRequestContext
        let received: Locked<[Received]>
        let answer: @Sendable (Received) -> (status: Int, body: [UInt8])

        func respond(to request: Request, context: Context) async throws -> Response {
            let body = try await request.body.collect(upTo: 1 << 20)
            let entry = Received(
                method: request.method.rawValue, path: request.uri.path, contentType: request.headers[.contentType], body: Array(buffer: body))
            received.withLock { $0.append(entry) }
            let (status, bytes) = answer(entry)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}
