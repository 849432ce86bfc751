import SDLAsyncHTTPClient
import SDLRPC
import SDLTransport
import SmartDeviceLink
import Synchronization
import UnixSignals

/// Where a tour runs: the head unit, the app ID and the driver.
struct TourPlace {
    let host: String
    let port: Int
    let appID: String
    let driver: Driver
    /// With `--stay`: keeps the last tour's managers registered.
    var keeper = ManagerKeeper(keepingAfter: nil)
    /// Runs the tours' managers as children of the example's run.
    var runner = ManagerRunner()

    /// The example app's configuration: a media app that forwards the head unit's policy
    /// updates with AsyncHTTPClient and does not reconnect (a tour is one run).
    func configuration(appID: String? = nil, name: String = "SDL Example", types: [AppHMIType] = [.media]) -> SDLManager.Configuration {
        var configuration = SDLManager.Configuration(appName: name, appID: appID ?? self.appID, transport: .tcp(host: host, port: port))
        configuration.shortAppName = "SDLEx"
        configuration.appTypes = types
        configuration.reconnectPolicy = .never
        configuration.httpClient = SDLAsyncHTTPClient()
        return configuration
    }

    /// A started manager, or nil with the step failed.
    func start(_ configuration: SDLManager.Configuration, steps: Steps, label: String = "ready") async -> SDLManager? {
        let manager = SDLManager(configuration: configuration)
        do {
            try await runner.run(manager)
            steps.pass(label)
            return manager
        } catch {
            steps.fail("could not get ready: \(error)")
            return nil
        }
    }

    /// The tour's last lines: stops the managers and reports.
    func finish(_ name: String, _ managers: [SDLManager], steps: Steps) async -> Bool {
        if keeper.keeps(after: name) {
            keeper.hold(managers)
            steps.note("staying registered (--stay)")
        } else {
            for manager in managers { await manager.stop() }
            steps.pass("stopped")
        }
        say(steps.failed ? "Tour \(name): FAILED" : "Tour \(name): OK")
        return !steps.failed
    }
}

/// Waits for `operation` at most `seconds`; nil when time ran out first.
func within<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Runs managers as child tasks of one scope, the way a service group runs services: a tour
/// hands over a manager and goes on once it is Ready; when the scope ends, every manager it ran
/// is stopped and its run awaited.
final class ManagerRunner: Sendable {
    private let intake: AsyncStream<SDLManager>.Continuation
    private let queue: AsyncStream<SDLManager>
    private let state = Mutex((scopeOpen: false, ran: [SDLManager]()))

    init() {
        (queue, intake) = AsyncStream.makeStream()
    }

    /// Runs `body` with the runner open; the managers handed over meanwhile run beside it.
    func withScope<T: Sendable>(_ body: () async -> T) async -> T {
        state.withLock { $0.scopeOpen = true }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withDiscardingTaskGroup { runs in
                    for await manager in self.queue {
                        runs.addTask { try? await manager.run() }
                    }
                }
            }
            let result = await body()
            let ran = state.withLock { state in
                state.scopeOpen = false
                return state.ran
            }
            intake.finish()
            for manager in ran { await manager.stop() }
            await group.waitForAll()
            return result
        }
    }

    /// Runs `manager` in the scope; returns once it is Ready, throws why it could not get there.
    func run(_ manager: SDLManager) async throws {
        let open = state.withLock { state in
            if state.scopeOpen { state.ran.append(manager) }
            return state.scopeOpen
        }
        guard open else { throw TourError("no scope runs the tours' managers") }
        intake.yield(manager)
        try await manager.waitUntilReady()
    }
}

/// `--stay`: the last tour's managers stay registered after it, until Ctrl-C or SIGTERM, so a
/// person can look at the app on the emulator's page.
final class ManagerKeeper: Sendable {
    private let lastTour: String?
    private let held = Mutex<[SDLManager]>([])

    init(keepingAfter lastTour: String?) {
        self.lastTour = lastTour
    }

    func keeps(after tour: String) -> Bool { tour == lastTour }

    func hold(_ managers: [SDLManager]) {
        held.withLock { $0 += managers }
    }

    /// Waits for SIGINT or SIGTERM when it holds managers (or `always` has some), then stops them.
    func holdUntilInterrupted(always: [SDLManager] = []) async {
        let managers =
            always
            + held.withLock { held in
                defer { held = [] }
                return held
            }
        guard !managers.isEmpty else { return }
        say("· the app stays registered; Ctrl-C (or SIGTERM) unregisters it and exits")
        for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
        for manager in managers { await manager.stop() }
        say("✔ stopped")
    }
}
