import Logging
import SDLProtocol
import SDLRPC

/// What a streaming service offers the head unit at StartService (a video format and size; the
/// audio service's one PCM offer).
protocol StreamServiceOffer: Sendable, Hashable {
    /// The offer in words, for logs and errors.
    var name: String { get }
    /// Whether a refusal of `parameters` (rejectedParams) of `refused` rules this offer out too.
    func isRuledOut(by parameters: Set<String>, of refused: Self) -> Bool
}

/// Why a stream could not start, as the lifecycle sees it; each manager says it in its own words.
enum StreamServiceFailure: Sendable {
    /// Every offer was refused.
    case everyOfferRefused(tried: [String], reason: String?)
    /// Refused for a reason other than its parameters.
    case startRefused(reason: String?)
    /// Another error (the start timed out, the connection closed, nothing can be offered).
    case error(SDLError)
}

/// A streaming service's lifecycle (video, audio) as a value: events in (a connection, HMI
/// status, the head unit's answers, a drop, a stop), actions out (start with an offer, end the
/// service, publish a state). The manager runs the actions; nothing here waits or sends.
struct StreamServiceLifecycle<Offer: StreamServiceOffer, Parameters: Sendable>: Sendable {
    /// A state to publish; each manager maps it to its public state.
    enum Published: Sendable {
        case stopped
        case starting
        case streaming(Parameters)
        case suspended(SDLStreamSuspension)
        case failed(StreamServiceFailure)
    }

    enum Phase: Sendable, Equatable {
        /// No connection (before the first one, between reconnections).
        case disconnected
        /// Connected, no service running.
        case idle
        /// StartService sent with this offer.
        case starting(Offer)
        /// Service running, frames flow.
        case streaming
        /// Service running, frames may not flow (not STREAMABLE).
        case suspended
        /// EndService sent.
        case ending
        /// The manager stopped: nothing more happens.
        case stopped
    }

    enum Action: Sendable {
        case start(Offer)
        case end
        case publish(Published)
    }

    /// The head unit's answer to a StartService.
    enum StartAnswer: Sendable {
        case accepted(Parameters)
        case refused(rejectedParams: [String], reason: String?)
        case failed(SDLError)
    }

    private(set) var phase = Phase.disconnected
    private(set) var parameters: Parameters?
    private var level = HMILevel.none
    private var streamable = false
    private var offers: [Offer] = []
    private var ruledOut: [(parameters: Set<String>, offer: Offer)] = []
    private var tried: [String] = []
    /// Every offer was refused on this connection: no more starts until the next one.
    private var exhausted = false
    /// A start failed (or the head unit ended the service) while STREAMABLE: wait until the app
    /// leaves STREAMABLE and comes back before trying again, not in a loop.
    private var waitForNextStreamable = false
    /// Set when the app can never stream on this connection (no usable format).
    private var unusable: SDLError?
    /// The start under way follows a refusal of parameters at once. SDL Core moves a refused app
    /// to NONE, so such a start may be refused for the HMI level before the app hears of NONE:
    /// that refusal is a suspension, not a failure.
    private var startedAfterRefusal = false
    /// A start was on its way when the manager stopped.
    private var startedBeforeStop = false

    /// A connection is Ready: the offers for its head unit, or why there are none.
    mutating func connected(offers: [Offer], unusable: SDLError?, level: HMILevel, streamable: Bool) -> [Action] {
        guard phase != .stopped else { return [] }
        self.offers = offers
        self.unusable = unusable
        ruledOut = []
        tried = []
        exhausted = false
        waitForNextStreamable = false
        parameters = nil
        phase = .idle
        self.level = level
        self.streamable = streamable
        if let unusable { return [.publish(.failed(.error(unusable)))] }
        return startIfAllowed() ?? [.publish(.suspended(suspension))]
    }

    private var suspension: SDLStreamSuspension { level == .none ? .hmiLevelNone : .notStreamable }

    private func nextOffer() -> Offer? {
        offers.first { offer in !ruledOut.contains { offer.isRuledOut(by: $0.parameters, of: $0.offer) } && !tried.contains(offer.name) }
    }

    private mutating func startIfAllowed() -> [Action]? {
        guard phase == .idle, streamable, level != .none, unusable == nil, !exhausted, !waitForNextStreamable else { return nil }
        guard let offer = nextOffer() else { return nil }
        phase = .starting(offer)
        tried.append(offer.name)
        // Published first: the app hears of a step before its round trip, not after.
        return [.publish(.starting), .start(offer)]
    }

