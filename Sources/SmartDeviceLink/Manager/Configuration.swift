import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport
import Synchronization

extension SDLManager {
    /// Who the app is and how it reaches the head unit.
    public struct Configuration: Sendable {
        /// The name the head unit shows for the app (RegisterAppInterface `appName`); the OEM's
        /// policies may allow the app ID only under this name.
        public var appName: String
        /// The name on small displays (`ngnMediaScreenAppName`), at most 5 characters.
        public var shortAppName: String?
        /// The app ID the OEM's policy server knows the app by.
        public var appID: String
        /// The full app ID (RPC 5.0+); head units key apps by it when it is given.
        public var fullAppID: String?
        /// The first is the primary type; MEDIA makes it a media app.
        public var appTypes: [AppHMIType] = [.default]
        /// The language the app asks for (VR and display).
        public var language: Language = .enUs
        /// Languages the app can switch to when the head unit's differs.
        public var languagesSupported: [Language] = [.enUs]
        /// How the head unit speaks the app's name.
        public var ttsName: [TTSChunk]?
        /// Extra names the user can say to start the app by voice.
        public var vrSynonyms: [String]?
        /// Uploaded and set (SetAppIcon) while the manager starts, unless the head unit says it
        /// resumed the icon or its display shows no dynamic images. Make it persistent so the
        /// head unit keeps it across ignition cycles.
        public var appIcon: SDLArtwork?
        /// Retries and pipelining of uploads.
        public var files = SDLFileManager.Configuration()
        /// What a NAVIGATION or PROJECTION app streams: formats, sizes, frame rate, bitrate,
        /// queue (other apps ignore it).
        public var videoStreaming = SDLVideoStreamingConfiguration()
        /// Fetches what the head unit's system requests name (a cloud app's icon by URL, the
        /// lock screen's logo, policy table updates).
        public var httpClient: (any SDLHTTPClient)?
        /// When the lock screen is shown (``SDLManager/lockScreen``).
        public var lockScreen = SDLLockScreenConfiguration()
        /// Template colours while the head unit is in day mode.
        public var dayColorScheme: TemplateColorScheme?
        /// Template colours while the head unit is in night mode.
        public var nightColorScheme: TemplateColorScheme?
        /// The hash of the previous session (OnHashChange), for resumption.
        public var resumeHash: String?
        /// The lowest SDL protocol version the app accepts: below it the app ends the service
        /// right after StartServiceACK, so it never appears on the head unit.
        public var minimumProtocolVersion = SDLProtocolVersion(1)
        /// The lowest RPC version the app accepts: below it the app unregisters right after
        /// registering, so it appears on the head unit and then disappears.
        public var minimumRPCVersion = SDLSpecVersion.version(1, 0)
        /// Parameters newer than the head unit's RPC version: refused (default) or left out.
        public var newerParameterPolicy = SDLNewerParameterPolicy.refuse
        /// Sees the vehicle (from StartServiceACK on protocol 5, else the registration) and may
        /// refuse it: return false to end the session.
        public var vehicleTypeVeto: (@Sendable (VehicleType) -> Bool)?
        /// How the manager connects to the head unit: TCP, an accepted cloud connection, or a
        /// custom transport.
        public var transport: Transport
        /// Settings of the SDL protocol session: control-message timeout, encryption, frame and
        /// message size limits.
        public var session = SDLProtocolSession.Configuration()
        /// Encryption: the security managers by head-unit make, and when the RPC service is
        /// protected (guide "Encryption").
        public var encryption = SDLEncryptionConfiguration()
        /// How long an RPC waits for the head unit's response before it fails with a timeout.
        public var requestTimeout: Duration = .seconds(10)
        /// Where values other sessions of this server receive the same (capabilities,
        /// permission tables) are decoded once and shared; nil: nothing is shared, this manager
        /// decodes everything for itself.
        /// ``SDLCloudAppHost`` sets its own for the sessions it serves.
        public var sharedValues: SDLSharedValues?
        /// How often subscribed system capabilities are fetched again from head units that do
        /// not push updates (before RPC 5.1); nil: only when the app calls `update(_:)`.
        public var capabilityPollInterval: Duration? = .seconds(30)
        /// Waits between reconnection attempts after a drop; `maxAttempts` bounds them.
        public var reconnectPolicy = SDLReconnectPolicy.standard
        /// Where the manager, its sub-managers and the session log (swift-log).
        public var logger = Logger(label: "SmartDeviceLink.manager")
        /// Asked when the head unit's VR or display language differs from `language` and one of
        /// them is in `languagesSupported`: the names to register under instead (sent as
        /// ChangeRegistration), or nil to keep the registration as it is.
        public var languageUpdate: (@Sendable (_ language: Language, _ hmiDisplayLanguage: Language) -> SDLLanguageUpdate?)?

        /// A configuration for an app reached over `transport` (SDL Core's TCP port on this machine
        /// by default); set the other properties before starting the manager.
        public init(appName: String, appID: String, fullAppID: String? = nil, transport: Transport = .tcp(host: "127.0.0.1", port: 12345)) {
            self.appName = appName
            self.appID = appID
            self.fullAppID = fullAppID
            self.transport = transport
        }

        /// The registration this configuration asks for.
        var registration: RegisterAppInterface {
            RegisterAppInterface(
                syncMsgVersion: SyncMsgVersion(
                    majorVersion: MobileAPI.version.major, minorVersion: MobileAPI.version.minor, patchVersion: MobileAPI.version.patch),
                appName: appName, ttsName: ttsName, ngnMediaScreenAppName: shortAppName, vrSynonyms: vrSynonyms,
                isMediaApplication: appTypes.contains(.media), languageDesired: language, hmiDisplayLanguageDesired: language,
                appHMIType: appTypes, hashID: resumeHash, appID: appID, fullAppID: fullAppID,
                dayColorScheme: dayColorScheme, nightColorScheme: nightColorScheme)
        }
    }

    /// How to reach the head unit.
    public struct Transport: Sendable {
        let connect: @Sendable () async throws -> any SDLTransport

        /// SDL Core's TCP transport (port 12345).
        public static func tcp(host: String, port: Int) -> Transport {
            Transport { try await SDLTCPTransport.connect(host: host, port: port) }
        }

        /// A connection the head unit opened to the app (a cloud app's WebSocket), used once:
        /// after a drop the head unit may dial again, and that is a new session.
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
    /// The app's name in the new language; nil keeps the current one.
    public var appName: String?
    /// The short name for small displays in the new language; nil keeps the current one.
    public var shortAppName: String?
    /// How the head unit speaks the app's name in the new language; nil keeps the current one.
    public var ttsName: [TTSChunk]?
    /// Voice names in the new language; nil keeps the current ones.
    public var vrSynonyms: [String]?

    /// The names to register under; leave out what should stay as it is.
    public init(appName: String? = nil, shortAppName: String? = nil, ttsName: [TTSChunk]? = nil, vrSynonyms: [String]? = nil) {
        self.appName = appName
        self.shortAppName = shortAppName
        self.ttsName = ttsName
        self.vrSynonyms = vrSynonyms
    }
}
