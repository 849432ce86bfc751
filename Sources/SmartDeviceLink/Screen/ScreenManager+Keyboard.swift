import Logging
import SDLRPC
import SDLRuntime

/// A keyboard to present: its properties for this presentation and how the app follows the
/// typing.
public struct SDLKeyboard: Sendable {
    /// Shown above the keyboard; on many head units a placeholder, not editable text (the guide).
    public var initialText: String
    /// Layout, input mask, limited character list, language... sent with SetGlobalProperties
    /// before the keyboard shows; nil uses the screen manager's ``SDLScreenManager/keyboardConfiguration``.
    public var properties: KeyboardProperties?
    /// How long the head unit waits (its default when nil).
    public var timeout: Duration?
    /// Called with the entry as the driver types; its answer becomes the autocomplete list.
    public var autocomplete: (@Sendable (String) async -> [String])?
    /// Called with the entry as the driver types; its answer becomes the keys the driver may
    /// press next (`limitedCharacterList`, single characters, at most 100; nil lifts the limit),
    /// the guide's `updateCharacterSet`.
    public var characterSet: (@Sendable (String) async -> [String]?)?

    /// A keyboard showing `initialText`, with optional properties, timeout and autocomplete.
    ///
    /// - Parameters:
    ///   - initialText: shown above the keyboard (not used by a searchable choice set, which
    ///     shows its title).
    ///   - properties: layout, mask, limited characters, language (nil: the manager-wide configuration).
    ///   - timeout: how long the head unit waits (a searchable choice set uses its own).
    ///   - autocomplete: suggestions for the entry so far.
    ///
    /// Set ``characterSet`` afterwards to limit the keys as the entry grows.
    public init(
        initialText: String = "", properties: KeyboardProperties? = nil, timeout: Duration? = nil,
        autocomplete: (@Sendable (String) async -> [String])? = nil
    ) {
        self.initialText = initialText
        self.properties = properties
        self.timeout = timeout
        self.autocomplete = autocomplete
    }
}

/// How a keyboard presentation ended.
public enum SDLKeyboardOutcome: Sendable, Hashable {
    /// The driver submitted this text.
    case entered(String)
    /// The driver entered nothing before the timeout.
    case timedOut
    /// The app cancelled it (its task was cancelled; CancelInteraction closed it on RPC 6.0+).
    case cancelled
    /// The head unit ended it without an entry: the driver backed out (OnKeyboardInput
    /// ENTRY_CANCELLED) or the head unit aborted it (ENTRY_ABORTED); ``SDLScreenManager/keyboardInput()``
    /// carries which.
    case aborted
}

extension SDLScreenManager {
    /// Presents a keyboard (PerformInteraction with the KEYBOARD layout) and returns the entry.
    /// Its properties go first with SetGlobalProperties; with `autocomplete`, every key press
    /// (the whole entry so far, RESEND_CURRENT_ENTRY) is answered with a new autocomplete list.
    /// Cancelling the calling task dismisses it (CancelInteraction, RPC 6.0+).
    public func presentKeyboard(_ keyboard: SDLKeyboard) async throws -> SDLKeyboardOutcome {
        do throws(SDLScreenError) {
            guard case .keyboard(let entry) = try await presentInteraction(.presentKeyboard(KeyboardPresentation(keyboard: keyboard))) else {
                return .cancelled
            }
            // The caller's task was cancelled: the ABORTED that closed it answered our CancelInteraction.
            if entry == .aborted, Task.isCancelled { return .cancelled }
            return entry
        } catch {
            throw SDLError(error)
        }
    }

    /// Sets the keyboard every presentation uses unless it brings its own (the guide's
    /// `keyboardConfiguration`); nil restores the default: US English, QWERTY, the whole entry
    /// resent on each key press.
    public func setKeyboardConfiguration(_ properties: KeyboardProperties?) {
        keyboardConfiguration = properties ?? Self.defaultKeyboardConfiguration
    }

    /// The library's keyboard unless the app sets its own: US English, QWERTY, RESEND_CURRENT_ENTRY.
    public static let defaultKeyboardConfiguration = KeyboardProperties(language: .enUs, keyboardLayout: .qwerty, keypressMode: .resendCurrentEntry)

