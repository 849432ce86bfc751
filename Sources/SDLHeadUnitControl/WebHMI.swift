/// The emulator's web page, served from the control port at `/`: the apps and the active app's
/// screen, updated live from `GET /events`, with the controls a driver has. Plain HTML, CSS and
/// JavaScript in `WebHMI/` (no framework, no CDN, no build step), embedded in the binary by
/// SwiftPM; the page uses only the control API's routes, so anything it does a script can do
/// with curl.
enum WebHMI {
    struct Asset: Sendable {
        let path: String
        let contentType: String
        let bytes: [UInt8]
    }

    static let assets: [Asset] = [
        Asset(path: "/", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        Asset(path: "/hmi.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.hmi_css),
        Asset(path: "/hmi.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.hmi_js),
    ]
}
