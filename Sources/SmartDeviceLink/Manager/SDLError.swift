import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTransport

/// One error model for every failure of the app-facing API (the manager, its sub-managers, the
/// cloud server): what kind of failure it is (`code`, extensible, for `switch` and tests), a
/// message for people, the head unit's answer when it gave one, and the detailed cause.
///
/// `SDLError(error)` turns any error the library throws into it, so an app handles every
/// sub-manager's failures the same way:
///
/// ```swift
/// do {
///     try await manager.buttons.subscribe(.playPause) { _ in }
/// } catch {
///     switch SDLError(error).code {
///     case .wrongAppType: print("PLAY_PAUSE needs a media app")
///     case .disallowed: print("not in this HMI level")
///     default: print(SDLError(error).message)
///     }
/// }
/// ```
///
/// The detailed errors (`SDLButtonError`, `SDLFileError`...) stay the `underlying` cause, for
/// logs; they are not public API, so that SmartDeviceLink has one error model to learn and can
/// reshape its causes without breaking apps. The "Errors" article says what fails with which code.
public struct SDLError: Error, Sendable, CustomStringConvertible {
    /// A kind of failure. New codes may be added in any release: `switch` with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, stable across releases.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// The manager is not Ready (connecting, reconnecting, stopped): nothing was sent.
        public static let notReady = Code("not-ready")
        /// `run()` while running, or after the manager stopped (a manager runs once).
        public static let alreadyRunning = Code("already-running")
        /// The manager (or the part asked) has stopped; what was waiting ends with it.
        public static let stopped = Code("stopped")
        /// The head unit's permissions (policy, HMI level) forbid it: nothing was sent.
        public static let disallowed = Code("disallowed")
        /// The head unit answered with a failure: `resultCode` and `info` say which.
        public static let refusedByHeadUnit = Code("refused-by-head-unit")
        /// No answer in time.
        public static let timedOut = Code("timed-out")
        /// The connection closed (or never opened) before the answer.
        public static let connectionClosed = Code("connection-closed")
        /// The app's input breaks the spec or the guide's rules: nothing was sent.
        public static let invalidArgument = Code("invalid-argument")
        /// The head unit (its RPC version, display, capabilities) cannot do it: nothing was sent.
        public static let unsupportedByHeadUnit = Code("unsupported-by-head-unit")
        /// The app's type (media, navigation, remote control) does not allow it: nothing was sent.
        public static let wrongAppType = Code("wrong-app-type")
        /// The driver said no (remote-control consent).
        public static let consentDenied = Code("consent-denied")
        /// The calling task was cancelled, or the app cancelled the operation.
        public static let cancelled = Code("cancelled")
        /// The head unit broke the protocol or sent what cannot be read.
        public static let protocolError = Code("protocol-error")
        /// A local resource failed (a file that cannot be read or written).
        public static let io = Code("io")
        /// The RPC must be encrypted (the policy's `requireEncryption`, or the head unit answered
        /// ENCRYPTION_NEEDED) and no protected RPC service is available: nothing was sent, or the
        /// head unit refused it.
        public static let encryptionNeeded = Code("encryption-needed")
        /// The head unit would not protect a service: the TLS handshake failed (the certificate,
        /// its dates, the app ID) or it fell back to plain text.
        public static let encryptionFailed = Code("encryption-failed")
        /// An error that does not say which kind it is (another layer's, such as a custom
        /// transport's); its cause is `underlying`.
        public static let unknown = Code("unknown")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened, in a sentence.
    public var message: String
    /// The head unit's result code, when it answered.
    public var resultCode: SDLResult?
    /// The head unit's `info`, when it gave one.
    public var info: String?
    /// The detailed cause (`SDLButtonError.wrongAppType(...)`, `SDLRPCError.timeout(...)`...),
    /// for logs: most of its types are internal to the package; match on `code` instead.
    public var underlying: (any Error & Sendable)?

