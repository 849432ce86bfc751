import SDLProtocol
import SDLRPC
import SDLRuntime

/// One published app service.
struct PublishedService: Sendable {
    let providerAppID: String
    var record: AppServiceRecord
}

/// A consumer's request the head unit passed on to a provider, waiting for its answer.
struct ForwardedRequest: Sendable {
    let consumerAppID: String
    let consumerCorrelationID: UInt32
    let functionID: UInt32
    /// GetAppServiceData's `subscribe` and service type: applied once the provider succeeds.
    var subscription: (subscribe: Bool, serviceType: String)?
    /// The HMI's request, when the HMI is the consumer: its connection, request ID and method.
    var hmiConsumer: (connection: Int, id: SDLJSONRPCID, method: String)?
}

/// The app services area: the registry across apps and the consumers' requests waiting for a
/// provider's answer.
struct AppServiceState: Sendable {
    /// Published services by service ID.
    var services: [String: PublishedService] = [:]
    /// Numbers service IDs.
    var published = 0
    /// Apps subscribed to each service type's data (GetAppServiceData subscribe).
    var subscribers: [String: Set<String>] = [:]
    /// The service types whose data the HMI subscribed to (AppService.GetAppServiceData subscribe).
    var hmiSubscriptions: Set<String> = []
    /// Requests passed on to providers, by the head unit's correlation ID.
    var forwarded: [UInt32: ForwardedRequest] = [:]
    var lastForwardID: UInt32 = 0

    /// The active service of `type`, if any.
    func activeService(of type: String) -> PublishedService? {
        services.values.first { $0.record.serviceManifest.serviceType == type && $0.record.serviceActive }
    }

    /// Whether `appID` publishes a service of `type`.
    func publishes(_ appID: String, type: String) -> Bool {
        services.values.contains { $0.providerAppID == appID && $0.record.serviceManifest.serviceType == type }
    }

    /// A request one of the active services' manifests lists as handled (`handledRPCs`), from
    /// another app: the provider answers it.
    func handlingProvider(of functionID: UInt32, for appID: String) -> String? {
        services.values.first {
            $0.record.serviceActive && $0.providerAppID != appID && ($0.record.serviceManifest.handledRPCs ?? []).contains(Int(functionID))
        }?.providerAppID
    }

    /// Keeps a forwarded request under a new correlation ID of the head unit's.
    mutating func keep(_ request: ForwardedRequest) -> UInt32 {
        lastForwardID += 1
        forwarded[lastForwardID] = request
        return lastForwardID
    }
}

/// App services (RPC 5.1+): a registry across apps; consumers' requests are forwarded to the
/// provider as head-unit requests and the answers routed back; OnAppServiceData reaches the
/// apps that subscribed.
extension SDLHeadUnitEmulator {
    func publishAppService(_ request: PublishAppService, appID: String) -> (Reply, [Effect]) {
        let type = request.appServiceManifest.serviceType
        // A second publish of a type the app already publishes updates that service's manifest.
        if let (serviceID, existing) = appServices.services.first(where: {
            $0.value.providerAppID == appID && $0.value.record.serviceManifest.serviceType == type
        }) {
            var record = existing.record
            record.serviceManifest = request.appServiceManifest
            appServices.services[serviceID]?.record = record
            return (
                .typed(PublishAppServiceResponse(success: true, resultCode: .success, appServiceRecord: record)),
                appServiceUpdates(record, reason: .manifestUpdate)
            )
        }
        appServices.published += 1
        let active = appServices.activeService(of: type) == nil
        let record = AppServiceRecord(
            serviceID: "\(appID)-\(type)-\(appServices.published)", serviceManifest: request.appServiceManifest, servicePublished: true, serviceActive: active)
        appServices.services[record.serviceID] = PublishedService(providerAppID: appID, record: record)
        var effects = appServiceUpdates(record, reason: .published)
        if active { effects += appServiceUpdates(record, reason: .activated) }
        return (.typed(PublishAppServiceResponse(success: true, resultCode: .success, appServiceRecord: record)), effects)
    }

    func unpublishAppService(_ request: UnpublishAppService, appID: String) -> (Reply, [Effect]) {
        guard let service = appServices.services[request.serviceID], service.providerAppID == appID else {
            return (.failure(.invalidId, "No app service with the requested service ID was published by this application"), [])
        }
        return (.success(), removeService(request.serviceID))
    }

    /// Removes a service (unpublished, or its app went away) and tells subscribers.
    func removeService(_ serviceID: String) -> [Effect] {
        guard var service = appServices.services.removeValue(forKey: serviceID) else { return [] }
        service.record.servicePublished = false
        service.record.serviceActive = false
        return appServiceUpdates(service.record, reason: .removed)
    }

    /// OnSystemCapabilityUpdated(APP_SERVICES) for every app subscribed to it, and for the HMI
    /// (BasicCommunication.OnSystemCapabilityUpdated, as SDL Core's BroadcastCapabilityUpdate).
    private func appServiceUpdates(_ record: AppServiceRecord, reason: ServiceUpdateReason) -> [Effect] {
        let capability = SystemCapability(
            systemCapabilityType: .appServices,
            appServicesCapabilities: AppServicesCapabilities(appServices: [AppServiceCapability(updateReason: reason, updatedAppServiceRecord: record)]))
        let update = OnSystemCapabilityUpdated(systemCapability: capability)
        var effects: [Effect] = apps.values.filter { $0.capabilitySubscriptions.contains(.appServices) }.map { notification(update, to: $0.appID) }
        if hmi.isReady, let params = (try? SDLJSON.encode(update)).flatMap({ try? SDLJSONValue(parsing: $0) }) {
            let method = "BasicCommunication.OnSystemCapabilityUpdated"
            effects.append(.toHMI(.subscribers(method), HMIMessage.notification(method: method, params: params)))
        }
        return effects
    }

