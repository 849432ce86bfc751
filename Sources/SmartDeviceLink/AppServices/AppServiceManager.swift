import Logging
import SDLRPC
import SDLRuntime

/// App services (RPC 5.1+): publish a media, navigation or weather service for the head unit
/// and other apps, or use another app's.
///
/// As a provider, the manager does what the guide calls essential: it answers the head unit's
/// GetAppServiceData with the latest data, with the request's correlation ID and
/// `success`/`resultCode` filled; it routes PerformAppServiceInteraction and the RPCs the
/// manifest handles (`handledRPCs`) to the app's handlers; it sends data only while the service
/// is active; and it publishes again after a reconnection.
///
/// ```swift
/// let weather = try await manager.appServices.publish(
///     AppServiceManifest(serviceName: "Sky", serviceType: "WEATHER", weatherServiceManifest: WeatherServiceManifest()))
/// try await manager.appServices.update(weather, with: .weather(WeatherServiceData(location: LocationDetails(locationName: "Detroit"))))
/// ```
public actor SDLAppServiceManager {
    let link = ManagerLink()
    private let logger: Logger
    private var published: [Int: Provided] = [:]
    private var nextID = 0
    private var handlersInstalled = false
    private var capabilityTask: Task<Void, Never>?
    private var republishing: Task<Void, Never>?
    private let recordFanOut = StreamFanOut<AppServiceRecord>(bufferLimit: 64)

    private struct Provided {
        var manifest: AppServiceManifest
        var record: AppServiceRecord?
        var latest: AppServiceData?
        let requestHandlers: [SDLAppServiceRequestHandler]
        let interactions: (@Sendable (PerformAppServiceInteraction) async throws -> SDLAppServiceInteractionResult)?
    }

    init(logger: Logger) {
        self.logger = logger
    }

    // MARK: Providing

    /// Publishes a service. `handling` answers the RPCs the head unit routes to the active
    /// provider (their function IDs become the manifest's `handledRPCs`); `interactions`
    /// answers PerformAppServiceInteraction from consumers (without it they get
    /// UNSUPPORTED_REQUEST).
    public func publish(
        _ manifest: AppServiceManifest,
        handling requestHandlers: [SDLAppServiceRequestHandler] = [],
        interactions: (@Sendable (PerformAppServiceInteraction) async throws -> SDLAppServiceInteractionResult)? = nil
    ) async throws(SDLAppServiceError) -> SDLAppService {
        let manager = try requireManager()
        var manifest = manifest
        let handled = Set(requestHandlers.map(\.functionID)).union(manifest.handledRPCs ?? [])
        if !handled.isEmpty { manifest.handledRPCs = handled.sorted() }
        try await installHandlers(manager)
        for handler in requestHandlers {
            do { try await handler.install(manager) } catch { throw .handlerConflict("\(error)") }
        }
        let record: AppServiceRecord
        do {
            record = try await publishOnHeadUnit(manifest, manager: manager)
        } catch {
            for handler in requestHandlers { await handler.remove(manager) }
            throw error
        }
        nextID += 1
        published[nextID] = Provided(manifest: manifest, record: record, latest: nil, requestHandlers: requestHandlers, interactions: interactions)
        recordFanOut.yield(record)
        await followCapabilities(manager)
        return SDLAppService(id: nextID, serviceType: manifest.serviceType)
    }

    /// The service's record as last known (its ID on the head unit, `serviceActive`...).
    public func record(of service: SDLAppService) -> AppServiceRecord? {
        published[service.id]?.record
    }

    /// Whether the head unit currently has the service active: only then are updates sent.
    public func isActive(_ service: SDLAppService) -> Bool {
        published[service.id]?.record?.serviceActive ?? false
    }

    /// The records of the app's own services whenever they change (published, activated,
    /// deactivated, removed).
    public nonisolated func publishedRecords() -> AsyncStream<AppServiceRecord> {
        recordFanOut.subscribe()
    }

    /// Sends new data to the service's subscribers (OnAppServiceData) and keeps it to answer
    /// GetAppServiceData. Refused with `serviceNotActive` while another provider's service of
    /// that type is the active one (the guide: only update while active); the data is kept.
    public func update(_ service: SDLAppService, with content: SDLAppServiceContent) async throws(SDLAppServiceError) {
        let manager = try requireManager()
        guard var provided = published[service.id], let record = provided.record else { throw .unknownService }
        guard content.serviceType == record.serviceManifest.serviceType else {
            throw .wrongContent(expected: record.serviceManifest.serviceType, got: content.serviceType)
        }
        let data = content.data(serviceID: record.serviceID)
        provided.latest = data
        published[service.id] = provided
        guard record.serviceActive else { throw .serviceNotActive(record.serviceID) }
        try await SDLAppServiceError.sending(OnAppServiceData.functionName) {
            try await manager.sendNotification(OnAppServiceData(serviceData: data))
        }
    }

    /// Removes the service (UnpublishAppService, RPC 6.0+) and its request handlers.
    public func unpublish(_ service: SDLAppService) async throws(SDLAppServiceError) {
        let manager = try requireManager()
        guard let provided = published[service.id] else { throw .unknownService }
        if let record = provided.record {
            let response = try await Self.send(UnpublishAppService(serviceID: record.serviceID), manager: manager)
            guard response.success else { throw .refused("UnpublishAppService", response.resultCode, info: response.info) }
        }
        published[service.id] = nil
        for handler in provided.requestHandlers { await handler.remove(manager) }
        if var record = provided.record {
            record.servicePublished = false
            record.serviceActive = false
            recordFanOut.yield(record)
        }
    }

    private func publishOnHeadUnit(_ manifest: AppServiceManifest, manager: SDLManager) async throws(SDLAppServiceError) -> AppServiceRecord {
        let response = try await Self.send(PublishAppService(appServiceManifest: manifest), manager: manager)
        guard response.success, let record = response.appServiceRecord else {
            throw .refused("PublishAppService", response.resultCode, info: response.info)
        }
        return record
    }

    /// GetAppServiceData and PerformAppServiceInteraction for every published service.
    private func installHandlers(_ manager: SDLManager) async throws(SDLAppServiceError) {
        guard !handlersInstalled else { return }
        do {
            try await manager.handleRequests(GetAppServiceData.self) { [weak self] request in
                guard let self else { throw SDLRequestRefusal(.dataNotAvailable) }
                return try await self.answer(request)
            }
            try await manager.handleRequests(PerformAppServiceInteraction.self) { [weak self] request in
                guard let self else { throw SDLRequestRefusal(.invalidId) }
                return try await self.answer(request)
            }
        } catch {
            throw .handlerConflict("\(error)")
        }
        handlersInstalled = true
    }

    private func answer(_ request: GetAppServiceData) throws -> GetAppServiceDataResponse {
        guard let provided = published.values.first(where: { $0.record?.serviceManifest.serviceType == request.serviceType && $0.record?.serviceActive == true })
            ?? published.values.first(where: { $0.record?.serviceManifest.serviceType == request.serviceType })
        else { throw SDLRequestRefusal(.invalidId, info: "the app publishes no \(request.serviceType) service") }
        guard let data = provided.latest else { throw SDLRequestRefusal(.dataNotAvailable, info: "the service has no data yet") }
        return GetAppServiceDataResponse(success: true, resultCode: .success, serviceData: data)
    }

    private func answer(_ request: PerformAppServiceInteraction) async throws -> PerformAppServiceInteractionResponse {
        guard let provided = published.values.first(where: { $0.record?.serviceID == request.serviceID }) else {
            throw SDLRequestRefusal(.invalidId, info: "the app publishes no service \(request.serviceID)")
        }
        guard let handler = provided.interactions else {
            throw SDLRequestRefusal(.unsupportedRequest, info: "the service takes no interactions")
        }
        let result = try await handler(request)
        return PerformAppServiceInteractionResponse(
            success: result.success, resultCode: result.resultCode, info: result.info, serviceSpecificResult: result.serviceSpecificResult)
    }

    /// Follows APP_SERVICES so `serviceActive` stays current.
    private func followCapabilities(_ manager: SDLManager) async {
        guard capabilityTask == nil else { return }
        guard let updates = try? await manager.systemCapabilities.subscribe(to: .appServices) else { return }
        capabilityTask = Task { [weak self] in
            for await capability in updates {
                for service in capability.appServicesCapabilities?.appServices ?? [] {
                    await self?.received(service.updatedAppServiceRecord)
                }
            }
        }
    }

    private func received(_ record: AppServiceRecord) {
        for (id, provided) in published where provided.record?.serviceID == record.serviceID {
            guard provided.record != record else { continue }
            published[id]?.record = record
            recordFanOut.yield(record)
        }
    }

    // MARK: Consuming

    /// The services the head unit lists (APP_SERVICES), optionally of one type ("MEDIA",
    /// "WEATHER", "NAVIGATION"...), published ones only.
    public func services(ofType type: String? = nil) async throws(SDLAppServiceError) -> [AppServiceRecord] {
        let manager = try requireManager()
        var capability = await manager.systemCapabilities.appServicesCapabilities
        if capability == nil {
            do {
                capability = try await manager.systemCapabilities.update(.appServices).appServicesCapabilities
            } catch let error as SDLManagerError {
                throw .notSent(error)
            } catch {
                throw .refused("GetSystemCapability", .genericError, info: "\(error)")
            }
        }
        return (capability?.appServices ?? []).map(\.updatedAppServiceRecord).filter {
            $0.servicePublished && (type == nil || $0.serviceManifest.serviceType == type)
        }
    }

    /// The active service's data of a type, once.
    public func data(ofType type: String) async throws(SDLAppServiceError) -> AppServiceData {
        let manager = try requireManager()
        let response = try await Self.send(GetAppServiceData(serviceType: type), manager: manager)
        guard response.success, let data = response.serviceData else { throw .refused("GetAppServiceData", response.resultCode, info: response.info) }
        return data
    }

    /// Subscribes to the active service of a type: the answer's data first, then every
    /// OnAppServiceData of that type (the stream is open before the request goes out).
    public func subscribe(toType type: String) async throws(SDLAppServiceError) -> AsyncStream<AppServiceData> {
        let manager = try requireManager()
        let notifications = manager.notifications(OnAppServiceData.self)
        let response = try await Self.send(GetAppServiceData(serviceType: type, subscribe: true), manager: manager)
        guard response.success else { throw .refused("GetAppServiceData", response.resultCode, info: response.info) }
        let (stream, sink) = AsyncStream<AppServiceData>.makeStream(bufferingPolicy: .bufferingNewest(64))
        if let first = response.serviceData { sink.yield(first) }
        let task = Task {
            for await update in notifications where update.serviceData.serviceType == type { sink.yield(update.serviceData) }
            sink.finish()
        }
        sink.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Asks a service (any, active or not) to act on a URI; `requestServiceActive` asks the head
    /// unit to make it the active one.
    public func interact(
        serviceID: String, uri: String, originApp: String, requestServiceActive: Bool? = nil
    ) async throws(SDLAppServiceError) -> PerformAppServiceInteractionResponse {
        let manager = try requireManager()
        return try await Self.send(
            PerformAppServiceInteraction(serviceUri: uri, serviceID: serviceID, originApp: originApp, requestServiceActive: requestServiceActive),
            manager: manager)
    }

    // MARK: Connections

    /// A new connection is Ready: publish every service again (the head unit forgot them), with
    /// its latest data.
    func connectionReady() {
        republishing?.cancel()
        capabilityTask?.cancel()
        capabilityTask = nil
        let services = published.filter { $0.value.record != nil }.map { ($0.key, $0.value.manifest) }
        guard !services.isEmpty, let manager = link.manager else { return }
        republishing = Task {
            for (id, manifest) in services.sorted(by: { $0.0 < $1.0 }) where !Task.isCancelled {
                do {
                    let record = try await self.publishOnHeadUnit(manifest, manager: manager)
                    self.republished(id, record)
                } catch {
                    self.logger.warning("app service \(manifest.serviceName ?? manifest.serviceType) not published again after reconnection: \(error)")
                }
            }
            await self.followCapabilities(manager)
        }
    }

    private func republished(_ id: Int, _ record: AppServiceRecord) {
        published[id]?.record = record
        recordFanOut.yield(record)
    }

    func managerStopped() {
        republishing?.cancel()
        capabilityTask?.cancel()
        capabilityTask = nil
        published = [:]
        handlersInstalled = false
        recordFanOut.finish()
    }

    // MARK: Plumbing

    private func requireManager() throws(SDLAppServiceError) -> SDLManager {
        do { return try link.require() } catch { throw .notSent(error) }
    }

    private static func send<R: SDLRequest>(_ request: R, manager: SDLManager) async throws(SDLAppServiceError) -> R.Response {
        try await SDLAppServiceError.sending(R.functionName) { try await manager.send(request) }
    }
}

/// One of the app's published services.
public struct SDLAppService: Sendable, Hashable {
    let id: Int
    /// "MEDIA", "WEATHER", "NAVIGATION"...
    public let serviceType: String
}

/// A service's data, by kind.
public enum SDLAppServiceContent: Sendable, Hashable {
    case media(MediaServiceData)
    case weather(WeatherServiceData)
    case navigation(NavigationServiceData)

    public var serviceType: String {
        switch self {
        case .media: AppServiceType.media.rawValue
        case .weather: AppServiceType.weather.rawValue
        case .navigation: AppServiceType.navigation.rawValue
        }
    }

    func data(serviceID: String) -> AppServiceData {
        switch self {
        case .media(let data): AppServiceData(serviceType: serviceType, serviceID: serviceID, mediaServiceData: data)
        case .weather(let data): AppServiceData(serviceType: serviceType, serviceID: serviceID, weatherServiceData: data)
        case .navigation(let data): AppServiceData(serviceType: serviceType, serviceID: serviceID, navigationServiceData: data)
        }
    }
}

/// A provider's answer to PerformAppServiceInteraction.
public struct SDLAppServiceInteractionResult: Sendable, Hashable {
    public var success: Bool
    public var resultCode: SDLResult
    public var info: String?
    /// The service's own answer, in its own format.
    public var serviceSpecificResult: String?

    /// - Parameters:
    ///   - success: whether the service did what was asked.
    ///   - resultCode: SUCCESS, or why not.
    ///   - info: a human-readable note.
    ///   - serviceSpecificResult: the service's own answer.
    public init(success: Bool = true, resultCode: SDLResult = .success, info: String? = nil, serviceSpecificResult: String? = nil) {
        self.success = success
        self.resultCode = resultCode
        self.info = info
        self.serviceSpecificResult = serviceSpecificResult
    }
}

/// Answers one RPC the head unit routes to the active provider (a media service's ButtonPress,
/// a navigation service's SendLocation...); its function ID goes into the manifest's
/// `handledRPCs`.
public struct SDLAppServiceRequestHandler: Sendable {
    let functionID: Int
    let install: @Sendable (SDLManager) async throws -> Void
    let remove: @Sendable (SDLManager) async -> Void

    /// - Parameters:
    ///   - type: the routed request, e.g. `ButtonPress.self`.
    ///   - handler: its answer; throw `SDLRequestRefusal` to refuse with a result code.
    public init<R: SDLRequest>(_ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response) {
        functionID = Int(R.wireFunctionID ?? 0)
        install = { manager in try await manager.handleRequests(R.self, handler: handler) }
        remove = { manager in await manager.removeRequestHandler(R.self) }
    }
}

/// Why an app-service operation did not happen.
public enum SDLAppServiceError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, RPC version < 5.1...).
    case notSent(SDLManagerError)
    /// The head unit refused the request.
    case refused(String, SDLResult, info: String?)
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)
    /// Another provider's service of this type is active; the data is kept for GetAppServiceData
    /// but not sent.
    case serviceNotActive(String)
    /// Data of another kind than the service's type.
    case wrongContent(expected: String, got: String)
    /// Not one of the app's published services (or it was unpublished).
    case unknownService
    /// Another handler already answers one of the requests.
    case handlerConflict(String)

    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .refused(let rpc, let code, let info): "the head unit refused \(rpc): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        case .serviceNotActive(let id): "service \(id) is not the active one; its data is kept but not sent"
        case .wrongContent(let expected, let got): "a \(expected) service cannot carry \(got) data"
        case .unknownService: "not a published service of this app"
        case .handlerConflict(let reason): "a request handler is already in place: \(reason)"
        }
    }
}
