import Foundation
import Logging
import SDLAsyncHTTPClient
import SDLCloudServer
import SDLTLS
import SDLWebSocket
import ServiceLifecycle
import UnixSignals
import SDLRPC
import SmartDeviceLink

// The Swift of the DocC articles in Sources/SmartDeviceLink/SmartDeviceLink.docc, compiled here;
// DocumentationTests checks every code block of the articles appears in this file.

enum GettingStartedExamples {
    static func scoped() async throws {
        var configuration = SDLManager.Configuration(appName: "Hello SDL", appID: "8675309", fullAppID: "8675309-aaaa-bbbb")
        configuration.shortAppName = "Hello"
        configuration.appTypes = [.media]
        configuration.transport = .tcp(host: "127.0.0.1", port: 12345)

        try await withSDLManager(configuration) { manager in
            for await level in manager.hmiLevels() where level == .full {
                let response = try await manager.send(Show(mainField1: "Hello, driver"))
                print("Show:", response.resultCode)
                break
            }
        }
    }

    static func startStop(configuration: SDLManager.Configuration) async throws {
        let manager = SDLManager(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await manager.run() }   // connects, registers, reconnects until stop()
            try await manager.waitUntilReady()
            print(manager.state, manager.registerResponse?.vehicleType?.make ?? "?")
            await manager.stop()                        // unregisters and disconnects; run() returns
            try await group.waitForAll()
        }
    }

    static func service(configuration: SDLManager.Configuration, logger: Logger) async throws {
        let manager = SDLManager(configuration: configuration)
        let group = ServiceGroup(services: [manager], gracefulShutdownSignals: [.sigterm], logger: logger)
        try await group.run()
    }
}

enum ImportingExamples {
    static func unqualified() {
        let icon = SDLImage(value: "0x11", imageType: .static)
        let alert = SDLAlert(alertText1: "Low fuel")
        _ = (icon, alert)
    }
}

enum ErrorExamples {
    static func codes(manager: SDLManager) async {
        do {
            try await manager.screen.setMediaClock(.countUp(from: .zero))
        } catch {
            let failure = SDLError(error)
            switch failure.code {
            case .wrongAppType: print("only media apps have a media clock")
            case .refusedByHeadUnit: print("the head unit said", failure.resultCode?.rawValue ?? "?")
            default: print(failure.message)
            }
        }
    }

    static func button(manager: SDLManager) async {
        do {
            try await manager.buttons.subscribe(.playPause) { _ in }
        } catch {
            switch SDLError(error).code {
            case .wrongAppType: print("PLAY_PAUSE needs a media app")
            case .disallowed: print("not in this HMI level")
            default: print(SDLError(error).message)
            }
        }
    }

    static func migration(manager: SDLManager) async {
        do {
            _ = try await manager.buttons.subscribe(.seekleft)
        } catch let error as SDLError where error.code == .wrongAppType {
            print(error.message)   // "SEEKLEFT is only for MEDIA apps; nothing was sent"
        } catch {
            print(error)
        }
    }
}

enum LifecycleExamples {
    static func states(manager: SDLManager) async {
        for await state in manager.stateChanges() {
            print("manager is", state)    // connecting, registered, setting up managers, ready...
            if state == .ready { break }
        }
    }

    static func registration(manager: SDLManager) async {
        if let warning = manager.registrationWarning {
            print("registered, with a warning:", warning)   // WRONG_LANGUAGE, RESUME_FAILED, WARNINGS
        }
        let response = manager.registerResponse
        print(response?.vehicleType?.model ?? "unknown vehicle", response?.iconResumed ?? false)
    }

    static func statuses(manager: SDLManager) async {
        for await context in manager.systemContexts() where context == .menu {
            print("the driver opened the app's menu")
        }
        for await state in manager.audioStreamingStates() where state == .notAudible {
            print("pause playback")
        }
        for await level in manager.hmiLevels(window: 2) {
            print("the widget is now", level)
        }
    }

    final class Listener: SDLManagerDelegate {
        func manager(_ manager: SDLManager, hmiLevelChangedFrom old: HMILevel?, to new: HMILevel, window: Int) async {
            print("window \(window): \(old?.rawValue ?? "-") → \(new.rawValue)")
        }
    }

    static func delegate(manager: SDLManager, listener: Listener) async {
        manager.setDelegate(listener)   // held weakly
    }

    static func limits(configuration: inout SDLManager.Configuration) {
        configuration.minimumRPCVersion = .version(5, 0)
        configuration.vehicleTypeVeto = { vehicle in vehicle.make != "Unsupported Motors" }
    }
}

enum PermissionExamples {
    static func check(manager: SDLManager) async throws {
        guard let permissions = manager.permissions else { return }
        if await permissions.isAllowed("Show") {
            _ = try await manager.send(Show(mainField1: "Allowed"))
        }
        let group = await permissions.status(of: ["Show", "Alert"])   // .allowed, .mixed, .disallowed
        print(group)
        let speed = await permissions.permission(of: "GetVehicleData")
        print(speed.allowedParameters.contains("speed"), speed.requiresEncryption)
    }

    static func observe(manager: SDLManager) async throws {
        guard let permissions = manager.permissions else { return }
        for await _ in await permissions.observe(["SubscribeVehicleData", "GetVehicleData"], .allAllowed) {
            _ = try await manager.send(SubscribeVehicleData(speed: true))
            break
        }
        if await permissions.waitUntilAllowed("Alert", timeout: .seconds(30)) {
            _ = try await manager.send(SDLAlert(alertText1: "Ready when you are"))
        }
    }

    static func acrossReconnections(manager: SDLManager) async {
        // Every time the app may (or may no longer) show its screen, across reconnections.
        for await group in await manager.permissionChanges(of: ["Show", "AddCommand"], .allAllowed) {
            let allowed = group.values.allSatisfy(\.isAllowed)
            print(allowed ? "draw the screen" : "wait: the screen is not ours now")
        }
    }

    static func refusal(manager: SDLManager) async throws {
        do {
            _ = try await manager.send(SDLAlert(alertText1: "Hi"))
        } catch let error as SDLError where error.code == .disallowed {
            print(error.message)   // e.g. "Alert is not allowed in HMI level BACKGROUND; it is allowed in FULL, LIMITED"
        }
        // The head unit decides instead of the library:
        _ = try await manager.send(SDLAlert(alertText1: "Hi"), checkingPermissions: false)
    }
}

enum LanguageExamples {
    static func configure(configuration: inout SDLManager.Configuration) {
        configuration.language = .enUs
        configuration.languagesSupported = [.enUs, .frCa, .esMx]
        configuration.languageUpdate = { language, _ in
            switch language {
            case .frCa: SDLLanguageUpdate(appName: "Bonjour SDL", ttsName: [TTSChunk(text: "Bonjour", type: .text)])
            case .esMx: SDLLanguageUpdate(appName: "Hola SDL", vrSynonyms: ["Hola"])
            default: nil
            }
        }
    }

    static func result(manager: SDLManager) async {
        if let change = manager.languageChange, !change.success {
            print("the head unit kept the English names:", change.resultCode)
        }
    }
}

enum CapabilityExamples {
    static func window(manager: SDLManager) async {
        let capabilities = manager.systemCapabilities
        if let main = await capabilities.defaultMainWindowCapability {
            print("templates:", main.templatesAvailable ?? [])
            print("lines of text:", main.textFields?.filter { $0.name.rawValue.hasPrefix("mainField") }.count ?? 0)
        }
    }

    static func query(manager: SDLManager) async throws {
        let capabilities = manager.systemCapabilities
        guard await capabilities.isSupported(.navigation) else { return }
        let navigation = try await capabilities.update(.navigation)
        if navigation.navigationCapability?.sendLocationEnabled == true {
            print("SendLocation works here")
        }
    }

    static func subscribe(manager: SDLManager) async throws {
        let capabilities = manager.systemCapabilities
        print("pushed updates:", await capabilities.supportsSubscriptions)
        for await update in try await capabilities.subscribe(to: .appServices) {
            for service in update.appServicesCapabilities?.appServices ?? [] {
                print(service.updatedAppServiceRecord.serviceManifest.serviceName ?? "?", service.updateReason?.rawValue ?? "")
            }
        }
    }

    static func polling(configuration: inout SDLManager.Configuration) {
        configuration.capabilityPollInterval = .seconds(10)   // head units before RPC 5.1
    }