    /// The registry as the APP_SERVICES capability lists it.
    func appServicesCapabilityJSON() -> SDLJSONValue {
        let records = appServices.services.values.sorted { $0.record.serviceID < $1.record.serviceID }.map {
            AppServiceCapability(updatedAppServiceRecord: $0.record)
        }
        guard let bytes = try? SDLJSON.encode(AppServicesCapabilities(appServices: records)), let json = try? SDLJSONValue(parsing: bytes) else {
            return .object([.init(key: "appServices", value: .array([]))])
        }
        return json
    }

    func getAppServiceData(_ request: GetAppServiceData, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let provider = appServices.activeService(of: request.serviceType) else {
            return (.failure(.dataNotAvailable, "no active \(request.serviceType) service"), [])
        }
        // The subscription follows the provider's answer: only a successful one changes it.
        return forward(rpc, from: appID, to: provider.providerAppID, subscription: request.subscribe.map { ($0, request.serviceType) })
    }

    func performAppServiceInteraction(_ request: PerformAppServiceInteraction, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        guard let provider = appServices.services[request.serviceID] else {
            return (.failure(.invalidId, "no service \(request.serviceID)"), [])
        }
        return forward(rpc, from: appID, to: provider.providerAppID)
    }

    /// Sends the consumer's request on to the provider under the head unit's own correlation ID.
    func forward(
        _ rpc: SDLRPCPayload, from consumer: String, to provider: String, subscription: (subscribe: Bool, serviceType: String)? = nil
    ) -> (Reply, [Effect]) {
        let correlationID = appServices.keep(
            ForwardedRequest(
                consumerAppID: consumer, consumerCorrelationID: rpc.correlationID, functionID: rpc.functionID, subscription: subscription))
        let request = SDLRPCPayload(rpcType: .request, functionID: rpc.functionID, correlationID: correlationID, json: rpc.json, bulkData: rpc.bulkData)
        schedule(.forward(correlationID: correlationID), after: .seconds(10))
        return (.deferred, [.notify(appID: provider, request)])
    }

    /// The provider answered: the consumer gets it under its own correlation ID.
    func providerAnswered(_ rpc: SDLRPCPayload) -> [Effect] {
        guard let request = appServices.forwarded.removeValue(forKey: rpc.correlationID) else { return [] }
        cancelTimer(.forward(correlationID: rpc.correlationID))
        if let consumer = request.hmiConsumer {
            let json = (try? SDLJSONValue(parsing: rpc.json)) ?? .object([])
            if let (subscribe, serviceType) = request.subscription, json["success"] == .bool(true) {
                if subscribe { appServices.hmiSubscriptions.insert(serviceType) } else { appServices.hmiSubscriptions.remove(serviceType) }
            }
            return [hmiConsumerAnswer(consumer, json)]
        }
        var effects: [Effect] = [
            .notify(
                appID: request.consumerAppID,
                SDLRPCPayload(
                    rpcType: .response, functionID: request.functionID, correlationID: request.consumerCorrelationID, json: rpc.json, bulkData: rpc.bulkData))
        ]
        let succeeded = (try? SDLJSONValue(parsing: rpc.json))?["success"] == .bool(true)
        if let (subscribe, serviceType) = request.subscription, succeeded, apps[request.consumerAppID] != nil {
            if subscribe {
                appServices.subscribers[serviceType, default: []].insert(request.consumerAppID)
                emit(.appServiceSubscribed(appID: request.consumerAppID, serviceType: serviceType))
                // A subscription is resumption data: SDL Core sends OnHashChange after the response.
                effects.append(hashChange(of: request.consumerAppID))
            } else {
                appServices.subscribers[serviceType]?.remove(request.consumerAppID)
            }
        }
        return effects
    }

    /// The provider did not answer in time (`TimerKey.forward`): the consumer gets TIMED_OUT.
    func forwardTimedOut(_ correlationID: UInt32) async {
        guard let request = appServices.forwarded.removeValue(forKey: correlationID) else { return }
        if let consumer = request.hmiConsumer {
            return await perform([hmiConsumerTimedOut(consumer)])
        }
        await perform([
            .respond(
                appID: request.consumerAppID, functionID: request.functionID, correlationID: request.consumerCorrelationID,
                .failure(.timedOut, "the service provider did not answer"))
        ])
    }

    /// A provider's OnAppServiceData: every app subscribed to that service type gets it.
    func providerPublishedData(_ rpc: SDLRPCPayload, from appID: String) -> [Effect] {
        guard let data = try? SDLJSON.decode(OnAppServiceData.self, from: rpc.json, policy: .lenient).value,
            appServices.publishes(appID, type: data.serviceData.serviceType)
        else { return [] }
        var effects: [Effect] = (appServices.subscribers[data.serviceData.serviceType] ?? []).sorted().filter { $0 != appID && apps[$0] != nil }.map {
            .notify(appID: $0, SDLRPCPayload(rpcType: .notification, functionID: rpc.functionID, correlationID: Self.notificationCorrelationID, json: rpc.json))
        }
        // The HMI subscribed to this type's data: AppService.OnAppServiceData.
        if hmi.isReady, appServices.hmiSubscriptions.contains(data.serviceData.serviceType), let params = try? SDLJSONValue(parsing: rpc.json) {
            let method = "AppService.OnAppServiceData"
            effects.append(.toHMI(.subscribers(method), HMIMessage.notification(method: method, params: .object(Self.members(of: params, ["serviceData"])))))
        }
        return effects
    }
}
