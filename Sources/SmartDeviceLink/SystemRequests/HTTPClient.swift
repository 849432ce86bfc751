/// What the library needs from an HTTP client: the head unit's system requests (ICON_URL,
/// policy table updates) name URLs for the app to fetch. Bring your own (URLSession,
/// AsyncHTTPClient...) by conforming to this protocol; the library has no HTTP stack of its own.
public protocol SDLHTTPClient: Sendable {
    func send(_ request: SDLHTTPRequest) async throws -> SDLHTTPResponse
}

public struct SDLHTTPRequest: Sendable, Hashable {
    public var url: String
    public var method: String
    public var headers: [String: String]
    public var body: [UInt8]
    /// The head unit's timeout for the exchange, when it gave one.
    public var timeout: Duration?

    public init(url: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = [], timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

public struct SDLHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
