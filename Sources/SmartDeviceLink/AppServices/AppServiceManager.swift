import Logging
import SDLConcurrency
import SDLProtocol
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
public actor SDLAppServiceManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLAppServiceContext
    private let logger: Logger
    private var published: [Int: Provided] = [:]
    private var nextID = 0
    private var handlersInstalled = false
    /// Whether APP_SERVICES is followed (a child of the manager's run).
    private var followingCapabilities = false
    private let recordFanOut = StreamFanOut<AppServiceRecord>(bufferLimit: 64)
    /// Service types the app reads as a consumer, by subscription: renewed on reconnection.
    private var consumed: [Int: String] = [:]

    private struct Provided {
        var manifest: AppServiceManifest
        var record: AppServiceRecord?
        var latest: AppServiceData?
        let requestHandlers: [SDLAppServiceRequestHandler]
        let interactions: (@Sendable (PerformAppServiceInteraction) async throws -> SDLAppServiceInteractionResult)?
    }

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// The same on `context` alone, for tests without a manager.
    init(context: any SDLAppServiceContext, logger: Logger) {
        self.context = context
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
    ) async throws -> SDLAppService {
        do throws(SDLAppServiceError) {
            try checkAttached()
            var manifest = manifest
            let handled = Set(requestHandlers.map(\.functionID)).union(manifest.handledRPCs ?? [])
            if !handled.isEmpty { manifest.handledRPCs = handled.sorted() }
            try await installHandlers()
            var installed: [SDLAppServiceRequestHandler] = []
            for handler in requestHandlers {
                do {
                    try await handler.install(context)
                    installed.append(handler)
                } catch {
                    for done in installed { await done.remove(context) }
                    throw .handlerConflict("\(error)")
                }
            }
            let record: AppServiceRecord
            do {
                record = try await publishOnHeadUnit(manifest)
            } catch {
                for handler in requestHandlers { await handler.remove(context) }
                throw error
            }
            nextID += 1
            published[nextID] = Provided(manifest: manifest, record: record, latest: nil, requestHandlers: requestHandlers, interactions: interactions)
            recordFanOut.yield(record)
            await followCapabilities()
            return SDLAppService(id: nextID, serviceType: manifest.serviceType)
        } catch {
            throw SDLError(error)
        }
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

    /// Keeps new data to answer GetAppServiceData and, while the service is the active one of
    /// its type, sends it to subscribers (OnAppServiceData); returns whether it was sent. The
    /// guide's rule: a service that is not active does not push data.
    @discardableResult
    public func update(_ service: SDLAppService, with content: SDLAppServiceContent) async throws -> Bool {
        do throws(SDLAppServiceError) {
            try checkAttached()
            guard var provided = published[service.id], let record = provided.record else { throw .unknownService }
            guard content.serviceType == record.serviceManifest.serviceType else {
                throw .wrongContent(expected: record.serviceManifest.serviceType, got: content.serviceType)
            }
            let data = content.data(serviceID: record.serviceID)
            provided.latest = data
            published[service.id] = provided
            guard record.serviceActive else { return false }
            try await SDLAppServiceError.sending(OnAppServiceData.functionName) {
                try await self.context.sendNotification(OnAppServiceData(serviceData: data))
            }
            return true
        } catch {
            throw SDLError(error)
        }
    }

    /// Replaces the service's manifest (PublishAppService again, RPC 6.0+): the head unit keeps
    /// the service's ID and state and tells consumers MANIFEST_UPDATE. The service type must
    /// stay; the request handlers stay too, and their RPCs in `handledRPCs`. A reconnection
    /// publishes the new manifest.
    public func updateManifest(_ service: SDLAppService, to manifest: AppServiceManifest) async throws {
        do throws(SDLAppServiceError) {
            try checkAttached()
            guard let provided = published[service.id] else { throw .unknownService }
            guard manifest.serviceType == provided.manifest.serviceType else {
                throw .wrongContent(expected: provided.manifest.serviceType, got: manifest.serviceType)
            }
            var manifest = manifest
            let handled = Set(provided.requestHandlers.map(\.functionID)).union(manifest.handledRPCs ?? [])
            if !handled.isEmpty { manifest.handledRPCs = handled.sorted() }
            let record = try await publishOnHeadUnit(manifest)
            // Read again: the service may have been unpublished or updated meanwhile.
            guard published[service.id] != nil else { throw .unknownService }
            published[service.id]?.manifest = manifest
            published[service.id]?.record = record
            recordFanOut.yield(record)
        } catch {
            throw SDLError(error)
        }
    }

    /// A file of a service's provider (GetFile with `appServiceId`, RPC 6.0+): a consumer
    /// fetching the artwork a provider's data names. Checked with the response's CRC.
    public func file(named name: String, ofService serviceID: String) async throws -> [UInt8] {
        do throws(SDLAppServiceError) {
            try checkAttached()
            let request = GetFile(fileName: name, appServiceId: serviceID)
            let (response, raw) = try await SDLAppServiceError.sending(GetFile.functionName) {
                try await self.context.send(GetFile.self, json: try SDLJSON.encode(request))
            }
            let bytes = raw.payload.bulkData
            guard response.success else { throw .refused(GetFile.functionName, response.resultCode, info: response.info) }
            if let crc = response.crc, UInt32(truncatingIfNeeded: crc) != SDLCRC32.checksum(bytes) {
                throw .refused(GetFile.functionName, .corruptedData, info: "the bytes do not match the response's CRC")
            }
            return bytes
        } catch {
            throw SDLError(error)
        }
    }

    /// Removes the service (UnpublishAppService, RPC 6.0+) and its request handlers.
    public func unpublish(_ service: SDLAppService) async throws {
        do throws(SDLAppServiceError) {
            try checkAttached()
            guard let provided = published[service.id] else { throw .unknownService }
            if let record = provided.record {
                let response = try await send(UnpublishAppService(serviceID: record.serviceID))
                guard response.success else { throw .refused("UnpublishAppService", response.resultCode, info: response.info) }
            }
            published[service.id] = nil
            for handler in provided.requestHandlers { await handler.remove(context) }
            if var record = provided.record {
                record.servicePublished = false
                record.serviceActive = false
                recordFanOut.yield(record)
            }
        } catch {
            throw SDLError(error)
        }
    }

    private func publishOnHeadUnit(_ manifest: AppServiceManifest) async throws(SDLAppServiceError) -> AppServiceRecord {
        let response = try await send(PublishAppService(appServiceManifest: manifest))
        guard response.success, let record = response.appServiceRecord else {
            throw .refused("PublishAppService", response.resultCode, info: response.info)
        }
        return record
    }

    /// GetAppServiceData and PerformAppServiceInteraction for every published service.
    private func installHandlers() async throws(SDLAppServiceError) {
        guard !handlersInstalled else { return }
        // Set before the awaits: a second publish meanwhile does not install them again.
        handlersInstalled = true
        do {
            try await context.handleRequests(GetAppServiceData.self) { [weak self] request in
                guard let self else { throw SDLRequestRefusal(.dataNotAvailable) }
                return try await self.answer(request)
            }
            try await context.handleRequests(PerformAppServiceInteraction.self) { [weak self] request in
                guard let self else { throw SDLRequestRefusal(.invalidId) }
                return try await self.answer(request)
            }
        } catch {
            await context.removeRequestHandler(GetAppServiceData.self)
            await context.removeRequestHandler(PerformAppServiceInteraction.self)
            handlersInstalled = false
            throw .handlerConflict("\(error)")
        }
    }

    private func answer(_ request: GetAppServiceData) throws -> GetAppServiceDataResponse {
        guard
            let provided = published.values.first(where: { $0.record?.serviceManifest.serviceType == request.serviceType && $0.record?.serviceActive == true })
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

    /// Follows APP_SERVICES so `serviceActive` stays current: one child of the manager's run (the
    /// capability stream spans reconnections).
    private func followCapabilities() async {
        guard !followingCapabilities else { return }
        guard let updates = try? await context.capabilityUpdates(.appServices) else { return }
        followingCapabilities = context.spawn { [weak self] in
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
    public func services(ofType type: String? = nil) async throws -> [AppServiceRecord] {
        do throws(SDLAppServiceError) {
            try checkAttached()
            var capability = await context.cachedCapability(.appServices)?.appServicesCapabilities
            if capability == nil {
                do {
                    capability = try await context.fetchCapability(.appServices).appServicesCapabilities
                } catch {
                    switch SDLError.cause(of: error) {
                    case SDLCapabilityError.notConnected: throw .notSent(.notReady(context.managerState))
                    case SDLCapabilityError.refused(_, let result, let info): throw .refused("GetSystemCapability", result, info: info)
                    case let error as SDLRPCError: throw .failed(error)
                    default: throw .refused("GetSystemCapability", .genericError, info: SDLError(error).message)
                    }
                }
            }
            return (capability?.appServices ?? []).map(\.updatedAppServiceRecord).filter {
                $0.servicePublished && (type == nil || $0.serviceManifest.serviceType == type)
            }
        } catch {
            throw SDLError(error)
        }
    }

    /// The active service's data of a type, once.
    public func data(ofType type: String) async throws -> AppServiceData {
        do throws(SDLAppServiceError) {
            try checkAttached()
            let response = try await send(GetAppServiceData(serviceType: type))
            guard response.success, let data = response.serviceData else { throw .refused("GetAppServiceData", response.resultCode, info: response.info) }
            return data
        } catch {
            throw SDLError(error)
        }
    }

    /// Subscribes to the active service of a type: the answer's data first, then every
    /// OnAppServiceData of that type (the stream is open before the request goes out).
    public func subscribe(toType type: String) async throws -> AsyncStream<AppServiceData> {
        do throws(SDLAppServiceError) {
            try checkAttached()
            let notifications = context.notifications(OnAppServiceData.self)
            let response = try await send(GetAppServiceData(serviceType: type, subscribe: true))
            guard response.success else { throw .refused("GetAppServiceData", response.resultCode, info: response.info) }
            nextID += 1
            let id = nextID
            consumed[id] = type
            let context = self.context
            // Pulled by the reader's own iteration: no task forwards for it. When the reader lets
            // go of the stream, the head unit is told the type is no longer needed.
            let reader = ServiceDataReader(first: response.serviceData, type: type, notifications: notifications) { [weak self] in
                guard let self else { return }
                context.spawn { await self.stopConsuming(id) }
            }
            return AsyncStream { await reader.next() }
        } catch {
            throw SDLError(error)
        }
    }

    /// The last reader of a type is gone: the head unit stops sending it.
    private func stopConsuming(_ id: Int) async {
        guard let type = consumed.removeValue(forKey: id), !consumed.values.contains(type), context.managerState == .ready
        else { return }
        _ = try? await context.send(GetAppServiceData(serviceType: type, subscribe: false))
    }

    /// Asks a service (any, active or not) to act on a URI; `requestServiceActive` asks the head
    /// unit to make it the active one.
    public func interact(
        serviceID: String, uri: String, originApp: String, requestServiceActive: Bool? = nil
    ) async throws -> PerformAppServiceInteractionResponse {
        do throws(SDLAppServiceError) {
            try checkAttached()
            return try await send(
                PerformAppServiceInteraction(serviceUri: uri, serviceID: serviceID, originApp: originApp, requestServiceActive: requestServiceActive))
        } catch {
            throw SDLError(error)
        }
    }

    // MARK: Connections

    /// A new connection is Ready: publish every service again (the head unit forgot them), with
    /// its latest data.
    func connectionReady(_ connection: SDLConnectionContext) {
        // The head unit forgot the services: nothing is sent for them until they are back.
        for id in published.keys { published[id]?.record?.serviceActive = false }
        let consumedTypes = Set(consumed.values).sorted()
        guard !published.isEmpty || !consumedTypes.isEmpty, context.isAttached else { return }
        connection.tasks.spawn { await self.renew(consumedTypes, connection: connection) }
    }

    /// Publishes every service again, then subscribes to the consumed types again.
    private func renew(_ consumedTypes: [String], connection: SDLConnectionContext) async {
        do {
            if let permissions = connection.permissions, !published.isEmpty {
                _ = await permissions.waitUntilAllowed("PublishAppService")
            }
            for (id, provided) in published.sorted(by: { $0.key < $1.key }) where !Task.isCancelled {
                do {
                    let record = try await publishOnHeadUnit(provided.manifest)
                    republished(id, record)
                } catch {
                    logger.warning(
                        "app service \(provided.manifest.serviceName ?? provided.manifest.serviceType) not published again after reconnection: \(error)")
                }
            }
            if !published.isEmpty { await followCapabilities() }
            for type in consumedTypes where !Task.isCancelled {
                do {
                    _ = try await context.send(GetAppServiceData(serviceType: type, subscribe: true))
                } catch {
                    logger.warning("\(type) service data not subscribed again after reconnection: \(error)")
                }
            }
        }
    }

    private func republished(_ id: Int, _ record: AppServiceRecord) {
        published[id]?.record = record
        recordFanOut.yield(record)
    }

    /// A new run of the manager: streams can be opened again.
    func managerStarting() {
        recordFanOut.reopen()
    }

    func managerStopped() async {
        followingCapabilities = false
        if context.isAttached {
            for handler in published.values.flatMap(\.requestHandlers) { await handler.remove(context) }
            if handlersInstalled {
                await context.removeRequestHandler(GetAppServiceData.self)
                await context.removeRequestHandler(PerformAppServiceInteraction.self)
            }
        }
        published = [:]
        consumed = [:]
        handlersInstalled = false
        endStreams()
    }

    nonisolated func endStreams() {
        recordFanOut.finish()
    }

    // MARK: Plumbing

    /// A manager is behind the context: the operation may be tried.
    private func checkAttached() throws(SDLAppServiceError) {
        guard context.isAttached else { throw .notSent(.notReady(.stopped)) }
    }

    private func send<R: SDLRequest>(_ request: R) async throws(SDLAppServiceError) -> R.Response {
        try await SDLAppServiceError.sending(R.functionName) { try await self.context.send(request) }
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
    /// Now-playing data of a media service.
    case media(MediaServiceData)
    /// Conditions and forecasts of a weather service.
    case weather(WeatherServiceData)
    /// The route and instructions of a navigation service.
    case navigation(NavigationServiceData)

    /// The app service type this data belongs to: `MEDIA`, `WEATHER` or `NAVIGATION`.
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
    /// Whether the service did what was asked.
    public var success: Bool
    /// SUCCESS, or why the service did not do it.
    public var resultCode: SDLResult
    /// A human-readable note for the consumer.
    public var info: String?
    /// The service's own answer, in its own format.
    public var serviceSpecificResult: String?

    /// An answer; by default a success.
    ///
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
    let install: @Sendable (any SDLAppServiceContext) async throws -> Void
    let remove: @Sendable (any SDLAppServiceContext) async -> Void

    /// A handler that answers requests of `type` routed to the app's service.
    ///
    /// - Parameters:
    ///   - type: the routed request, e.g. `ButtonPress.self`.
    ///   - handler: its answer; throw `SDLRequestRefusal` to refuse with a result code.
    public init<R: SDLRequest>(_ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response) {
        functionID = Int(R.wireFunctionID ?? 0)
        install = { context in try await context.handleRequests(R.self, handler: handler) }
        remove = { context in await context.removeRequestHandler(R.self) }
    }
}

/// Why an app-service operation did not happen.
package enum SDLAppServiceError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, RPC version < 5.1...).
    case notSent(SDLManagerError)
    /// The head unit refused the request.
    case refused(String, SDLResult, info: String?)
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)
    /// Data of another kind than the service's type.
    case wrongContent(expected: String, got: String)
    /// Not one of the app's published services (or it was unpublished).
    case unknownService
    /// Another handler already answers one of the requests.
    case handlerConflict(String)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .refused(let rpc, let code, let info): "the head unit refused \(rpc): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        case .wrongContent(let expected, let got): "a \(expected) service cannot carry \(got) data"
        case .unknownService: "not a published service of this app"
        case .handlerConflict(let reason): "a request handler is already in place: \(reason)"
        }
    }
}

/// One `subscribe(toType:)` reader's data: the answer's first, then the notifications of its
/// type, read when the reader asks for the next one.
private final class ServiceDataReader: @unchecked Sendable {
    // Unchecked: only the one reader's iteration touches these, one `next()` at a time.
    private var first: AppServiceData?
    private var notifications: AsyncStream<OnAppServiceData>.Iterator
    private let type: String
    private let readerLeft: @Sendable () -> Void

    init(first: AppServiceData?, type: String, notifications: AsyncStream<OnAppServiceData>, readerLeft: @escaping @Sendable () -> Void) {
        self.first = first
        self.type = type
        self.notifications = notifications.makeAsyncIterator()
        self.readerLeft = readerLeft
    }

    func next() async -> AppServiceData? {
        if let first {
            self.first = nil
            return first
        }
        while let update = await notifications.next() {
            if update.serviceData.serviceType == type { return update.serviceData }
        }
        return nil
    }

    deinit { readerLeft() }
}