    static func legacy(response: RegisterAppInterfaceResponse) {
        if let display = response.displayCapabilities {
            let displays = SDLDisplayConversion.displays(from: display, buttons: response.buttonCapabilities)
            let back = SDLDisplayConversion.legacy(from: displays, previous: display)
            print(displays.count, back?.displayCapabilities == display)
        }
    }
}

enum SendingExamples {
    static func send(manager: SDLManager) async throws {
        let response = try await manager.send(GetVehicleData(speed: true, rpm: true))
        if response.success {
            print("speed:", response.speed ?? 0)
        }
    }

    static func batches(manager: SDLManager) async {
        let commands: [any SDLRequest] = (1...3).map { AddCommand(cmdID: $0, menuParams: MenuParams(menuName: "Station \($0)")) }
        let results = await manager.sendConcurrently(commands) { progress in
            print("\(progress.completed)/\(progress.total)")
        }
        print(results.filter { (try? $0.get()) != nil }.count, "answered")

        let steps: [any SDLRequest] = [SetDisplayLayout(displayLayout: "MEDIA"), Show(mainField1: "Now playing")]
        _ = await manager.sendSequentially(steps) { progress in
            (try? progress.result.get()) != nil   // false cancels the rest
        }
    }

    static func gate(manager: SDLManager) async throws {
        do {
            _ = try await manager.send(Show(mainField1: "Hi", templateTitle: "Title"))
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // names the RPC, parameter or value, the version it needs and the head unit's
        }
    }

    static func dropNewer(configuration: inout SDLManager.Configuration) {
        configuration.newerParameterPolicy = .drop   // send what the head unit knows, log the rest
    }

    static func notifications(manager: SDLManager) async {
        for await press in manager.notifications(OnButtonPress.self) {
            print("pressed", press.buttonName)
        }
    }
}

enum HeadUnitRequestExamples {
    static func stream(manager: SDLManager) async throws {
        for await pending in try await manager.requests(GetAppServiceData.self) {
            let data = AppServiceData(serviceType: "MEDIA", serviceID: "tunes", mediaServiceData: MediaServiceData(mediaTitle: "Song"))
            pending.respond(GetAppServiceDataResponse(success: true, resultCode: .success, serviceData: data))
        }
    }

    static func closure(manager: SDLManager) async throws {
        try await manager.handleRequests(PerformAppServiceInteraction.self) { request in
            guard request.serviceUri.hasPrefix("tunes://") else {
                throw SDLRequestRefusal(.invalidData, info: "unknown URI")
            }
            return PerformAppServiceInteractionResponse(success: true, resultCode: .success, serviceSpecificResult: "playing")
        }
    }
}

enum ReconnectionExamples {
    static func configure(configuration: inout SDLManager.Configuration, savedHash: String?) {
        configuration.resumeHash = savedHash
        configuration.reconnectPolicy = SDLReconnectPolicy(maxAttempts: 10, initialDelay: .seconds(1), maxDelay: .seconds(30))
    }

    static func keepHash(configuration: SDLManager.Configuration, save: @escaping @Sendable (String) async -> Void) async throws {
        let manager = SDLManager(configuration: configuration, hashStore: { hash in await save(hash) })
        try await withSDLManager(manager) { manager in
            _ = try await manager.send(Show(mainField1: "Resumed"))
        }
    }

    static func pending(manager: SDLManager) async {
        do {
            _ = try await manager.send(ListFiles())
        } catch let error as SDLError where error.code == .connectionClosed {
            if case .connectionClosed(let reason)? = error.underlying as? SDLRPCError {
                print("dropped while waiting:", reason, "reconnects:", reason.allowsReconnection)
            }
        } catch {
            print(error)
        }
    }
}

enum FileExamples {
    static func uploadOne(manager: SDLManager, mp3Data: [UInt8]) async {
        let audioFile = SDLFile(name: "song.mp3", bytes: mp3Data, type: .audioMp3)
        do {
            try await manager.files.upload(audioFile)
            print("uploaded;", await manager.files.bytesAvailable ?? 0, "bytes left")
        } catch {
            print(error)   // says how many bytes the head unit confirmed
        }
    }

    static func progress(manager: SDLManager, bytes: [UInt8]) async throws {
        let upload = manager.files.startUpload(SDLFile(name: "album.zip", bytes: bytes, type: .binary))
        for await step in upload.progress {
            print("\(Int(step.fraction * 100)) %")
        }
        try await upload.outcome()
    }

    static func batch(manager: SDLManager, first: [UInt8], second: [UInt8]) async {
        let files = [
            SDLFile(name: "intro.mp3", bytes: first, type: .audioMp3),
            SDLFile(name: "outro.mp3", bytes: second, type: .audioMp3),
        ]
        let results = await manager.files.upload(files, stopOnFailure: false) { progress in
            print("\(progress.bytesConfirmed) of \(progress.totalBytes) bytes")
        }
        for (file, result) in zip(files, results) {
            if case .failure(let error) = result { print(file.name, error) }
        }
    }

    static func persistence(bytes: [UInt8]) {
        var file = SDLFile(name: "logo.png", bytes: bytes, type: .graphicPng, persistent: true)
        print(file.isPersistent)
        file.overwrite = true   // replace a file of the same name on the head unit
    }

    static func remoteState(manager: SDLManager) async {
        let bytesAvailable = await manager.files.bytesAvailable
        let isFileOnHeadUnit = await manager.files.remoteFileNames.contains("logo.png")
        print(bytesAvailable ?? 0, isFileOnHeadUnit)
    }

    static func delete(manager: SDLManager) async {
        do {
            try await manager.files.delete("logo.png")
        } catch {
            print(error)
        }
        let results = await manager.files.delete(["intro.mp3", "outro.mp3"])
        print(results.allSatisfy { (try? $0.get()) != nil } ? "deleted" : "some were not deleted")
    }

    static func images(manager: SDLManager, png: [UInt8]) async throws {
        guard await manager.systemCapabilities.defaultMainWindowCapability?.imageTypeSupported?.contains(.dynamic) == true else {
            return   // this head unit shows no uploaded images
        }
        let artwork = SDLArtwork(bytes: png, format: .png, isTemplate: false, persistent: true)
        try await manager.files.upload(artwork)   // skipped when the head unit has it already
        _ = try await manager.send(Show(mainField1: "Now playing", graphic: artwork.image))
    }

    static func staticIcon(manager: SDLManager) async throws {
        let icon = SDLArtwork.staticIcon(.album)   // built into the head unit: never uploaded
        _ = try await manager.send(Show(mainField1: "Albums", graphic: icon.image))
    }

    static func appIcon(configuration: inout SDLManager.Configuration, png: [UInt8]) {
        configuration.appIcon = SDLArtwork(bytes: png, format: .png, name: "app-icon.png", persistent: true)
        configuration.files.fileRetryCount = 2
        configuration.files.artworkRetryCount = 1
    }

    struct MyHTTPClient: SDLHTTPClient {
        func send(_ request: SDLHTTPRequest) async throws -> SDLHTTPResponse {
            SDLHTTPResponse(status: 404, body: [])   // fetch request.url with your HTTP stack
        }
    }

    static func cloudIcon(configuration: inout SDLManager.Configuration) {
        configuration.httpClient = MyHTTPClient()   // answers OnSystemRequest(ICON_URL)
    }
}

enum VehicleDataExamples {
    static func getOnce(manager: SDLManager) async throws {
        let reading = try await manager.vehicleData.get(\.speed, \.rpm)
        print("speed", reading.speed ?? 0, "km/h, rpm", reading.rpm ?? 0)
    }

    static func waitForPermission(manager: SDLManager) async throws {
        // SDL Core grants vehicle data with its policy update, after the first activation.
        guard await manager.vehicleData.waitUntilAllowed(\.gps) else { return }
        let gps = try await manager.vehicleData.get(\.gps).gps
        print(gps?.latitudeDegrees ?? 0, gps?.longitudeDegrees ?? 0)
    }

    static func errors(manager: SDLManager) async {
        do {
            _ = try await manager.vehicleData.get(\.fuelLevel)
        } catch let error as SDLError where error.code == .disallowed {
            print(error.message)   // "GetVehicleData of fuelLevel is not allowed by the head unit's permissions; nothing was sent"
        } catch let error as SDLError where error.code == .refusedByHeadUnit {
            print("the head unit said", error.resultCode?.rawValue ?? "", error.info ?? "")  // DISALLOWED, USER_DISALLOWED...
        } catch {
            print(error)
        }
    }

