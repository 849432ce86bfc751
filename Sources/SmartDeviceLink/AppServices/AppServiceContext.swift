import SDLProtocol
import SDLRPC
import SDLRuntime

/// What the app-service manager uses of the manager: the sub-manager context, plus sending
/// notifications, answering the head unit's requests, and following APP_SERVICES.
/// `ManagerLink` gives the manager's; unit tests give a fake.
protocol SDLAppServiceContext: SDLSubManagerContext {
    /// The manager's state, for the error of an operation it cannot take now.
    var managerState: SDLManager.State { get }
    /// Sends a notification with the manager's checks.
    func sendNotification<N: SDLNotification>(_ notification: N) async throws
    /// Answers the head unit's requests of this type with `handler` until removed.
    func handleRequests<R: SDLRequest>(_ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response) async throws
    /// Stops answering requests of this type.
    func removeRequestHandler<R: SDLRequest>(_ type: R.Type) async
    /// The capability as cached, without asking the head unit.
    func cachedCapability(_ type: SystemCapabilityType) async -> SystemCapability?
    /// Asks the head unit for the capability (GetSystemCapability); its error when it cannot.
    func fetchCapability(_ type: SystemCapabilityType) async throws -> SystemCapability
    /// The capability's values from now on, across reconnections, until the manager stops.
    func capabilityUpdates(_ type: SystemCapabilityType) async throws -> AsyncStream<SystemCapability>
}

extension ManagerLink: SDLAppServiceContext {
    var managerState: SDLManager.State { manager?.state ?? .stopped }

    func sendNotification<N: SDLNotification>(_ notification: N) async throws {
        try await require().sendNotification(notification)
    }

    func handleRequests<R: SDLRequest>(_ type: R.Type, handler: @escaping @Sendable (R) async throws -> R.Response) async throws {
        try await require().handleRequests(R.self, handler: handler)
    }

    func removeRequestHandler<R: SDLRequest>(_ type: R.Type) async {
        await manager?.removeRequestHandler(R.self)
    }

    func cachedCapability(_ type: SystemCapabilityType) async -> SystemCapability? {
        await manager?.systemCapabilities.capability(type)
    }

    func fetchCapability(_ type: SystemCapabilityType) async throws -> SystemCapability {
        try await require().systemCapabilities.update(type)
    }

    func capabilityUpdates(_ type: SystemCapabilityType) async throws -> AsyncStream<SystemCapability> {
        try await require().systemCapabilities.subscribe(to: type)
    }
}
