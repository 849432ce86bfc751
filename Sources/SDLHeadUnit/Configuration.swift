import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

extension SDLHeadUnitEmulator {
    /// How the emulated head unit behaves: what it announces, its policy, car and limits, and how
    /// fast it and its driver act. The defaults behave like SDL Core 8.2 with a stand-in HMI that
    /// accepts everything, so most tests need none of them.
    public struct Configuration: Sendable {
        /// The highest protocol version the head unit speaks (SDL Core 8.2: 5.4.0).
        public var protocolVersion = SDLProtocolVersion.latest
        /// Payload bytes per frame, sent as `mtu`.
        public var mtu = 131_072
        /// The first connection's session hash ID, sent as `hashId` in the RPC StartServiceACK (SDL
        /// Core 8.2 sent 65537, 0x00010001: connection handle 1, session 1); each later connection
        /// gets the next value, as Core's connection handle counts up. A protocol-4 app gets it as
        /// the ACK's 4-byte payload. EndService(RPC) with another hash is refused.
        public var hashID: Int32 = 65_537
        /// The RegisterAppInterface response (`success` and `resultCode` are set by the emulator).
        public var capabilities: SDLJSONValue
        /// How long after registering an app is activated (OnHMIStatus FULL); nil: it stays in
        /// NONE until `activate(appID:)`.
        public var activationDelay: Duration? = .zero
        /// The head unit's language (VR and display).
        public var language: Language = .enUs
        /// Time for activation delays and interaction timeouts; tests inject a clock they advance.
        public var clock = SDLClock.continuous
        /// Called with one JSON object per frame and per message, both directions.
        public var log: (@Sendable (SDLJSONValue) -> Void)?
        /// RPCs kept per app for `recordedRPCs(appID:)` and the control API; older ones drop.
        public var recordLimit = 10_000
        /// Bytes each app may store with PutFile (`spaceAvailable` counts down from it).
        public var fileQuota = 100 * 1024 * 1024
        /// Where emulated head units of one process (a fleet) hold the files they all received
        /// the same once; nil: each holds its own.
        public var sharedFileBytes: SDLSharedFileBytes?
        /// Sent in OnSystemRequest(LOCK_SCREEN_ICON_URL) after registration, as SDL Core does.
        public var lockScreenIconURL = "https://raw.githubusercontent.com/smartdevicelink/sdl_ios/master/SmartDeviceLink/Assets/sdl_logo_black.png"
        /// Dynamic menu updates (RPC 7.0 `dynamicUpdateCapabilities`): when true, windows announce
        /// on-demand submenus and menu icons (`cmdIcon`, `subMenuIcon`); the driver opening a
        /// submenu with nothing in it sends OnUpdateSubMenu, and a menu level that shows an icon
        /// the app never uploaded sends OnUpdateFile for it. false (SDL Core 8.2 with its stand-in
        /// HMI): neither, and apps send their whole menu.
        public var dynamicMenuUpdates = false
        /// true (SDL's own HMI, sdl_hmi, released with Core 8.2): each app type has its templates,
        /// announced to it and enforced: DEFAULT and NON-MEDIA for all, MEDIA and ONSCREEN_PRESETS
        /// for media apps, NAV_FULLSCREEN_MAP for NAVIGATION and PROJECTION, WEB_VIEW for WEB_VIEW;
        /// another is REJECTED, "The requested layout is not supported for this app type".
        /// false (Core's stand-in HMI, `--sdl-core-defaults`): any template the display lists.
        public var templatesByAppType = true
        /// Which RPCs and vehicle-data items apps may use at each HMI level.
        public var policy = SDLHeadUnitPolicy.sdlCoreDefault
        /// The simulated vehicle's values.
        public var vehicle = SDLSimulatedVehicle()
        /// A policy server: when set, the policy update at an app's first activation goes
        /// through the app (OnSystemRequest PROPRIETARY to this URL) as on SDL Core, and vehicle
        /// data is granted only once the app brings the server's answer back. When nil the
        /// emulator grants the update itself.
        public var policyServerURL: String?
        /// How long the head unit takes to speak a Speak request before answering it, on `clock`.
        /// `.zero`: answered at once, as SDL Core with a stand-in HMI does.
        public var speakingTime: Duration = .zero
        /// Emulated time between two OnAudioPassThru chunks of a PerformAudioPassThru; each chunk
        /// carries exactly this interval's samples.
        public var audioPassThruChunkInterval: Duration = .milliseconds(100)
        /// Whether a phone is paired over Bluetooth; without one DialNumber is REJECTED.
        public var phoneConnected = true
        /// The driver's answer to GetInteriorVehicleDataConsent, until `setRemoteControlConsent(_:)`.
        public var remoteControlConsent = true
        /// System capabilities the HMI cannot give: GetSystemCapability answers DATA_NOT_AVAILABLE
        /// and no OnSystemCapabilityUpdated is sent for them. SDL Core 8.2 with its stand-in HMI
        /// answers DISPLAYS this way, so apps must fall back to the registration's
        /// `displayCapabilities`.
        public var unavailableCapabilities: Set<SystemCapabilityType> = []
        /// SDL Core's order of start-up: apps' connections are not served (their StartService
        /// goes unanswered) until an HMI connected over the HMI API (`serveHMI`) has said
        /// `BasicCommunication.OnReady` and answered what the emulator asks it then. Set by
        /// `sdl headunit --hmi-port`; false: apps are served at once, by the built-in HMI.
        public var waitsForHMI = false
        /// How long an HMI has to answer a request before the app is answered GENERIC_ERROR (SDL
        /// Core's `DefaultTimeout`, 10 s); `BasicCommunication.OnResetTimeout` from the HMI starts it again.
        public var hmiTimeout: Duration = .seconds(10)
        /// How long apps wait, after the HMI's OnReady, for its answers to the start-up questions
        /// before they are served with what it has answered so far (sdl_hmi never answers
        /// `RC.GetCapabilities` outside its RC mode; Core serves apps meanwhile too).
        public var hmiStartUpTimeout: Duration = .seconds(2)
        /// Where app files shown through an HMI are written, so the HMI loads them by path (SDL
        /// Core's `AppStorageFolder`); nil: the HMI gets the file names only.
        public var hmiFileFolder: String?
        /// Where a connected HMI plays an app's stream (`Navigation.StartStream`'s `url`), by app ID
        /// and service (11 video, 10 audio); nil gives SDL Core's default socket URLs
        /// (`http://127.0.0.1:5050` and `:5080`). `sdl headunit` gives its control API's
        /// `/apps/{appID}/video`.
        public var hmiStreamURL: (@Sendable (_ appID: String, _ service: Int) -> String)?
        /// The VIDEO_STREAMING capability (GetSystemCapability) and what StartService(video)
        /// accepts: its `supportedFormats`. By default SDL Core 8.2's: 800×380 preferred, 20,000
        /// kbps, 15 fps, RAW/H264, RTP/H264, RTSP/Theora, RTMP/VP8, WEBM/VP9, haptic data
        /// supported, 8", 96 ppi, scale 1, and seven more resolutions.
        public var videoStreaming: VideoStreamingCapability = Self.sdlCoreVideoStreaming

