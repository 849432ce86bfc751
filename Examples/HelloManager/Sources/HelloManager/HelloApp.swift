import SDLRPC
import SmartDeviceLink

/// A small SDL app: once the driver opens it, it greets them on the screen with one soft button,
/// and says goodbye when the button is pressed.
public enum HelloApp {
    /// The app's registration, connecting with `transport`.
    public static func configuration(transport: SDLManager.Transport) -> SDLManager.Configuration {
        var configuration = SDLManager.Configuration(appName: "Hello Manager", appID: "hello-manager", transport: transport)
        configuration.shortAppName = "Hello"
        configuration.appTypes = [.default]
        return configuration
    }

    /// What the app shows, step by step; returns once the driver pressed Bye.
    public static func greet(on manager: SDLManager, name: String = "driver") async throws {
        for await level in manager.hmiLevels() where level == .full { break }
        let presses = await manager.screen.softButtonPresses("Bye")
        _ = try await manager.screen.update { screen in
            screen.textField1 = "Hello, \(name)"
            screen.textField2 = "from swift-sdl"
        }
        _ = try await manager.screen.setSoftButtons([SDLSoftButton(name: "Bye", text: "Bye")])
        for await _ in presses { break }
        _ = try await manager.screen.update { $0.textField1 = "Goodbye" }
    }
}