    /// The main window's OnHMIStatus: `streamable` is whether this service may run now
    /// (STREAMABLE for video, audible for audio).
    mutating func hmiChanged(level: HMILevel, streamable: Bool) -> [Action] {
        self.level = level
        self.streamable = streamable
        if !streamable { waitForNextStreamable = false }
        switch phase {
        case .idle:
            if let start = startIfAllowed() { return start }
            // A failure stands while the app stays STREAMABLE; a refusal of everything, for good.
            guard !exhausted, unusable == nil, !waitForNextStreamable else { return [] }
            return [.publish(.suspended(suspension))]
        case .streaming where level == .none, .suspended where level == .none:
            phase = .ending
            return [.publish(.suspended(.hmiLevelNone)), .end]
        case .streaming where !streamable:
            phase = .suspended
            return [.publish(.suspended(.notStreamable))]
        case .suspended where streamable:
            phase = .streaming
            return parameters.map { [.publish(.streaming($0))] } ?? []
        case .disconnected, .starting, .streaming, .suspended, .ending, .stopped:
            return []
        }
    }

    /// The answer to the StartService the last `.start` sent.
    mutating func startAnswered(_ answer: StartAnswer) -> [Action] {
        if phase == .stopped, startedBeforeStop {
            // The manager stopped while the start was on its way: end what the head unit started.
            startedBeforeStop = false
            if case .accepted = answer { return [.end] }
            return []
        }
        guard case .starting(let offer) = phase else { return [] }
        let afterRefusal = startedAfterRefusal
        startedAfterRefusal = false
        switch answer {
        case .accepted(let accepted):
            parameters = accepted
            // A later start (after NONE, a drop) begins again from the best offer left.
            tried = []
            if level == .none {
                phase = .ending
                return [.publish(.suspended(.hmiLevelNone)), .end]
            }
            phase = streamable ? .streaming : .suspended
            return [.publish(streamable ? .streaming(accepted) : .suspended(.notStreamable))]
        case .refused(let rejected, let reason) where !rejected.isEmpty:
            phase = .idle
            ruledOut.append((Set(rejected), offer))
            if let start = startIfAllowed() {
                startedAfterRefusal = true
                return start
            }
            if nextOffer() == nil {
                exhausted = true
                return [.publish(.failed(.everyOfferRefused(tried: tried, reason: reason)))]
            }
            return [.publish(.suspended(suspension))]
        case .refused(_, let reason):
            // Not the offer's fault (the HMI level, say): it is offered again next time.
            tried.removeAll { $0 == offer.name }
            phase = .idle
            waitForNextStreamable = streamable
            if afterRefusal { return [.publish(.suspended(suspension))] }
            return [.publish(.failed(.startRefused(reason: reason)))]
        case .failed(let error):
            tried.removeAll { $0 == offer.name }
            phase = .idle
            waitForNextStreamable = streamable
            return [.publish(.failed(.error(error)))]
        }
    }

    /// The head unit ended the video service (EndService from its side).
    mutating func endedByHeadUnit() -> [Action] {
        switch phase {
        case .streaming, .suspended, .ending:
            let wasEnding = phase == .ending
            phase = .idle
            parameters = nil
            if wasEnding { return [] }
            waitForNextStreamable = streamable
            return [.publish(.suspended(level == .none ? .hmiLevelNone : .endedByHeadUnit))]
        default:
            return []
        }
    }

    /// Our EndService was answered (or failed: the service is gone either way).
    mutating func endAnswered() -> [Action] {
        guard phase == .ending else { return [] }
        phase = .idle
        parameters = nil
        return startIfAllowed() ?? []
    }

    /// The connection dropped; the manager may reconnect.
    mutating func disconnected() -> [Action] {
        guard phase != .stopped, phase != .disconnected else { return [] }
        phase = .disconnected
        parameters = nil
        return [.publish(.suspended(.connectionLost))]
    }

    /// The manager stops: end a running service (or the one being started, once it is).
    mutating func stop() -> [Action] {
        let running = phase == .streaming || phase == .suspended
        if case .starting = phase { startedBeforeStop = true }
        phase = .stopped
        parameters = nil
        return [.publish(.stopped)] + (running ? [.end] : [])
    }
}

