import SDLWebSocket
import Testing

@Suite("ws:// and wss:// addresses")
struct WebSocketURLTests {
    @Test func partsAndDefaults() throws {
        let plain = try SDLWebSocketURL("ws://127.0.0.1:8080/sdl?vin=1")
        #expect((plain.secure, plain.host, plain.port, plain.uri) == (false, "127.0.0.1", 8080, "/sdl?vin=1"))
        let secure = try SDLWebSocketURL("wss://cloud.example.com")
        #expect((secure.secure, secure.host, secure.port, secure.uri) == (true, "cloud.example.com", 443, "/"))
        let query = try SDLWebSocketURL("ws://host?x=1")
        #expect((query.port, query.uri) == (80, "/?x=1"))
        let six = try SDLWebSocketURL("ws://[::1]:9000/a")
        #expect((six.host, six.port, six.description) == ("::1", 9000, "ws://[::1]:9000/a"))
    }

    @Test(arguments: ["http://host/", "ws://", "ws://host:0/", "ws://host:70000/", "ws://host:port/", "ws://[::1/", "tcp://host:1"])
    func refused(_ text: String) {
        #expect(throws: SDLWebSocketError.invalidURL(text)) { try SDLWebSocketURL(text) }
    }
}
