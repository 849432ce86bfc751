import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import SDLHeadUnit
import SDLRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The emulator's control API as Hummingbird routes: what `curl`, the web page and scripts call
/// to play the driver. ``SDLHeadUnitControlServer`` serves it; tests drive ``router()`` with
/// HummingbirdTesting and need no socket. Errors are JSON (`{"error": "..."}`) with a 4xx status.
public struct SDLHeadUnitControlAPI: Sendable {
    /// The emulator every request acts on.
    public let headUnit: SDLHeadUnitEmulator

    /// The control API of `headUnit`. It keeps no state of its own, so several may serve one
    /// emulator.
    public init(headUnit: SDLHeadUnitEmulator) {
        self.headUnit = headUnit
    }

    /// A router with every route of the API, `GET /events`, `GET /apps/{appID}/video` and the
    /// web page; anything else gets a JSON 404. Build an `Application` on it, or test it.
    public func router() -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: ControlErrors())
        addPageRoutes(to: router)
        addAppRoutes(to: router)
        addDriverRoutes(to: router)
        addCarRoutes(to: router)
        return router
    }

    /// The request context of the API's routes: bodies are JSON of at most 1 MiB (an empty body
    /// reads as `{}`), answers are JSON with sorted keys.
    public struct Context: RequestContext {
        /// Hummingbird's per-request storage.
        public var coreContext: CoreRequestContextStorage

        /// A context for one request.
        public init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
        }

        /// Larger bodies are refused with 413.
        public var maxUploadSize: Int { 1 << 20 }
        /// Reads request bodies the API's way.
        public var requestDecoder: BodyDecoder { BodyDecoder() }
        /// Writes answers the API's way.
        public var responseEncoder: BodyEncoder { BodyEncoder() }
    }

    /// Decodes a request body: refusals are the API's JSON errors (413, or 400 with what was
    /// expected), never Hummingbird's own.
    public struct BodyDecoder: RequestDecoder {
        /// Decodes `type` from `request`'s body.
        public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
            let bytes: ByteBuffer
            do {
                bytes = try await request.body.collect(upTo: context.maxUploadSize)
            } catch {
                throw ControlError(.contentTooLarge, "the body is larger than 1 MiB")
            }
            let text = bytes.readableBytesView.allSatisfy { [0x20, 0x0A, 0x0D, 0x09].contains($0) } ? ByteBuffer(string: "{}") : bytes
            guard let json = try? SDLJSONValue(parsing: Array(buffer: text)) else { throw ControlError(.badRequest, "the body is not JSON") }
            if let document = T.self as? any JSONDocumentBody.Type {
                return try document.init(json: json) as! T
            }
            do {
                return try JSONDecoder().decode(T.self, from: text)
            } catch {
                throw ControlError(.badRequest, (T.self as? any ExpectedBody.Type)?.expected ?? "\(error)")
            }
        }
    }

    /// Encodes an answer as `application/json`, keys sorted (the same bytes every time).
    public struct BodyEncoder: ResponseEncoder {
        /// The response holding `value` as JSON.
        public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return jsonResponse(Array(try encoder.encode(value)))
        }
    }
}

/// A request body with a fixed shape, and the message a body of another shape gets.
protocol ExpectedBody: Decodable {
    static var expected: String { get }
}

/// A request body that is any JSON (vehicle data, a ModuleData, a policy table): read as the
/// emulator's JSON, numbers exactly as sent.
protocol JSONDocumentBody: Decodable {
    init(json: SDLJSONValue) throws
}

extension JSONDocumentBody {
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "read with SDLHeadUnitControlAPI.BodyDecoder"))
    }
}

/// A refusal: its status and `{"error": message}`.
struct ControlError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The emulator's refusal as HTTP: 404 for what does not exist, 409 for nothing to answer.
    init(_ error: SDLHeadUnitControlError) {
        switch error {
        case .unknownApp, .unknownSoftButton, .unknownCommand, .unknownModule: self.init(.notFound, error.description)
        case .nothingToAnswer: self.init(.conflict, error.description)
        case .invalidAnswer: self.init(.badRequest, error.description)
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = jsonResponse(SDLJSONValue.object([.init(key: "error", value: .string(message))]).jsonBytes)
        response.status = status
        return response
    }
}

/// Turns what handlers throw into the API's JSON errors; a path no route takes (or a method it
/// does not) gets a JSON 404 instead of Hummingbird's empty one.
struct ControlErrors: RouterMiddleware {
    typealias Context = SDLHeadUnitControlAPI.Context

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            return try error.response(from: request, context: context)
        } catch let error as SDLHeadUnitControlError {
            return try ControlError(error).response(from: request, context: context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            return try ControlError(.notFound, "no route for \(request.method.rawValue) \(request.uri.path)").response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            return try ControlError(.badRequest, "\(error)").response(from: request, context: context)
        }
    }
}

/// `{"ok": true}`: the driver's action was done.
struct Done: Encodable, ResponseEncodable {
    let ok = true
}

/// `{"ok": true}` once `action` (evaluated as the argument) is done.
func done(_ action: Void) -> Done {
    Done()
}

extension SDLHeadUnitControlAPI.Context {
    /// The `:appID` of an `apps/:appID/...` route, percent-decoded.
    var appID: String { parameters.decoded("appID") }
}

/// An answer that is the emulator's own JSON (a screen, vehicle data, a module's data).
struct JSONAnswer: ResponseGenerator {
    let value: SDLJSONValue

    init(_ value: SDLJSONValue) {
        self.value = value
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        jsonResponse(value.jsonBytes)
    }
}

/// Bytes with their content type: a file, or an app's log. An app's files (an SVG could hold a
/// script) must not run on the API's origin: sandboxed, not sniffed.
struct BytesAnswer: ResponseGenerator {
    let contentType: String
    let bytes: [UInt8]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        if !contentType.contains("json") {
            headers[.contentSecurityPolicy] = "sandbox"
            headers[.xContentTypeOptions] = "nosniff"
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A file's bytes, typed by their first bytes: the images a browser shows (PNG, JPEG, BMP,
    /// GIF, SVG), anything else as bytes.
    static func file(_ bytes: [UInt8]) -> BytesAnswer {
        let type: String
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            type = "image/png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            type = "image/jpeg"
        } else if bytes.starts(with: [0x42, 0x4D]) {
            type = "image/bmp"
        } else if bytes.starts(with: Array("GIF8".utf8)) {
            type = "image/gif"
        } else if bytes.prefix(256).contains(0x3C), String(decoding: bytes.prefix(256), as: UTF8.self).contains("<svg") {
            type = "image/svg+xml"
        } else {
            type = "application/octet-stream"
        }
        return BytesAnswer(contentType: type, bytes: bytes)
    }
}

func jsonResponse(_ bytes: [UInt8]) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
}

extension Parameters {
    /// Path parameter `name`, percent-decoded (`no%20such` is `no such`).
    func decoded(_ name: String) -> String {
        let raw = get(name) ?? ""
        guard raw.contains("%") else { return raw }
        var bytes: [UInt8] = []
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Path parameter `name` as a number, or a 400 saying `message`.
    func number(_ name: String, else message: String) throws -> Int {
        guard let value = Int(decoded(name)) else { throw ControlError(.badRequest, message) }
        return value
    }
}
