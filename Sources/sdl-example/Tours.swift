import SDLAsyncHTTPClient
import SmartDeviceLink

/// Where a tour runs: the head unit, the app ID and the driver.
struct TourPlace {
    let host: String
    let port: Int
    let appID: String
    let driver: Driver

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
        for manager in managers { await manager.stop() }
        steps.pass("stopped")
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
