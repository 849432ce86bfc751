import SDLProtocol
import SDLRPC
import SDLRuntime

extension SDLHeadUnitEmulator {
    /// What a request causes besides its response, in order.
    enum Effect: Sendable {
        case notify(appID: String, SDLRPCPayload)
        /// Answers an earlier request of the app (a deferred reply), serialised when sent.
        case respond(appID: String, functionID: UInt32, correlationID: UInt32, Reply)
        /// Ends the app's connection; `unregistered` says whether its resumption data goes too.
        case disconnect(appID: String, endService: Bool, unregistered: Bool)
        /// Ends one of the app's streaming services from the head unit's side (EndService).
        case endService(appID: String, service: SDLServiceType)
        /// A message to the HMI (see `HMIRecipient`).
        case toHMI(HMIRecipient, [UInt8])
    }

    func notification<N: SDLNotification>(_ notification: N, to appID: String) -> Effect {
        self.notification(N.self, json: (try? SDLJSON.encode(notification)) ?? Array("{}".utf8), to: appID)
    }

    /// A notification already encoded.
    func notification<N: SDLNotification>(_ type: N.Type, json: [UInt8], to appID: String) -> Effect {
        .notify(
            appID: appID, SDLRPCPayload(rpcType: .notification, functionID: N.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID, json: json))
    }

    /// What SDL Core puts in notifications' correlation ID.
    static let notificationCorrelationID: UInt32 = 0xFFFF_FFFF

    /// Carries out effects in order, then those that state changes left in `pendingEffects`.
    func perform(_ effects: [Effect]) async {
        var queue = effects
        var index = 0
        while index < queue.count || !pendingEffects.isEmpty {
            if index == queue.count {
                queue += pendingEffects
                pendingEffects.removeAll()
            }
            let effect = queue[index]
            index += 1
            switch effect {
            case .notify(let appID, let rpc):
                guard let connection = connection(of: appID) else { continue }
                await send(rpc, on: connection, appID: appID)
            case .respond(let appID, let functionID, let correlationID, let reply):
                guard let connection = connection(of: appID) else { continue }
                await send(reply.payload(functionID: functionID, correlationID: correlationID), on: connection, appID: appID)
            case .endService(let appID, let service):
                guard let connection = connection(of: appID) else { continue }
                emit(.streamingEnded(appID: appID, service: Int(service.rawValue)))
                await connection.endService(service)
            case .disconnect(let appID, let endService, let unregistered):
                guard let connection = connection(of: appID) else { continue }
                appGone(appID, unregistered: unregistered)
                await connection.close(endService: endService)
            case .toHMI(let recipient, let message):
                let connections = hmi.connections(for: recipient)
                if !connections.isEmpty { logHMI("out", message) }
                for connection in connections { await connection.send(message) }
            }
        }
    }
}
