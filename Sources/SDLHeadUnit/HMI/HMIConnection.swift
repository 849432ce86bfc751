import SDLConcurrency
import SDLRuntime

/// An HMI connected to the emulator the way an HMI connects to SDL Core: JSON-RPC 2.0
/// messages, one per WebSocket text message, both ways (`SDLHMIServer` serves them on a port,
/// as `sdl headunit --hmi-port` does; a test can hand messages in directly).
public protocol SDLHMIConnection: Sendable {
    /// The HMI's messages, each a JSON-RPC message's bytes, in order; ends when the HMI
    /// disconnects. Read by one reader, one message at a time: a fast HMI waits for the
    /// emulator (back-pressure), nothing is buffered or dropped on the way.
    associatedtype Messages: AsyncSequence<[UInt8], any Error> & Sendable
    var messages: Messages { get }
    /// Sends one message to the HMI; one sent after the HMI left is dropped.
    func send(_ message: [UInt8]) async
}

extension SDLHeadUnitEmulator {
    /// Serves one HMI until it disconnects, as SDL Core's message broker does: the HMI registers
    /// its components (`MB.registerComponent`), subscribes to Core's notifications
    /// (`MB.subscribeTo`) and says `BasicCommunication.OnReady`; the emulator then asks it what
    /// Core asks (IsReady, capabilities, languages, system info, vehicle type) and from then on
    /// forwards the apps' requests to it and relays its notifications to the apps.
    public func serveHMI(_ connection: some SDLHMIConnection) async {
        let id = hmi.connect(connection)
        let (duty, assign) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        takeTimerDuty(id: -id, assign)
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in duty { await self.runTimers() } }
            do {
                for try await message in connection.messages {
                    await perform(await hmiReceived(message, from: id))
                }
            } catch {
                configuration.log?(.object([.init(key: "hmi", value: .string("closed")), .init(key: "error", value: .string("\(error)"))]))
            }
            group.cancelAll()
        }
        timerDutyEnded(id: -id)
        await perform(hmiDisconnected(id))
    }

    /// One HMI message in the protocol log (`Configuration.log`): `{"hmi": "in", "message": {...}}`;
    /// bytes that are no JSON as their text.
    func logHMI(_ direction: String, _ message: [UInt8]) {
        guard configuration.log != nil else { return }
        logHMI(direction, (try? SDLJSONValue(parsing: message)) ?? .string(String(decoding: message, as: UTF8.self)))
    }

    /// A message already parsed, in the protocol log.
    func logHMI(_ direction: String, _ message: SDLJSONValue) {
        configuration.log?(.object([.init(key: "hmi", value: .string(direction)), .init(key: "message", value: message)]))
    }

    /// Whether an HMI has said OnReady and answered (or let time out) what the emulator asked it
    /// then; apps' connections wait for it when `Configuration.waitsForHMI` is set.
    public var isHMIReady: Bool { hmi.isReady }

    /// Returns once apps may be served: at once without `Configuration.waitsForHMI`, else when
    /// an HMI is ready (or the caller is cancelled). SDL Core leaves an app's StartService
    /// unanswered until its HMI said OnReady.
    func untilHMIReady() async {
        guard configuration.waitsForHMI, !hmi.isReady else { return }
        for await ready in hmiReadiness.subscribe() where ready { return }
    }
}
