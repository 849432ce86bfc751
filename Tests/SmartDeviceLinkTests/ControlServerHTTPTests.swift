import SDLAsyncHTTPClient
import SDLHeadUnit
import SDLHeadUnitControl
import SDLRPC
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The control API over real HTTP: the server serves the API's router, and what no route takes
/// gets the API's JSON 404.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ControlServerHTTPTests {
    /// Runs `body` with the port of a control server for `headUnit`, in a task group `body` may
    /// add to; the server stops after it.
    static func serving(_ headUnit: SDLHeadUnitEmulator, _ body: (Int, inout ThrowingTaskGroup<Void, any Error>) async throws -> Void) async throws {
        let (bound, boundSink) = AsyncStream<Int>.makeStream()
        let server = SDLHeadUnitControlServer(headUnit: headUnit, port: 0) { boundSink.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            defer { group.cancelAll() }
            var port = 0
            for await value in bound {
                port = value
                break
            }
            try await body(port, &group)
        }
    }

    @Test func routesAndRefusalsOverHTTP() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.serving(headUnit) { port, group in
            let http = SDLAsyncHTTPClient()
            func call(_ method: String, _ path: String, _ body: String = "") async throws -> (Int, SDLJSONValue?) {
                let answer = try await http.send(SDLHTTPRequest(url: "http://127.0.0.1:\(port)\(path)", method: method, body: Array(body.utf8)))
                return (answer.status, try? SDLJSONValue(parsing: answer.body))
            }

            let apps = try await call("GET", "/apps")
            #expect(apps.0 == 200)
            #expect(apps.1 == .array([]))
            // A parameter, percent-encoded on the way.
            let unknown = try await call("POST", "/apps/no%20such/activate")
            #expect(unknown.0 == 404)
            #expect(unknown.1?["error"] == .string(SDLHeadUnitControlError.unknownApp("no such").description))
            // A body that is not JSON, and one that breaks the route's rule.
            #expect(try await call("PUT", "/language", "{").0 == 400)
            let language = try await call("PUT", "/language", #"{"language": "KLINGON"}"#)
            #expect(language.0 == 400)
            #expect(try await call("PUT", "/language", #"{"language": "DE-DE"}"#).0 == 200)
            #expect(try await call("GET", "/language").1?["language"] == .string("DE-DE"))
            // The query reaches the route.
            let climate = try await call("GET", "/rc/CLIMATE?moduleId=nowhere")
            #expect(climate.0 == 404)
            // No route: the API's JSON error, not an empty page.
            let nowhere = try await call("GET", "/nowhere")
            #expect(nowhere.0 == 404)
            #expect(nowhere.1?["error"] == .string("no route for GET /nowhere"))
            #expect(try await call("DELETE", "/apps").0 == 404)
        }
    }

    @Test func eventsStreamAsTheyHappen() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.serving(headUnit) { port, group in
            // A plain HTTP/1.1 client over TCP: the stream's bytes as they come.
            let client = try await SDLChannelTransport.connect(host: "127.0.0.1", port: port)
            group.addTask { await client.run() }
            try await client.send(Array("GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n".utf8))
            var received = ""
            var inbound = client.inbound.makeAsyncIterator()
            func read(until marker: String) async throws {
                while !received.contains(marker), let chunk = try await inbound.next() { received += String(decoding: chunk, as: UTF8.self) }
            }
            try await read(until: ": sdl headunit events")
            #expect(received.lowercased().contains("content-type: text/event-stream"))
            // An app registers and is activated: the stream says so.
            let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, appID: "sse"))
            try await stopping(manager) { manager in
                try await startRunning(manager)
                try await read(until: #""hmiLevel":"FULL""#)
                #expect(received.contains(#"data: {"event":"appRegistered","appID":"sse"}"#))
                _ = try await manager.send(Show(mainField1: "Hello"))
                try await read(until: #""function":"Show""#)
                #expect(received.contains(#"data: {"event":"requestReceived","appID":"sse","function":"Show"}"#))
            }
            await client.close()
        }
    }

    @Test func thePageAndItsAssetsAreServedFromTheBinary() async throws {
        try await Self.serving(SDLHeadUnitEmulator()) { port, _ in
            let http = SDLAsyncHTTPClient()
            func get(_ path: String) async throws -> (Int, String) {
                let answer = try await http.send(SDLHTTPRequest(url: "http://127.0.0.1:\(port)\(path)", method: "GET"))
                return (answer.status, String(decoding: answer.body, as: UTF8.self))
            }
            let page = try await get("/")
            #expect(page.0 == 200)
            #expect(page.1.contains(#"<html lang="en">"#) && page.1.contains(#"<script src="/hmi.js">"#) && page.1.contains(#"id="softButtons""#))
            let script = try await get("/hmi.js")
            #expect(script.0 == 200 && script.1.contains(#"new EventSource("/events")"#))
            #expect(try await get("/hmi.css").0 == 200)
        }
    }
}

extension ControlServerHTTPTests {
    /// `GET /apps/{id}/video`: the app's video as the page decodes it, starting at a key frame's
    /// parameter sets (what came before them is useless to a decoder that joins late).
    @Test func theVideoRouteStartsAtTheNextParameterSets() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await Self.serving(headUnit) { port, group in
            let manager = try await VideoStreamingTests.start(headUnit)
            try await stopping(manager) { manager in
                _ = await VideoStreamingTests.state(manager, VideoStreamingTests.isStreaming)
                try await manager.videoStreaming.send(VideoStreamingTests.frame(key: true, seed: 1))
                let client = try await SDLChannelTransport.connect(host: "127.0.0.1", port: port)
                group.addTask { await client.run() }
                try await client.send(Array("GET /apps/\(VideoStreamingTests.appID)/video HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
                var received: [UInt8] = []
                var inbound = client.inbound.makeAsyncIterator()
                // The route subscribes before it answers: what is sent after its headers reaches it.
                while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n"), let chunk = try await inbound.next() { received += chunk }
                #expect(String(decoding: received, as: UTF8.self).lowercased().contains("content-type: video/h264"))
                let late = VideoStreamingTests.frame(key: false, size: 300, seed: 2)
                let key = VideoStreamingTests.frame(key: true, size: 200, seed: 3)
                try await manager.videoStreaming.send(late)
                try await manager.videoStreaming.send(key)
                while !received.contains(subsequence: key.data.suffix(64)), let chunk = try await inbound.next() { received += chunk }
                // The key frame whole: its SPS (a decoder's first need), PPS and slice.
                #expect(received.contains(subsequence: [0x67, 0x42, 0x00, 0x1F, 0xE9]) && received.contains(subsequence: key.data.suffix(200)))
                #expect(!received.contains(subsequence: late.data.suffix(64)))
                await client.close()
            }
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: some Collection<UInt8>) -> Bool {
        let needle = Array(subsequence)
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
