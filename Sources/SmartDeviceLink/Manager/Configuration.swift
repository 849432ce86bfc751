import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import Synchronization

extension SDLManager {
    /// Who the app is and how it reaches the head unit.
    public struct Configuration: Sendable {
        public var appName: String
        /// The name on small displays (`ngnMediaScreenAppName`), at most 5 characters.
        public var shortAppName: String?
        public var appID: String
        public var fullAppID: String?
        /// The first is the primary type; MEDIA makes it a media app.
        public var appTypes: [AppHMIType] = [.default]
        /// The language the app asks for (VR and display).
        public var language: Language = .enUs
        /// Languages the app can switch to when the head unit's differs.
        public var languagesSupported: [Language] = [.enUs]
        public var ttsName: [TTSChunk]?
        public var vrSynonyms: [String]?
        /// Uploaded and set (SetAppIcon) while the manager starts, unless the head unit says it
        /// resumed the icon or its display shows no dynamic images. Make it persistent so the
        /// head unit keeps it across ignition cycles.
        public var appIcon: SDLArtwork?
        /// Retries and pipelining of uploads.
        public var files = SDLFileManager.Configuration()
        /// Fetches what the head unit's system requests name (a cloud app's icon by URL).
        public var httpClient: (any SDLHTTPClient)?
        public var dayColorScheme: TemplateColorScheme?
        public var nightColorScheme: TemplateColorScheme?
        /// The hash of the previous session (OnHashChange), for resumption.
        public var resumeHash: String?
        /// Below these the app ends the session (MANAGERS.md §1a).
        public var minimumProtocolVersion = SDLProtocolVersion(1)
        public var minimumRPCVersion = SDLSpecVersion.version(1, 0)
        /// Parameters newer than the head unit's RPC version: refused (default) or left out.
        public var newerParameterPolicy = SDLNewerParameterPolicy.refuse
        /// Sees the vehicle (from StartServiceACK on protocol 5, else the registration) and may
        /// refuse it: return false to end the session.
        public var vehicleTypeVeto: (@Sendable (VehicleType) -> Bool)?
        public var transport: Transport
        public var session = SDLProtocolSession.Configuration()
        public var requestTimeout: Duration = .seconds(10)
        /// How often subscribed system capabilities are fetched again from head units that do
        /// not push updates (before RPC 5.1); nil: only when the app calls `update(_:)`.
        public var capabilityPollInterval: Duration? = .seconds(30)
        /// Waits between reconnection attempts after a drop; `maxAttempts` bounds them.
        public var reconnectPolicy = SDLReconnectPolicy.standard
        public var logger = Logger(label: "SmartDeviceLink.manager")
        /// Asked when the head unit's VR or display language differs from `language` and one of
        /// them is in `languagesSupported`: the names to register under instead (sent as
        /// ChangeRegistration), or nil to keep the registration as it is.
        public var languageUpdate: (@Sendable (_ language: Language, _ hmiDisplayLanguage: Language) -> SDLLanguageUpdate?)?

        public init(appName: String, appID: String, fullAppID: String? = nil, transport: Transport = .tcp(host: "127.0.0.1", port: 12345)) {
            self.appName = appName
            self.appID = appID
            self.fullAppID = fullAppID
            self.transport = transport
        }

        /// The registration this configuration asks for.
        var registration: RegisterAppInterface {
            RegisterAppInterface(
                syncMsgVersion: SyncMsgVersion(majorVersion: MobileAPI.version.major, minorVersion: MobileAPI.version.minor, patchVersion: MobileAPI.version.patch),
                appName: appName, ttsName: ttsName, ngnMediaScreenAppName: shortAppName, vrSynonyms: vrSynonyms,
                isMediaApplication: appTypes.contains(.media), languageDesired: language, hmiDisplayLanguageDesired: language,
                appHMIType: appTypes, hashID: resumeHash, appID: appID, fullAppID: fullAppID,
                dayColorScheme: dayColorScheme, nightColorScheme: nightColorScheme)
        }
    }

    /// The app's names for another language.
    /// How to reach the head unit.
    public struct Transport: Sendable {
        let connect: @Sendable () async throws -> any SDLTransport

        /// SDL Core's TCP transport (port 12345).
        public static func tcp(host: String, port: Int) -> Transport {
            Transport { try await SDLTCPTransport.connect(host: host, port: port) }
        }

        /// A connection the head unit opened to the app (a cloud app's WebSocket), used once:
        /// after a drop the head unit dials again, and that is a new session.
        public static func accepted(_ transport: any SDLTransport) -> Transport {
            let unused = Mutex<(any SDLTransport)?>(transport)
            return Transport {
                guard let transport = unused.withLock({ $0.take() }) else { throw SDLTransportError.closed }
                return transport
            }
        }

        /// Any transport: an in-memory pair to an emulator, a WebSocket...
        public static func custom(_ connect: @escaping @Sendable () async throws -> any SDLTransport) -> Transport {
            Transport(connect: connect)
        }
    }
}

/// What the app registers under in another language (ChangeRegistration).
public struct SDLLanguageUpdate: Sendable, Hashable {
    public var appName: String?
    public var shortAppName: String?
    public var ttsName: [TTSChunk]?
    public var vrSynonyms: [String]?

    public init(appName: String? = nil, shortAppName: String? = nil, ttsName: [TTSChunk]? = nil, vrSynonyms: [String]? = nil) {
        self.appName = appName
        self.shortAppName = shortAppName
        self.ttsName = ttsName
        self.vrSynonyms = vrSynonyms
    }
}
