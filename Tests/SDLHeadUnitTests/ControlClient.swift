import Hummingbird
import HummingbirdTesting
import NIOCore
import SDLHeadUnit
import SDLHeadUnitControl
import SDLRuntime

/// The control API's router driven in process with HummingbirdTesting: HTTP requests and
/// answers, no socket.
struct ControlClient: Sendable {
    /// What the router answered.
    struct Answer: Sendable {
        var status: Int
        var contentType: String
        var body: [UInt8]

        /// The body parsed as JSON.
        var jsonValue: SDLJSONValue? { try? SDLJSONValue(parsing: body) }
    }

    let client: any TestClientProtocol

    /// Runs `body` with a client of `headUnit`'s control API.
    static func with<T: Sendable>(_ headUnit: SDLHeadUnitEmulator, _ body: @Sendable (ControlClient) async throws -> T) async throws -> T {
        let application = Application(router: SDLHeadUnitControlAPI(headUnit: headUnit).router())
        return try await application.test(.router) { client in try await body(ControlClient(client: client)) }
    }

    /// `method path` with `body` (JSON or empty); `path` may hold a query.
    func handle(method: String, path: String, body: [UInt8] = []) async throws -> Answer {
        let response = try await client.execute(
            uri: path, method: HTTPRequest.Method(method) ?? .get, body: body.isEmpty ? nil : ByteBuffer(bytes: body))
        return Answer(status: response.status.code, contentType: response.headers[.contentType] ?? "", body: Array(buffer: response.body))
    }
}
