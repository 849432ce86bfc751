import Hummingbird
import NIOCore
import SDLProtocol
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
        // `:p0` as the API routes name their first parameter (Hummingbird wants one name per position).
        router.get("apps/:p0/video") { _, context -> Response in video(api.headUnit, appID: context.parameters.get("p0") ?? "") }
        // The web page (see `WebHMI`).
        for asset in WebHMI.assets {
            router.get(RouterPath(asset.path)) { _, _ -> Response in page(asset.bytes, type: asset.contentType) }
        }
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

    /// `GET /apps/{appID}/video`: the app's video as it arrives, H.264/H.265 Annex-B (RTP already
    /// depacketised), one chunked response until the client goes: what the page decodes. It
    /// starts at the next key frame's parameter sets (a decoder needs them first); a viewer that
    /// falls behind loses chunks and should wait for the next key frame.
    static func video(_ headUnit: SDLHeadUnitEmulator, appID: String) -> Response {
        let chunks = headUnit.streamChunks()
        var headers = HTTPFields()
        headers[.contentType] = "video/h264"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var started = false
            for await chunk in chunks where chunk.appID == appID && chunk.service == 11 {
                if !started {
                    guard Self.beginsDecoding(chunk) else { continue }
                    started = true
                }
                try await writer.write(ByteBuffer(bytes: chunk.bytes))
            }
            try await writer.finish(nil)
        })
    }

    /// Whether a decoder can start at `chunk`: it holds a sequence parameter set (H.264 type 7,
    /// H.265 VPS or SPS). Other codecs start anywhere.
    static func beginsDecoding(_ chunk: SDLStreamChunk) -> Bool {
        let units = SDLH264.nalUnits(in: chunk.bytes).compactMap(\.first)
        switch chunk.videoCodec {
        case "H264": return units.contains { $0 & 0x1F == 7 }
        case "H265": return units.contains { ($0 >> 1) & 0x3F == 32 || ($0 >> 1) & 0x3F == 33 }
        default: return true
        }
    }

    static func page(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func response(_ answer: SDLHeadUnitControlAPI.Answer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        if !answer.contentType.contains("json") {
            // An app's files (an SVG could hold a script) must not run on the API's origin.
            headers[.contentSecurityPolicy] = "sandbox"
            headers[.xContentTypeOptions] = "nosniff"
        }
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
