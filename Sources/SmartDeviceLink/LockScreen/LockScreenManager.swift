import Logging
import SDLConcurrency
import SDLRPC

/// The lock screen's logic without its UI (guide "Adding the Lock Screen"): whether the phone
/// must be locked, computed like the iOS library from the main window's HMI level and
/// OnDriverDistraction, read through ``SDLLockScreenConfiguration/DisplayMode``, whether the
/// user may dismiss it, and the head unit's logo. Draw the screen from ``states()``.
///
/// The status is off in NONE; in FULL or LIMITED it is required unless the head unit said the
/// driver is not distracted (DD_OFF: optional); in BACKGROUND it is off unless the user had
/// opened the app, then as in FULL. Each connection starts again from off.
public actor SDLLockScreenManager {
    /// The configuration it follows.
    public nonisolated let configuration: SDLLockScreenConfiguration
    private var rules: LockScreenRules
    private let fanOut: StreamFanOut<SDLLockScreenState>
    private let logger: Logger
    /// Counts connections: a logo that arrives after its connection ended is dropped.
    private var connection = 0

    init(configuration: SDLLockScreenConfiguration, logger: Logger) {
        self.configuration = configuration
        rules = LockScreenRules(configuration: configuration)
        fanOut = StreamFanOut(bufferLimit: 8, replaysLatest: true, initial: .initial)
        self.logger = logger
    }

    /// The lock screen now.
    public var state: SDLLockScreenState { rules.state }

    /// The state now, then each change, until the manager stops. Buffers the 8 latest; a slow
    /// reader loses the oldest (the last one is what matters).
    public nonisolated func states() -> AsyncStream<SDLLockScreenState> {
        fanOut.subscribe()
    }

    /// The user swiped the lock screen away. Returns false (and keeps it) when it may not be
    /// dismissed now; it comes back when the head unit's driver distraction changes.
    @discardableResult
    public func dismiss() -> Bool {
        update { $0.dismiss() }
    }

    // MARK: From the manager

    func connectionStarted() {
        connection += 1
        // Nothing of the last connection carries over, even a status read after its end.
        update { rules in
            rules.connectionEnded()
            rules.connectionStarted()
        }
    }

    func hmiLevelChanged(_ level: HMILevel) {
        update { $0.hmiLevelChanged(level) }
    }

    func driverDistraction(_ notification: OnDriverDistraction) {
        update { $0.driverDistraction(notification) }
    }

    func connectionEnded() {
        // A logo still downloading belongs to the connection that ended.
        connection += 1
        update { $0.connectionEnded() }
    }

    func stopped() {
        fanOut.finish()
    }

    /// OnSystemRequest LOCK_SCREEN_ICON_URL: the logo, downloaded with the app's HTTP client.
    func iconURL(_ url: String?, http: (any SDLHTTPClient)?) async {
        guard configuration.showDeviceLogo else { return }
        let asked = connection
        guard let url, !url.isEmpty else {
            logger.debug("LOCK_SCREEN_ICON_URL without a URL")
            return
        }
        guard let http else {
            logger.info("the head unit's lock screen logo is not downloaded: no HTTP client is configured", metadata: ["url": "\(url)"])
            return
        }
        do {
            let response = try await http.send(SDLHTTPRequest(url: url, timeout: .seconds(30)))
            guard (200..<300).contains(response.status), !response.body.isEmpty else {
                logger.warning("the lock screen logo was not downloaded", metadata: ["url": "\(url)", "status": "\(response.status)"])
                return
            }
            guard asked == connection else { return }
            update { $0.iconDownloaded(response.body) }
        } catch  where Task.isCancelled {
            logger.debug("the lock screen logo's download ended with its connection", metadata: ["url": "\(url)"])
        } catch {
            logger.warning("the lock screen logo was not downloaded", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }

    /// Applies `change` and publishes the state when it changed.
    @discardableResult
    private func update<T>(_ change: (inout LockScreenRules) -> T) -> T {
        let before = rules.state
        let result = change(&rules)
        let after = rules.state
        if after != before { fanOut.yield(after) }
        return result
    }
}
