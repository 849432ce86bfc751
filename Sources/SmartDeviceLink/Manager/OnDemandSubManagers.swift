import SDLRPC

/// A sub-manager the manager links to itself when it makes it.
protocol SDLLinkedSubManager: Actor {
    nonisolated var link: ManagerLink { get }
}

extension SDLVehicleDataManager: SDLLinkedSubManager {}
extension SDLButtonManager: SDLLinkedSubManager {}
extension SDLAppServiceManager: SDLLinkedSubManager {}
extension SDLScreenManager: SDLLinkedSubManager {}
extension SDLNavigationManager: SDLLinkedSubManager {}
extension SDLPhoneManager: SDLLinkedSubManager {}
extension SDLRemoteControlManager: SDLLinkedSubManager {}
extension SDLVideoStreamingManager: SDLLinkedSubManager {}
extension SDLAudioStreamingManager: SDLLinkedSubManager {}
extension SDLTouchManager: SDLLinkedSubManager {}
extension SDLHapticManager: SDLLinkedSubManager {}

/// The sub-managers an app may never touch, made on first use: a cloud server holds thousands
/// of managers, and one that only sends RPCs and uploads files would otherwise carry a screen
/// queue, streaming state machines and their streams per vehicle.
///
/// A sub-manager made late joins the run where it is. Made before Ready, it is in the list the
/// next Ready hands its hooks to. Made while a connection is Ready, it gets no `connectionReady`
/// for that connection: a new sub-manager has nothing to renew, and what it needs of the
/// connection it is given when made (`readyConnection`), so no hook races the app's first call.
/// Made after the run ended, it is stopped like the others were.
struct OnDemandSubManagers {
    var vehicleData: SDLVehicleDataManager?
    var buttons: SDLButtonManager?
    var appServices: SDLAppServiceManager?
    var screen: SDLScreenManager?
    var navigation: SDLNavigationManager?
    var phone: SDLPhoneManager?
    var remoteControl: SDLRemoteControlManager?
    var videoStreaming: SDLVideoStreamingManager?
    var audioStreaming: SDLAudioStreamingManager?
    var touch: SDLTouchManager?
    var haptics: SDLHapticManager?

    /// The connection that is Ready now, from Ready until it ends.
    var readyConnection: SDLConnectionContext?
    /// The run ended: a sub-manager made now is stopped at once.
    var runEnded = false

    /// Those made so far that the run loop drives, in the order it calls their hooks.
    var hooked: [any SDLSubManager] {
        let all: [(any SDLSubManager)?] = [
            vehicleData, buttons, appServices, screen, navigation, remoteControl, videoStreaming, audioStreaming, touch, haptics,
        ]
        return all.compactMap { $0 }
    }
}