    static func subscribe(manager: SDLManager) async throws {
        let subscription = try await manager.vehicleData.subscribe(\.speed, \.gps)
        for (item, code) in subscription.results.failed {
            print(item, "not subscribed:", code)              // e.g. VEHICLE_DATA_NOT_AVAILABLE
        }
        for await data in subscription.updates {              // open before the request went out
            if let speed = data.speed { print("speed", speed) }
        }
    }

    static func oneItem(manager: SDLManager) async throws {
        let speeds = manager.vehicleData.updates(of: \.speed)
        try await manager.vehicleData.subscribe(\.speed)
        for await speed in speeds { print("speed", speed) }
    }

    static func alreadySubscribed(manager: SDLManager) async throws {
        let again = try await manager.vehicleData.subscribe(\.gps)
        // IGNORED, with DATA_ALREADY_SUBSCRIBED inside: subscribed all the same.
        print(again.results.resultCode, again.results.items["gps"]?.resultCode as Any, again.results.succeeded)
    }

    static func unsubscribe(manager: SDLManager) async throws {
        let results = try await manager.vehicleData.unsubscribe(\.speed, \.gps)
        print(results.succeeded)                              // DATA_NOT_SUBSCRIBED counts as done
    }

    static func oemCustom(manager: SDLManager) async throws {
        let reading = try await manager.vehicleData.get([], custom: ["OEM-X-Vehicle-Data"])
        if let value = reading.custom["OEM-X-Vehicle-Data"] {
            print("OEM data:", value.jsonString)               // the OEM's format: parse it yourself
        }
        _ = try await manager.vehicleData.subscribe([], custom: ["OEM-X-Vehicle-Data"])
        for await items in manager.vehicleData.customUpdates() { print(items) }
    }
}

enum ButtonExamples {
    static func closure(manager: SDLManager) async throws {
        let observer = try await manager.buttons.subscribe(.playPause) { input in
            switch input {
            case .press(let press): print("PLAY_PAUSE", press.buttonPressMode)   // SHORT or LONG
            case .event(let event): print("PLAY_PAUSE", event.buttonEventMode)   // BUTTONDOWN or BUTTONUP
            }
        }
        // Later: the last observer of a button out unsubscribes it on the head unit.
        await manager.buttons.unsubscribe(observer)
    }

    static func sequence(manager: SDLManager) async throws {
        let preset = try await manager.buttons.subscribe(.preset1)
        for await press in preset.presses {
            print("preset 1", press.buttonPressMode)
        }
    }

    static func rules(manager: SDLManager) async {
        do {
            _ = try await manager.buttons.subscribe(.seekleft)
        } catch let error as SDLError where error.code == .wrongAppType {
            print(error.message)   // "SEEKLEFT is only for MEDIA apps; nothing was sent"
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // e.g. "PRESET_9 is beyond the 6 presets the display offers; nothing was sent"
        } catch {
            print(error)
        }
    }
}

enum AppServiceExamples {
    static func updateManifest(manager: SDLManager, service: SDLAppService) async throws {
        var manifest = AppServiceManifest(serviceName: "Sky Weather Pro", serviceType: AppServiceType.weather.rawValue)
        manifest.weatherServiceManifest = WeatherServiceManifest(currentForecastSupported: true)
        try await manager.appServices.updateManifest(service, to: manifest)
    }

    static func providersFile(manager: SDLManager, serviceID: String) async throws {
        let artwork = try await manager.appServices.file(named: "sunny.png", ofService: serviceID)
        print(artwork.count, "bytes")
    }

    static func publish(manager: SDLManager) async throws -> SDLAppService {
        let manifest = AppServiceManifest(
            serviceName: "Sky Weather", serviceType: AppServiceType.weather.rawValue,
            weatherServiceManifest: WeatherServiceManifest(currentForecastSupported: true, weatherForLocationSupported: true))
        let service = try await manager.appServices.publish(manifest)
        print(await manager.appServices.record(of: service)?.serviceID ?? "?")
        return service
    }

    static func update(manager: SDLManager, service: SDLAppService) async {
        let forecast = WeatherServiceData(
            location: LocationDetails(locationName: "Detroit"),
            currentForecast: WeatherData(currentTemperature: Temperature(unit: .celsius, value: 21.5), weatherSummary: "Sunny"))
        do {
            let sent = try await manager.appServices.update(service, with: .weather(forecast))
            // Not sent while another app's weather service is the active one: the data is kept
            // to answer GetAppServiceData.
            print(sent ? "sent" : "kept")
        } catch {
            print(error)
        }
    }

    static func activity(manager: SDLManager) async {
        for await record in manager.appServices.publishedRecords() {
            print(record.serviceID, record.serviceActive ? "active" : "not active")
        }
    }

    static func handled(manager: SDLManager) async throws {
        let manifest = AppServiceManifest(
            serviceName: "Radio", serviceType: AppServiceType.media.rawValue, mediaServiceManifest: MediaServiceManifest())
        let service = try await manager.appServices.publish(
            manifest,
            handling: [SDLAppServiceRequestHandler(ButtonPress.self) { press in
                print("the head unit pressed", press.buttonName)
                return ButtonPressResponse(resultCode: .success, success: true)
            }],
            interactions: { request in
                SDLAppServiceInteractionResult(serviceSpecificResult: "opened \(request.serviceUri)")
            })
        try await manager.appServices.unpublish(service)   // RPC 6.0+
    }

    static func consume(manager: SDLManager) async throws {
        let weather = AppServiceType.weather.rawValue
        for record in try await manager.appServices.services(ofType: weather) {
            print(record.serviceManifest.serviceName ?? record.serviceID, record.serviceActive)
        }
        for await data in try await manager.appServices.subscribe(toType: weather) {
            print(data.weatherServiceData?.currentForecast?.weatherSummary ?? "-")
        }
    }

    static func interact(manager: SDLManager, serviceID: String) async throws {
        let answer = try await manager.appServices.interact(
            serviceID: serviceID, uri: "weather://forecast?city=Detroit", originApp: "8675309", requestServiceActive: true)
        print(answer.resultCode, answer.serviceSpecificResult ?? "")
    }
}

enum PolicyUpdateExamples {
    static func asyncHTTPClient(configuration: inout SDLManager.Configuration) {
        configuration.httpClient = SDLAsyncHTTPClient()   // product SDLAsyncHTTPClient
    }

    static func outcomes(manager: SDLManager) async {
        for await outcome in manager.systemRequestOutcomes() {
            switch outcome {
            case .forwarded(let type, let url, let status, let bytes):
                print(type, "from", url, "HTTP", status, bytes, "bytes handed to the head unit")
            case .failed(let type, let url, let reason):
                print(type, url ?? "-", "failed:", reason)     // logged too; the app goes on
            }
        }
    }

    static func permissionsAfterwards(manager: SDLManager) async throws {
        // The update's OnPermissionsChange is what grants vehicle data on SDL Core.
        if await manager.vehicleData.waitUntilAllowed(\.speed) {
            print(try await manager.vehicleData.get(\.speed).speed ?? 0)
        }
    }
}

enum ScreenExamples {
    static func text(manager: SDLManager) async throws {
        try await manager.screen.update {
            $0.textField1 = "Line 1 of Text"
            $0.textField2 = "Line 2 of Text"
        }
    }

    static func clear(manager: SDLManager) async throws {
        try await manager.screen.update {
            $0.textField1 = nil
            $0.textField2 = nil
        }
    }

    static func images(manager: SDLManager, albumArt: SDLArtwork) async throws {
        let result = try await manager.screen.update {
            $0.textField1 = "Song title"
            $0.textField1Type = .mediaTitle
            $0.primaryGraphic = albumArt                // uploaded, then shown after the text
            $0.secondaryGraphic = .staticIcon(.album)    // built in: goes with the text
        }
        if result == .superseded { print("a newer update carries these changes") }
    }

    static func template(manager: SDLManager) async throws {
        let dayColors = TemplateColorScheme(primaryColor: RGBColor(red: 30, green: 136, blue: 229))
        try await manager.screen.changeLayout(SDLTemplate(.graphicWithText, dayColors: dayColors))
    }

    static func templateBatch(manager: SDLManager, albumArt: SDLArtwork) async throws {
        try await manager.screen.update {
            $0.template = SDLTemplate(.graphicWithText)
            $0.textField1 = "Line of Text"
            $0.primaryGraphic = albumArt
        }
    }

