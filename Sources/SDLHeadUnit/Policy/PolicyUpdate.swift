import SDLProtocol
import SDLRPC
import SDLRuntime

/// SDL Core's policy table update through the app (PROPRIETARY policies): the head unit sends
/// OnSystemRequest(PROPRIETARY) with its snapshot wrapped as `{"HTTPRequest": {"headers": ...,
/// "body": "<snapshot>"}}` and the policy server's URL; the app posts the body there and hands
/// the answer back in SystemRequest(PROPRIETARY); the head unit applies it and sends
/// OnPermissionsChange. Without a policy server URL the emulator grants the update itself at
/// the first activation.
extension SDLHeadUnitEmulator {
    /// Asks the app to run a policy table update against `url` (the control API's
    /// `POST /apps/{id}/policy-update`; also sent at the first activation when
    /// `configuration.policyServerURL` is set).
    public func requestPolicyUpdate(appID: String, url: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform([policyUpdateRequest(appID: appID, url: url)])
    }

    /// Sends the app an OnSystemRequest of any type, with bulk data (the control API's
    /// `POST /apps/{id}/system-request`).
    public func sendSystemRequest(
        appID: String, type: RequestType, url: String?, timeout: Int? = nil, bulkData: [UInt8] = []
    ) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        let request = OnSystemRequest(requestType: type, url: url, timeout: timeout, fileType: bulkData.isEmpty ? nil : .json)
        await perform([
            .notify(
                appID: appID,
                SDLRPCPayload(
                    rpcType: .notification, functionID: OnSystemRequest.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                    json: (try? SDLJSON.encode(request)) ?? Array("{}".utf8), bulkData: bulkData))
        ])
    }

    func policyUpdateRequest(appID: String, url: String) -> Effect {
        apps[appID]?.policyUpdateRequested = true
        let request = OnSystemRequest(requestType: .proprietary, url: url, timeout: 60, fileType: .json)
        return .notify(
            appID: appID,
            SDLRPCPayload(
                rpcType: .notification, functionID: OnSystemRequest.wireFunctionID ?? 0, correlationID: Self.notificationCorrelationID,
                json: (try? SDLJSON.encode(request)) ?? Array("{}".utf8), bulkData: Self.wrappedSnapshot(policy.snapshot(appID: appID, url: url))))
    }

    /// SDL Core's wrapper around the snapshot: the body a policy server receives, with the
    /// headers an HTTP client should use.
    public static func wrappedSnapshot(_ snapshot: SDLJSONValue) -> [UInt8] {
        let body = String(decoding: snapshot.jsonBytes, as: UTF8.self)
        let headers: [SDLJSONValue.Member] = [
            .init(key: "ContentType", value: .string("application/json")), .init(key: "ConnectTimeout", value: .integer(60)),
            .init(key: "DoOutput", value: .bool(true)), .init(key: "DoInput", value: .bool(true)), .init(key: "UseCaches", value: .bool(false)),
            .init(key: "RequestMethod", value: .string("POST")), .init(key: "ReadTimeout", value: .integer(60)),
            .init(key: "InstanceFollowRedirects", value: .bool(false)), .init(key: "charset", value: .string("utf-8")),
            .init(key: "Content-Length", value: .integer(body.utf8.count)),
        ]
        return SDLJSONValue.object([
            .init(
                key: "HTTPRequest",
                value: .object([
                    .init(key: "headers", value: .object(headers)), .init(key: "body", value: .string(body)),
                ]))
        ]).jsonBytes
    }

    /// SystemRequest(PROPRIETARY): the policy server's answer. Applied when it reads as a
    /// policy table (bare, under `policy_table`, or in a server's `{"data": [...]}`).
    func applyPolicyUpdate(_ bulkData: [UInt8], appID: String) -> (Reply, [Effect]) {
        guard let update = Self.policyTable(in: bulkData), !update.groups.isEmpty else {
            // Not applied; the next activation asks again.
            apps[appID]?.policyUpdateRequested = false
            return (.failure(.invalidData, "the policy table update could not be read"), [])
        }
        policy = update
        apps[appID]?.policyUpdated = true
        return (.success(), apps.keys.sorted().map { permissionsNotification(to: $0) })
    }

    static func policyTable(in bytes: [UInt8]) -> SDLHeadUnitPolicy? {
        if let table = try? SDLHeadUnitPolicy(parsing: bytes) { return table }
        guard let json = try? SDLJSONValue(parsing: bytes), case .array(let items)? = json["data"], let first = items.first else { return nil }
        switch first {
        case .string(let text): return try? SDLHeadUnitPolicy(parsing: Array(text.utf8))
        default: return try? SDLHeadUnitPolicy(parsing: first.jsonBytes)
        }
    }
}

extension SDLHeadUnitPolicy {
    /// A policy table snapshot as SDL Core posts it: module settings, the app's groups and the
    /// policy server endpoint.
    func snapshot(appID: String, url: String) -> SDLJSONValue {
        let groups = (appGroups[appID] ?? appGroups["default"] ?? []).map { SDLJSONValue.string($0) }
        return .object([
            .init(
                key: "policy_table",
                value: .object([
                    .init(
                        key: "module_config",
                        value: .object([
                            .init(key: "preloaded_pt", value: .bool(true)), .init(key: "timeout_after_x_seconds", value: .integer(60)),
                            .init(
                                key: "endpoints", value: .object([.init(key: "0x07", value: .object([.init(key: "default", value: .array([.string(url)]))]))])),
                        ])),
                    .init(key: "app_policies", value: .object([.init(key: appID, value: .object([.init(key: "groups", value: .array(groups))]))])),
                    .init(
                        key: "functional_groupings",
                        value: .object(
                            groups.compactMap { group in
                                guard case .string(let name) = group else { return nil }
                                return .init(key: name, value: .object([]))
                            })),
                    .init(key: "device_data", value: .object([])),
                ]))
        ])
    }
}
