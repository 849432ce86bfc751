import SDLAsyncHTTPClient
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
            try await manager.start()
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
        let managers = always + held.withLock { held in
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
