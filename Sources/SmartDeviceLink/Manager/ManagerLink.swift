import Synchronization

/// How a sub-manager reaches the manager that owns it without keeping it alive: the manager
/// sets itself here once it is initialised.
final class ManagerLink: Sendable {
    private struct Box { weak var manager: SDLManager? }
    private let box = Mutex(Box())

    var manager: SDLManager? {
        get { box.withLock { $0.manager } }
        set { box.withLock { $0.manager = newValue } }
    }

    /// The manager, or `notReady(.stopped)` once it is gone.
    func require() throws(SDLManagerError) -> SDLManager {
        guard let manager else { throw .notReady(.stopped) }
        return manager
    }
}
