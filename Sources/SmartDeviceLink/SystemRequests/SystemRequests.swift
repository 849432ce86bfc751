import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime

/// What became of one of the head unit's OnSystemRequest: apps watch these to know their
/// policy updates went through (`SDLManager.systemRequestOutcomes()`).
public enum SDLSystemRequestOutcome: Sendable, Hashable {
    /// Fetched from `url` and handed back in a SystemRequest the head unit accepted.
    case forwarded(RequestType, url: String, httpStatus: Int, bytes: Int)
    /// Not forwarded, or refused: the reason is logged too. The app goes on.
    case failed(RequestType, url: String?, reason: String)
}

/// The head unit's off-board requests: a policy table update (PROPRIETARY), an HTTP exchange
/// (HTTP) or the app's icon (ICON_URL, cloud apps). The library does the HTTP exchange with
/// the configured `SDLHTTPClient` against the URL the head unit gives, within its timeout, and
/// sends the answer back as SystemRequest with the bytes. Nothing here throws: a failure is
/// logged and reported as an outcome.
enum SystemRequests {
    /// SDL Core's policy timeout when the request names none (`timeout_after_x_seconds`).
    static let defaultTimeout: Duration = .seconds(60)

    static func answer(
        _ message: SDLIncomingRPC, client: SDLRPCClient, http: (any SDLHTTPClient)?, logger: Logger,
        lockScreenIcon: (String?) async -> Void = { _ in }
    ) async -> SDLSystemRequestOutcome? {
        guard let request = try? SDLJSON.decode(OnSystemRequest.self, from: message.payload.json, policy: .lenient).value else {
            logger.warning("an OnSystemRequest could not be read; ignored")
            return nil
        }
        switch request.requestType {
        case .iconUrl:
            await IconURLRequests.answer(request, client: client, http: http, logger: logger)
            return nil
        case .http, .proprietary:
            return await forward(request, bulkData: message.payload.bulkData, client: client, http: http, logger: logger)
        case .lockScreenIconUrl:
            await lockScreenIcon(request.url)
            return nil
        default:
            // LAUNCH_APP opens apps on a phone.
            logger.debug("OnSystemRequest \(request.requestType.rawValue) needs nothing from this library")
            return nil
        }
    }

    private static func forward(
        _ request: OnSystemRequest, bulkData: [UInt8], client: SDLRPCClient, http: (any SDLHTTPClient)?, logger: Logger
    ) async -> SDLSystemRequestOutcome {
        let type = request.requestType
        func failed(_ reason: String) -> SDLSystemRequestOutcome {
            logger.warning("\(type.rawValue) system request not forwarded: \(reason)", metadata: ["url": "\(request.url ?? "-")"])
            return .failed(type, url: request.url, reason: reason)
        }
        guard let url = request.url, !url.isEmpty else { return failed("the head unit gave no URL") }
        guard let http else { return failed("no HTTP client is configured (SDLManager.Configuration.httpClient)") }
        let exchange = httpRequest(for: request, url: url, bulkData: bulkData)
        let response: SDLHTTPResponse
        do {
            response = try await http.send(exchange)
        } catch {
            return failed("the HTTP exchange failed: \(error)")
        }
        guard (200..<300).contains(response.status) else { return failed("the server answered HTTP \(response.status)") }
        do {
            let answer = try await client.send(SystemRequest(requestType: type, fileName: defaultFileName(type)), bulkData: response.body)
            guard answer.success else {
                return failed("the head unit refused the SystemRequest: \(answer.resultCode.rawValue) \(answer.info ?? "")")
            }
        } catch {
            return failed("the SystemRequest was not answered: \(error)")
        }
        logger.info(
            "\(type.rawValue) system request forwarded", metadata: ["url": "\(url)", "status": "\(response.status)", "bytes": "\(response.body.count)"])
        return .forwarded(type, url: url, httpStatus: response.status, bytes: response.body.count)
    }

    /// The name SDL Core stores a policy update under when the app names none.
    private static func defaultFileName(_ type: RequestType) -> String? {
        type == .proprietary ? "PolicyTableUpdate" : nil
    }

    /// The HTTP request for the head unit's: PROPRIETARY bulk data is SDL Core's wrapper
    /// `{"HTTPRequest": {"headers": {...}, "body": "<policy snapshot>"}}`, whose body is posted
    /// with its content type; anything else (HTTP, or an unwrapped payload) is posted as it
    /// came, or fetched with GET when there is none.
    static func httpRequest(for request: OnSystemRequest, url: String, bulkData: [UInt8]) -> SDLHTTPRequest {
        var timeout = request.timeout.flatMap { $0 > 0 ? Duration.seconds($0) : nil } ?? defaultTimeout
        var headers: [String: String] = [:]
        var body = bulkData
        var method = bulkData.isEmpty ? "GET" : "POST"
        if !bulkData.isEmpty, let wrapper = try? SDLJSONValue(parsing: bulkData), let inner = wrapper["HTTPRequest"] {
            if case .string(let text)? = inner["body"] {
                body = Array(text.utf8)
            } else if let object = inner["body"] {
                body = object.jsonBytes
            } else {
                body = []
            }
            let coreHeaders = inner["headers"]
            if case .string(let type)? = coreHeaders?["ContentType"] {
                var contentType = type
                if case .string(let charset)? = coreHeaders?["charset"], !type.contains("charset") { contentType += "; charset=\(charset)" }
                headers["Content-Type"] = contentType
            }
            if case .string(let verb)? = coreHeaders?["RequestMethod"], !verb.isEmpty { method = verb.uppercased() }
            if case .integer(let seconds)? = coreHeaders?["ConnectTimeout"], seconds > 0, request.timeout == nil { timeout = .seconds(seconds) }
        }
        if headers["Content-Type"] == nil, !body.isEmpty {
            headers["Content-Type"] = request.fileType == .json || request.requestType == .proprietary ? "application/json" : "application/octet-stream"
        }
        return SDLHTTPRequest(url: url, method: method, headers: headers, body: body, timeout: timeout)
    }
}
