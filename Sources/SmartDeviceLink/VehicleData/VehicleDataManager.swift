import Logging
import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// Reads the car: one-time readings (GetVehicleData), subscriptions (Subscribe/
/// UnsubscribeVehicleData) and the OnVehicleData stream, for every item of the spec and for an
/// OEM's custom items.
///
/// Items are named by key paths of the generated requests (`\.speed`, `\.rpm`, `\.gps`...), so
/// every item of the spec is available, typed, and nothing is a hand-written list:
///
/// ```swift
/// let reading = try await manager.vehicleData.get(\.speed, \.rpm)
/// print(reading.speed ?? 0, reading.rpm ?? 0)
/// ```
///
/// Requests go through the manager's checks (Ready, HMI level, RPC version) and the parameter
/// permissions of the latest OnPermissionsChange; GetVehicleData is paced to the head unit's
/// limit of 5 per second, so bursts wait instead of being REJECTED. Subscriptions are
/// remembered and renewed after a reconnection once the head unit allows them again.
public actor SDLVehicleDataManager: SDLSubManager {
    /// GetVehicleData requests allowed per second: SDL Core answers the 6th within one second
    /// with REJECTED.
    public static let getLimitPerSecond = 5

    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLSubManagerContext
    private let logger: Logger
    private let clock: SDLClock
    /// When recent GetVehicleData requests went out (clock offsets), oldest first.
    private var recentGets: [Duration] = []
    /// The items the app is subscribed to (spec and custom names): renewed on reconnection.
    public private(set) var subscribedItems: Set<String> = []
    /// Counts manager runs: an answer that arrives after a stop does not touch the next run.
    private var generation = 0

    /// The same on `context` alone, for tests without a manager.
    init(context: any SDLSubManagerContext, logger: Logger, clock: SDLClock) {
        self.context = context
        self.logger = logger
        self.clock = clock
    }

    init(logger: Logger, clock: SDLClock) {
        self.logger = logger
        self.clock = clock
        self.context = link
    }

    // MARK: Streams

    /// Every OnVehicleData, across reconnections, until the manager stops. Open it before
    /// subscribing so the first update is not missed (the guide's advice); `subscribe` returns
    /// a stream opened that way.
    public nonisolated func updates() -> AsyncStream<OnVehicleData> {
        context.notifications(OnVehicleData.self)
    }

    /// The values of one item as they arrive (notifications without it are skipped). A lazy view
    /// of `updates()` (same buffering: the newest 256 unread), with no task of its own.
    public nonisolated func updates<Value: Sendable>(
        of item: KeyPath<OnVehicleData, Value?> & Sendable
    ) -> AsyncCompactMapSequence<AsyncStream<OnVehicleData>, Value> {
        updates().compactMap { $0[keyPath: item] }
    }

    /// The raw JSON values of OEM custom items (by name) as they arrive.
    /// A lazy view of the raw notifications (the newest 256 unread are kept), with no task of its own.
    public nonisolated func customUpdates() -> AsyncCompactMapSequence<AsyncStream<SDLIncomingRPC>, [String: SDLJSONValue]> {
        let raw = context.rawNotifications(functionIDs: OnVehicleData.wireFunctionID.map { [$0] } ?? [])
        let known = Set(OnVehicleData.structInfo.parameters.map(\.name))
        return raw.compactMap { message in
            guard case .object(let members)? = try? SDLJSONValue(parsing: message.payload.json) else { return nil }
            let custom = members.filter { !known.contains($0.key) }
            return custom.isEmpty ? nil : Dictionary(custom.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    // MARK: One-time readings

    /// Reads the items once: `get(\.speed, \.rpm)`.
    public func get(_ items: WritableKeyPath<GetVehicleData, Bool?>...) async throws -> GetVehicleDataResponse {
        try await get(items, custom: []).response
    }

    /// Reads OEM custom items (RPC 6.0+, OEM apps only) once, as raw JSON (their format is the OEM's).
    public func get(custom names: [String]) async throws -> [String: SDLJSONValue] {
        try await get([], custom: names).custom
    }

    /// Reads spec items and OEM custom items (RPC 6.0+, OEM apps only) once; custom values come
    /// back as raw JSON, their format being the OEM's.
    public func get(
        _ items: [WritableKeyPath<GetVehicleData, Bool?>], custom: [String] = []
    ) async throws -> SDLVehicleDataReading {
        do throws(SDLVehicleDataError) {
            let (json, names) = try await prepare(Self.asking(GetVehicleData(), for: items), custom: custom)
            await paceGets()
            let (response, raw) = try await send(GetVehicleData.self, json: json)
            guard response.success || response.resultCode == .warnings else {
                throw .refused(response.resultCode, info: response.info, items: names)
            }
            let members = Self.members(of: raw)
            let values = Dictionary(members.filter { custom.contains($0.key) }.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            return SDLVehicleDataReading(response: response, custom: values)
        } catch {
            throw SDLError(error)
        }
    }

    /// Waits for a free slot of the head unit's GetVehicleData limit (on the session clock).
    private func paceGets() async {
        while true {
            let now = clock.now
            recentGets.removeAll { now - $0 >= .seconds(1) }
            if recentGets.count < Self.getLimitPerSecond {
                recentGets.append(now)
                return
            }
            do { try await clock.sleep(until: recentGets[0] + .seconds(1)) } catch { return }
        }
    }

    // MARK: Subscriptions

    /// Subscribes to the items: `subscribe(\.speed, \.rpm)`. The result holds an OnVehicleData
    /// stream opened before the request went out, and each item's outcome: an item the app was
    /// already subscribed to (DATA_ALREADY_SUBSCRIBED, inside an IGNORED answer) counts as
    /// subscribed.
    @discardableResult
    public func subscribe(_ items: WritableKeyPath<SubscribeVehicleData, Bool?>...) async throws -> SDLVehicleDataSubscription {
        try await subscribe(items, custom: [])
    }

    /// Subscribes to spec items and OEM custom items (RPC 6.0+).
    @discardableResult
    public func subscribe(
        _ items: [WritableKeyPath<SubscribeVehicleData, Bool?>], custom: [String] = []
    ) async throws -> SDLVehicleDataSubscription {
        do throws(SDLVehicleDataError) {
            let (json, names) = try await prepare(Self.asking(SubscribeVehicleData(), for: items), custom: custom)
            let updates = updates()
            let run = generation
            let (response, raw) = try await send(SubscribeVehicleData.self, json: json)
            let results = try Self.results(
                of: raw, success: response.success, resultCode: response.resultCode, info: response.info, requested: names, settled: .dataAlreadySubscribed)
            if run == generation { subscribedItems.formUnion(results.succeeded) }
            return SDLVehicleDataSubscription(results: results, updates: updates)
        } catch {
            throw SDLError(error)
        }
    }

    /// Unsubscribes from the items; one the app was not subscribed to (DATA_NOT_SUBSCRIBED)
    /// counts as unsubscribed.
    @discardableResult
    public func unsubscribe(_ items: WritableKeyPath<UnsubscribeVehicleData, Bool?>...) async throws -> SDLVehicleDataResults {
        try await unsubscribe(items, custom: [])
    }

    /// Unsubscribes from spec items and OEM custom items (RPC 6.0+).
    @discardableResult
    public func unsubscribe(
        _ items: [WritableKeyPath<UnsubscribeVehicleData, Bool?>], custom: [String] = []
    ) async throws -> SDLVehicleDataResults {
        do throws(SDLVehicleDataError) {
            let (json, names) = try await prepare(Self.asking(UnsubscribeVehicleData(), for: items), custom: custom)
            subscribedItems.subtract(names)  // not renewed after a reconnection, whatever the answer
            let (response, raw) = try await send(UnsubscribeVehicleData.self, json: json)
            let results = try Self.results(
                of: raw, success: response.success, resultCode: response.resultCode, info: response.info, requested: names, settled: .dataNotSubscribed)
            return results
        } catch {
            throw SDLError(error)
        }
    }

    // MARK: Reconnection

    /// A new connection is Ready: renew the subscriptions once the head unit allows them (after
    /// its policy update on SDL Core); with resumption they are already there, and
    /// DATA_ALREADY_SUBSCRIBED counts as renewed.
    func connectionReady(_ connection: SDLConnectionContext) {
        guard !subscribedItems.isEmpty, context.isAttached, let permissions = connection.permissions else { return }
        // On the connection's scope: a drop ends the renewal with the connection.
        connection.tasks.spawn { await self.renewSubscriptions(permissions: permissions) }
    }

    private func renewSubscriptions(permissions: SDLPermissionTracker) async {
        do {
            // Renew what is allowed once SubscribeVehicleData is; the rest is logged.
            var allowed: [String] = []
            for await states in await permissions.observe(["SubscribeVehicleData"]) {
                guard let permission = states["SubscribeVehicleData"], permission.isAllowed else { continue }
                let refused = Set(Self.disallowed(Array(subscribedItems), by: permission))
                allowed = subscribedItems.subtracting(refused).sorted()
                if !refused.isEmpty { logger.warning("vehicle-data subscriptions not renewed, not allowed now: \(refused.sorted().joined(separator: ", "))") }
                if !allowed.isEmpty { break }
            }
            guard !allowed.isEmpty, !Task.isCancelled else { return }
            let json = SDLJSONValue.object(allowed.map { .init(key: $0, value: .bool(true)) }).jsonBytes
            do {
                let (response, raw) = try await context.send(SubscribeVehicleData.self, json: json)
                let results = try Self.results(
                    of: raw, success: response.success, resultCode: response.resultCode, info: response.info,
                    requested: allowed, settled: .dataAlreadySubscribed)
                if !results.failed.isEmpty {
                    logger.warning(
                        "vehicle-data subscriptions not renewed: \(results.failed.map { "\($0.key) \($0.value.rawValue)" }.sorted().joined(separator: ", "))")
                }
            } catch {
                logger.warning("vehicle-data subscriptions not renewed after reconnection: \(error)")
            }
        }
    }

    /// A stopped manager starts afresh: nothing to renew.
    func managerStopped() {
        generation += 1
        subscribedItems = []
        recentGets = []
    }

    /// Waits until the head unit allows `rpc` (GetVehicleData by default) at the current HMI
    /// level for every item: SDL Core grants vehicle data only with its policy update, after the
    /// first activation, so being in FULL is not enough. False when the
    /// connection ends or the task is cancelled first; bound it with a timeout of your own.
    public func waitUntilAllowed(
        _ items: WritableKeyPath<GetVehicleData, Bool?>..., custom: [String] = [], rpc: String = "GetVehicleData"
    ) async -> Bool {
        guard let permissions = await context.permissions(),
            case .object(let members)? = try? SDLJSONValue(parsing: SDLJSON.encode(Self.asking(GetVehicleData(), for: items)))
        else { return false }
        return await Self.waitUntilAllowed(Set(members.map(\.key) + custom), rpc: rpc, permissions: permissions)
    }

    private static func waitUntilAllowed(_ items: Set<String>, rpc: String, permissions: SDLPermissionTracker) async -> Bool {
        let observations = await permissions.observe([rpc])
        for await states in observations {
            guard let permission = states[rpc], permission.isAllowed else { continue }
            if Self.disallowed(Array(items), by: permission).isEmpty { return true }
        }
        return false
    }

    // MARK: Plumbing

    /// `request` asking for `items`.
    static func asking<R>(_ request: R, for items: [WritableKeyPath<R, Bool?>]) -> R {
        var request = request
        for item in items { request[keyPath: item] = true }
        return request
    }

    /// The request's JSON with the custom items added, and the item names it asks for; refused
    /// before sending when the parameter permissions or the RPC version forbid an item.
    private func prepare<R: SDLRequest>(_ request: R, custom: [String]) async throws(SDLVehicleDataError) -> ([UInt8], [String]) {
        guard context.isAttached else { throw .notSent(.notReady(.stopped)) }
        let encoded: SDLJSONValue
        do {
            encoded = try SDLJSONValue(parsing: SDLJSON.encode(request))
        } catch {
            throw .notSent(.invalidRequest("\(error)"))
        }
        guard case .object(var members) = encoded else { throw .notSent(.invalidRequest("\(R.functionName) did not encode to an object")) }
        let known = Set(R.structInfo.parameters.map(\.name))
        for name in custom where !members.contains(where: { $0.key == name }) {
            guard !known.contains(name) else { throw .notSent(.invalidRequest("\(name) is a vehicle-data item of the spec, not a custom one")) }
            members.append(.init(key: name, value: .bool(true)))
        }
        let names = members.map(\.key)
        guard !names.isEmpty else { throw .noItems }
        // Per-item results need every item on the wire: one newer than the head unit is refused
        // whatever the manager's newer-parameter policy.
        let version = await context.rpcVersion()
        for name in names {
            guard let availability = R.structInfo.parameter(named: name)?.availability, !availability.isAvailable(in: version) else { continue }
            throw .notSent(
                .unsupportedByHeadUnit(
                    what: "\(R.functionName).\(name)", available: availability.since.map { "since RPC \($0)" } ?? "in other versions", headUnit: version))
        }
        if !custom.isEmpty {
            if version < .version(6, 0) {
                throw .notSent(.unsupportedByHeadUnit(what: "OEM custom vehicle data", available: "since RPC 6.0", headUnit: version))
            }
        }
        if let permissions = await context.permissions() {
            let permission = await permissions.permission(of: R.functionName)
            let refused = Self.disallowed(names, by: permission)
            if !refused.isEmpty { throw .itemsNotAllowed(rpc: R.functionName, items: refused) }
        }
        return (SDLJSONValue.object(members).jsonBytes, names)
    }

    /// The items the parameter permissions forbid: those the user disallowed, and those missing
    /// from a non-empty allowed list (SDL Core sends an empty list when the policy names none).
    static func disallowed(_ items: [String], by permission: SDLRPCPermission) -> [String] {
        items.filter { item in
            permission.userDisallowedParameters.contains(item)
                || (!permission.allowedParameters.isEmpty && !permission.allowedParameters.contains(item))
        }
    }

    private func send<R: SDLRequest>(_ type: R.Type, json: [UInt8]) async throws(SDLVehicleDataError) -> (R.Response, SDLIncomingRPC) {
        try await SDLVehicleDataError.sending(R.functionName) {
            try await context.send(R.self, json: json)
        }
    }

    private static func members(of raw: SDLIncomingRPC) -> [SDLJSONValue.Member] {
        guard case .object(let members)? = try? SDLJSONValue(parsing: raw.payload.json) else { return [] }
        return members
    }

    /// Per-item outcomes, looked for inside the answer whatever its result code (IGNORED carries
    /// them too). An answer refusing the whole request, with no item results, throws.
    static func results(
        of raw: SDLIncomingRPC, success: Bool, resultCode: SDLResult, info: String?, requested: [String], settled: VehicleDataResultCode
    ) throws(SDLVehicleDataError) -> SDLVehicleDataResults {
        var items: [String: VehicleDataResult] = [:]
        for member in members(of: raw) where requested.contains(member.key) {
            if let result = try? SDLJSON.decode(VehicleDataResult.self, from: member.value.jsonBytes, policy: .lenient).value {
                items[member.key] = result
            }
        }
        if items.isEmpty && !success { throw .refused(resultCode, info: info, items: requested) }
        var succeeded: Set<String> = []
        var failed: [String: VehicleDataResultCode] = [:]
        for name in requested {
            guard let result = items[name] else {
                // A successful answer that leaves an item out covers it.
                if success { succeeded.insert(name) } else { failed[name] = .vehicleDataNotAvailable }
                continue
            }
            if result.resultCode == .success || result.resultCode == settled { succeeded.insert(name) } else { failed[name] = result.resultCode }
        }
        return SDLVehicleDataResults(resultCode: resultCode, info: info, items: items, succeeded: succeeded, failed: failed)
    }
}

/// A one-time reading: the typed response and the OEM custom items' raw values.
public struct SDLVehicleDataReading: Sendable {
    /// The typed answer: `response.speed`, `response.gps`...
    public let response: GetVehicleDataResponse
    /// OEM custom items by name, as the head unit sent them.
    public let custom: [String: SDLJSONValue]
}

/// What a Subscribe/UnsubscribeVehicleData achieved, item by item.
public struct SDLVehicleDataResults: Sendable, Hashable {
    /// The answer's overall code (SUCCESS, IGNORED, WARNINGS...).
    public let resultCode: SDLResult
    /// The head unit's explanation, if it gave one.
    public let info: String?
    /// Each item's result as the head unit gave it, by item name.
    public let items: [String: VehicleDataResult]
    /// Items now in the state asked for (already being in it counts).
    public let succeeded: Set<String>
    /// Items that are not, with their codes (VEHICLE_DATA_NOT_AVAILABLE, USER_DISALLOWED...).
    public let failed: [String: VehicleDataResultCode]

    /// Whether every item is in the state asked for.
    public var isComplete: Bool { failed.isEmpty }
}

/// A subscription's outcome and the updates that follow it.
public struct SDLVehicleDataSubscription: Sendable {
    /// What the subscription achieved, item by item.
    public let results: SDLVehicleDataResults
    /// OnVehicleData, opened before the request was sent.
    public let updates: AsyncStream<OnVehicleData>
}

/// Why a vehicle-data request did not do what was asked.
package enum SDLVehicleDataError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, HMI level, RPC version...).
    case notSent(SDLManagerError)
    /// The parameter permissions forbid these items; nothing was sent.
    case itemsNotAllowed(rpc: String, items: [String])
    /// No item was named.
    case noItems
    /// The head unit refused the whole request (DISALLOWED, USER_DISALLOWED, REJECTED...).
    case refused(SDLResult, info: String?, items: [String])
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .itemsNotAllowed(let rpc, let items): "\(rpc) of \(items.joined(separator: ", ")) is not allowed by the head unit's permissions; nothing was sent"
        case .noItems: "no vehicle-data item was named"
        case .refused(let code, let info, let items):
            "the head unit refused vehicle data \(items.joined(separator: ", ")): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        }
    }
}
