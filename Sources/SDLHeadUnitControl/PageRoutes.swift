import Hummingbird
import NIOCore
import SDLHeadUnit
import SDLProtocol
import SDLRuntime

/// The routes that are not plain requests: the web page, the event stream and the video.
extension SDLHeadUnitControlAPI {
    func addPageRoutes(to router: Router<Context>) {
        router.get("events") { _, _ in Self.events(headUnit) }
        router.get("apps/:appID/video") { _, context in Self.video(headUnit, appID: context.appID) }
        // The web page (see `WebHMI`).
        for asset in WebHMI.assets {
            router.get(RouterPath(asset.path)) { _, _ in Self.page(asset.bytes, type: asset.contentType) }
        }
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
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
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
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
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
}