    /// `properties` as the window's keyboard capabilities allow (RPC 7.1+), as the iOS library
    /// does: the input mask left out when masking is not supported, a layout the head unit does
    /// not list left out (its own default shows), custom keys cut to the layout's configurable
    /// keys. Without capabilities they go as they are.
    static func fitted(_ properties: KeyboardProperties, to capabilities: KeyboardCapabilities?, logger: Logger) -> KeyboardProperties {
        guard let capabilities else { return properties }
        var fitted = properties
        if fitted.maskInputCharacters != nil, capabilities.maskInputCharactersSupported != true {
            logger.info("the head unit cannot mask keyboard input; the mask is left out")
            fitted.maskInputCharacters = nil
        }
        guard let layouts = capabilities.supportedKeyboards else { return fitted }
        let layout = fitted.keyboardLayout ?? .qwerty
        guard let supported = layouts.first(where: { $0.keyboardLayout == layout }) else {
            logger.info(
                "the head unit has no \(layout.rawValue) keyboard; its default layout shows",
                metadata: ["supported": "\(layouts.map(\.keyboardLayout.rawValue))"])
            fitted.keyboardLayout = nil
            fitted.customKeys = nil
            return fitted
        }
        if let keys = fitted.customKeys, keys.count > supported.numConfigurableKeys {
            logger.info("the \(layout.rawValue) keyboard has \(supported.numConfigurableKeys) configurable keys; the others are left out")
            fitted.customKeys = supported.numConfigurableKeys > 0 ? Array(keys.prefix(supported.numConfigurableKeys)) : nil
        }
        return fitted
    }

    /// Every OnKeyboardInput (key presses, submitted and cancelled entries), across reconnections.
    public nonisolated func keyboardInput() -> AsyncStream<OnKeyboardInput> {
        context.notifications(OnKeyboardInput.self)
    }

    func present(_ presentation: KeyboardPresentation) async throws(SDLScreenError) -> SDLKeyboardOutcome {
        guard let manager = current else { throw .stopped }
        let keyboard = presentation.keyboard
        let answer = try await following(keyboard, manager: manager) { cancelID in
            PerformInteraction(
                initialText: keyboard.initialText, interactionMode: .manualOnly, interactionChoiceSetIDList: [],
                timeout: keyboard.timeout.map(Self.milliseconds), interactionLayout: .keyboard, cancelID: cancelID)
        }
        let response: PerformInteractionResponse
        switch answer {
        case .timedOut: return .timedOut
        // ABORTED: the head unit's, or the app's CancelInteraction (`presentKeyboard` tells them apart).
        case .cancelled: return .aborted
        case .answered(let answered): response = answered
        }
        return .entered(response.manualTextEntry ?? "")
    }

    /// Runs the interaction `make` builds with `keyboard`'s properties set first (SetGlobalProperties,
    /// fitted to the window's keyboard capabilities) and, while it is up, answers each key press
    /// with the keyboard's autocomplete list and character set: the guide's keyboard delegate, for
    /// keyboards and searchable choice sets alike.
    func following(
        _ keyboard: SDLKeyboard, manager: any SDLScreenContext, _ make: (Int?) -> PerformInteraction
    ) async throws(SDLScreenError) -> InteractionAnswer {
        var properties = Self.fitted(
            keyboard.properties ?? keyboardConfiguration, to: await manager.mainWindowCapability()?.keyboardCapabilities, logger: logger)
        let follows = keyboard.autocomplete != nil || keyboard.characterSet != nil
        // Following the entry needs the whole of it on each key press.
        if follows { properties.keypressMode = .resendCurrentEntry }
        _ = try await request(SetGlobalProperties(keyboardProperties: properties), manager: manager)

        let inputs = manager.notifications(OnKeyboardInput.self)
        let shown = properties
        // The follower is a child of this presentation: it ends with the interaction.
        let result = await withTaskGroup(of: Void.self) { group -> Result<InteractionAnswer, SDLScreenError> in
            if follows {
                let (autocomplete, characterSet) = (keyboard.autocomplete, keyboard.characterSet)
                group.addTask {
                    for await input in inputs where input.event == .keypress {
                        let entry = input.data ?? ""
                        var updated = shown
                        if let autocomplete { updated.autoCompleteList = await autocomplete(entry) }
                        // The spec's list: single characters, at most 100.
                        if let characterSet { updated.limitedCharacterList = await characterSet(entry).map { Array($0.filter { $0.count == 1 }.prefix(100)) } }
                        _ = try? await manager.send(SetGlobalProperties(keyboardProperties: updated))
                    }
                }
            }
            defer { group.cancelAll() }
            do throws(SDLScreenError) {
                return .success(try await runInteraction(manager, make))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// A keyboard presentation waiting in the screen queue.
struct KeyboardPresentation: Sendable {
    let keyboard: SDLKeyboard
}