/// The head unit's answer to a StartService, before the manager reads the ACK.
enum StreamStartReply: Sendable {
    /// Started; `encrypted` when the ACK had the encryption bit.
    case ack(SDLControlPayload, encrypted: Bool)
    case refused(rejectedParams: [String], reason: String?)
    case failed(SDLError)
}

extension StreamServiceLifecycle.StartAnswer {
    /// The answer for the lifecycle; `accept` reads an ACK's payload.
    init(_ reply: StreamStartReply, accept: (SDLControlPayload) -> Parameters) {
        switch reply {
        case .ack(let payload, _): self = .accepted(accept(payload))
        case .refused(let rejected, let reason): self = .refused(rejectedParams: rejected, reason: reason)
        case .failed(let error): self = .failed(error)
        }
    }
}

extension SDLMediaServices {
    /// StartService for `service` with `parameters` (`offer` names it in the log), protected as
    /// `protection` asks; `report` hears the service's encryption states when protection was asked.
    func start(
        _ service: SDLServiceType, offer: String, parameters: SDLControlPayload, protection: SDLStreamProtection = .none, logger: Logger,
        report: @Sendable (SDLEncryptionState) async -> Void = { _ in }
    ) async -> StreamStartReply {
        do {
            if protection != .none, await hasSecurity {
                await report(.handshaking)
                let outcome = try await startProtectedService(service, parameters: parameters)
                if !outcome.isEncrypted {
                    let reason = outcome.securityFailure.map(\.description) ?? "an ACK without the encryption bit"
                    logger.warning("the head unit started the service in plain text", metadata: ["service": "\(service)", "reason": "\(reason)"])
                    if protection == .required {
                        await report(.failed(reason: "started in plain text (\(reason)); it must be encrypted"))
                        await endQuietly(service, logger: logger)
                        return .failed(
                            SDLError(.encryptionFailed, "the head unit started the \(service) service in plain text (\(reason)); it must be encrypted"))
                    }
                    await report(.plainText(reason: reason))
                } else {
                    await report(.encrypted)
                }
                return .ack(outcome.parameters, encrypted: outcome.isEncrypted)
            }
            if protection == .required {
                await report(.failed(reason: "no security manager serves this head unit"))
                return .failed(SDLError(.encryptionNeeded, "the \(service) service must be encrypted and no security manager serves this head unit"))
            }
            return .ack(try await startService(service, parameters: parameters), encrypted: false)
        } catch SDLSessionError.protectionFailed(_, let reason, let security) where protection == .preferred {
            // Refused protected: plain text will do.
            logger.warning(
                "the head unit refused to protect the service; starting it in plain text",
                metadata: [
                    "service": "\(service)", "reason": "\(reason ?? "")", "security": "\(security.map(\.description) ?? "")",
                ])
            await report(.plainText(reason: security.map(\.description) ?? reason ?? "the head unit refused to protect it"))
            return await start(service, offer: offer, parameters: parameters, protection: .none, logger: logger)
        } catch SDLSessionError.protectionFailed(let failed, let reason, let security) {
            await report(.failed(reason: security.map(\.description) ?? reason ?? "the head unit refused to protect it"))
            return .failed(SDLError(SDLSessionError.protectionFailed(service: failed, reason: reason, security: security)))
        } catch SDLSessionError.startRejected(_, let rejected, let reason) {
            logger.info(
                "the head unit refused a streaming service",
                metadata: [
                    "service": "\(service)", "offer": "\(offer)", "rejectedParams": "\(rejected)", "reason": "\(reason ?? "")",
                ])
            return .refused(rejectedParams: rejected, reason: reason)
        } catch {
            return .failed(SDLError(error))
        }
    }

    /// EndService; a failure only goes to the log: the service is gone either way.
    func endQuietly(_ service: SDLServiceType, logger: Logger) async {
        do {
            try await endService(service)
        } catch {
            logger.debug("EndService was not acknowledged", metadata: ["service": "\(service)", "error": "\(error)"])
        }
    }
}

/// Feeds a streaming manager the main window's statuses of one connection: the first as the
/// connection's start, the others as changes, until the connection's task is cancelled.
func followStatuses(_ statuses: AsyncStream<OnHMIStatus>, first: (OnHMIStatus) async -> Void, then: (OnHMIStatus) async -> Void) async {
    var iterator = statuses.makeAsyncIterator()
    guard let status = await iterator.next() else { return }
    await first(status)
    while let status = await iterator.next() { await then(status) }
}