    /// An error of `code`; the library makes these, apps match on them.
    public init(_ code: Code, _ message: String, resultCode: SDLResult? = nil, info: String? = nil, underlying: (any Error & Sendable)? = nil) {
        // ENCRYPTION_NEEDED is its own case, whichever feature met it.
        self.code = code == .refusedByHeadUnit && resultCode == .encryptionNeeded ? .encryptionNeeded : code
        self.message = message
        self.resultCode = resultCode
        self.info = info
        self.underlying = underlying
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}

/// A detailed error that knows which ``SDLError`` it is. Each error the library throws maps
/// itself here, on purpose, where the error is defined, instead of in one switch that a new
/// type can slip past; an app's or a transport's own errors may conform too.
public protocol SDLErrorConvertible: Error {
    /// This error as the library's one public error, with itself as `underlying`.
    var sdlError: SDLError { get }
}

extension SDLError {
    /// Any error thrown inside the library as the one public error (an `SDLError` stays itself;
    /// one that does not say which it is is `.unknown`, kept as `underlying`).
    public init(_ error: any Error) {
        switch error {
        case let error as SDLError: self = error
        case let error as any SDLErrorConvertible: self = error.sdlError
        case is CancellationError: self = SDLError(.cancelled, "the task was cancelled", underlying: CancellationError())
        // Errors of other layers (a custom transport's, NIO's) that do not say what they are.
        default: self = SDLError(.unknown, "\(error)", underlying: error)
        }
    }

    /// The detailed error behind `error` (itself when it is not an `SDLError`), for the
    /// library's own code that sorts a manager failure into a sub-manager's error.
    static func cause(of error: any Error) -> any Error {
        (error as? SDLError)?.underlying ?? error
    }

    /// `inner`'s code, result code and info, with `error` (which holds `inner`'s cause) as the
    /// cause and its words as the message.
    static func wrapping(_ inner: SDLError, _ error: any Error & CustomStringConvertible) -> SDLError {
        SDLError(inner.code, error.description, resultCode: inner.resultCode, info: inner.info, underlying: error)
    }
}

extension SDLTransportError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        return switch error {
        case .connectFailed, .closed, .connectionReset: SDLError(.connectionClosed, error.description, underlying: error)
        case .io: SDLError(.io, error.description, underlying: error)
        case .concurrentRead: SDLError(.invalidArgument, error.description, underlying: error)
        }
    }
}

extension SDLManagerError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        let code: SDLError.Code
        var resultCode: SDLResult?
        switch error {
        case .notReady: code = .notReady
        case .alreadyRunning, .alreadyStopped: code = .alreadyRunning
        case .registrationFailed(let result, _):
            code = .refusedByHeadUnit
            resultCode = result
        case .protocolVersionTooLow, .rpcVersionTooLow, .unsupportedByHeadUnit: code = .unsupportedByHeadUnit
        case .vehicleRejected: code = .invalidArgument
        case .connectionLost: code = .connectionClosed
        case .disallowed: code = .disallowed
        case .invalidRequest: code = .invalidArgument
        case .encryptionNeeded: code = .encryptionNeeded
        }
        var info: String?
        if case .registrationFailed(_, let text) = error { info = text }
        return SDLError(code, error.description, resultCode: resultCode, info: info, underlying: error)
    }
}

extension SDLRPCError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        let code: SDLError.Code
        switch error {
        case .invalidRequest, .notAFunction, .handlerAlreadyRegistered: code = .invalidArgument
        case .timeout: code = .timedOut
        case .connectionClosed, .notRunning: code = .connectionClosed
        case .cancelled: code = .cancelled
        case .genericResponse: code = .refusedByHeadUnit
        case .invalidResponse: code = .protocolError
        case .alreadyRunning: code = .alreadyRunning
        case .session(let session): return SDLError(session.sdlError.code, error.description, underlying: error)
        }
        var (resultCode, info): (SDLResult?, String?) = (nil, nil)
        if case .genericResponse(let result, let text) = error { (resultCode, info) = (SDLResult(rawValue: result), text) }
        return SDLError(code, error.description, resultCode: resultCode, info: info, underlying: error)
    }
}

extension SDLSessionError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        let code: SDLError.Code
        switch error {
        case .notStarted, .closed: code = .connectionClosed
        case .alreadyRunning: code = .alreadyRunning
        case .serviceBusy, .endRejected, .startRejected: code = .refusedByHeadUnit
        case .serviceNotRunning: code = .notReady
        case .protocolViolation: code = .protocolError
        case .controlTimeout: code = .timedOut
        case .encryptionUnavailable: code = .unsupportedByHeadUnit
        case .protectionFailed: code = .encryptionFailed
        }
        return SDLError(code, error.description, underlying: error)
    }
}

extension SDLButtonError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notSent(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .failed(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .wrongAppType: return SDLError(.wrongAppType, error.description, underlying: error)
        case .presetUnavailable: return SDLError(.unsupportedByHeadUnit, error.description, underlying: error)
        case .notSubscribable: return SDLError(.invalidArgument, error.description, underlying: error)
        case .refused(_, let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        }
    }
}

