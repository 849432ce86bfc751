import SDLRPC
import SDLRuntime

/// The emulator's control API as plain requests and JSON answers, so the HTTP server (module
/// `SDLHeadUnitControl`) stays a thin adapter and tests need no sockets. Errors are JSON
/// (`{"error": "..."}`) with a 4xx status, never a crash.
public struct SDLHeadUnitControlAPI: Sendable {
    /// The emulator every request acts on.
    public let headUnit: SDLHeadUnitEmulator

    /// The control API of `headUnit`. It keeps no state of its own, so several may serve one
    /// emulator.
    public init(headUnit: SDLHeadUnitEmulator) {
        self.headUnit = headUnit
    }

    /// An HTTP answer: status, content type and body.
    public struct Answer: Sendable, Equatable {
        /// The HTTP status: 200, or 400 (bad input), 404 (no such app, button, command, module or
        /// route) or 409 (nothing to answer).
        public var status: Int
        /// `application/json` for most answers, `application/x-ndjson` for an app's log,
        /// a file's bytes as its image type (`image/png`...) or `application/octet-stream`.
        public var contentType: String
        /// The body's bytes, to send as they are.
        public var body: [UInt8]

        /// An answer from its parts, for an HTTP adapter's own refusals (a body too large...).
        public init(status: Int, contentType: String, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }

        static func json(_ value: SDLJSONValue, status: Int = 200) -> Answer {
            Answer(status: status, contentType: "application/json", body: value.jsonBytes)
        }

        static func error(_ status: Int, _ message: String) -> Answer {
            json(.object([.init(key: "error", value: .string(message))]), status: status)
        }

        static let done = json(.object([.init(key: "ok", value: .bool(true))]))

        /// The body parsed as JSON, for tests.
        public var jsonValue: SDLJSONValue? { try? SDLJSONValue(parsing: body) }
    }

    /// One route: a method, a path pattern whose `*` segments are parameters, and what answers
    /// it. An HTTP router registers each (`*` as a named parameter) and calls `answer`.
    public struct Route: Sendable {
        /// The HTTP method, upper case.
        public let method: String
        /// The path's segments (no leading `/`); `*` matches any one segment.
        public let segments: [String]
        fileprivate let respond: @Sendable (SDLHeadUnitControlAPI, [String], [String: String], SDLJSONValue) async throws -> Answer

        fileprivate init(
            _ method: String, _ pattern: String,
            _ respond: @escaping @Sendable (SDLHeadUnitControlAPI, [String], [String: String], SDLJSONValue) async throws -> Answer
        ) {
            self.method = method
            self.segments = pattern.split(separator: "/").map(String.init)
            self.respond = respond
        }

        /// The parameters (`*` segments) of `path` when it matches, nil otherwise.
        func parameters(of path: [String]) -> [String]? {
            guard segments.count == path.count else { return nil }
            var captured: [String] = []
            for (want, have) in zip(segments, path) {
                if want == "*" { captured.append(have) } else if want != have { return nil }
            }
            return captured
        }
    }

    /// Answers `method path` with `body` (JSON or empty): the route table without HTTP, for
    /// tests and in-process drivers.
    public func handle(method: String, path: String, body: [UInt8] = []) async -> Answer {
        let pathAndQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let segments = pathAndQuery.first.map { $0.split(separator: "/").map(String.init) } ?? []
        let query = pathAndQuery.count == 2 ? String(pathAndQuery[1]) : nil
        let verb = method.uppercased()
        for route in Self.routes where route.method == verb {
            if let parameters = route.parameters(of: segments) {
                return await answer(route, parameters: parameters, query: query, body: body)
            }
        }
        return Self.noRoute(method: verb, path: "/" + segments.joined(separator: "/"))
    }

    /// The answer when no route matches.
    public static func noRoute(method: String, path: String) -> Answer {
        .error(404, "no route for \(method) \(path)")
    }