        /// SDL Core 8.2's default VIDEO_STREAMING capability. The seven additional resolutions
        /// are the emulator's choice (smaller and wider screens); Core's count, not its values.
        public static var sdlCoreVideoStreaming: VideoStreamingCapability {
            let formats = [("RAW", "H264"), ("RTP", "H264"), ("RTSP", "Theora"), ("RTMP", "VP8"), ("WEBM", "VP9")].map {
                VideoStreamingFormat(protocol: VideoStreamingProtocol(rawValue: $0.0), codec: VideoStreamingCodec(rawValue: $0.1))
            }
            let additional = [(1280, 720), (1024, 600), (960, 540), (800, 480), (640, 480), (480, 320), (320, 200)].map { width, height in
                VideoStreamingCapability(
                    preferredResolution: ImageResolution(resolutionWidth: width, resolutionHeight: height), maxBitrate: 20_000,
                    supportedFormats: formats, hapticSpatialDataSupported: true, diagonalScreenSize: 8, pixelPerInch: 96, scale: 1, preferredFPS: 15)
            }
            return VideoStreamingCapability(
                preferredResolution: ImageResolution(resolutionWidth: 800, resolutionHeight: 380), maxBitrate: 20_000, supportedFormats: formats,
                hapticSpatialDataSupported: true, diagonalScreenSize: 8, pixelPerInch: 96, scale: 1, preferredFPS: 15,
                additionalVideoStreamingCapabilities: additional)
        }

        /// The HMI's answer to SDL Core's Navigation.SetVideoConfig for a StartService(video)
        /// whose format the capability lists: the names of the parameters it refuses
        /// (`videoProtocol`, `videoCodec`, `width`, `height`), or nil to accept. The StartServiceNAK
        /// then carries them as `rejectedParams`, and the app goes to NONE, as on SDL Core. By
        /// default every listed format and any size is accepted, as SDL Core's stand-in HMI does.
        public var videoConfigurationRefusal: (@Sendable (SDLControlPayload) -> [String]?)?

