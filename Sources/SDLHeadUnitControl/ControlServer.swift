import Hummingbird
import NIOCore
import SDLHeadUnit
import ServiceLifecycle

/// Serves the emulator's control API (`SDLHeadUnitControlAPI`) over HTTP with Hummingbird, so a
/// developer can play the driver with `curl`. A module of its own: only the `sdl` tool and
/// those who want HTTP pay for the server.
///
/// A swift-service-lifecycle `Service`: run it in a `ServiceGroup` (graceful shutdown stops it) or
/// in a task of your own (cancellation stops it). It installs no signal handlers itself.
public struct SDLHeadUnitControlServer: Service {
    /// The control API the server adapts; tests can call it directly and skip HTTP.
    public let api: SDLHeadUnitControlAPI
    /// The address to listen on; loopback by default, as the API has no authentication.
    public let host: String
    /// The port to listen on; 0 picks a free one, which `onBound` reports.
    public let port: Int
    private let onBound: @Sendable (Int) async -> Void

    /// A server for `headUnit`'s control API on `host:port`; nothing listens until `run()`.
    /// `onBound` gets the port actually bound (useful with port 0).
    public init(
        headUnit: SDLHeadUnitEmulator, host: String = "127.0.0.1", port: Int, onBound: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.api = SDLHeadUnitControlAPI(headUnit: headUnit)
        self.host = host
        self.port = port
        self.onBound = onBound
    }

    /// Serves until cancelled or the service group shuts down gracefully.
    public func run() async throws {
        let onBound = self.onBound
        let application = Application(
            router: Self.router(api),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "sdl-headunit"),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? 0) })
        // The Application's own Service run, inside whatever runs this one (not runService(),
        // which would install signal handlers and a service group of its own).
        try await application.run()
    }

    /// Hummingbird's router with every route of the control API (`*` segments as parameters
    /// `p0`, `p1`...); anything else gets the API's JSON 404.
    static func router(_ api: SDLHeadUnitControlAPI) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: NoRouteAsJSON())
        router.get("events") { _, _ -> Response in events(api.headUnit) }
        // The web page (see `WebHMI`).
        router.get("/") { _, _ -> Response in page(WebHMI.html, type: "text/html; charset=utf-8") }
        router.get("hmi.js") { _, _ -> Response in page(WebHMI.javascript, type: "text/javascript; charset=utf-8") }
        router.get("hmi.css") { _, _ -> Response in page(WebHMI.css, type: "text/css; charset=utf-8") }
        for route in SDLHeadUnitControlAPI.routes {
            guard let method = HTTPRequest.Method(route.method) else { continue }
            var parameterCount = 0
            let path = route.segments.map { segment -> String in
                guard segment == "*" else { return segment }
                defer { parameterCount += 1 }
                return ":p\(parameterCount)"
            }.joined(separator: "/")
            let names = (0..<parameterCount).map { "p\($0)" }
            router.on(RouterPath(path), method: method) { request, context -> Response in
                let body: ByteBuffer
                do {
                    body = try await request.body.collect(upTo: 1 << 20)
                } catch {
                    return response(SDLHeadUnitControlAPI.Answer(status: 413, contentType: "application/json", body: Array(#"{"error":"the body is larger than 1 MiB"}"#.utf8)))
                }
                let parameters = names.map { context.parameters.get($0) ?? "" }
                return response(await api.answer(route, parameters: parameters, query: request.uri.query, body: Array(buffer: body)))
            }
        }
        return router
    }

    /// `GET /events`: what happens on the head unit as server-sent events, one JSON object per
    /// event (``SDLHeadUnitEvent/json``), as it happens: a page or a script follows the head unit
    /// without polling. A request's event comes once the head unit has applied it (reading its
    /// state after the event sees the change). The stream lasts until the client goes or the
    /// server stops; a client that falls 1,000 events behind loses the oldest.
    static func events(_ headUnit: SDLHeadUnitEmulator) -> Response {
        let events = headUnit.events()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // A first comment, so the client sees the stream open before any event.
            try await writer.write(ByteBuffer(string: ": sdl headunit events\n\n"))
            for await event in events {
                try await writer.write(ByteBuffer(string: "data: \(String(decoding: event.json.jsonBytes, as: UTF8.self))\n\n"))
            }
            try await writer.finish(nil)
        })
    }

    static func page(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func response(_ answer: SDLHeadUnitControlAPI.Answer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}

/// A path no route matches (or a method a path does not take) gets the control API's JSON
/// error instead of Hummingbird's empty 404.
struct NoRouteAsJSON: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            return SDLHeadUnitControlServer.response(SDLHeadUnitControlAPI.noRoute(method: request.method.rawValue, path: request.uri.path))
        }
    }
}