    static func softButtons(manager: SDLManager, heart: SDLArtwork) async throws {
        let like = SDLSoftButton(name: "like", states: [
            SDLSoftButtonState(name: "off", text: "Like", artwork: heart),
            SDLSoftButtonState(name: "on", text: "Liked", artwork: heart, isHighlighted: true),
        ]) { press in
            print("like pressed", press.buttonPressMode)
        }
        try await manager.screen.setSoftButtons([like, SDLSoftButton(name: "skip", text: "Skip")])
        try await manager.screen.transition("like", to: "on")
    }

    static func softButtonPresses(manager: SDLManager) async {
        for await press in await manager.screen.softButtonPresses("skip") {
            print("skip", press.buttonPressMode)
        }
    }

    static func menu(manager: SDLManager, playIcon: SDLArtwork) async throws {
        let play = SDLMenuCell(title: "Play", icon: playIcon, voiceCommands: ["Play"]) { trigger in
            print("Play chosen by", trigger)   // MENU or VR
        }
        let settings = SDLMenuCell(title: "Settings", submenuLayout: .tiles, subCells: [
            SDLMenuCell(title: "Audio") { _ in },
            SDLMenuCell(title: "Display") { _ in },
        ])
        try await manager.screen.setMenuConfiguration(SDLMenuConfiguration(mainMenuLayout: .list, defaultSubmenuLayout: .list))
        try await manager.screen.setMenu([play, settings])
        try await manager.screen.openSubmenu("Settings")   // RPC 6.0+
    }

    static func voiceCommands(manager: SDLManager) async throws {
        try await manager.screen.setVoiceCommands([
            SDLVoiceCommand(voiceCommands: ["Start over"]) { print("start over") },
        ])
        try await manager.screen.setMenuTitle("Hello SDL", icon: .staticIcon(.album))
    }

    static func popupMenu(manager: SDLManager) async throws {
        let cells = ["Red", "Green", "Blue"].map { SDLChoiceCell(text: $0, voiceCommands: [$0]) }
        try await manager.screen.preloadChoices(cells)   // ahead of time: the menu opens at once
        let set = SDLChoiceSet(title: "Pick a colour", cells: cells, layout: .tiles, timeout: .seconds(20), initialPrompt: "Pick a colour")
        switch try await manager.screen.present(set, mode: .both) {
        case .selected(let cell, let index, let trigger): print(cell.text, index, trigger)
        case .searched(let text): print("searched for", text)   // searchable sets only
        case .timedOut: print("nobody chose")
        case .cancelled: print("cancelled")
        }
    }

    static func searchablePopup(manager: SDLManager) async throws {
        let songs = ["Blue in Green", "So What", "Freddie Freeloader"].map { SDLChoiceCell(text: $0) }
        let search = SDLKeyboard { entry in songs.map(\.text).filter { $0.localizedCaseInsensitiveContains(entry) } }
        switch try await manager.screen.presentSearchable(SDLChoiceSet(title: "Songs", cells: songs), keyboard: search) {
        case .selected(let cell, _, _): print("play", cell.text)
        case .searched(let text): print("search the catalogue for", text)
        case .timedOut, .cancelled: break
        }
    }

    static func cancelPopup(manager: SDLManager, set: SDLChoiceSet) async throws {
        let presentation = Task { try await manager.screen.present(set) }
        // Later: closes it (CancelInteraction on RPC 6.0+).
        presentation.cancel()
        print(try await presentation.value)   // .cancelled
    }

    static func keyboard(manager: SDLManager) async throws {
        let keyboard = SDLKeyboard(
            initialText: "Search", properties: KeyboardProperties(keyboardLayout: .qwerty, maskInputCharacters: .userChoiceInputKeyMask),
            timeout: .seconds(60)
        ) { entry in
            ["Boston", "Detroit", "Denver"].filter { $0.hasPrefix(entry) }   // the autocomplete list as the driver types
        }
        if case .entered(let text) = try await manager.screen.presentKeyboard(keyboard) {
            print("searching for", text)
        }
    }
}

enum AlertExamples {
    static func alert(manager: SDLManager, fuelIcon: SDLArtwork) async throws {
        let alert = SDLAlertView(
            text: "Low fuel", secondaryText: "32 km to empty", icon: fuelIcon,
            buttons: [
                SDLSoftButton(name: "find", text: "Find fuel") { _ in print("searching for stations") },
                SDLSoftButton(name: "ok", text: "OK"),
            ],
            audio: "Low fuel", playTone: true, duration: .seconds(8))
        switch try await manager.screen.presentAlert(alert) {
        case .buttonPressed(let name): print(name, "pressed")   // its handler has run
        case .dismissed: print("its duration ended, or the driver closed it")
        case .cancelled: print("cancelled, or the head unit aborted it")
        case .pressed: break                                     // subtle alerts only
        }
    }

    static func cancel(manager: SDLManager, search: @Sendable () async -> [String]) async throws {
        // Keep the speech short: cancelling closes the alert, not what it is saying.
        let waiting = SDLAlertView(text: "Searching for coffee shops", audio: "Searching", showWaitIndicator: true)
        let presentation = Task { try await manager.screen.presentAlert(waiting) }
        let shops = await search()
        presentation.cancel()                  // CancelInteraction on RPC 6.0+
        print(try await presentation.value, shops.count)   // .cancelled
    }

    static func subtle(manager: SDLManager) async throws {
        let goal = SDLSubtleAlertView(text: "Goal!", secondaryText: "Detroit 2 - 1 Chicago", audio: "Goal", duration: .seconds(5))
        if try await manager.screen.presentSubtleAlert(goal) == .pressed {
            print("the driver tapped it: show the match")   // OnSubtleAlertPressed
        }
    }

    static func subtlePresses(manager: SDLManager) async {
        for await _ in manager.screen.subtleAlertPresses() {
            print("a subtle alert was tapped")   // also when the app was not the active one
        }
    }

    static func rules(manager: SDLManager, buttons: [SDLSoftButton]) async {
        do {
            _ = try await manager.screen.presentSubtleAlert(SDLSubtleAlertView(text: "Saved", buttons: buttons))
        } catch let error as SDLError where error.code == .invalidArgument {
            print(error.message)   // e.g. three buttons where two fit: nothing was sent
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // e.g. a head unit before RPC 7.0 has no subtle alert
        } catch {
            print(error)
        }
    }
}

enum SliderExamples {
    static func slider(manager: SDLManager) async throws {
        let slider = SDLSliderView(
            ticks: 5, position: 1, header: "Fan speed",
            footer: .perPosition(["Off", "Low", "Medium", "High", "Max"]), timeout: .seconds(15))
        switch try await manager.screen.presentSlider(slider) {
        case .selected(let position): print("position", position)   // 1...5
        case .timedOut: print("no answer")
        case .cancelled: print("cancelled")
        }
    }

    static func staticFooter() -> SDLSliderView {
        SDLSliderView(ticks: 11, position: 6, header: "Balance", footer: .single("Left to right"))
    }

    static func scrollableMessage(manager: SDLManager) async throws {
        let message = SDLScrollableMessage(
            text: "Terms of use\n\nBy pressing Accept you agree to...",
            buttons: [
                SDLSoftButton(name: "accept", text: "Accept") { _ in print("accepted") },
                SDLSoftButton(name: "decline", text: "Decline"),
            ],
            timeout: .seconds(50))
        switch try await manager.screen.presentScrollableMessage(message) {
        case .buttonPressed(let name): print(name)         // its handler has run
        case .dismissed, .timedOut: print("closed without an answer")
        case .cancelled: print("cancelled")
        }
    }

    static func cancel(manager: SDLManager, slider: SDLSliderView) async throws {
        let presentation = Task { try await manager.screen.presentSlider(slider) }
        // Later: closes it (CancelInteraction on RPC 6.0+).
        presentation.cancel()
        print(try await presentation.value)   // .cancelled
    }
}

enum MediaClockExamples {
    static func configure(configuration: inout SDLManager.Configuration) {
        configuration.appTypes = [.media]   // the media clock is for media apps
    }

    static func countUp(manager: SDLManager) async throws {
        // A song that starts at 0:30 and ends at 4:13: the bar starts at 0:30 and moves each second.
        try await manager.screen.setMediaClock(.countUp(from: .seconds(30), to: .seconds(253), indicator: .pause))
    }

