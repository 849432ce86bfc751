import SDLHMIRPC
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The HMI and the apps' services, as SDL Core relates them: the HMI as a consumer of a
/// published service (the HMI's notifications of published services are in AppServices/).
extension SDLHeadUnitEmulator {
    /// The HMI as a consumer (AppService.GetAppServiceData, PerformAppServiceInteraction): as
    /// SDL Core, its request goes to the provider app as an app's would, and the provider's
    /// answer is the HMI's.
    func hmiConsumes(_ method: String, _ params: SDLJSONValue, id: SDLJSONRPCID, from connection: Int) -> [Effect] {
        let provider: PublishedService?
        let functionID: UInt32?
        var request: [SDLJSONValue.Member]
        var subscription: (subscribe: Bool, serviceType: String)?
        if method == "AppService.GetAppServiceData" {
            let type: String = if case .string(let name)? = params["serviceType"] { name } else { "" }
            provider = appServices.activeService(of: type)
            functionID = GetAppServiceData.wireFunctionID
            request = Self.members(of: params, ["serviceType", "subscribe"])
            if case .bool(let subscribe)? = params["subscribe"] { subscription = (subscribe, type) }
        } else {
            let serviceID: String = if case .string(let id)? = params["serviceID"] { id } else { "" }
            provider = appServices.services[serviceID]
            functionID = PerformAppServiceInteraction.wireFunctionID
            request = Self.members(of: params, ["serviceUri", "serviceID", "originApp", "requestServiceActive"])
            // The mobile request names its origin; the HMI's may not.
            if params["originApp"] == nil { request.append(.init(key: "originApp", value: .string("HMI"))) }
        }
        guard let provider, let functionID else {
            let refused = method == "AppService.GetAppServiceData" ? Common.Result.dataNotAvailable : .invalidId
            return [.toHMI(.connection(connection), HMIMessage.error(id: id, code: refused.code, message: "no such service", method: method))]
        }
        let correlationID = appServices.keep(
            ForwardedRequest(
                consumerAppID: "", consumerCorrelationID: 0, functionID: functionID, subscription: subscription, hmiConsumer: (connection, id, method)))
        schedule(.forward(correlationID: correlationID), after: .seconds(10))
        return [
            .notify(
                appID: provider.providerAppID,
                SDLRPCPayload(
                    rpcType: .request, functionID: functionID, correlationID: correlationID, json: SDLJSONValue.object(request).jsonBytes))
        ]
    }

    /// The provider's answer to the HMI's request, as an HMI API response (an error for a failure).
    func hmiConsumerAnswer(_ consumer: (connection: Int, id: SDLJSONRPCID, method: String), _ json: SDLJSONValue) -> Effect {
        let code: Int =
            if case .string(let result)? = json["resultCode"] { Self.hmiResultCode(SDLResult(rawValue: result)) } else { Common.Result.genericError.code }
        guard json["success"] == .bool(true), case .object(let members) = json else {
            let info: String = if case .string(let text)? = json["info"] { text } else { "the service provider refused it" }
            return .toHMI(.connection(consumer.connection), HMIMessage.error(id: consumer.id, code: code, message: info, method: consumer.method))
        }
        let result = members.filter { !["success", "resultCode"].contains($0.key) }
        return .toHMI(.connection(consumer.connection), HMIMessage.response(id: consumer.id, method: consumer.method, code: code, result: result))
    }

    /// The provider did not answer the HMI's request in time.
    func hmiConsumerTimedOut(_ consumer: (connection: Int, id: SDLJSONRPCID, method: String)) -> Effect {
        .toHMI(
            .connection(consumer.connection),
            HMIMessage.error(
                id: consumer.id, code: Common.Result.timedOut.code, message: "the service provider did not answer", method: consumer.method))
    }
}
