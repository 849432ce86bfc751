import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// Why a session ended. A reconnection policy switches on this: a heartbeat timeout or a
/// transport error is worth a retry, an app the head unit does not authorise is not.
public enum SDLCloseReason: Error, Hashable, Sendable, CustomStringConvertible {
    /// The app closed the session (`close()`, or the task running it was cancelled).
    case closedByApp
    /// The head unit sent EndService for the RPC service.
    case endedByHeadUnit
    /// The head unit unregistered the app (OnAppInterfaceUnregistered) and then ended the session.
    case unregistered(AppInterfaceUnregisteredReason)
    /// The head unit stopped answering heartbeats.
    case heartbeatTimeout
    /// The head unit closed the connection without ending the session.
    case transportClosed
    /// The connection broke: reset, I/O error.
    case transportFailed(SDLTransportError)
    /// The head unit sent bytes that are not the SDL protocol; the error names the field.
    case protocolViolation(SDLProtocolError)
    /// The head unit refused to start the RPC service (StartServiceNAK).
    case startRejected(reason: String?, rejectedParams: [String])
    /// The head unit did not answer StartService in time.
    case startTimedOut

    /// Whether connecting again can help: not after the app closed, not when the head unit
    /// refused the app or its protocol (no reconnection after an unregistration for
    /// APP_UNAUTHORIZED or PROTOCOL_VIOLATION).
    public var allowsReconnection: Bool {
        switch self {
        case .closedByApp, .startRejected, .protocolViolation: false
        case .unregistered(let reason): reason != .appUnauthorized && reason != .protocolViolation
        case .endedByHeadUnit, .heartbeatTimeout, .transportClosed, .transportFailed, .startTimedOut: true
        }
    }

    /// A readable explanation of why the session ended, for logs.
    public var description: String {
        switch self {
        case .closedByApp: "the app closed the session"
        case .endedByHeadUnit: "the head unit ended the session"
        case .unregistered(let reason): "the head unit unregistered the app (\(reason.rawValue))"
        case .heartbeatTimeout: "the head unit stopped answering heartbeats"
        case .transportClosed: "the head unit closed the connection"
        case .transportFailed(let error): "the connection failed: \(error)"
        case .protocolViolation(let error): "the head unit broke the protocol: \(error)"
        case .startRejected(let reason, let params):
            "the head unit refused to start the session" + (params.isEmpty ? "" : " (rejected: \(params.joined(separator: ", ")))")
                + (reason.map { ": \($0)" } ?? "")
        case .startTimedOut: "the head unit did not answer StartService in time"
        }
    }
}

/// Where a session is in its life; `SDLProtocolSession.connectionStates()` streams the changes.
public enum SDLConnectionState: Hashable, Sendable, CustomStringConvertible {
    /// Created; StartService not sent yet.
    case idle
    /// StartService(RPC) sent, waiting for the head unit.
    case starting
    /// The RPC service runs.
    case connected(SDLNegotiatedSession)
    /// The app is ending the session (EndService sent).
    case closing
    /// Over, for good: a session is not restarted, a new one is made.
    case closed(SDLCloseReason)

    /// A short readable form of the state, for logs.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .starting: "starting"
        case .connected(let session): "connected (protocol \(session.protocolVersion), session \(session.sessionID), MTU \(session.mtu))"
        case .closing: "closing"
        case .closed(let reason): "closed: \(reason)"
        }
    }
}