    static func seeking(manager: SDLManager) async throws {
        // A podcast at 1.5x: forward jumps 30 s, back 10 s.
        try await manager.screen.setMediaClock(
            .countUp(from: .zero, to: .seconds(3_600), indicator: .pause)
                .seeking(forward: .seconds(30), back: .seconds(10))
                .counting(atRate: 1.5))
    }

    static func countDown(manager: SDLManager) async throws {
        // From 10:00 down to 0:00.
        try await manager.screen.setMediaClock(.countDown(from: .seconds(600), indicator: .pause))
    }

    static func pauseAndResume(manager: SDLManager) async throws {
        try await manager.screen.setMediaClock(.pause(indicator: .play))    // stops where it is
        try await manager.screen.setMediaClock(.resume(indicator: .pause))  // runs on from there
        // Paused, moved to 1:00 of 4:00 (seeking while paused):
        try await manager.screen.setMediaClock(.pause(newStart: .seconds(60), newEnd: .seconds(240), indicator: .play))
        try await manager.screen.setMediaClock(.clear(indicator: .play))    // removes it
    }

    static func rules(manager: SDLManager) async {
        do {
            try await manager.screen.setMediaClock(.countUp(from: .seconds(240), to: .seconds(60)))
        } catch let error as SDLError where error.code == .wrongAppType {
            print("add .media to the configuration's appTypes")   // SDL Core would answer REJECTED
        } catch let error as SDLError where error.code == .invalidArgument {
            print(error.message)   // names the mode, start and end that run the wrong way; nothing was sent
        } catch {
            print(error)
        }
    }
}

enum SpeechExamples {
    static func speak(manager: SDLManager) async throws {
        switch try await manager.screen.speak("Your order is ready") {
        case .spoken: print("spoken to the end")
        case .interrupted: print("cut off by an alert, another prompt or the driver")   // ABORTED
        case .cancelled: print("cancelled before it was sent")
        }
    }

    static func phonemes(manager: SDLManager) async throws {
        let supported = await manager.systemCapabilities.speechCapabilities ?? []
        if supported.contains(.sapiPhonemes) {
            try await manager.screen.speak(SDLSpeech([.sapiPhonemes("h eh - l ow 1")]))
        }
        try await manager.screen.speak(SDLSpeech([.prerecorded(.positiveJingle), .silence, .text("Saved")]))
    }

    static func speechPolicy(manager: SDLManager) async {
        await manager.screen.setUnsupportedSpeechPolicy(.refuse)   // all or nothing
    }

    static func refusals(manager: SDLManager) async {
        do {
            try await manager.screen.speak(SDLSpeech([.lhplusPhonemes("h @ - l oU")]))
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // names the speech type and the ones the head unit supports; nothing was sent
        } catch let error as SDLError where error.code == .refusedByHeadUnit {
            print(error.resultCode?.rawValue ?? "", error.info ?? "")   // DISALLOWED: not in the policy; REJECTED: a higher-priority prompt is playing
        } catch {
            print(error)
        }
    }

    static func audioFile(manager: SDLManager, mp3: [UInt8]) async throws {
        let chime = SDLFile(name: "goal-chime.mp3", bytes: mp3, type: .audioMp3, persistent: true)
        // Uploaded before the first request that plays it (RPC 5.0+), then played by name.
        try await manager.screen.speak(SDLSpeech([.file(chime), .text("Goal!")]))
        _ = try await manager.screen.presentAlert(SDLAlertView(text: "Goal!", audio: SDLSpeech([.file(chime)])))
    }

    static func help(manager: SDLManager, artistsIcon: SDLArtwork) async throws {
        try await manager.screen.setHelp(SDLHelp(
            helpPrompt: "Say Show Artists, or Shuffle All",
            timeoutPrompt: "Sorry, I did not catch that",
            voiceHelpTitle: "What can I say?",
            voiceHelp: [SDLVoiceHelpItem("Show Artists", artwork: artistsIcon), SDLVoiceHelpItem("Shuffle All")]))
    }

    static func resetHelp(manager: SDLManager) async throws {
        try await manager.screen.resetHelp([.voiceHelpTitle, .voiceHelp])   // the head unit's own list again
        try await manager.screen.resetHelp()                                 // and its prompts
    }
}

enum AudioPassThruExamples {
    static func formats(manager: SDLManager) async {
        for capability in await manager.systemCapabilities.audioPassThruCapabilities ?? [] {
            print(capability.samplingRate, capability.bitsPerSample, capability.audioType)
        }
    }

    static func record(manager: SDLManager) async throws {
        let capture = try await manager.screen.startAudioPassThru(SDLAudioPassThru(
            format: SDLAudioFormat(samplingRate: ._16khz, bitsPerSample: ._16Bit),
            maxDuration: .seconds(10), text: "Ask me \"What's the weather?\"", secondaryText: "or \"What is 1 + 2?\"",
            prompt: "Listening", muteAudio: true))
        var pcm: [UInt8] = []
        for await chunk in capture { pcm += chunk }   // each chunk is only the newest audio: keep them
        switch try await capture.result() {
        case .finished, .endedByApp:
            try SDLWAV.write(pcm, format: capture.format, to: "/tmp/question.wav")
        case .cancelled:
            print("the driver pressed Cancel: drop the audio")   // ABORTED
        }
    }

    static func endEarly(manager: SDLManager) async throws {
        let capture = try await manager.screen.startAudioPassThru(SDLAudioPassThru(maxDuration: .seconds(30), text: "Listening..."))
        var pcm: [UInt8] = []
        for await chunk in capture {
            pcm += chunk
            if pcm.count >= capture.format.byteRate * 3 {   // three seconds are enough
                await capture.end()                          // EndAudioPassThru
                break
            }
        }
        print(try await capture.result())   // .endedByApp
    }

    static func unsupportedFormat(manager: SDLManager) async {
        do {
            _ = try await manager.screen.startAudioPassThru(SDLAudioPassThru(
                format: SDLAudioFormat(samplingRate: ._44khz, bitsPerSample: ._16Bit), maxDuration: .seconds(5)))
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // names the format and the ones the head unit lists; nothing was sent
        } catch {
            print(error)
        }
    }
}

enum NavigationAndPhoneExamples {
    static func dial(manager: SDLManager) async {
        do {
            try await manager.phone.dial("(123) 867-5309")   // sent as 1238675309
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // no phone, or dialNumberEnabled is false: hide the call button
        } catch let error as SDLError where error.code == .refusedByHeadUnit {
            print(error.resultCode?.rawValue ?? "", error.info ?? "")   // REJECTED: the driver declined, or no phone on Bluetooth
        } catch {
            print(error)           // e.g. code disallowed: not in this HMI level or policy
        }
    }

    static func permitted(manager: SDLManager) async {
        // Once the app has left NONE: hide the call button when DialNumber is not allowed.
        let allowed = await manager.permissions?.isAllowed("DialNumber") ?? false
        print(allowed ? "show the call button" : "hide the call button")
    }

    static func sendLocation(manager: SDLManager) async {
        let center = SDLDestination(
            latitude: 42.877737, longitude: -97.380967, name: "The Center", description: "Center of the United States",
            addressLines: ["900 Whiting Dr", "Yankton, SD 57078"], deliveryMode: .prompt)
        do {
            try await manager.navigation.send(center)   // the head unit says nothing of what the driver does
        } catch let error as SDLError where error.code == .refusedByHeadUnit {
            print(error.resultCode?.rawValue ?? "", error.info ?? "")   // INVALID_DATA or DISALLOWED
        } catch {
            print(error)
        }
    }

    static func wayPoints(manager: SDLManager) async throws {
        for point in try await manager.navigation.wayPoints() {
            print(point.locationName ?? "?", point.coordinate?.latitudeDegrees ?? 0, point.coordinate?.longitudeDegrees ?? 0)
        }
        let destination = try await manager.navigation.wayPoints(.destination).last
        print(destination?.addressLines ?? [])
    }

    static func followWayPoints(manager: SDLManager) async throws {
        // The first reader subscribes (SubscribeWayPoints), the last one out unsubscribes.
        for await points in try await manager.navigation.wayPointChanges() {
            print(points.count, "waypoints; arriving at", points.last?.locationName ?? "?")
        }
    }
}

enum RemoteControlExamples {
    static func configure(configuration: inout SDLManager.Configuration) {
        configuration.appTypes = [.remoteControl]
    }

    static func modules(manager: SDLManager) async throws {
        for module in try await manager.remoteControl.modules() {
            let area = module.serviceArea.map { "col \($0.col), row \($0.row)" } ?? "the whole vehicle"
            print(module.type, module.name, module.id ?? "the default module", "serves", area)
        }
    }

