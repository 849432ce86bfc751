import SDLProtocol
import SDLRPC
import SDLRuntime

/// DialNumber, as SDL Core answers it.
extension SDLHeadUnitEmulator {
    /// The characters a dialed number keeps; SDL Core strips every other one before dialing.
    static let dialableCharacters: Set<Character> = Set("0123456789*#,;+")

    func dialNumber(_ request: DialNumber, appID: String) -> (Reply, [Effect]) {
        guard configuration.phoneConnected else {
            return (.failure(.rejected, "no phone is connected over Bluetooth"), [])
        }
        let number = String(request.number.filter(Self.dialableCharacters.contains))
        guard !number.isEmpty else {
            return (.failure(.invalidData, "the number has no digits to dial"), [])
        }
        apps[appID]?.dialedNumbers.append(number)
        return (.success(), [])
    }

    /// The numbers the app dialed with DialNumber, oldest first, as the phone got them (stripped
    /// of everything but digits and `*#,;+`).
    public func dialedNumbers(appID: String) -> [String] {
        apps[appID]?.dialedNumbers ?? []
    }
}
