import SDLTransport

/// A cloud app as SDL Core knows it from its policy table: where to dial and the token to hand
/// over. The WebSocket itself comes from `connect` (SDLWebSocket's client in `sdl headunit`).
public struct SDLCloudAppEndpoint: Sendable {
    /// Opens a new connection to the app's server.
    public var connect: @Sendable () async throws -> any SDLTransport
    /// The policy table's `auth_token` for the app, sent in the RPC StartServiceACK.
    public var authToken: String?
    /// Pause before dialing again (SDL Core's CloudAppRetryTimeout: 1 s).
    public var retryDelay: Duration
    /// Failed dials in a row before giving up (SDL Core's CloudAppMaxRetryAttempts: 5).
    public var maxAttempts: Int

    /// An endpoint to dial with `connect`. The defaults are SDL Core's (1 s between dials, 5 failed
    /// dials in a row before giving up); `maxAttempts` is at least 1.
    public init(
        authToken: String? = nil, retryDelay: Duration = .seconds(1), maxAttempts: Int = 5,
        connect: @escaping @Sendable () async throws -> any SDLTransport
    ) {
        self.connect = connect
        self.authToken = authToken
        self.retryDelay = retryDelay
        self.maxAttempts = max(1, maxAttempts)
    }
}

/// What happened to the emulator's connection to a cloud app.
public enum SDLCloudAppDialEvent: Sendable, Hashable {
    /// Connected; the app's session begins.
    case connected
    /// The connection ended (the app's server closed it or vanished).
    case disconnected
    /// A dial failed; the emulator tries again after its retry delay unless attempts ran out.
    case dialFailed(attempt: Int, reason: String)
    /// Attempts ran out; the emulator stopped dialing.
    case gaveUp
}

extension SDLHeadUnitEmulator {
    /// Connects to a cloud app as SDL Core does and serves its session; after the connection
    /// ends it dials again (a server restarted, a load balancer moved the vehicle to another
    /// server), `maxAttempts` failed dials in a row ending it. Returns when it gives up or is cancelled.
    public func runCloudApp(_ endpoint: SDLCloudAppEndpoint, events: (@Sendable (SDLCloudAppDialEvent) -> Void)? = nil) async {
        var failures = 0
        while !Task.isCancelled {
            let transport: any SDLTransport
            do {
                transport = try await endpoint.connect()
            } catch {
                failures += 1
                events?(.dialFailed(attempt: failures, reason: "\(error)"))
                guard failures < endpoint.maxAttempts else { break }
                do { try await Task.sleep(for: endpoint.retryDelay, clock: .continuous) } catch { return }
                continue
            }
            failures = 0
            events?(.connected)
            await withTaskCancellationHandler {
                await serve(transport, authToken: endpoint.authToken)
            } onCancel: {
                Task { await transport.close() }
            }
            await transport.close()
            events?(.disconnected)
            guard !Task.isCancelled else { return }
            do { try await Task.sleep(for: endpoint.retryDelay, clock: .continuous) } catch { return }
        }
        if !Task.isCancelled { events?(.gaveUp) }
    }
}
