import SDLRPC
import SDLRuntime

/// An app as the head unit lists it.
public struct SDLEmulatedAppInfo: Sendable, Hashable {
    /// The app's `appID` from RegisterAppInterface: the key every control method takes.
    public var appID: String
    /// The app's `appName`, or the one its latest ChangeRegistration gave.
    public var name: String
    /// The HMI level of the app's main window now.
    public var hmiLevel: HMILevel
    /// What covers the app's main window now: MAIN, MENU (its menu is open), ALERT (an alert or
    /// subtle alert) or HMI_OBSCURED (another popup).
    public var systemContext: SystemContext
    /// The connection (one per transport) the app registered on.
    public var connection: Int
    /// The app's HMI types from RegisterAppInterface (NAVIGATION, MEDIA...).
    public var appTypes: [AppHMIType] = []
    /// Whether the app registered as a media app.
    public var isMedia = false
}

/// Something that happened on the head unit, for tests and tools to wait for.
public enum SDLHeadUnitEvent: Sendable, Hashable {
    /// An app registered: RegisterAppInterface was answered with `success=true`.
    case appRegistered(appID: String)
    /// The app started a streaming service (10: audio, 11: video).
    case streamingStarted(appID: String, service: Int)
    /// A streaming service of the app ended (by the app, or by the head unit when it went to NONE).
    case streamingEnded(appID: String, service: Int)
    /// An app is gone: it unregistered, its connection ended, or the head unit ended it (a
    /// language change).
    case appUnregistered(appID: String)
    /// A request of a registered app arrived (before its answer).
    case requestReceived(appID: String, function: String)
    /// The app's HMI level changed; the app hears it in an OnHMIStatus.
    case hmiLevelChanged(appID: String, HMILevel)
    /// Something now waits for the user on the app's screen.
    case interactionStarted(appID: String, kind: String)
    /// What covers the app's main window changed (its menu opened or closed, an interaction
    /// began or ended); the app hears it in an OnHMIStatus.
    case systemContextChanged(appID: String, SystemContext)
    /// The driver changed vehicle data (`items` are the data item names); subscribed apps
    /// heard it in OnVehicleData.
    case vehicleDataChanged(items: [String])
    /// Driver distraction went on or off; every app heard it in OnDriverDistraction.
    case driverDistractionChanged(on: Bool)
    /// The app subscribed to a type of app service: the provider answered its GetAppServiceData
    /// with `subscribe` successfully; OnAppServiceData of that type reaches it from now on.
    case appServiceSubscribed(appID: String, serviceType: String)
    /// An HMI connected over the HMI API said OnReady and answered the start-up questions: apps
    /// are served from now on (see `Configuration.waitsForHMI`).
    case hmiReady
}

extension SDLHeadUnitEvent {
    /// The event as JSON, as the control API's event stream (`GET /events`) sends it:
    /// `{"event": "hmiLevelChanged", "appID": "...", "hmiLevel": "FULL"}`.
    public var json: SDLJSONValue {
        func object(_ event: String, _ appID: String, _ more: [SDLJSONValue.Member] = []) -> SDLJSONValue {
            .object([.init(key: "event", value: .string(event)), .init(key: "appID", value: .string(appID))] + more)
        }
        switch self {
        case .appRegistered(let appID): return object("appRegistered", appID)
        case .streamingStarted(let appID, let service): return object("streamingStarted", appID, [.init(key: "service", value: .integer(service))])
        case .streamingEnded(let appID, let service): return object("streamingEnded", appID, [.init(key: "service", value: .integer(service))])
        case .appUnregistered(let appID): return object("appUnregistered", appID)
        case .requestReceived(let appID, let function): return object("requestReceived", appID, [.init(key: "function", value: .string(function))])
        case .hmiLevelChanged(let appID, let level): return object("hmiLevelChanged", appID, [.init(key: "hmiLevel", value: .string(level.rawValue))])
        case .interactionStarted(let appID, let kind): return object("interactionStarted", appID, [.init(key: "kind", value: .string(kind))])
        case .systemContextChanged(let appID, let context):
            return object("systemContextChanged", appID, [.init(key: "systemContext", value: .string(context.rawValue))])
        case .vehicleDataChanged(let items):
            return .object([.init(key: "event", value: .string("vehicleDataChanged")), .init(key: "items", value: .array(items.map(SDLJSONValue.string)))])
        case .driverDistractionChanged(let on):
            return .object([.init(key: "event", value: .string("driverDistractionChanged")), .init(key: "on", value: .bool(on))])
        case .appServiceSubscribed(let appID, let serviceType):
            return object("appServiceSubscribed", appID, [.init(key: "serviceType", value: .string(serviceType))])
        case .hmiReady:
            return .object([.init(key: "event", value: .string("hmiReady"))])
        }
    }
}
