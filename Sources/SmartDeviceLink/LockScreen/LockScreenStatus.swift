import SDLRPC

/// Whether the head unit's rules want the phone locked now (the guide's lock screen status).
public enum SDLLockScreenStatus: String, Sendable, Hashable {
    /// No lock screen: the app is not on the head unit's screen (NONE), or in the background
    /// without the user ever having opened it.
    case off
    /// The driver is known not to be distracted: a lock screen may be shown.
    case optional
    /// The app is in use on the head unit while the car may be moving: show the lock screen.
    case required
}

/// When the app shows its lock screen (the guide's `displayMode`).
public struct SDLLockScreenConfiguration: Sendable, Hashable {
    /// The lock screen's policy.
    public enum DisplayMode: String, Sendable, Hashable {
        /// Never: the app draws its own, from ``SDLLockScreenState/status``.
        case never
        /// Only when the status is required.
        case requiredOnly
        /// When the status is required or optional.
        case optionalOrRequired
        /// From connection on, whatever the status.
        case always
    }

    /// When ``SDLLockScreenState/isShown`` is true; `.requiredOnly` by default, as in the iOS library.
    public var displayMode: DisplayMode
    /// Lets the user dismiss the lock screen when the head unit allows it (RPC 6.0+,
    /// OnDriverDistraction `lockScreenDismissalEnabled`: a passenger is using the phone).
    public var enableDismissGesture: Bool
    /// Downloads the head unit's logo (OnSystemRequest LOCK_SCREEN_ICON_URL) through the
    /// configured `SDLHTTPClient` into ``SDLLockScreenState/oemIcon``.
    public var showDeviceLogo: Bool

    /// A configuration; by default shown when required, dismissible when the head unit says so,
    /// with the head unit's logo.
    public init(displayMode: DisplayMode = .requiredOnly, enableDismissGesture: Bool = true, showDeviceLogo: Bool = true) {
        self.displayMode = displayMode
        self.enableDismissGesture = enableDismissGesture
        self.showDeviceLogo = showDeviceLogo
    }

    /// No lock screen from the library.
    public static let disabled = SDLLockScreenConfiguration(displayMode: .never, enableDismissGesture: false, showDeviceLogo: false)
}

/// What the lock screen should look like now.
public struct SDLLockScreenState: Sendable, Hashable {
    /// The head unit's rules.
    public var status: SDLLockScreenStatus
    /// Whether to show the lock screen: the status read through the display mode, and not
    /// dismissed by the user.
    public var isShown: Bool
    /// Whether the user may swipe it away (the head unit allows it and the configuration too).
    public var isDismissible: Bool
    /// The text to show with the dismiss gesture (OnDriverDistraction `lockScreenDismissalWarning`).
    public var dismissalWarning: String?
    /// The head unit's logo (PNG or JPEG as served), once downloaded.
    public var oemIcon: [UInt8]?

    /// Before any connection: off, not shown.
    public static let initial = SDLLockScreenState(status: .off, isShown: false, isDismissible: false, dismissalWarning: nil, oemIcon: nil)
}

/// The iOS library's lock screen rules as a value: the main window's HMI level and the driver
/// distraction notifications in, the state out.
struct LockScreenRules: Sendable {
    let configuration: SDLLockScreenConfiguration
    private(set) var hmiLevel: HMILevel?
    /// The user brought the app to FULL or LIMITED since it was last in NONE.
    private(set) var userSelected = false
    private var distraction: OnDriverDistraction?
    private var dismissedByUser = false
    private var connected = false
    private(set) var oemIcon: [UInt8]?

    init(configuration: SDLLockScreenConfiguration) {
        self.configuration = configuration
    }

    var state: SDLLockScreenState {
        let status = self.status
        let shown: Bool
        switch configuration.displayMode {
        case .never: shown = false
        case .always: shown = connected
        case .requiredOnly: shown = status == .required && !dismissedByUser
        case .optionalOrRequired: shown = status != .off && !dismissedByUser
        }
        let dismissible = configuration.enableDismissGesture && distraction?.lockScreenDismissalEnabled == true && status != .off
        return SDLLockScreenState(
            status: status, isShown: shown, isDismissible: dismissible,
            dismissalWarning: dismissible ? distraction?.lockScreenDismissalWarning : nil, oemIcon: oemIcon)
    }

    var status: SDLLockScreenStatus {
        // Without a word from the head unit, assume the driver may be distracted.
        let notDistracted = distraction.map { $0.state == .ddOff } ?? false
        switch hmiLevel {
        case .full?, .limited?: return notDistracted ? .optional : .required
        case .background?: return userSelected ? (notDistracted ? .optional : .required) : .off
        default: return .off
        }
    }

    mutating func connectionStarted() {
        connected = true
    }

    mutating func hmiLevelChanged(_ level: HMILevel) {
        hmiLevel = level
        if level == .full || level == .limited { userSelected = true }
        if level == .none { userSelected = false }
        if status == .off { dismissedByUser = false }
    }

    mutating func driverDistraction(_ notification: OnDriverDistraction) {
        // A new word from the head unit (the car moved off again) brings a dismissed lock screen back.
        if notification.state != distraction?.state { dismissedByUser = false }
        distraction = notification
    }

    /// The user swiped the lock screen away; false when it may not be dismissed now.
    mutating func dismiss() -> Bool {
        guard state.isDismissible else { return false }
        dismissedByUser = true
        return true
    }

    mutating func iconDownloaded(_ bytes: [UInt8]) {
        oemIcon = bytes
    }

    /// The connection ended: nothing is known of the next head unit's rules (its logo may differ too).
    mutating func connectionEnded() {
        self = LockScreenRules(configuration: configuration)
    }
}
