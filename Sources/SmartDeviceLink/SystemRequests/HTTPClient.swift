/// What the library needs from an HTTP client: the head unit's system requests (ICON_URL,
/// policy table updates) name URLs for the app to fetch. Bring your own (URLSession,
/// AsyncHTTPClient...) by conforming to this protocol; the library has no HTTP stack of its own.
public protocol SDLHTTPClient: Sendable {
    /// Performs the request and returns the server's answer, whatever its status (the library
    /// checks it); throw when no answer came (network error, timeout).
    func send(_ request: SDLHTTPRequest) async throws -> SDLHTTPResponse
}

/// An HTTP request the library asks the app's HTTP client to perform, such as a policy
/// table update or an icon download.
public struct SDLHTTPRequest: Sendable, Hashable {
    /// The URL the head unit named.
    public var url: String
    /// The HTTP method, such as `GET` or `POST`.
    public var method: String
    /// Header fields to send.
    public var headers: [String: String]
    /// The bytes to send; empty for a GET.
    public var body: [UInt8]
    /// The head unit's timeout for the exchange, when it gave one.
    public var timeout: Duration?

    /// A request to `url`; a GET with no headers or body unless told otherwise.
    public init(url: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = [], timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The server's answer to an `SDLHTTPRequest`.
public struct SDLHTTPResponse: Sendable, Hashable {
    /// The HTTP status code; only 2xx counts as success.
    public var status: Int
    /// The response's header fields.
    public var headers: [String: String]
    /// The response's bytes, passed on to the head unit.
    public var body: [UInt8]

    /// An answer with `status`, optional headers, and `body`.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