        /// The head unit's security manager: makes the TLS client that runs the handshake with an
        /// app and checks its certificate (the app's ID given, as its serialNumber must be). nil:
        /// no security manager, so a protected RPC service is refused and a protected video or
        /// audio service starts in plain text. `sdl headunit --security` sets one from `SDLTLS`.
        public var security: (@Sendable (_ appID: String) throws -> any SDLSecurityProvider)?

        /// Whether the HMI has told the security manager its system time (SDL Core waits for
        /// BasicCommunication.OnSystemTimeReady to check certificate dates). false: every
        /// protected StartService is refused with "System time provider is not ready" until
        /// `setSystemTimeReady(true)`.
        public var systemTimeReady = true

        /// Issues an app certificate (PEM certificate and key) signed by the security manager's CA,
        /// for `POST /security/certificates`: a test CA hands developers certificates. nil: the
        /// route answers 404.
        public var certificateIssuer: (@Sendable (_ appID: String) throws -> (certificate: String, privateKey: String))?

        /// Receives each app's stream as the head unit's consumer would (video as H.264
        /// Annex-B, RTP depacketised; audio as sent): `sdl headunit --record-streams` writes
        /// it to files. Called on the emulator's executor; keep it short.
        public var streamSink: (@Sendable (SDLStreamChunk) -> Void)?

        /// SDL Core 8.2's defaults; `capabilities` replaces the RegisterAppInterface response (nil:
        /// `defaultCapabilities`), to emulate another display, other buttons or other languages.
        public init(capabilities: SDLJSONValue? = nil) {
            self.capabilities = capabilities ?? Self.defaultCapabilities
        }

        /// SDL Core 8.2 as its default configuration leaves it, for checking an app against what a
        /// stock Core announces rather than the emulator's fuller defaults: speech TEXT only
        /// (`speechCapabilities`), no DISPLAYS capability (GetSystemCapability answers
        /// DATA_NOT_AVAILABLE, so apps use the registration's legacy `displayCapabilities`), and
        /// `imageFields` without `imageTypeSupported` but for `locationImage` and `alertIcon`, as
        /// Core sends them (against the spec).
        /// `sdl headunit --sdl-core-defaults`.
        public static var sdlCoreDefaults: Configuration {
            var configuration = Configuration()
            configuration.unavailableCapabilities = [.displays]
            configuration.templatesByAppType = false
            guard case .object(var members) = configuration.capabilities else { return configuration }
            for index in members.indices {
                switch members[index].key {
                case "speechCapabilities":
                    members[index].value = .array([.string("TEXT")])
                case "displayCapabilities":
                    guard case .object(var display) = members[index].value,
                        let fields = display.firstIndex(where: { $0.key == "imageFields" }), case .array(let images) = display[fields].value
                    else { continue }
                    display[fields].value = .array(
                        images.map { field in
                            // Core keeps it for these two only.
                            guard case .object(let parts) = field, field["name"] != .string("locationImage"), field["name"] != .string("alertIcon") else {
                                return field
                            }
                            return .object(parts.filter { $0.key != "imageTypeSupported" })
                        })
                    members[index].value = .object(display)
                default: continue
                }
            }
            configuration.capabilities = .object(members)
            return configuration
        }

        /// The RegisterAppInterface response SDL Core 8.2.0 sent in a recorded session: a generic
        /// 800×350 display with 19 templates, presets, media buttons, speech, two audio pass-thru
        /// formats and every HMI capability. Core left `imageTypeSupported` out of most `imageFields`
        /// against the spec; here it is filled in so the response is valid.
        public static var defaultCapabilities: SDLJSONValue {
            (try? SDLJSONValue(parsing: DefaultCapabilities.registerAppInterfaceResponse)) ?? .object([])
        }
    }
}

extension SDLHeadUnitEmulator.Configuration {
    /// The head unit's end of the protocol for one session: this configuration's version, MTU
    /// and protection, and the vehicle SDL Core reports in the RPC StartServiceACK.
    func sessionSettings(sessionID: UInt8, hashID: Int32, authToken: String?) -> SDLSessionStateMachine.Settings {
        var settings = SDLSessionStateMachine.Settings(functions: EmulatedConnection.functions)
        settings.protocolVersion = protocolVersion
        settings.sessionID = sessionID
        settings.hashID = hashID
        settings.mtu = mtu
        settings.authToken = authToken
        settings.supportsProtection = security != nil
        var vehicle = SDLControlPayload()
        (vehicle.secondaryTransports, vehicle.audioServiceTransports, vehicle.videoServiceTransports) = ([], [1], [1])
        (vehicle.make, vehicle.model, vehicle.modelYear, vehicle.trim, vehicle.systemSoftwareVersion) = ("SDL", "Generic", "2019", "SE", "12345_US")
        settings.startParameters = vehicle
        return settings
    }
}
