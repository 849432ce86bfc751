import Hummingbird
import SDLHeadUnit
import SDLRPC
import SDLRuntime

/// The apps: who is registered, their screens, files, logs and streams, and what the head unit
/// does to them (activate, menus, widgets, faults, system requests).
extension SDLHeadUnitControlAPI {
    func addAppRoutes(to router: Router<Context>) {
        let headUnit = self.headUnit
        router.get("apps") { _, _ in
            var apps: [AppListing] = []
            for app in await headUnit.registeredApps() {
                let hasIcon = await headUnit.appIcon(appID: app.appID) != nil
                apps.append(
                    AppListing(
                        appID: app.appID, name: app.name, hmiLevel: app.hmiLevel.rawValue, systemContext: app.systemContext.rawValue,
                        session: app.connection, appTypes: app.appTypes.map(\.rawValue), isMedia: app.isMedia,
                        icon: hasIcon ? "/apps/\(app.appID)/icon" : nil))
            }
            return apps
        }
        router.get("display") { _, _ in
            // The main display as the head unit announces it: what the page draws.
            let display = await headUnit.configuration.capabilities["displayCapabilities"]
            let resolution = display?["screenParams"]?["resolution"]
            var name = "GENERIC_DISPLAY"
            var width = 800
            var height = 350
            if case .string(let value)? = display?["displayName"] { name = value }
            if case .integer(let value)? = resolution?["resolutionWidth"] { width = value }
            if case .integer(let value)? = resolution?["resolutionHeight"] { height = value }
            return DisplayAnswer(name: name, width: width, height: height, driverDistraction: await headUnit.isDriverDistracted)
        }
        router.get("apps/:appID/icon") { _, context in
            let appID = context.appID
            guard let bytes = await headUnit.appIcon(appID: appID) else { throw ControlError(.notFound, "\(appID) has set no icon") }
            return BytesAnswer.file(bytes)
        }
        router.post("security/certificates") { request, context in
            // A certificate for the app, signed by the head unit's CA.
            let appID = try await request.decode(as: CertificateRequest.self, context: context).appID
            guard !appID.isEmpty else { throw ControlError(.badRequest, CertificateRequest.expected) }
            guard let issue = await headUnit.configuration.certificateIssuer else {
                throw ControlError(.notFound, "this head unit issues no certificates (run sdl headunit --security without --ca, or with --ca-key)")
            }
            do {
                let issued = try issue(appID)
                return IssuedCertificate(appID: appID, certificate: issued.certificate, privateKey: issued.privateKey)
            } catch {
                throw ControlError(.internalServerError, "the CA could not issue a certificate: \(error)")
            }
        }
        router.post("cloud-app/activate") { _, _ in
            // The user picks the cloud app in the app list: after a drop, SDL Core dials it again.
            await headUnit.activateCloudApp()
            return Done()
        }
        addAppActions(to: router)
        addAppState(to: router)
    }

    /// What the driver or the head unit does to one app.
    private func addAppActions(to router: Router<Context>) {
        let headUnit = self.headUnit
        // The driver presses the head unit's menu button: the app's menu on top (or closes it).
        router.post("apps/:appID/menu/open") { _, context in try await done(headUnit.setMenuOpen(appID: context.appID, true)) }
        router.post("apps/:appID/menu/close") { _, context in try await done(headUnit.setMenuOpen(appID: context.appID, false)) }
        router.post("apps/:appID/menu/submenus/:menuID/open") { _, context in
            // The driver opens a submenu of the open menu (0: back to the top level).
            let id = try context.parameters.number("menuID", else: "the submenu ID is a number")
            try await headUnit.openSubmenu(appID: context.appID, menuID: id == 0 ? nil : id)
            return Done()
        }
        router.post("apps/:appID/activate") { _, context in try await done(headUnit.activate(appID: context.appID)) }
        router.post("apps/:appID/background") { _, context in try await done(headUnit.background(appID: context.appID)) }
        router.post("apps/:appID/exit") { _, context in try await done(headUnit.exit(appID: context.appID)) }
        router.post("apps/:appID/disconnect") { _, context in try await done(headUnit.disconnect(appID: context.appID)) }
        // The driver shows or hides a widget.
        router.post("apps/:appID/windows/:windowID/show") { _, context in
            try await setWidget(context, visible: true)
        }
        router.post("apps/:appID/windows/:windowID/hide") { _, context in
            try await setWidget(context, visible: false)
        }
        router.post("apps/:appID/faults/putfile") { request, context in
            let body = try await request.decode(as: FileFaultRequest.self, context: context)
            let fault: SDLFileFault
            switch body.fault {
            case "disconnect": fault = .disconnect
            case "noAnswer": fault = .noAnswer
            case "corrupt": fault = .corrupt
            default:
                let code = SDLResult(rawValue: body.fault)
                guard code.isRecognized else { throw ControlError(.badRequest, "\(body.fault) is not a fault or a result code") }
                fault = .answer(code)
            }
            await headUnit.injectFileFault(fault, appID: context.appID, onChunk: body.chunk ?? 1)
            return Done()
        }
        router.post("apps/:appID/policy-update") { request, context in
            let url = try await request.decode(as: PolicyUpdateRequest.self, context: context).url
            try await headUnit.requestPolicyUpdate(appID: context.appID, url: url)
            return Done()
        }
        router.post("apps/:appID/system-request") { request, context in
            let body = try await request.decode(as: SystemRequestRequest.self, context: context)
            let type = RequestType(rawValue: body.requestType)
            guard type.isRecognized else { throw ControlError(.badRequest, "\(body.requestType) is not a request type of the spec") }
            try await headUnit.sendSystemRequest(
                appID: context.appID, type: type, url: body.url, timeout: body.timeout, bulkData: Array((body.body ?? "").utf8))
            return Done()
        }
    }

    /// What one app shows, stores, logs and streams.
    private func addAppState(to router: Router<Context>) {
        let headUnit = self.headUnit
        router.get("apps/:appID/screen") { _, context in
            JSONAnswer(try await headUnit.screen(appID: context.appID))
        }
        router.get("apps/:appID/log") { _, context in
            // Every RPC in and out, one JSON object per line.
            let appID = context.appID
            let recorded = await headUnit.recordedRPCs(appID: appID)
            guard !recorded.isEmpty else { throw SDLHeadUnitControlError.unknownApp(appID) }
            return BytesAnswer(contentType: "application/x-ndjson", bytes: recorded.flatMap { $0.json.jsonBytes + [0x0A] })
        }
        router.get("apps/:appID/streams") { _, context in
            var answer = StreamsAnswer()
            for (service, statistics) in await headUnit.streamStatistics(appID: context.appID) {
                if service == 11 { answer.video = StreamAnswer(statistics) } else { answer.audio = StreamAnswer(statistics) }
            }
            return answer
        }
        router.get("apps/:appID/files") { _, context in
            let appID = context.appID
            return await headUnit.files(appID: appID).map { FileListing(name: $0, url: "/apps/\(appID)/files/\($0)") }
        }
        router.get("apps/:appID/files/:name") { _, context in
            let appID = context.appID
            let name = context.parameters.decoded("name")
            guard let bytes = await headUnit.file(appID: appID, name: name) else { throw ControlError(.notFound, "\(appID) has no file named \(name)") }
            return BytesAnswer.file(bytes)
        }
    }

    private func setWidget(_ context: Context, visible: Bool) async throws -> Done {
        let windowID = try context.parameters.number("windowID", else: "the window ID is a number")
        try await headUnit.setWidgetVisible(appID: context.appID, windowID: windowID, visible)
        return Done()
    }
}