    static func seat(manager: SDLManager) async throws {
        // The seats come with the SEAT_LOCATION capability (RPC 6.0+): let the user pick theirs.
        let seats = try await manager.systemCapabilities.update(.seatLocation).seatLocationCapability?.seats ?? []
        if let frontPassenger = seats.first(where: { $0.grid?.col == 2 && $0.grid?.row == 0 }) {
            try await manager.remoteControl.setSeat(frontPassenger)
        }
    }

    static func read(manager: SDLManager, radioID: String) async throws {
        let radio = try await manager.remoteControl.data(of: .radio, moduleID: radioID)
        print(radio.radioControlData?.frequencyInteger ?? 0, radio.radioControlData?.band ?? .fm)
    }

    static func subscribe(manager: SDLManager, radioID: String) async throws {
        // The first element is the module's data now; then one per OnInteriorVehicleData.
        for await data in try await manager.remoteControl.subscribe(to: .radio, moduleID: radioID) {
            print(data.radioControlData?.frequencyInteger ?? 0, data.radioControlData?.frequencyFraction ?? 0)
        }
    }

    static func set(manager: SDLManager, climateID: String) async {
        let climate = ClimateControlData(fanSpeed: 40, desiredTemperature: Temperature(unit: .fahrenheit, value: 74.1), acEnable: true)
        do {
            let after = try await manager.remoteControl.set(ModuleData(moduleType: .climate, moduleId: climateID, climateControlData: climate))
            print(after.climateControlData?.desiredTemperature?.value ?? 0)
        } catch let error as SDLError where error.code == .consentDenied {
            print(error.message)   // "the driver did not allow control of the CLIMATE module ...; nothing was set"
        } catch let error as SDLError where error.code == .invalidArgument {
            print(error.message)   // e.g. the user's seat is outside the module's service area
        } catch {
            print(error)
        }
    }

    static func consent(manager: SDLManager) async throws {
        let answers = try await manager.remoteControl.askConsent(for: .climate, moduleIDs: ["climate-front", "climate-rear"])
        print(answers)   // e.g. ["climate-front": true, "climate-rear": false]
    }

    static func pressAndRelease(manager: SDLManager, radioID: String) async throws {
        try await manager.remoteControl.press(.eject, on: .radio, moduleID: radioID)
        // Done with the module: give it back so other users can control it (RPC 6.0+).
        try await manager.remoteControl.release(.radio, moduleID: radioID)
    }
}

/// Stands for the app's own H.264 encoder (ffmpeg, x264, VideoToolbox) in the video examples.
final class MapEncoder: Sendable {
    /// The next encoded access unit (Annex-B), or nil once the encoder has stopped.
    func nextAccessUnit() async -> [UInt8]? { nil }
    /// Makes the next picture an IDR.
    func forceKeyFrame() {}
}

enum VideoStreamingExamples {
    static func configure(configuration: inout SDLManager.Configuration) {
        configuration.appTypes = [.navigation]
    }

    static func states(manager: SDLManager) async {
        for await state in manager.videoStreaming.states() {
            switch state {
            case .streaming(let parameters):
                let size = parameters.resolution.map { "\($0.resolutionWidth)x\($0.resolutionHeight)" } ?? "any size"
                print("encode", size, "at", parameters.frameRate, "fps, under", parameters.maxBitrate, "kbit/s")
            case .suspended(let reason):
                print("pause the encoder:", reason)   // frames would be refused; the stream comes back by itself
            case .failed(let error):
                print(error.message)                   // e.g. the head unit refused every format
            case .starting, .stopped:
                break
            }
        }
    }

    static func formats(configuration: inout SDLManager.Configuration) {
        configuration.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)]
        configuration.videoStreaming.resolution = .exactly([
            ImageResolution(resolutionWidth: 1024, resolutionHeight: 600), ImageResolution(resolutionWidth: 800, resolutionHeight: 480),
        ])
        configuration.videoStreaming.frameRate = 30       // the head unit's preferredFPS caps it
        configuration.videoStreaming.maxBitrate = 4_000   // kbit/s; the head unit's maxBitrate caps it
    }

    static func refused(manager: SDLManager) {
        if case .failed(let error) = manager.videoStreaming.state, error.code == .refusedByHeadUnit {
            print(error.message)   // "the head unit refused every video format offered (RTP/H264 800x380; RAW/H264 800x380)"
        }
    }

    static func send(manager: SDLManager, encoder: MapEncoder, parameters: SDLVideoStreamParameters) async {
        let interval = Duration.seconds(1) / parameters.frameRate
        var time = Duration.zero
        while let accessUnit = await encoder.nextAccessUnit() {
            do {
                let outcome = try await manager.videoStreaming.send(SDLVideoFrame(annexB: accessUnit, presentationTime: time))
                if outcome == .droppedUntilKeyFrame { encoder.forceKeyFrame() }   // the decoder needs an IDR first
            } catch let error as SDLError where error.code == .notReady {
                print(error.message)   // not streaming (suspended, stopped): nothing was sent
                return
            } catch {
                print(error)           // e.g. the task was cancelled while a key frame waited for room
                return
            }
            time += interval
        }
    }

    static func statistics(manager: SDLManager) async {
        let sent = await manager.videoStreaming.statistics
        print(sent.framesSent, "frames,", sent.keyFramesSent, "key frames,", sent.framesDropped, "dropped,", sent.bytesSent, "bytes")
    }
}

enum TouchExamples {
    static func gestures(manager: SDLManager) async {
        for await gesture in await manager.touch.gestures() {
            switch gesture {
            case .tap(let point): print("select what is at", point)
            case .doubleTap(let point): print("zoom in around", point)
            case .longPress(let point): print("drop a pin at", point)
            case .panMoved(let from, let to): print("move the map by", to.x - from.x, to.y - from.y)
            case .pinchMoved(let center, let scale): print("zoom by", scale, "around", center)
            case .cancelled(let point): print("a dialog came over the video at", point)   // a pan or pinch ends here
            case .panBegan, .panEnded, .pinchBegan, .pinchEnded: break
            }
        }
    }

    static func thresholds(manager: SDLManager) async {
        var thresholds = await manager.touch.thresholds
        thresholds.doubleTapTime = .milliseconds(300)   // taps are reported sooner; double taps must be quicker
        thresholds.longPressTime = .seconds(1)
        await manager.touch.setThresholds(thresholds)
    }

    static func rawEvents(manager: SDLManager) async {
        for await event in manager.touch.touchEvents() {
            for touch in event.event {
                let points = touch.c.map { "(\($0.x), \($0.y))" }   // the head unit's pixels, not scaled
                print(event.type.rawValue, "finger", touch.id, points)
            }
        }
    }
}

enum HapticExamples {
    static func areas(manager: SDLManager) async throws {
        try await manager.haptics.setFocusableAreas([
            SDLHapticArea(id: 1, x: 20, y: 300, width: 160, height: 60),    // Recenter
            SDLHapticArea(id: 2, x: 620, y: 300, width: 160, height: 60),   // Search
        ])
    }

    static func selected(manager: SDLManager) async {
        // The driver selects an area: the head unit touches its centre, in the same pixels.
        let areas = await manager.haptics.focusableAreas
        for await gesture in await manager.touch.gestures() {
            guard case .tap(let point) = gesture else { continue }
            if let area = areas.first(where: { point.x >= $0.x && point.x <= $0.x + $0.width && point.y >= $0.y && point.y <= $0.y + $0.height }) {
                print("the driver chose area", area.id)
            }
        }
    }

    static func errors(manager: SDLManager, areas: [SDLHapticArea]) async {
        do {
            try await manager.haptics.setFocusableAreas(areas)
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // no haptic controller: VIDEO_STREAMING hapticSpatialDataSupported is not true
        } catch let error as SDLError where error.code == .invalidArgument {
            print(error.message)   // two areas share an ID, or one has a negative size: nothing was sent
        } catch {
            print(SDLError(error).message)   // wrongAppType, disallowed, or the head unit's refusal
        }
    }

    static func clear(manager: SDLManager) async throws {
        try await manager.haptics.clear()   // an empty SendHapticData: no focusable areas on the head unit
    }
}

/// Stands for the app's way of running ffmpeg (a process with pipes) in the audio examples.
func runFFmpeg(_ arguments: [String], input: [UInt8]) async throws -> [UInt8] { [] }

