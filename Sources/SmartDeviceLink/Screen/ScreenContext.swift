import SDLProtocol
import SDLRPC

/// What the screen manager uses of the manager: the sub-manager context, plus the head unit's
/// display and speech capabilities, the app's files on the head unit, and the wait until the app
/// may change its screen. `ManagerLink` gives the manager's; unit tests give a fake.
protocol SDLScreenContext: SDLSubManagerContext {
    /// The first display's name, when known.
    func displayName() async -> String?
    /// The registration's speech capabilities and prerecorded sounds, when it lists them.
    func speechCapabilities() async -> (speech: [SpeechCapabilities]?, prerecorded: [PrerecordedSpeech]?)
    /// The formats the head unit can record in, when it lists them.
    func audioPassThruCapabilities() async -> [AudioPassThruCapabilities]?
    /// Calls `handler` with each notification of `functionIDs` as it is read.
    func observeNotifications(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation
    /// Whether the head unit holds a file of this name.
    func hasFile(named name: String) async -> Bool
    /// Uploads a file.
    func uploadFile(_ file: SDLFile) async throws(SDLFileError) -> SDLUploadOutcome
    /// Returns when the app may change its screen (Ready, not NONE, Show allowed, the main
    /// window known); false when the manager stopped meanwhile.
    func waitUntilShowable() async -> Bool
}

extension ManagerLink: SDLScreenContext {
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

    func observeNotifications(functionIDs: Set<UInt32>, _ handler: @escaping @Sendable (SDLIncomingRPC) -> Void) -> SDLNotificationObservation {
        manager?.observeNotifications(functionIDs: functionIDs, handler) ?? SDLNotificationObservation {}
    }

    func hasFile(named name: String) async -> Bool {
        await manager?.files.hasFile(named: name) ?? false
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
        if let permissions = manager.permissions, await permissions.levels(allowing: "Show") != nil {
            guard await permissions.waitUntilAllowed("Show") else { return false }
        }
        if await manager.systemCapabilities.defaultMainWindowCapability == nil {
            guard let displays = try? await manager.systemCapabilities.subscribe(to: .displays) else { return true }
            for await _ in displays where await manager.systemCapabilities.defaultMainWindowCapability != nil { break }
        }
        return manager.state == .ready
    }
}
