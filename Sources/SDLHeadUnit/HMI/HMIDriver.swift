import SDLRPC
import SDLRuntime

/// The driver's hands on an HMI other than the built-in one. With a driver set
/// (``SDLHeadUnitEmulator/setHMIDriver(_:)``), the emulator's driver methods — the ones the control
/// API and the web page call: activate, press a button or soft button, choose a command, open the
/// menu, answer what is on top, type, touch, driver distraction, vehicle data — act on that HMI,
/// which tells the Core half over the HMI API as an HMI does (`SDL.ActivateApp`,
/// `Buttons.OnButtonPress`, its answer to `UI.PerformInteraction`...). Without one, they act on
/// the built-in HMI.
public protocol SDLHMIDriver: Sendable {
    /// The driver picks the app on the HMI (`SDL.ActivateApp`).
    func activate(appID: String) async throws(SDLHeadUnitControlError)
    /// A hardware button (`Buttons.OnButtonPress`).
    func press(_ button: ButtonName, mode: ButtonPressMode) async
    /// A soft button on the app's screen or on what is on top of it.
    func pressSoftButton(appID: String, id: Int, mode: ButtonPressMode) async throws(SDLHeadUnitControlError)
    /// A menu command (`UI.OnCommand`).
    func selectCommand(appID: String, cmdID: Int) async throws(SDLHeadUnitControlError)
    /// Opens or closes the app's menu (`UI.OnSystemContext` MENU, MAIN).
    func setMenuOpen(appID: String, _ open: Bool) async throws(SDLHeadUnitControlError)
    /// Opens a sub-menu of the open menu (nil: its top level).
    func openSubmenu(appID: String, menuID: Int?) async throws(SDLHeadUnitControlError)
    /// Answers what is on top of the app's screen (the HMI's answer to Core's request).
    func answerInteraction(appID: String, _ answer: SDLUserAnswer) async throws(SDLHeadUnitControlError)
    /// Taps the subtle alert itself.
    func pressSubtleAlert(appID: String) async throws(SDLHeadUnitControlError)
    /// Types on the keyboard shown over the app, one key at a time.
    func typeOnKeyboard(appID: String, _ text: String) async throws(SDLHeadUnitControlError)
    /// Hides or shows the typed characters.
    func setKeyboardMasked(appID: String, _ masked: Bool) async throws(SDLHeadUnitControlError)
    /// Touches the app's video; returns whether an app could get it (the HMI sends touches to
    /// the video app on screen).
    func touch(appID: String, _ type: TouchType, _ points: [SDLHeadUnitEmulator.TouchPoint]) async throws(SDLHeadUnitControlError) -> Bool
    /// The car starts or stops moving (`UI.OnDriverDistraction`).
    func setDriverDistraction(_ on: Bool) async
    /// The car's values change (`VehicleInfo.OnVehicleData`); already checked against its items.
    func setVehicleData(_ values: SDLJSONValue) async
}

extension SDLHeadUnitEmulator {
    /// Plays the driver on another HMI from now on (nil: on the built-in HMI again).
    public func setHMIDriver(_ driver: (any SDLHMIDriver)?) {
        hmiDriver = driver
    }
}
