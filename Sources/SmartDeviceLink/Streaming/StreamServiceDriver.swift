import Logging
import SDLProtocol
import SDLRPC

/// A streaming manager (video, audio) as the one place that runs its `StreamServiceLifecycle`
/// against a connection: what differs per service is named here, the running is written once
/// below (the actions in order, the head unit's answers fed back, work for an ended connection
/// dropped).
protocol StreamServiceDriver: Actor {
    associatedtype Offer: StreamServiceOffer
    associatedtype Parameters: Sendable

    /// The service's lifecycle value.
    var machine: StreamServiceLifecycle<Offer, Parameters> { get set }
    /// Counts connections: answers for an earlier one are dropped.
    var connectionNumber: Int { get }
    /// The current connection's media services.
    var media: (any SDLMediaServices)? { get }
    /// Video or audio.
    var service: SDLServiceType { get }
    /// The manager: encryption states go there.
    var context: any SDLStreamingContext { get }
    /// Whether the service starts protected.
    var protection: SDLStreamProtection { get }
    /// The running service is encrypted: its messages go out as records.
    var isEncrypted: Bool { get set }
    var logger: Logger { get }
    /// Whether the app may run this service now (STREAMABLE for video, audible for audio).
    func mayStream(_ status: OnHMIStatus) -> Bool
    /// StartService's parameters for `offer`.
    func startParameters(_ offer: Offer) -> SDLControlPayload
    /// The parameters the app streams with, from the StartServiceACK's payload.
    func accepted(_ ack: SDLControlPayload, offer: Offer) -> Parameters
    /// Publishes a state of the lifecycle as the manager's public state.
    func publish(_ published: StreamServiceLifecycle<Offer, Parameters>.Published)
}

extension StreamServiceDriver {
    /// Runs the machine's actions, feeding it the head unit's answers, until none are left.
    func perform(_ actions: [StreamServiceLifecycle<Offer, Parameters>.Action], media: any SDLMediaServices, connection: Int) async {
        var pending = actions[...]
        while let action = pending.popFirst() {
            switch action {
            case .publish(let published):
                publish(published)
            case .start(let offer):
                let context = self.context
                let service = self.service
                let reply = await media.start(service, offer: offer.name, parameters: startParameters(offer), protection: protection, logger: logger) { state in
                    await context.encryptionChanged(state, of: service)
                }
                guard connection == connectionNumber else { return }
                if case .ack(_, let encrypted) = reply { isEncrypted = encrypted }
                let answer = StreamServiceLifecycle<Offer, Parameters>.StartAnswer(reply) { accepted($0, offer: offer) }
                pending += machine.startAnswered(answer)
            case .end:
                await media.endQuietly(service, logger: logger)
                if isEncrypted {
                    isEncrypted = false
                    await context.encryptionChanged(.notStarted, of: service)
                }
                guard connection == connectionNumber else { return }
                pending += machine.endAnswered()
            }
        }
    }

    /// The main window's OnHMIStatus after the connection's first.
    func statusChanged(_ status: OnHMIStatus, media: any SDLMediaServices, connection: Int) async {
        guard connection == connectionNumber else { return }
        await perform(machine.hmiChanged(level: status.hmiLevel, streamable: mayStream(status)), media: media, connection: connection)
    }

    /// The head unit ended the service itself.
    func headUnitEnded(connection: Int) async {
        guard connection == connectionNumber, let media else { return }
        await perform(machine.endedByHeadUnit(), media: media, connection: connection)
    }

    /// Ends the service (or the one being started) before the app unregisters: the manager's stop.
    func endBeforeStopping() async {
        guard let media, machine.phase != .stopped, machine.phase != .disconnected, machine.phase != .idle else { return }
        await perform(machine.stop(), media: media, connection: connectionNumber)
    }

    /// Publishes the states among `actions` (the connection is gone: nothing can be sent).
    func publishOnly(_ actions: [StreamServiceLifecycle<Offer, Parameters>.Action]) {
        for action in actions { if case .publish(let state) = action { publish(state) } }
    }
}