enum AudioStreamingExamples {
    static func configure(configuration: inout SDLManager.Configuration) {
        configuration.appTypes = [.navigation]
    }

    static func play(manager: SDLManager) async throws {
        let turn = try SDLAudioPrompt(wavFile: "turn-left.wav")
        let outcome = await manager.audioStreaming.play(turn)   // .played once heard to the end
        print(outcome)
    }

    static func states(manager: SDLManager) async {
        for await state in manager.audioStreaming.states() {
            switch state {
            case .streaming(let format):
                print("prompts play as", format)   // PCM 16_BIT 16KHZ on SDL Core
            case .suspended(let reason):
                print("prompts wait:", reason)     // the prompt under way goes on when the stream comes back
            case .failed(let error):
                print(error.message)               // e.g. the head unit refused the audio service
            case .starting, .stopped:
                break
            }
        }
    }

    static func queue(manager: SDLManager) async throws {
        let audio = manager.audioStreaming
        let ends = audio.promptEnds()   // ends are reported from now on: follow them first
        let approach = try SDLAudioPrompt(wavFile: "in-300-meters.wav")
        let turn = try SDLAudioPrompt(wavFile: "turn-right.wav")
        await audio.enqueue(approach)
        let last = await audio.enqueue(turn)
        for await end in ends {
            print(end.id, end.outcome)  // prompt 1 played, then prompt 2 played
            if end.id == last { break }
        }
    }

    static func pcm(manager: SDLManager, samples: [UInt8]) async throws {
        // 16-bit mono samples at 22,050 Hz, from the app's own speech synthesis
        let pcm = try SDLPCMBuffer(sampleRate: 22_050, bitsPerSample: 16, channels: 1, bytes: samples)
        print(pcm.duration)   // how long it plays
        if await manager.audioStreaming.play(SDLAudioPrompt(pcm)) == .cancelled {
            print("cancelled, or the manager stopped")
        }
    }

    static func cancel(manager: SDLManager) async {
        // The route changed: stop the prompt playing and drop those waiting.
        await manager.audioStreaming.cancelAll()   // each ends .cancelled; at most 200 ms already sent still plays
    }

    static func errors(manager: SDLManager) async {
        do {
            let prompt = try SDLAudioPrompt(wavFile: "turn-left.wav")
            await manager.audioStreaming.enqueue(prompt)
        } catch let error as SDLError where error.code == .io {
            print(error.message)             // cannot read turn-left.wav
        } catch {
            print(SDLError(error).message)   // invalidArgument: not a WAV file, or not PCM (decode it first)
        }
    }

    /// MP3 (or anything ffmpeg reads), decoded by ffmpeg, which the app runs itself.
    struct FFmpegDecoder: SDLAudioDecoder {
        func decode(_ encoded: [UInt8]) async throws -> SDLPCMBuffer {
            // 16 kHz 16-bit mono, SDL Core's own format: the manager then has nothing to convert.
            let pcm = try await runFFmpeg(["-i", "pipe:0", "-f", "s16le", "-ac", "1", "-ar", "16000", "pipe:1"], input: encoded)
            return try SDLPCMBuffer(sampleRate: 16_000, bitsPerSample: 16, channels: 1, bytes: pcm)
        }
    }

    static func decoded(manager: SDLManager) async throws {
        let mp3 = try Data(contentsOf: URL(fileURLWithPath: "recalculating.mp3"))
        let prompt = try await SDLAudioPrompt(encoded: Array(mp3), decoder: FFmpegDecoder())
        await manager.audioStreaming.enqueue(prompt)
    }
}

enum TurnByTurnExamples {
    static func show(manager: SDLManager, turnRightPNG: [UInt8]) async throws {
        let right = SDLArtwork(bytes: turnRightPNG, format: .png, name: "turn-right")
        var maneuver = SDLManeuver(text1: "Turn right", text2: "3 mi", icon: right)   // the direction, then the distance
        maneuver.eta = "12:30"
        try await manager.navigation.showManeuver(maneuver)                     // the icon is uploaded first
        try await manager.navigation.alertManeuver("In 3 miles, turn right")   // spoken at once, even during a phone call
    }

    static func maneuver(manager: SDLManager, left: SDLArtwork, right: SDLArtwork) async throws {
        var maneuver = SDLManeuver(text1: "Turn left onto 5th Ave", text2: "800 ft", icon: left)
        maneuver.nextIcon = right                 // the turn after it
        maneuver.timeToDestination = "14 min"
        maneuver.totalDistance = "6.2 mi"
        maneuver.distanceToManeuver = 800         // the progress bar: 800 of 2,640 ft left
        maneuver.distanceToManeuverScale = 2_640
        maneuver.buttons = [SDLTurnButton(id: 10, text: "Mute"), SDLTurnButton(id: 11, text: "Overview")]
        try await manager.navigation.showManeuver(maneuver)
    }

    static func alert(manager: SDLManager) async throws {
        try await manager.navigation.alertManeuver("In 500 feet, turn left", buttons: [SDLTurnButton(id: 10, text: "Mute")])
    }

    static func turnList(manager: SDLManager, left: SDLArtwork, right: SDLArtwork) async throws {
        try await manager.navigation.updateTurnList([
            SDLTurn(text: "Turn left onto 5th Ave", icon: left),
            SDLTurn(text: "Turn right onto Main St", icon: right),
            SDLTurn(text: "Arrive at 900 Whiting Dr"),
        ], button: SDLTurnButton(id: 12, text: "Close"))
    }

    static func presses(manager: SDLManager) async {
        for await id in manager.navigation.turnButtonPresses() {
            switch id {
            case 10: print("mute the prompts")
            case 11: print("show the whole route")
            case 12: print("the driver closed the turn list")
            default: break   // another button of the app
            }
        }
    }

    static func clear(manager: SDLManager) async throws {
        // Arrived: the maneuver and its alert leave the screen.
        try await manager.navigation.clearManeuver()
    }

    static func refused(manager: SDLManager) async {
        do {
            try await manager.navigation.showManeuver(SDLManeuver(text1: "Turn right\nonto Main St", text2: "300 m"))
        } catch let error as SDLError where error.code == .invalidArgument {
            print(error.message)             // a newline: SDL Core would answer INVALID_DATA, so nothing was sent
        } catch {
            print(SDLError(error).message)   // disallowed, an icon that did not upload, or the head unit's refusal
        }
    }
}

enum ClosingExamples {
    static func close(manager: SDLManager) async {
        do {
            try await manager.closeApplication()   // to HMI level NONE; the app stays registered
        } catch let error as SDLError where error.code == .unsupportedByHeadUnit {
            print(error.message)   // e.g. a head unit before RPC 6.0: nothing was sent
        } catch {
            print(error)
        }
    }

    static func exitButton(manager: SDLManager) async throws {
        let exit = SDLSoftButton(name: "exit", text: "Exit") { _ in
            Task { try? await manager.closeApplication() }
        }
        try await manager.screen.setSoftButtons([exit])
    }

    static func stopInstead(manager: SDLManager) async {
        await manager.stop()   // unregisters and disconnects: the app leaves the head unit's list
    }
}

enum Accounts {
    static func isValid(_ token: String) async -> Bool { !token.isEmpty }
}

enum CloudAppExamples {
    static func properties(manager: SDLManager) async throws {
        let entry = CloudAppProperties(
            nicknames: ["Sky Weather"], appID: "sky-cloud", enabled: true, authToken: "token-from-your-account-service",
            cloudTransportType: "WSS", hybridAppPreference: .cloud, endpoint: "wss://weather.example.com:443/sdl")
        try await manager.setCloudAppProperties(entry)
        if let held = try await manager.cloudAppProperties(of: "sky-cloud") {
            print(held.endpoint ?? "-", held.enabled ?? true)
        }
    }

    static func server() async throws {
        var app = SDLManager.Configuration(appName: "Weather", appID: "4b2a6c")
        app.appTypes = [.information]
        let server = SDLWebSocketServer(listening: .init(host: "0.0.0.0", port: 8080, path: "/sdl"), app: app)
        try await server.run { manager in
            try await manager.waitUntilReady()
            guard let token = manager.authToken, await Accounts.isValid(token) else {
                await manager.stop()   // unregisters: this vehicle's user is not ours
                return
            }
            // Show is allowed from FULL on (SDL Core refuses it in NONE).
            guard await manager.waitForHMILevel(.full, timeout: .seconds(30)) else { return }
            _ = try await manager.send(Show(mainField1: "Weather", mainField2: "Sunny, 21 °C"))
            for await level in manager.hmiLevels() where level == .full {
                try await manager.screen.update { $0.textField1 = "Updated at \(Date.now.formatted(date: .omitted, time: .shortened))" }
            }
        }
    }

