import Logging
import SDLRPC
import SDLRuntime

/// Phone calls through the phone paired with the car (DialNumber, RPC 3.0+).
///
/// The head unit must have a phone (PHONE_CALL `dialNumberEnabled`), the policy must allow the
/// app DialNumber, and the phone must be connected over Bluetooth: a USB link alone is not
/// enough, and SDL Core answers REJECTED.
public actor SDLPhoneManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLSubManagerContext
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// The same on `context` alone, for tests without a manager.
    init(context: any SDLSubManagerContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    /// The characters DialNumber takes; the head unit strips the others.
    public static let dialableCharacters: Set<Character> = Set("0123456789*#,;+")

    /// Calls `number` (characters other than digits and `*#,;+` are removed first, as the head
    /// unit would). Checks the head unit's phone capability before sending.
    public func dial(_ number: String) async throws {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            let digits = String(number.filter(Self.dialableCharacters.contains))
            guard !digits.isEmpty else { throw .invalid("\"\(number)\" has nothing to dial") }
            // Before RPC 4.5 nothing can be fetched: hmiCapabilities' word is all there is (the guide).
            guard await manager.isSupported(.phoneCall) else {
                throw .unsupported("the head unit has no phone capability")
            }
            if await manager.capability(.phoneCall)?.phoneCapability?.dialNumberEnabled == false {
                throw .unsupported("the head unit cannot dial numbers (dialNumberEnabled is false)")
            }
            _ = try await manager.feature(DialNumber(number: digits), timeout: .seconds(60))
        } catch {
            throw SDLError(error)
        }
    }
}

extension DialNumberResponse: SDLResultCarrying {}

extension SDLFeatureError {
    /// `context` while a manager is behind it; `notSent(.notReady(.stopped))` once it is gone.
    static func required(_ context: any SDLSubManagerContext) throws(SDLFeatureError) -> any SDLSubManagerContext {
        guard context.isAttached else { throw .notSent(.notReady(.stopped)) }
        return context
    }
}
