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
    func activate(appID: String) async throws(SDLHeadUnitControlError)
    func press(_ button: ButtonName, mode: ButtonPressMode) async
    func pressSoftButton(appID: String, id: Int, mode: ButtonPressMode) async throws(SDLHeadUnitControlError)
    func selectCommand(appID: String, cmdID: Int) async throws(SDLHeadUnitControlError)
    func setMenuOpen(appID: String, _ open: Bool) async throws(SDLHeadUnitControlError)
    func openSubmenu(appID: String, menuID: Int?) async throws(SDLHeadUnitControlError)
    func answerInteraction(appID: String, _ answer: SDLUserAnswer) async throws(SDLHeadUnitControlError)
    func pressSubtleAlert(appID: String) async throws(SDLHeadUnitControlError)
    func typeOnKeyboard(appID: String, _ text: String) async throws(SDLHeadUnitControlError)
    func setKeyboardMasked(appID: String, _ masked: Bool) async throws(SDLHeadUnitControlError)
    /// Returns whether an app could get it (the HMI sends touches to the video app on screen).
    func touch(appID: String, _ type: TouchType, _ points: [SDLHeadUnitEmulator.TouchPoint]) async throws(SDLHeadUnitControlError) -> Bool
    func setDriverDistraction(_ on: Bool) async
    /// Values already checked against the vehicle's items.
    func setVehicleData(_ values: SDLJSONValue) async
}

extension SDLHeadUnitEmulator {
    /// Plays the driver on another HMI from now on (nil: on the built-in HMI again).
    public func setHMIDriver(_ driver: (any SDLHMIDriver)?) {
        hmiDriver = driver
    }
}
