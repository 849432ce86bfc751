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
    /// What follows a connection that worked and then dropped. false (SDL Core 8.2): nothing
    /// until the HMI activates the app again (the user picks it in the app list,
    /// ``SDLHeadUnitEmulator/activateCloudApp()``); its retries only repeat a dial that failed.
    /// true: dial again after `retryDelay`, for load tests and scale-out drills.
    public var redialsAfterDrop: Bool

    /// An endpoint to dial with `connect`. The defaults are SDL Core's (1 s between dials, 5 failed
    /// dials in a row before giving up, no dial after a drop until the HMI activates the app);
    /// `maxAttempts` is at least 1.
    public init(
        authToken: String? = nil, retryDelay: Duration = .seconds(1), maxAttempts: Int = 5, redialsAfterDrop: Bool = false,
        connect: @escaping @Sendable () async throws -> any SDLTransport
    ) {
        self.connect = connect
        self.authToken = authToken
        self.retryDelay = retryDelay
        self.maxAttempts = max(1, maxAttempts)
        self.redialsAfterDrop = redialsAfterDrop
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
    /// After a drop, as SDL Core: no dial until the HMI activates the app again.
    case waitingForActivation
    /// Attempts ran out; the emulator stopped dialing.
    case gaveUp
}

extension SDLHeadUnitEmulator {
    /// Connects to a cloud app as SDL Core does and serves its session, `maxAttempts` failed dials
    /// in a row ending it. After a connection ends it waits, as SDL Core 8.2 does, for the HMI to
    /// activate the app again (``activateCloudApp()``), or with `redialsAfterDrop` dials again
    /// after the retry delay. Returns when it gives up or is cancelled.
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
            // An activation while connected is not one after the drop.
            cloudAppActivationPending = false
            cloudAppConnected = true
            events?(.connected)
            await withTaskCancellationHandler {
                await serve(transport, authToken: endpoint.authToken)
            } onCancel: {
                Task { await transport.close() }
            }
            await transport.close()
            cloudAppConnected = false
            events?(.disconnected)
            guard !Task.isCancelled else { return }
            if endpoint.redialsAfterDrop {
                do { try await Task.sleep(for: endpoint.retryDelay, clock: .continuous) } catch { return }
            } else {
                events?(.waitingForActivation)
                guard await waitForCloudAppActivation() else { return }
            }
        }
        if !Task.isCancelled { events?(.gaveUp) }
    }

    /// The HMI activates the cloud app (the user picks it in the app list): every dialer waiting
    /// after a drop dials again (`POST /cloud-app/activate`). One that comes between a drop and
    /// the wait counts; one while connected does not.
    public func activateCloudApp() {
        guard !cloudAppActivationWaiters.isEmpty else {
            if !cloudAppConnected { cloudAppActivationPending = true }
            return
        }
        let waiters = cloudAppActivationWaiters.values
        cloudAppActivationWaiters = [:]
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for `activateCloudApp()`; false when the task was cancelled.
    private func waitForCloudAppActivation() async -> Bool {
        if cloudAppActivationPending {
            cloudAppActivationPending = false
            return true
        }
        nextCloudAppWait += 1
        let wait = nextCloudAppWait
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled { continuation.resume() } else { cloudAppActivationWaiters[wait] = continuation }
            }
        } onCancel: {
            Task { await self.cancelCloudAppActivationWait(wait) }
        }
        return !Task.isCancelled
    }

    /// Ends one wait, if still waiting: a cancel never wakes another dialer.
    private func cancelCloudAppActivationWait(_ wait: Int) {
        cloudAppActivationWaiters.removeValue(forKey: wait)?.resume()
    }
}
