import SDLConcurrency
import SDLProtocol
import SDLRPC
import Synchronization

/// OnHMIStatus of one window split into replaying streams of each part, so a reader of the
/// system context is not woken by an HMI level change and a late subscriber still gets the
/// current value.
final class WindowStatusStreams: Sendable {
    let statuses = StreamFanOut<OnHMIStatus>(bufferLimit: 32, replaysLatest: true)
    let levels = StreamFanOut<HMILevel>(bufferLimit: 32, replaysLatest: true)
    let audio = StreamFanOut<AudioStreamingState>(bufferLimit: 32, replaysLatest: true)
    let video = StreamFanOut<VideoStreamingState>(bufferLimit: 32, replaysLatest: true)
    let contexts = StreamFanOut<SystemContext>(bufferLimit: 32, replaysLatest: true)

    /// What changed, for the delegate.
    struct Changes {
        var level: (HMILevel?, HMILevel)?
        var audio: (AudioStreamingState?, AudioStreamingState)?
        var video: (VideoStreamingState?, VideoStreamingState)?
        var context: (SystemContext?, SystemContext)?
    }

    @discardableResult
    func receive(_ status: OnHMIStatus) -> Changes {
        statuses.yield(status)
        var changes = Changes()
        if levels.latest != status.hmiLevel {
            changes.level = (levels.latest, status.hmiLevel)
            levels.yield(status.hmiLevel)
        }
        if audio.latest != status.audioStreamingState {
            changes.audio = (audio.latest, status.audioStreamingState)
            audio.yield(status.audioStreamingState)
        }
        // Head units before RPC 5.0 leave it out; the spec's default is STREAMABLE.
        let videoState = status.videoStreamingState ?? .streamable
        if video.latest != videoState {
            changes.video = (video.latest, videoState)
            video.yield(videoState)
        }
        if contexts.latest != status.systemContext {
            changes.context = (contexts.latest, status.systemContext)
            contexts.yield(status.systemContext)
        }
        return changes
    }
}

/// The status streams of every window the head unit has reported on (the main window is 0),
/// created on first use so an app can subscribe to a widget before its first OnHMIStatus.
final class HMIStatusBoard: Sendable {
    private let windows = Mutex<[Int: WindowStatusStreams]>([:])

    func window(_ id: Int) -> WindowStatusStreams {
        windows.withLock { windows in
            if let existing = windows[id] { return existing }
            let created = WindowStatusStreams()
            windows[id] = created
            return created
        }
    }

    var main: WindowStatusStreams { window(0) }
}

/// For apps that prefer callbacks to streams: the manager calls these, in order, from the task
/// that reads the head unit's notifications. Every method has an empty default.
public protocol SDLManagerDelegate: AnyObject, Sendable {
    /// The manager's lifecycle state changed (connecting, registered, ready, reconnecting...).
    func manager(_ manager: SDLManager, didChangeState state: SDLManager.State) async
    /// `window` is 0 for the main window.
    func manager(_ manager: SDLManager, hmiLevelChangedFrom old: HMILevel?, to new: HMILevel, window: Int) async
    /// The app's audio streaming state changed: whether its audio is audible, attenuated or
    /// not heard.
    func manager(_ manager: SDLManager, audioStreamingStateChangedFrom old: AudioStreamingState?, to new: AudioStreamingState) async
    /// The app's video streaming state changed: whether it may stream video now.
    func manager(_ manager: SDLManager, videoStreamingStateChangedFrom old: VideoStreamingState?, to new: VideoStreamingState) async
    /// A window's system context changed (main screen, menu, voice session, alert...); `window`
    /// is 0 for the main window.
    func manager(_ manager: SDLManager, systemContextChangedFrom old: SystemContext?, to new: SystemContext, window: Int) async
}

extension SDLManagerDelegate {
    /// Does nothing unless the delegate implements it.
    public func manager(_ manager: SDLManager, didChangeState state: SDLManager.State) async {}
    /// Does nothing unless the delegate implements it.
    public func manager(_ manager: SDLManager, hmiLevelChangedFrom old: HMILevel?, to new: HMILevel, window: Int) async {}
    /// Does nothing unless the delegate implements it.
    public func manager(_ manager: SDLManager, audioStreamingStateChangedFrom old: AudioStreamingState?, to new: AudioStreamingState) async {}
    /// Does nothing unless the delegate implements it.
    public func manager(_ manager: SDLManager, videoStreamingStateChangedFrom old: VideoStreamingState?, to new: VideoStreamingState) async {}
    /// Does nothing unless the delegate implements it.
    public func manager(_ manager: SDLManager, systemContextChangedFrom old: SystemContext?, to new: SystemContext, window: Int) async {}
}
