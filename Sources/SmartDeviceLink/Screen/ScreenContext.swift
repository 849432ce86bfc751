import SDLProtocol
import SDLRPC

/// What the screen manager uses of the manager: the sub-manager context, plus the head unit's
/// display and speech capabilities, the app's files on the head unit, and the wait until the app
/// may change its screen. `ManagerLink` gives the manager's; unit tests give a fake.
protocol SDLScreenContext: SDLSubManagerContext {
    /// Whether a manager is behind the context (false once it is gone: operations fail `.stopped`).
    var isAttached: Bool { get }
    /// Sends with the manager's checks, waiting up to `timeout` (the session's default when nil).
    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response
    /// The first display's name, when known.
    func displayName() async -> String?
    /// The registration's speech capabilities and prerecorded sounds, when it lists them.
    func speechCapabilities() async -> (speech: [SpeechCapabilities]?, prerecorded: [PrerecordedSpeech]?)
    /// The formats the head unit can record in, when it lists them.
    func audioPassThruCapabilities() async -> [AudioPassThruCapabilities]?
    /// Notifications of one type across reconnections, until the manager stops.
    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N>
    /// Calls `handler` with each notification of `functionIDs` as it is read.
    func observeNotifications(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation
    /// Whether the head unit holds a file of this name.
    func hasFile(named name: String) async -> Bool
    /// Uploads an artwork unless the head unit has it (or it is a static icon).
    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome
    /// Uploads a file.
    func uploadFile(_ file: SDLFile) async throws(SDLFileError) -> SDLUploadOutcome
    /// Returns when the app may change its screen (Ready, not NONE, Show allowed, the main
    /// window known); false when the manager stopped meanwhile.
    func waitUntilShowable() async -> Bool
}

extension ManagerLink: SDLScreenContext {
    var isAttached: Bool { manager != nil }

    func send<R: SDLRequest>(_ request: R, timeout: Duration?) async throws -> R.Response {
        try await require().send(request, timeout: timeout)
    }

    func displayName() async -> String? {
        await manager?.systemCapabilities.displays?.first?.displayName
    }

    func speechCapabilities() async -> (speech: [SpeechCapabilities]?, prerecorded: [PrerecordedSpeech]?) {
        guard let capabilities = manager?.systemCapabilities else { return (nil, nil) }
        return (await capabilities.speechCapabilities, await capabilities.prerecordedSpeech)
    }

    func audioPassThruCapabilities() async -> [AudioPassThruCapabilities]? {
        await manager?.systemCapabilities.audioPassThruCapabilities
    }

    func notifications<N: SDLNotification>(_ type: N.Type) -> AsyncStream<N> {
        manager?.notifications(type) ?? AsyncStream { $0.finish() }
    }

    func observeNotifications(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        manager?.observeNotifications(functionIDs: functionIDs, handler) ?? SDLNotificationObservation {}
    }

    func hasFile(named name: String) async -> Bool {
        await manager?.files.hasFile(named: name) ?? false
    }

    func uploadArtwork(_ artwork: SDLArtwork) async throws(SDLFileError) -> SDLUploadOutcome {
        guard let manager else { throw .notConnected(name: artwork.name) }
        return try await manager.files.uploadArtwork(artwork)
    }

    func uploadFile(_ file: SDLFile) async throws(SDLFileError) -> SDLUploadOutcome {
        guard let manager else { throw .notConnected(name: file.name) }
        return try await manager.files.uploadFile(file)
    }

    func waitUntilShowable() async -> Bool {
        guard let manager else { return false }
        if manager.state != .ready {
            for await state in manager.stateChanges() where state == .ready || state == .stopped { break }
            guard manager.state == .ready else { return false }
        }
        if manager.hmiLevel == .none {
            for await level in manager.hmiLevels() where level != .none { break }
            if manager.hmiLevel == .none { return false }
        }
        if let permissions = await manager.permissions, await permissions.levels(allowing: "Show") != nil {
            guard await permissions.waitUntilAllowed("Show") else { return false }
        }
        if await manager.systemCapabilities.defaultMainWindowCapability == nil {
            guard let displays = try? await manager.systemCapabilities.subscribe(to: .displays) else { return true }
            for await _ in displays where await manager.systemCapabilities.defaultMainWindowCapability != nil { break }
        }
        return manager.state == .ready
    }
}
