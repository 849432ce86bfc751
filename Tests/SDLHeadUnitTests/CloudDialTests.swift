import SDLHeadUnit
import SDLTestSupport
import SDLTransport
import Testing

/// How the emulator dials a cloud app after a drop: as SDL Core 8.2, not until the HMI activates
/// the app again; with `redialsAfterDrop`, at once.
@Suite(.timeLimit(.minutes(1))) struct CloudDialTests {
    /// A dialer whose connections the test holds (the app's ends), with the events it reported.
    final class Dials: Sendable {
        let appEnds = Locked<[SDLMemoryTransport]>([])
        let events = Locked<[SDLCloudAppDialEvent]>([])
        let (stream, continuation) = AsyncStream<SDLCloudAppDialEvent>.makeStream()

        func endpoint(redials: Bool) -> SDLCloudAppEndpoint {
            SDLCloudAppEndpoint(retryDelay: .milliseconds(1), maxAttempts: 1, redialsAfterDrop: redials) {
                let (app, car) = SDLMemoryTransport.pair()
                self.appEnds.withLock { $0.append(app) }
                return car
            }
        }

        func record(_ event: SDLCloudAppDialEvent) {
            events.withLock { $0.append(event) }
            continuation.yield(event)
        }
    }

    @Test func afterADropItWaitsForTheHMIThenDialsAgain() async throws {
        let emulator = SDLHeadUnitEmulator()
        let dials = Dials()
        let run = Task { await emulator.runCloudApp(dials.endpoint(redials: false)) { dials.record($0) } }
        await waitFor(dials.stream) { $0 == .connected }
        // Activated while connected: not an activation after the drop.
        await emulator.activateCloudApp()
        await dials.appEnds.current[0].close()
        await waitFor(dials.stream) { $0 == .waitingForActivation }
        #expect(dials.appEnds.current.count == 1)
        await emulator.activateCloudApp()
        await waitFor(dials.stream) { $0 == .connected }
        #expect(dials.appEnds.current.count == 2)
        #expect(dials.events.current == [.connected, .disconnected, .waitingForActivation, .connected])
        // Cancelled while connected, then while waiting: the dialer ends either way.
        await dials.appEnds.current[1].close()
        await waitFor(dials.stream) { $0 == .waitingForActivation }
        run.cancel()
        await run.value
        #expect(dials.appEnds.current.count == 2)
    }

    @Test func withRedialsAfterDropItDialsAtOnce() async throws {
        let emulator = SDLHeadUnitEmulator()
        let dials = Dials()
        let run = Task { await emulator.runCloudApp(dials.endpoint(redials: true)) { dials.record($0) } }
        await waitFor(dials.stream) { $0 == .connected }
        await dials.appEnds.current[0].close()
        await waitFor(dials.stream) { $0 == .connected }
        #expect(!dials.events.current.contains(.waitingForActivation))
        run.cancel()
        await run.value
    }
}