    /// Answers a request matched to `route`: `parameters` are its `*` segments as they came
    /// (percent-encoded), `query` the raw query string, `body` JSON or empty.
    public func answer(_ route: Route, parameters: [String], query: String?, body: [UInt8]) async -> Answer {
        var queryItems: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            queryItems[String(nameAndValue[0]).removingPercentEncoding] = nameAndValue.count == 2 ? String(nameAndValue[1]).removingPercentEncoding : ""
        }
        let input: SDLJSONValue
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            input = .object([])
        } else if let parsed = try? SDLJSONValue(parsing: body) {
            input = parsed
        } else {
            return .error(400, "the body is not JSON")
        }
        do {
            return try await route.respond(self, parameters.map(\.removingPercentEncoding), queryItems, input)
        } catch let error as SDLHeadUnitControlError {
            switch error {
            case .unknownApp, .unknownSoftButton, .unknownCommand, .unknownModule: return .error(404, error.description)
            case .nothingToAnswer: return .error(409, error.description)
            case .invalidAnswer: return .error(400, error.description)
            }
        } catch {
            return .error(400, "\(error)")
        }
    }

    /// Every route, in the order they are tried: what the HTTP adapter registers on its router
    /// and what `handle(method:path:body:)` matches.
    public static let routes: [Route] = [
        Route("GET", "apps") { api, captured, query, input in
            let headUnit = api.headUnit
            var apps: [SDLJSONValue] = []
            for app in await headUnit.registeredApps() {
                let hasIcon = await headUnit.appIcon(appID: app.appID) != nil
                apps.append(.object([
                    .init(key: "appID", value: .string(app.appID)), .init(key: "name", value: .string(app.name)),
                    .init(key: "hmiLevel", value: .string(app.hmiLevel.rawValue)),
                    .init(key: "systemContext", value: .string(app.systemContext.rawValue)),
                    .init(key: "session", value: .integer(app.connection)),
                    .init(key: "appTypes", value: .array(app.appTypes.map { .string($0.rawValue) })),
                    .init(key: "isMedia", value: .bool(app.isMedia)),
                ] + (hasIcon ? [.init(key: "icon", value: .string("/apps/\(app.appID)/icon"))] : [])))
            }
            return .json(.array(apps))
        },
        Route("GET", "display") { api, _, _, _ in
            // The main display as the head unit announces it: what the page draws.
            let display = api.headUnit.configuration.capabilities["displayCapabilities"]
            let resolution = display?["screenParams"]?["resolution"]
            return .json(.object([
                .init(key: "name", value: display?["displayName"] ?? .string("GENERIC_DISPLAY")),
                .init(key: "width", value: resolution?["resolutionWidth"] ?? .integer(800)),
                .init(key: "height", value: resolution?["resolutionHeight"] ?? .integer(350)),
                .init(key: "driverDistraction", value: .bool(await api.headUnit.isDriverDistracted)),
            ]))
        },
        Route("GET", "apps/*/icon") { api, captured, _, _ in
            guard let bytes = await api.headUnit.appIcon(appID: captured[0]) else {
                return .error(404, "\(captured[0]) has set no icon")
            }
            return Answer(status: 200, contentType: SDLHeadUnitControlAPI.imageType(of: bytes), body: bytes)
        },
        Route("POST", "security/certificates") { api, _, _, input in
            // {"appID": "8675309"}: a certificate for the app, signed by the head unit's CA.
            guard case .string(let appID)? = input["appID"], !appID.isEmpty else { return .error(400, #"expected {"appID": "..."}"#) }
            guard let issue = api.headUnit.configuration.certificateIssuer else {
                return .error(404, "this head unit issues no certificates (run sdl headunit --security without --ca, or with --ca-key)")
            }
            do {
                let issued = try issue(appID)
                return .json(.object([
                    .init(key: "appID", value: .string(appID)), .init(key: "certificate", value: .string(issued.certificate)),
                    .init(key: "privateKey", value: .string(issued.privateKey)),
                ]))
            } catch {
                return .error(500, "the CA could not issue a certificate: \(error)")
            }
        },
        Route("POST", "apps/*/menu/open") { api, captured, _, _ in
            // The driver presses the head unit's menu button: the app's menu on top.
            try await api.headUnit.setMenuOpen(appID: captured[0], true)
            return .done
        },
        Route("POST", "cloud-app/activate") { api, _, _, _ in
            // The user picks the cloud app in the app list: after a drop, SDL Core dials it again.
            await api.headUnit.activateCloudApp()
            return .done
        },
        Route("POST", "apps/*/menu/submenus/*/open") { api, captured, _, _ in
            // The driver opens a submenu of the open menu (0: back to the top level).
            guard let id = Int(captured[1]) else { return .error(400, "the submenu ID is a number") }
            try await api.headUnit.openSubmenu(appID: captured[0], menuID: id == 0 ? nil : id)
            return .done
        },
        Route("POST", "apps/*/menu/close") { api, captured, _, _ in
            try await api.headUnit.setMenuOpen(appID: captured[0], false)
            return .done
        },
        Route("POST", "apps/*/activate") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            try await headUnit.activate(appID: appID)
            return .done
        },
        Route("POST", "apps/*/background") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            try await headUnit.background(appID: appID)
            return .done
        },
        Route("POST", "apps/*/exit") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            try await headUnit.exit(appID: appID)
            return .done
        },
        Route("POST", "apps/*/disconnect") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            try await headUnit.disconnect(appID: appID)
            return .done
        },
        Route("POST", "apps/*/faults/putfile") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"fault": "disconnect" | "noAnswer" | "corrupt" | "<RESULT_CODE>", "chunk": 3}
            guard case .string(let name)? = input["fault"] else {
                return .error(400, #"expected {"fault": "disconnect" | "noAnswer" | "corrupt" | "<RESULT_CODE>", "chunk": 1}"#)
            }
            let fault: SDLFileFault
            switch name {
            case "disconnect": fault = .disconnect
            case "noAnswer": fault = .noAnswer
            case "corrupt": fault = .corrupt
            default:
                let code = SDLResult(rawValue: name)
                guard code.isRecognized else { return .error(400, "\(name) is not a fault or a result code") }
                fault = .answer(code)
            }
            var chunk = 1
            if case .integer(let value)? = input["chunk"] { chunk = value }
            await headUnit.injectFileFault(fault, appID: captured[0], onChunk: chunk)
            return .done
        },
        Route("POST", "apps/*/policy-update") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"url": "http://127.0.0.1:3000/policy"}
            guard case .string(let url)? = input["url"] else { return .error(400, #"expected {"url": "http://..."}"#) }
            try await headUnit.requestPolicyUpdate(appID: captured[0], url: url)
            return .done
        },
        Route("POST", "apps/*/system-request") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"requestType": "HTTP", "url": "http://...", "timeout": 30, "body": "..."}
            guard case .string(let name)? = input["requestType"] else {
                return .error(400, #"expected {"requestType": "HTTP", "url": "http://...", "body": "..."}"#)
            }
            let type = RequestType(rawValue: name)
            guard type.isRecognized else { return .error(400, "\(name) is not a request type of the spec") }
            var url: String?
            if case .string(let value)? = input["url"] { url = value }
            var timeout: Int?
            if case .integer(let value)? = input["timeout"] { timeout = value }
            var body: [UInt8] = []
            if case .string(let text)? = input["body"] { body = Array(text.utf8) }
            try await headUnit.sendSystemRequest(appID: captured[0], type: type, url: url, timeout: timeout, bulkData: body)
            return .done
        },
        Route("GET", "apps/*/screen") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            return .json(try await headUnit.screen(appID: appID))
        },
        Route("GET", "apps/*/log") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            let recorded = await headUnit.recordedRPCs(appID: appID)
            guard !recorded.isEmpty else { throw SDLHeadUnitControlError.unknownApp(appID) }
            var lines: [UInt8] = []
            for entry in recorded {
                lines += entry.json.jsonBytes
                lines.append(0x0A)
            }
            return Answer(status: 200, contentType: "application/x-ndjson", body: lines)
        },
        Route("POST", "buttons/*/press") { api, captured, query, input in
            let headUnit = api.headUnit
            let name = captured[0]
            let button = ButtonName(rawValue: name)
            guard button.isRecognized else { return .error(404, "\(name) is not a button of the spec") }
            await headUnit.press(button, mode: try Self.mode(input))
            return .done
        },
        Route("POST", "apps/*/softbuttons/*/press") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            let id = captured[1]
            guard let id = Int(id) else { return .error(400, "\(id) is not a soft button ID") }
            try await headUnit.pressSoftButton(appID: appID, id: id, mode: try Self.mode(input))
            return .done
        },
        Route("POST", "apps/*/subtle-alert/press") { api, captured, query, input in
            let headUnit = api.headUnit
            // The driver taps the subtle alert itself (not one of its soft buttons).
            try await headUnit.pressSubtleAlert(appID: captured[0])
            return .done
        },
        Route("POST", "apps/*/commands/*/select") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            let id = captured[1]
            guard let id = Int(id) else { return .error(400, "\(id) is not a command ID") }
            try await headUnit.selectCommand(appID: appID, cmdID: id)
            return .done
        },
        Route("POST", "apps/*/interaction") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            try await headUnit.answerInteraction(appID: appID, try Self.answer(input))
            return .done
        },
        Route("POST", "apps/*/keyboard") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"type": "abc"}: key presses on the keyboard on top
            guard case .string(let text)? = input["type"] else { return .error(400, #"expected {"type": "text to type"}"#) }
            try await headUnit.typeOnKeyboard(appID: captured[0], text)
            return .done
        },
        Route("POST", "apps/*/windows/*/show") { api, captured, query, input in
            guard let windowID = Int(captured[1]) else { return .error(400, "the window ID is a number") }
            try await api.headUnit.setWidgetVisible(appID: captured[0], windowID: windowID, true)
            return .done
        },
        Route("POST", "apps/*/windows/*/hide") { api, captured, query, input in
            guard let windowID = Int(captured[1]) else { return .error(400, "the window ID is a number") }
            try await api.headUnit.setWidgetVisible(appID: captured[0], windowID: windowID, false)
            return .done
        },
        Route("GET", "apps/*/streams") { api, captured, query, input in
            let statistics = await api.headUnit.streamStatistics(appID: captured[0])
            return .json(.object(statistics.sorted { $0.key < $1.key }.map { service, stats in
                .init(key: service == 11 ? "video" : "audio", value: .object([
                    .init(key: "frames", value: .integer(stats.frames)), .init(key: "bytes", value: .integer(stats.bytes)),
                    .init(key: "keyframes", value: .integer(stats.keyframes)), .init(key: "dropped", value: .integer(stats.dropped)),
                    .init(key: "fps", value: .float(stats.framesPerSecond)), .init(key: "kbps", value: .float(stats.kilobitsPerSecond)),
                ]))
            }))
        },
        Route("POST", "apps/*/gestures") { api, captured, query, input in
            // {"gesture": "tap", "x": 10, "y": 20}, "doubleTap", {"gesture": "pan", "x", "y", "toX", "toY"},
            // {"gesture": "pinch", "x", "y", "from": 100, "to": 200}
            let headUnit = api.headUnit
            let appID = captured[0]
            guard case .string(let gesture)? = input["gesture"], case .integer(let x)? = input["x"], case .integer(let y)? = input["y"] else {
                return .error(400, #"expected {"gesture": "tap|doubleTap|pan|pinch", "x": N, "y": N, ...}"#)
            }
            let delivered: Bool
            switch gesture {
            case "tap": delivered = try await headUnit.tap(appID: appID, x: x, y: y)
            case "doubleTap": delivered = try await headUnit.doubleTap(appID: appID, x: x, y: y)
            case "pan":
                guard case .integer(let toX)? = input["toX"], case .integer(let toY)? = input["toY"] else { return .error(400, "pan needs toX and toY") }
                delivered = try await headUnit.pan(appID: appID, from: (x, y), to: (toX, toY))
            case "pinch":
                guard case .integer(let from)? = input["from"], case .integer(let to)? = input["to"] else { return .error(400, "pinch needs from and to (finger distances)") }
                delivered = try await headUnit.pinch(appID: appID, center: (x, y), fromDistance: from, toDistance: to)
            default:
                return .error(400, "unknown gesture \(gesture)")
            }
            return .json(.object([.init(key: "delivered", value: .bool(delivered))]))
        },
        Route("POST", "apps/*/keyboard/mask") { api, captured, query, input in
            // {"masked": true}: the driver hides (or shows) the typed characters
            guard case .bool(let masked)? = input["masked"] else { return .error(400, #"expected {"masked": true}"#) }
            try await api.headUnit.setKeyboardMasked(appID: captured[0], masked)
            return .done
        },
        Route("POST", "apps/*/touch") { api, captured, query, input in
            // {"type": "BEGIN", "x": 100, "y": 200, "id": 0} or {"type": "MOVE", "points": [{"id": 0, "x": 1, "y": 2}, ...]}
            guard case .string(let name)? = input["type"], TouchType(rawValue: name).isRecognized else {
                return .error(400, #"expected {"type": "BEGIN|MOVE|END|CANCEL", "x": N, "y": N}"#)
            }
            let points = Self.touchPoints(input)
            let delivered = try await api.headUnit.touch(appID: captured[0], TouchType(rawValue: name), points)
            return .json(.object([.init(key: "delivered", value: .bool(delivered))]))
        },
        Route("PUT", "driver-distraction") { api, captured, query, input in
            // {"state": "DD_ON"} or {"state": "DD_OFF"}
            guard case .string(let state)? = input["state"], state == "DD_ON" || state == "DD_OFF" else {
                return .error(400, #"expected {"state": "DD_ON"} or {"state": "DD_OFF"}"#)
            }
            await api.headUnit.setDriverDistraction(state == "DD_ON")
            return .done
        },
        Route("PUT", "security/system-time") { api, _, _, input in
            // {"ready": false}: the HMI has not given the security manager its time yet.
            guard case .bool(let ready)? = input["ready"] else { return .error(400, #"expected {"ready": true} or {"ready": false}"#) }
            await api.headUnit.setSystemTimeReady(ready)
            return .done
        },
        Route("GET", "apps/*/files") { api, captured, query, input in
            let headUnit = api.headUnit
            let appID = captured[0]
            let names = await headUnit.files(appID: appID)
            return .json(.array(names.map { name in
                .object([.init(key: "name", value: .string(name)), .init(key: "url", value: .string("/apps/\(appID)/files/\(name)"))])
            }))
        },
        Route("GET", "apps/*/files/*") { api, captured, query, input in
            let headUnit = api.headUnit
            guard let bytes = await headUnit.file(appID: captured[0], name: captured[1]) else {
                return .error(404, "\(captured[0]) has no file named \(captured[1])")
            }
            return Answer(status: 200, contentType: SDLHeadUnitControlAPI.imageType(of: bytes), body: bytes)
        },
        Route("GET", "vehicle-data") { api, captured, query, input in
            let headUnit = api.headUnit
            return .json(await headUnit.vehicleData())
        },
        Route("PUT", "vehicle-data") { api, captured, query, input in
            let headUnit = api.headUnit
            guard case .object(let members) = input, !members.isEmpty else { return .error(400, #"expected {"speed": 88.0, ...}"#) }
            // The items change together: one OnVehicleData per subscribed app.
            do throws(SDLSimulatedVehicleError) {
                try await headUnit.setVehicleData(input)
            } catch {
                return .error(400, error.description)
            }
            return .json(await headUnit.vehicleData())
        },
        Route("GET", "waypoints") { api, captured, query, input in
            let headUnit = api.headUnit
            return .json(.object([.init(key: "wayPoints", value: SDLHeadUnitEmulator.wayPointsJSON(await headUnit.wayPoints))]))
        },
        Route("PUT", "waypoints") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"wayPoints": [LocationDetails, ...]}: the new route; subscribed apps hear it.
            guard case .array(let items)? = input["wayPoints"] else { return .error(400, #"expected {"wayPoints": [{"locationName": "...", "coordinate": {...}}, ...]}"#) }
            var points: [LocationDetails] = []
            for (index, item) in items.enumerated() {
                do throws(SDLDecodingError) {
                    points.append(try SDLJSON.decode(LocationDetails.self, from: item.jsonBytes).value)
                } catch {
                    return .error(400, "wayPoints[\(index)]: \(error.errors.first.map { "\($0)" } ?? "\(error)")")
                }
            }
            await headUnit.setWayPoints(points)
            return .done
        },
        Route("PUT", "rc/consent") { api, captured, query, input in
            let headUnit = api.headUnit
            // {"allowed": false}: the driver's answer to the next consent requests.
            guard case .bool(let allowed)? = input["allowed"] else { return .error(400, #"expected {"allowed": true | false}"#) }
            await headUnit.setRemoteControlConsent(allowed)
            return .done
        },
        // /rc/CLIMATE, /rc/CLIMATE?moduleId=C1A or /rc/CLIMATE/C1A: the module's data.
        Route("GET", "rc/*") { api, captured, query, _ in try await moduleData(api.headUnit, captured, query) },
        Route("GET", "rc/*/*") { api, captured, query, _ in try await moduleData(api.headUnit, captured, query) },
        Route("PUT", "rc") { api, captured, query, input in
            let headUnit = api.headUnit
            // A ModuleData: {"moduleType": "CLIMATE", "moduleId": "C0A", "climateControlData": {...}}.
            let data: ModuleData
            do throws(SDLDecodingError) {
                data = try SDLJSON.decode(ModuleData.self, from: input.jsonBytes).value
            } catch {
                return .error(400, "moduleData: \(error.errors.first.map { "\($0)" } ?? "\(error)")")
            }
            try await headUnit.setModuleData(data)
            let now = await headUnit.moduleData(data.moduleType, moduleID: data.moduleId)
            return .json(now.flatMap { try? SDLJSONValue(parsing: SDLJSON.encode($0)) } ?? .object([]))
        },
        Route("PUT", "policy") { api, captured, query, input in
            let headUnit = api.headUnit
            do throws(SDLHeadUnitPolicyError) {
                await headUnit.setPolicy(try SDLHeadUnitPolicy(parsing: input.jsonBytes))
            } catch {
                return .error(400, "policy: \(error.description)")
            }
            return .done
        },
        Route("GET", "language") { api, captured, query, input in
            let headUnit = api.headUnit
            return .json(.object([.init(key: "language", value: .string(await headUnit.currentLanguage.rawValue))]))
        },
        Route("PUT", "language") { api, captured, query, input in
            let headUnit = api.headUnit
            guard case .string(let name)? = input["language"] else { return .error(400, #"expected {"language": "EN-US"}"#) }
            let language = Language(rawValue: name)
            guard language.isRecognized else { return .error(400, "\(name) is not a language of the spec") }
            await headUnit.setLanguage(language)
            return .done
        },
    ]

    /// The content type of a file by its first bytes: the images a browser shows (PNG, JPEG,
    /// BMP, GIF, SVG), anything else as bytes.
    static func imageType(of bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x42, 0x4D]) { return "image/bmp" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.prefix(256).contains(0x3C), String(decoding: bytes.prefix(256), as: UTF8.self).contains("<svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }

    private static func moduleData(_ headUnit: SDLHeadUnitEmulator, _ captured: [String], _ query: [String: String]) async throws -> Answer {
        let type = ModuleType(rawValue: captured[0])
        guard type.isRecognized else { return .error(404, "\(captured[0]) is not a module type of the spec") }
        let moduleID = captured.count > 1 ? captured[1] : query["moduleId"]
        guard let data = await headUnit.moduleData(type, moduleID: moduleID) else {
            throw SDLHeadUnitControlError.unknownModule([captured[0], moduleID].compactMap { $0 }.joined(separator: " "))
        }
        return .json((try? SDLJSONValue(parsing: SDLJSON.encode(data))) ?? .object([]))
    }

    private static func mode(_ input: SDLJSONValue) throws -> ButtonPressMode {
        guard let value = input["mode"] else { return .short }
        guard case .string(let name) = value, ["SHORT", "LONG"].contains(name) else {
            throw SDLHeadUnitControlError.invalidAnswer(#"mode is "SHORT" or "LONG""#)
        }
        return ButtonPressMode(rawValue: name)
    }

    /// A touch's points: `points` [{id, x, y}], or one point from `id`, `x`, `y`.
    private static func touchPoints(_ input: SDLJSONValue) -> [SDLHeadUnitEmulator.TouchPoint] {
        func point(_ value: SDLJSONValue) -> SDLHeadUnitEmulator.TouchPoint? {
            guard case .integer(let x)? = value["x"], case .integer(let y)? = value["y"] else { return nil }
            if case .integer(let id)? = value["id"] { return .init(id: id, x: x, y: y) }
            return .init(x: x, y: y)
        }
        if case .array(let points)? = input["points"] { return points.compactMap(point) }
        return point(input).map { [$0] } ?? []
    }

    private static func answer(_ input: SDLJSONValue) throws -> SDLUserAnswer {
        if case .integer(let id)? = input["choiceID"] { return input["triggerSource"] == .string("VR") ? .voiceChoice(id) : .choice(id) }
        if case .integer(let position)? = input["sliderPosition"] { return .sliderPosition(position) }
        if case .string(let text)? = input["text"] { return .text(text) }
        if case .bool(true)? = input["cancel"] { return .cancel }
        if case .bool(true)? = input["dismiss"] { return .dismiss }
        throw SDLHeadUnitControlError.invalidAnswer(#"expected {"choiceID": N}, {"sliderPosition": N}, {"text": "..."}, {"cancel": true} or {"dismiss": true}"#)
    }
}

extension String {
    /// `%20` and friends decoded; nil for a broken escape.
    fileprivate var removingPercentEncoding: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