/// Why a protocol-session operation failed: misuse of the session, a refused or unanswered
/// control exchange, missing encryption, or a session that is over.
public enum SDLSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `send` or `startService` before `start()` succeeded.
    case notStarted
    /// `run()` was called a second time; one run loop owns a session's transport.
    case alreadyRunning
    /// The same service is already being started or ended; the first call's answer is pending.
    case serviceBusy(SDLServiceType)
    /// The head unit refused to start the service (StartServiceNAK); `rejectedParams` names the
    /// refused values, `reason` explains.
    case startRejected(service: SDLServiceType, rejectedParams: [String], reason: String?)
    /// The head unit refused to end the service (EndServiceNAK).
    case endRejected(service: SDLServiceType, reason: String?)
    /// Streamed media for an audio or video service that is not running (never started, or
    /// ended by either side); nothing was sent.
    case serviceNotRunning(SDLServiceType)
    /// The head unit sent bytes that are not the SDL protocol; the error names the field.
    case protocolViolation(SDLProtocolError)
    /// No answer to a control frame in time.
    case controlTimeout(SDLControlFrameType, service: SDLServiceType)
    /// Encryption was asked for, but the session's configuration has no security provider.
    case encryptionUnavailable
    /// The head unit refused to start the service protected (StartServiceNAK after a failed
    /// handshake, e.g. "Invalid certificate"); `security` is the internal error it sent, or our
    /// provider's failure.
    case protectionFailed(service: SDLServiceType, reason: String?, security: SDLSecurityError?)
    /// The session is over; the reason says why.
    case closed(SDLCloseReason)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notStarted: "the RPC service has not started: call start() first"
        case .alreadyRunning: "run() was already called on this session"
        case .serviceBusy(let service): "the \(service) service is already being started or ended"
        case .startRejected(let service, let params, let reason):
            "the head unit refused to start the \(service) service" + (params.isEmpty ? "" : " (rejected: \(params.joined(separator: ", ")))")
                + (reason.map { ": \($0)" } ?? "")
        case .endRejected(let service, let reason): "the head unit refused to end the \(service) service" + (reason.map { ": \($0)" } ?? "")
        case .serviceNotRunning(let service): "the \(service) service is not running (never started, or ended); nothing was sent"
        case .protocolViolation(let error): "the head unit broke the protocol: \(error)"
        case .controlTimeout(let opcode, let service): "no answer to \(opcode) for the \(service) service in time"
        case .encryptionUnavailable: "encryption was requested but no security provider is configured"
        case .protectionFailed(let service, let reason, let security):
            "the head unit refused to protect the \(service) service" + (reason.map { ": \($0)" } ?? "") + (security.map { " (\($0))" } ?? "")
        case .closed(let reason): "the session is closed: \(reason)"
        }
    }
}

/// How a protected start ended: the ACK's parameters and whether it came with the encryption bit.
public struct SDLServiceProtection: Sendable, Hashable {
    /// The ACK's control payload.
    public var parameters: SDLControlPayload
    /// True when the service is encrypted; false when the head unit fell back to plain text.
    public var isEncrypted: Bool
    /// Why it fell back, when the head unit or our provider said.
    public var securityFailure: SDLSecurityError?

    /// An outcome, for tests and managers.
    public init(parameters: SDLControlPayload, isEncrypted: Bool, securityFailure: SDLSecurityError? = nil) {
        self.parameters = parameters
        self.isEncrypted = isEncrypted
        self.securityFailure = securityFailure
    }
}

/// An RPC message from the head unit, with how it arrived.
public struct SDLIncomingRPC: Sendable, Hashable {
    /// The message itself: its type, function ID, correlation ID, JSON and bulk data.
    public var payload: SDLRPCPayload
    /// The service it arrived on: RPC, or hybrid when it carries bulk data.
    public var serviceType: SDLServiceType
    /// Whether it arrived encrypted, on a protected service.
    public var isEncrypted: Bool

    /// An incoming message, for tests and emulators that feed a client by hand.
    public init(payload: SDLRPCPayload, serviceType: SDLServiceType = .rpc, isEncrypted: Bool = false) {
        self.payload = payload
        self.serviceType = serviceType
        self.isEncrypted = isEncrypted
    }
}

/// Every message type of the spec this library was generated from, by function ID and name.
let mobileAPIFunctions = SDLFunctionTable(
    messages: MobileAPI.requests.map { $0 as any SDLMessage.Type } + MobileAPI.responses.map { $0 as any SDLMessage.Type }
        + MobileAPI.notifications.map { $0 as any SDLMessage.Type })

extension SDLCloseReason {
    /// Why a session ends when reading failed with `error`; `announced` is the reason the head
    /// unit gave before it went, if it did.
    init(readFailure error: any Error, announced: SDLCloseReason?) {
        switch error {
        case let error as SDLProtocolError: self = .protocolViolation(error)
        case let error as SDLTransportError: self = announced ?? .transportFailed(error)
        case is CancellationError: self = .closedByApp
        default: self = announced ?? .transportFailed(.io("\(error)"))
        }
    }
}

extension SDLSessionError {
    /// What `start()` throws when the session ended before it started.
    init(startEndedBy reason: SDLCloseReason) {
        switch reason {
        case .startRejected(let reason, let params): self = .startRejected(service: .rpc, rejectedParams: params, reason: reason)
        case .protocolViolation(let violation): self = .protocolViolation(violation)
        case .startTimedOut: self = .controlTimeout(.startService, service: .rpc)
        default: self = .closed(reason)
        }
    }

    /// A call the protocol state machine refused.
    init(refusal: SDLSessionStateMachine.Refusal, closeReason: SDLCloseReason?) {
        switch refusal {
        case .notStarted: self = .notStarted
        case .closed: self = .closed(closeReason ?? .closedByApp)
        case .busy(let service): self = .serviceBusy(service)
        case .serviceNotRunning(let service): self = .serviceNotRunning(service)
        }
    }
}