    static func freedMemory() {
        let server = SDLWebSocketServer(
            listening: .init(host: "0.0.0.0", port: 8080, path: "/sdl"),
            app: SDLManager.Configuration(appName: "Weather", appID: "4b2a6c"),
            releasingFreedMemoryEvery: .seconds(30))   // nil: never
        _ = server
    }

    static func handlerThatStays() async throws {
        @Sendable func welcome(_ manager: SDLManager) async throws {
            try await manager.waitUntilReady()
            guard await manager.waitForHMILevel(.full, timeout: .seconds(30)) else { return }
            _ = try await manager.send(Show(mainField1: "Hello", mainField2: "from the cloud"))
        }

        @Sendable func followButtons(_ manager: SDLManager) async throws {
            for await press in try await manager.buttons.subscribe(.ok).presses {
                _ = try await manager.send(Show(mainField1: "Pressed: \(press.buttonPressMode.rawValue)"))
            }
        }

        let server = SDLWebSocketServer(
            listening: .init(host: "0.0.0.0", port: 8090, path: "/sdl"),
            app: SDLManager.Configuration(appName: "Weather", appID: "4b2a6c"))
        try await server.run { manager in
            // The set-up's deep frames end with its task.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await welcome(manager) }
                try await group.waitForAll()
            }
            try await followButtons(manager)
        }
    }

    static func sharedValues() -> SDLManager.Configuration {
        let shared = SDLSharedValues()
        var app = SDLManager.Configuration(appName: "Weather", appID: "4b2a6c")
        app.sharedValues = shared   // every manager made from `app` shares it
        return app
    }

    static func limitsAndShutdown(app: SDLManager.Configuration) async throws {
        var limits = SDLWebSocketLimits()
        limits.maxConnections = 2_000             // the next gets HTTP 503
        limits.maxMessageSize = 512 << 10         // larger messages drop the connection (close 1009)
        limits.inboundBufferSize = 128 << 10      // unread bytes per connection before reading pauses
        limits.pingInterval = .seconds(15)        // a silent head unit is pinged...
        limits.idleTimeout = .seconds(45)         // ...and dropped if still silent: half-open connections end
        let listening = SDLWebSocketListener.Configuration(host: "0.0.0.0", port: 8080, path: "/sdl", limits: limits)

        let tls = try SDLWebSocketTLS.server(certificateChainPath: "/etc/weather/cert.pem", privateKeyPath: "/etc/weather/key.pem")
        let secure = SDLWebSocketListener.Configuration(host: "0.0.0.0", port: 8443, path: "/sdl", tls: tls)
        _ = secure

        let weather = SDLWebSocketServer(listening: listening, app: app) { manager in
            try await manager.waitUntilReady()
        }
        let group = ServiceGroup(configuration: .init(services: [weather], gracefulShutdownSignals: [.sigterm], logger: app.logger))
        try await group.run()

        for await event in weather.host.events() {
            print(event)   // "session 12 from 10.0.3.7:51486 ready (240 open)"
        }
    }
}

enum EncryptionExamples {
    static func configure(certificatePEM: String, privateKeyPEM: String) {
        let identity = SDLTLSIdentity(certificateChainPEM: certificatePEM, privateKeyPEM: privateKeyPEM)
        var configuration = SDLManager.Configuration(appName: "Secure", appID: "8675309", fullAppID: "8675309-aaaa-bbbb")
        configuration.encryption.securityManagers = [
            SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) },
        ]
        _ = configuration
    }

    static func makes(configuration: inout SDLManager.Configuration, acmeIdentity: SDLTLSIdentity, identity: SDLTLSIdentity) {
        configuration.encryption.securityManagers = [
            SDLSecurityManager(makes: ["Acme", "Acme Trucks"]) { try SDLTLSSecurity(role: .server(acmeIdentity)) },
            SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) },   // every other head unit
        ]
    }

    static func send(manager: SDLManager) async throws {
        if await manager.permissions?.permission(of: "AddCommand").requiresEncryption == true {
            print("AddCommand goes encrypted")
        }
        do {
            _ = try await manager.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Accounts")))   // as the policy says
            let position = try await manager.send(GetVehicleData(gps: true), protected: true)                // because the app asks
            print(position.resultCode)
        } catch let error as SDLError where error.code == .encryptionNeeded {
            print(error.message)   // not sent: the RPC service cannot be protected on this head unit
        }
    }

    static func start(manager: SDLManager) async throws {
        do {
            try await manager.startRPCEncryption()   // returns once the RPC service is encrypted
        } catch let error as SDLError {
            switch error.code {
            case .encryptionFailed: print("the head unit refused:", error.message)   // e.g. invalid certificate
            case .encryptionNeeded: print("no security manager serves this head unit")
            default: print(error.message)
            }
        }
    }

    static func states(manager: SDLManager) async {
        print(manager.encryptionState(of: .rpc))   // e.g. "encrypted"
        for await change in manager.encryptionStates() where change.service == .rpc {
            switch change.state {
            case .encrypted: print("encrypted requests go without waiting")
            case .plainText(let reason), .failed(let reason): print("not encrypted:", reason)
            case .notStarted, .handshaking: break
            }
        }
    }

    static func session(transport: any SDLTransport, registration: RegisterAppInterface, identity: SDLTLSIdentity) async throws {
        var settings = SDLProtocolSession.Configuration()
        settings.security = try SDLTLSSecurity(role: .server(identity))
        try await withSDLSession(transport: transport, configuration: settings) { client in
            _ = try await client.send(registration)   // the RPC service starts in plain text
            do {
                let outcome = try await client.session.startProtectedService(.rpc)
                if outcome.isEncrypted {
                    _ = try await client.send(GetVehicleData(speed: true), encrypted: true)
                } else {
                    print("plain text:", outcome.securityFailure?.description ?? "no reason given")
                }
            } catch SDLSessionError.protectionFailed(let service, let reason, let security) {
                print("the \(service) service is not protected:", reason ?? "", security?.description ?? "")
            }
        }
    }
}

enum LockScreenExamples {
    static func states() async throws {
        var configuration = SDLManager.Configuration(appName: "Hello SDL", appID: "8675309")
        configuration.lockScreen = SDLLockScreenConfiguration(displayMode: .optionalOrRequired)
        configuration.httpClient = SDLAsyncHTTPClient()   // fetches the head unit's logo
        try await withSDLManager(configuration) { manager in
            for await lock in manager.lockScreen.states() {
                if lock.isShown {
                    print("cover the phone's screen", lock.oemIcon.map { "with the \($0.count)-byte logo" } ?? "")
                    if lock.isDismissible { print(lock.dismissalWarning ?? "swipe down to dismiss") }
                } else {
                    print("the phone is free (\(lock.status.rawValue))")
                }
            }
        }
    }

    static func dismiss(manager: SDLManager) async {
        if await manager.lockScreen.dismiss() == false {
            print("the head unit does not allow dismissing it now")
        }
    }
}

enum KeyboardConfigurationExamples {
    static func characterSet(manager: SDLManager) async throws {
        var pin = SDLKeyboard(initialText: "Code")
        pin.characterSet = { entry in entry.count < 4 ? (0...9).map(String.init) : [] }   // four digits, then nothing
        _ = try await manager.screen.presentKeyboard(pin)
    }

    static func configured(manager: SDLManager) async throws {
        await manager.screen.setKeyboardConfiguration(KeyboardProperties(language: .deDe, keyboardLayout: .qwertz, keypressMode: .singleKeypress))
        switch try await manager.screen.presentKeyboard(SDLKeyboard(initialText: "Stadt")) {
        case .entered(let text): print("searching for", text)
        case .aborted: print("the driver backed out")
        case .cancelled, .timedOut: break
        }
    }
}

enum ChoiceHelpExamples {
    static func helpList(manager: SDLManager) async throws {
        let jazz = SDLChoiceCell(text: "Jazz", secondaryText: "Smooth", tertiaryText: "24/7", voiceCommands: ["Jazz"])
        let stations = SDLChoiceSet(title: "Station", cells: [jazz], helpList: ["Jazz", "Say a station"])
        _ = try await manager.screen.present(stations, mode: .both)
    }
}
