import Logging
import SDLConcurrency
import SDLProtocol

extension SDLProtocolSession {
    /// Settings of a session: protocol version, heartbeat, timeouts, encryption and size limits.
    public struct Configuration: Sendable {
        /// The highest protocol version the app speaks; 5.x gets BSON control payloads.
        public var protocolVersion = SDLProtocolVersion.latest
        /// Send a heartbeat when nothing was received for this long (nil: only answer them).
        /// Heartbeats exist from protocol 3.
        public var heartbeatInterval: Duration?
        /// Give up when a heartbeat goes unanswered this long (SDL Core waits 7 s).
        public var heartbeatTimeout: Duration = .seconds(7)
        /// How long StartService, EndService and other control exchanges wait for the head unit's
        /// answer before failing.
        public var controlTimeout: Duration = .seconds(10)
        /// Encrypts and decrypts protected frames; without one, encrypted services and RPCs are
        /// unavailable.
        public var security: (any SDLSecurityProvider)?
        /// The largest frame payload accepted from the head unit (1 MiB by default); a frame
        /// claiming more is refused before it is buffered.
        public var maxFrameDataSize = SDLFrameDecoder.defaultMaxDataSize
        /// The largest message assembled from several frames (64 MiB by default).
        public var maxMessageSize = SDLReassembler.defaultMaxMessageSize
        /// Audio/video messages kept per `media(for:)` reader that falls behind; older ones are
        /// dropped. Media for a service nobody reads is dropped at once.
        public var mediaBufferLimit = 64
        /// Time for heartbeats and control deadlines; tests inject a clock they advance.
        public var clock = SDLClock.continuous
        /// Where the session logs (swift-log).
        public var logger = Logger(label: "SmartDeviceLink.session")

        /// The default settings: latest protocol version, SDL Core's 7 s heartbeat timeout, no
        /// encryption.
        public init() {}

        /// The protocol's share of these settings, for the app's end of the state machine.
        var machineSettings: SDLSessionStateMachine.Settings {
            var settings = SDLSessionStateMachine.Settings(functions: mobileAPIFunctions)
            settings.protocolVersion = protocolVersion
            settings.maxFrameDataSize = maxFrameDataSize
            settings.maxMessageSize = maxMessageSize
            settings.heartbeatInterval = heartbeatInterval
            settings.heartbeatTimeout = heartbeatTimeout
            settings.controlTimeout = controlTimeout
            return settings
        }
    }
}
