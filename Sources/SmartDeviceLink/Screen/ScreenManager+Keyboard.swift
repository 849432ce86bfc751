import SDLRPC
import SDLRuntime

/// A keyboard to present: its properties for this presentation and how the app follows the
/// typing.
public struct SDLKeyboard: Sendable {
    /// Shown above the keyboard; on many head units a placeholder, not editable text (the guide).
    public var initialText: String
    /// Layout, input mask, limited character list, language... sent with SetGlobalProperties
    /// before the keyboard shows.
    public var properties: KeyboardProperties
    /// How long the head unit waits (its default when nil).
    public var timeout: Duration?
    /// Called with the entry as the driver types; its answer becomes the autocomplete list.
    public var autocomplete: (@Sendable (String) async -> [String])?

    /// A keyboard showing `initialText`, with optional properties, timeout and autocomplete.
    ///
    /// - Parameters:
    ///   - initialText: shown above the keyboard.
    ///   - properties: layout, mask, limited characters, language.
    ///   - timeout: how long the head unit waits.
    ///   - autocomplete: suggestions for the entry so far.
    public init(
        initialText: String, properties: KeyboardProperties = KeyboardProperties(), timeout: Duration? = nil,
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
    /// Cancelled by the app (task cancellation) or by the driver backing out.
    case cancelled
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
            return entry
        } catch {
            throw SDLError(error)
        }
    }

    /// Every OnKeyboardInput (key presses, submitted and cancelled entries), across reconnections.
    public nonisolated func keyboardInput() -> AsyncStream<OnKeyboardInput> {
        context.notifications(OnKeyboardInput.self)
    }

    func present(_ presentation: KeyboardPresentation) async throws(SDLScreenError) -> SDLKeyboardOutcome {
        guard let manager = current else { throw .stopped }
        let keyboard = presentation.keyboard
        var properties = keyboard.properties
        if keyboard.autocomplete != nil, properties.keypressMode == nil { properties.keypressMode = .resendCurrentEntry }
        _ = try await request(SetGlobalProperties(keyboardProperties: properties), manager: manager)

        // Autocomplete as the driver types, while the interaction is up.
        let inputs = manager.notifications(OnKeyboardInput.self)
        let shown = properties
        // The follower is a child of this presentation: it ends with the interaction.
        let result = await withTaskGroup(of: Void.self) { group -> Result<InteractionAnswer, SDLScreenError> in
            if let autocomplete = keyboard.autocomplete {
                group.addTask {
                    for await input in inputs where input.event == .keypress {
                        let suggestions = await autocomplete(input.data ?? "")
                        var updated = shown
                        updated.autoCompleteList = suggestions
                        _ = try? await manager.send(SetGlobalProperties(keyboardProperties: updated))
                    }
                }
            }
            defer { group.cancelAll() }
            do throws(SDLScreenError) {
                return .success(try await runInteraction(manager) { cancelID in
                    PerformInteraction(
                        initialText: keyboard.initialText, interactionMode: .manualOnly, interactionChoiceSetIDList: [],
                        timeout: keyboard.timeout.map(Self.milliseconds), interactionLayout: .keyboard, cancelID: cancelID)
                })
            } catch {
                return .failure(error)
            }
        }
        let answer = try result.get()
        let response: PerformInteractionResponse
        switch answer {
        case .timedOut: return .timedOut
        case .cancelled: return .cancelled
        case .answered(let answered): response = answered
        }
        return .entered(response.manualTextEntry ?? "")
    }
}

/// A keyboard presentation waiting in the screen queue.
struct KeyboardPresentation: Sendable {
    let keyboard: SDLKeyboard
}
