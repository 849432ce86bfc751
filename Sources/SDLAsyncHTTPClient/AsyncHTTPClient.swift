import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import SmartDeviceLink

/// The library's HTTP needs (policy table updates, cloud-app icons) served by AsyncHTTPClient,
/// the maintained server-side Swift HTTP client. A product of its own: apps that bring their
/// own `SDLHTTPClient` do not build it.
///
/// ```swift
/// configuration.httpClient = SDLAsyncHTTPClient()
/// ```
public struct SDLAsyncHTTPClient: SDLHTTPClient {
    /// The client requests go through (`HTTPClient.shared` unless given).
    public let client: HTTPClient
    /// Answers larger than this fail instead of filling memory.
    public let maxResponseBytes: Int
    /// The timeout when the head unit names none.
    public let defaultTimeout: Duration

    /// - Parameters:
    ///   - client: the AsyncHTTPClient to use; its lifetime stays the caller's.
    ///   - maxResponseBytes: the largest answer accepted (policy tables are tens of kilobytes).
    ///   - defaultTimeout: used when the request carries none.
    public init(client: HTTPClient = .shared, maxResponseBytes: Int = 16 << 20, defaultTimeout: Duration = .seconds(60)) {
        self.client = client
        self.maxResponseBytes = maxResponseBytes
        self.defaultTimeout = defaultTimeout
    }

    public func send(_ request: SDLHTTPRequest) async throws -> SDLHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let timeout = request.timeout ?? defaultTimeout
        let (seconds, attoseconds) = timeout.components
        let response = try await client.execute(outgoing, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        let body = try await response.body.collect(upTo: maxResponseBytes)
        let headers = Dictionary(response.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, next in "\(first), \(next)" })
        return SDLHTTPResponse(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
    }
}
