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
        // Within a day, whatever the head unit asks: large values would overflow nanoseconds.
        let timeout = min(max(request.timeout ?? defaultTimeout, .zero), .seconds(86_400))
        let (client, limit, prepared) = (self.client, maxResponseBytes, outgoing)
        // AsyncHTTPClient's deadline covers the wait for the response head; the body must also
        // arrive within the timeout, so the whole exchange races the clock.
        return try await withThrowingTaskGroup(of: SDLHTTPResponse?.self) { group in
            group.addTask {
                let (seconds, attoseconds) = timeout.components
                let response = try await client.execute(prepared, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
                let body = try await response.body.collect(upTo: limit)
                let headers = Dictionary(response.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, next in "\(first), \(next)" })
                return SDLHTTPResponse(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else { throw SDLAsyncHTTPClientError.timedOut(request.url, timeout) }
            return response
        }
    }
}

/// Why an exchange failed beyond AsyncHTTPClient's own errors.
public enum SDLAsyncHTTPClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole answer did not arrive within the timeout.
    case timedOut(String, Duration)

    public var description: String {
        switch self {
        case .timedOut(let url, let timeout): "\(url): no complete answer within \(timeout)"
        }
    }
}
