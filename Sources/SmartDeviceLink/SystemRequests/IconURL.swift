import Logging
import SDLRPC

/// OnSystemRequest(ICON_URL), sent to cloud apps: the head unit wants the app's icon from the
/// URL of its policy table. The app downloads it and sends the bytes back in a SystemRequest
/// whose `fileName` is that URL, as the guide describes.
enum IconURLRequests {
    static func answer(
        _ request: OnSystemRequest, client: SDLRPCClient, http: (any SDLHTTPClient)?, logger: Logger
    ) async {
        guard request.requestType == .iconUrl, let url = request.url else { return }
        guard let http else {
            logger.notice("the head unit asked for the app icon by URL; no HTTP client is configured", metadata: ["url": "\(url)"])
            return
        }
        do {
            let response = try await http.send(SDLHTTPRequest(url: url, timeout: request.timeout.map { .seconds($0) }))
            guard (200..<300).contains(response.status), !response.body.isEmpty else {
                logger.warning("the app icon download failed", metadata: ["url": "\(url)", "status": "\(response.status)"])
                return
            }
            let answer = try await client.send(SystemRequest(requestType: .iconUrl, fileName: url), bulkData: response.body)
            if !answer.success {
                logger.warning("the head unit refused the app icon", metadata: ["resultCode": "\(answer.resultCode.rawValue)"])
            }
        } catch {
            logger.warning("the app icon download failed", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }
}
