import SDLConcurrency
import SDLProtocol
import SDLRPC

/// What the streaming, touch and haptic managers use of the manager: the main window's HMI
/// status (STREAMABLE comes with it), the clock, and the video stream's scale.
protocol SDLStreamingContext: SDLSubManagerContext {
    /// The main window's OnHMIStatus, starting with the latest, across reconnections.
    func mainWindowStatuses() -> AsyncStream<OnHMIStatus>
    /// The manager's clock (the session's).
    var clock: SDLClock { get }
    /// The video stream's accepted parameters, while it streams or is suspended.
    func videoParameters() async -> SDLVideoStreamParameters?
    /// The head unit's format for streamed audio (the registration's `pcmStreamCapabilities`).
    func pcmFormat() async -> SDLAudioFormat?
    /// The video stream's states, starting with the current one, until the manager stops.
    func videoStates() -> AsyncStream<SDLVideoStreamState>
    /// A streaming service's encryption changed (the manager's `encryptionStates()`).
    func encryptionChanged(_ state: SDLEncryptionState, of service: SDLServiceType) async
}

extension ManagerLink: SDLStreamingContext {
    func encryptionChanged(_ state: SDLEncryptionState, of service: SDLServiceType) async {
        manager?.setEncryption(state, of: service)
    }

    func mainWindowStatuses() -> AsyncStream<OnHMIStatus> {
        manager?.hmiStatuses(window: 0) ?? AsyncStream { $0.finish() }
    }

    var clock: SDLClock { manager?.configuration.session.clock ?? .continuous }

    func videoParameters() async -> SDLVideoStreamParameters? {
        await manager?.videoStreaming.acceptedParameters
    }

    func videoStates() -> AsyncStream<SDLVideoStreamState> {
        manager?.videoStreaming.states() ?? AsyncStream { $0.finish() }
    }

    func pcmFormat() async -> SDLAudioFormat? {
        // A rate or depth this library does not know (a newer spec's) is no format to convert to.
        guard let format = manager?.registerResponse?.pcmStreamCapabilities.map(SDLAudioFormat.init),
            format.sampleRate > 0, format.bitsPerSample == ._16Bit || format.bitsPerSample == ._8Bit
        else { return nil }
        return format
    }
}

extension OnHMIStatus {
    /// Whether a video app may stream: `videoStreamingState` STREAMABLE, or (head units before
    /// RPC 5.0, which do not send it) FULL or LIMITED.
    var isStreamable: Bool {
        if let state = videoStreamingState { return state == .streamable }
        return hmiLevel == .full || hmiLevel == .limited
    }

    /// Whether a navigation app may stream audio: FULL or LIMITED, and not NOT_AUDIBLE.
    var isAudible: Bool {
        (hmiLevel == .full || hmiLevel == .limited) && audioStreamingState != .notAudible
    }
}
