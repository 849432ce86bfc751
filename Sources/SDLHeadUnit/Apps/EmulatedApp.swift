import SDLProtocol
import SDLRPC
import SDLRuntime

/// What the head unit keeps for one registered app, as SDL Core does. One app's state never
/// refers to another's.
struct EmulatedApp: Sendable {
    let appID: String
    var name: String
    let connectionID: Int
    var isMedia: Bool
    var appTypes: [AppHMIType]
    /// Voice synonyms and TTS name: another app may not register a name among them.
    var vrSynonyms: [String] = []
    var ttsName: [String] = []
    var rpcVersion: SyncMsgVersion
    var language: Language
    var hmiLevel: HMILevel = .none
    var audioStreamingState: AudioStreamingState = .notAudible
    var videoStreamingState: VideoStreamingState = .notStreamable
    var systemContext: SystemContext = .main
    /// What the app put on its screen: text fields, graphics, soft buttons, template, colours,
    /// media clock and global properties, merged request after request as the HMI shows them.
    var screen = ScreenState()
    var menu = MenuState()
    var choiceSets: [Int: SDLJSONValue] = [:]
    var buttonSubscriptions: Set<ButtonName> = []
    var capabilitySubscriptions: Set<SystemCapabilityType> = []
    /// Widgets the app created (CreateWindow), by window ID.
    var windows: [Int: Widget] = [:]
    /// What is on top of the app's screen and waits for the user, if anything.
    var interaction: PendingInteraction?
    /// What the driver typed so far on the keyboard on top.
    var keyboardEntry: String?
    /// The app's menu is open (ShowAppMenu, or the driver opened it): system context MENU.
    var menuOpen = false
    /// The submenu the driver is in while the menu is open (nil: its top level).
    var openSubmenuID: Int?
    /// The last `OnHashChange` sent: the key for resumption after a drop.
    var hashID: String?
    var hashCounter = 0
    var limits = RequestLimits()
    /// SDL Core grants groups beyond pre-data-consent once its policy update is done; the
    /// emulator does that at the app's first activation.
    var policyUpdated = false
    /// The policy update was handed to the app (a policy server is configured); it completes
    /// when the app sends the server's answer back.
    var policyUpdateRequested = false
    /// The Speak being spoken, answered when `speakingTime` has passed.
    var speech: PendingSpeech?
    /// The audio pass-thru capturing now (its interaction is on top).
    var audioCapture: AudioCapture?
    /// Bytes of audio sent in OnAudioPassThru since registration.
    var audioPassThruBytesSent = 0
    /// Numbers dialed with DialNumber, stripped as the phone got them.
    var dialedNumbers: [String] = []
    /// SendLocation requests, as JSON.
    var sentLocations: [SDLJSONValue] = []
    /// SubscribeWayPoints: the app hears OnWayPointChange.
    var subscribedToWayPoints = false

    /// The streaming services (video, audio) the app runs now.
    var streamingServices: Set<SDLServiceType> = []
    /// The focusable rectangles of the app's video (SendHapticData).
    var hapticRects: [HapticRect] = []
    /// What a navigation app shows of its route (ShowConstantTBT, AlertManeuver, UpdateTurnList).
    var turnByTurn = TurnByTurnState()
    /// What the app streamed, by service number (10 audio, 11 video).
    var streamStatistics: [Int: SDLStreamStatistics] = [:]
    /// Since when the app has been sending on a service it may no longer stream on.
    var notStreamableSince: [Int: Duration] = [:]
    /// The video service's format and depacketiser, while it runs.
    var video: VideoReception?

    /// Whether SDL Core lets the app play audio (media, navigation, communication; a PROJECTION
    /// app only when it is media too).
    var isAudioApp: Bool {
        isMedia || appTypes.contains(.navigation) || appTypes.contains(.communication)
    }
}

/// A widget window: its name and its own HMI level (NONE until the HMI shows it).
struct Widget: Sendable {
    var name: String
    var level: HMILevel = .none
}

/// The menu tree: commands and sub-menus by ID, with SDL Core's ID rules.
struct MenuState: Sendable {
    var commands: [Int: SDLJSONValue] = [:]
    var subMenus: [Int: SDLJSONValue] = [:]
    /// Commands in the order they were added (positions are the HMI's business).
    var commandOrder: [Int] = []
    var subMenuOrder: [Int] = []
}

/// The app's screen as the HMI would show it.
struct ScreenState: Sendable {
    /// Show's fields, merged: a field absent from a Show keeps its value, `""` clears it.
    var show: [String: SDLJSONValue] = [:]
    var template: SDLJSONValue = .object([.init(key: "template", value: .string("DEFAULT"))])
    var mediaClock: SDLJSONValue?
    /// The clock the last SetMediaClockTimer set running.
    var runningClock: MediaClock?
    var globalProperties: [String: SDLJSONValue] = [:]
}

/// Something on top that waits for the user or its timeout.
struct PendingInteraction: Sendable {
    enum Kind: String, Sendable {
        case alert, subtleAlert, performInteraction, slider, scrollableMessage, audioPassThru
    }

    let kind: Kind
    /// The request it answers.
    let correlationID: UInt32
    let functionID: UInt32
    let cancelID: Int?
    /// The request's parameters, for the control API and the answer (choice IDs, positions).
    let request: SDLJSONValue
    /// Identifies this interaction for its timeout, so a stale timer cannot end a newer one.
    let serial: Int
    /// Why a successful end is answered WARNINGS instead (a prompt with an unsupported type).
    var speechWarning: String?
    /// The Core half's requests this interaction answers for the built-in HMI
    /// (`UI.PerformInteraction`, `VR.PerformInteraction`...), by method: their request IDs.
    var hmiRequests: [String: Int] = [:]
    /// A connected HMI shows it and answers it (an audio pass-thru whose recording the Core
    /// half runs): its end answers nothing and leaves the system context to the HMI.
    var answeredByHMI = false

    /// Whether the driver has a keyboard: a KEYBOARD interaction, or a choice list or tiles with
    /// the search field (LIST_WITH_SEARCH, ICON_WITH_SEARCH).
    var hasKeyboard: Bool {
        guard kind == .performInteraction, case .string(let layout)? = request["interactionLayout"] else { return false }
        return layout == "KEYBOARD" || layout == "LIST_WITH_SEARCH" || layout == "ICON_WITH_SEARCH"
    }
}