extension SDLFeatureError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notSent(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .failed(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .unsupported: return SDLError(.unsupportedByHeadUnit, error.description, underlying: error)
        case .wrongAppType: return SDLError(.wrongAppType, error.description, underlying: error)
        case .invalid: return SDLError(.invalidArgument, error.description, underlying: error)
        case .consentDenied: return SDLError(.consentDenied, error.description, underlying: error)
        case .upload(_, let cause): return SDLError.wrapping(cause.sdlError, error)
        case .refused(_, let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        }
    }
}

extension SDLVehicleDataError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notSent(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .failed(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .itemsNotAllowed: return SDLError(.disallowed, error.description, underlying: error)
        case .noItems: return SDLError(.invalidArgument, error.description, underlying: error)
        case .refused(let result, let info, _): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        }
    }
}

extension SDLAppServiceError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notSent(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .failed(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .refused(_, let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        case .wrongContent, .handlerConflict: return SDLError(.invalidArgument, error.description, underlying: error)
        case .unknownService: return SDLError(.invalidArgument, error.description, underlying: error)
        }
    }
}

extension SDLScreenError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notSent(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .failed(let cause): return SDLError.wrapping(cause.sdlError, error)
        case .refused(_, let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        case .upload(_, let cause), .uploadFile(_, let cause):
            let inner = cause.sdlError
            return SDLError(inner.code, error.description, resultCode: inner.resultCode, info: inner.info, underlying: error)
        case .colorsNeedTemplateChange, .softButtons, .menu, .choiceSet, .invalid:
            if case .invalid(.notMediaApp) = error { return SDLError(.wrongAppType, error.description, underlying: error) }
            if case .invalid(let presentation) = error, presentation.isUnsupportedByHeadUnit {
                return SDLError(.unsupportedByHeadUnit, error.description, underlying: error)
            }
            return SDLError(.invalidArgument, error.description, underlying: error)
        case .stopped: return SDLError(.stopped, error.description, underlying: error)
        }
    }
}

extension SDLFileError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .cannotOverwrite: return SDLError(.invalidArgument, error.description, underlying: error)
        case .unreadable: return SDLError(.io, error.description, underlying: error)
        case .notConnected: return SDLError(.notReady, error.description, underlying: error)
        case .cancelled: return SDLError(.cancelled, error.description, underlying: error)
        case .failed(_, _, _, let reason):
            switch reason {
            case .refused(let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
            case .timedOut: return SDLError(.timedOut, error.description, underlying: error)
            case .connectionLost: return SDLError(.connectionClosed, error.description, underlying: error)
            case .cancelled: return SDLError(.cancelled, error.description, underlying: error)
            case .other: return SDLError(.protocolError, error.description, underlying: error)
            }
        }
    }
}

extension SDLCapabilityError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        let error = self
        switch error {
        case .notConnected: return SDLError(.notReady, error.description, underlying: error)
        case .headUnitTooOld, .unavailable: return SDLError(.unsupportedByHeadUnit, error.description, underlying: error)
        case .refused(_, let result, let info): return SDLError(.refusedByHeadUnit, error.description, resultCode: result, info: info, underlying: error)
        }
    }
}

extension SDLWAVError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError { SDLError(.io, description, underlying: self) }
}

extension SDLPCMError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        if case .unreadable = self { return SDLError(.io, description, underlying: self) }
        return SDLError(.invalidArgument, description, underlying: self)
    }
}

extension SDLPresentationError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError {
        var error = SDLScreenError.invalid(self).sdlError
        error.underlying = self
        return error
    }
}

extension SDLSoftButtonError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError { SDLError(.invalidArgument, description, underlying: self) }
}

extension SDLMenuError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError { SDLError(.invalidArgument, description, underlying: self) }
}

extension SDLChoiceSetError: SDLErrorConvertible {
    /// This error as ``SDLError``: its kind, and itself as `underlying`.
    public var sdlError: SDLError { SDLError(.invalidArgument, description, underlying: self) }
}

extension SDLPresentationError {
    /// The head unit cannot do it (its speech, sounds or audio formats), rather than the app
    /// asking for something invalid.
    var isUnsupportedByHeadUnit: Bool {
        switch self {
        case .speechUnsupported, .prerecordedSoundUnsupported, .audioFormatUnsupported: true
        default: false
        }
    }
}
