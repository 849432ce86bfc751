import Logging
import SDLRPC
import SDLRuntime

/// How a Speak ended.
public enum SDLSpeakOutcome: Sendable, Hashable {
    /// Spoken to the end.
    case spoken
    /// Cut off by the head unit (ABORTED): another prompt, an alert, the driver.
    case interrupted
    /// Cancelled by the app before it was sent.
    case cancelled
}

/// The help the head unit gives for the app: the spoken help and timeout prompts and the voice
/// help list (SetGlobalProperties). Fields left nil are not changed.
public struct SDLHelp: Sendable {
    /// Spoken when the driver says "Help".
    public var helpPrompt: SDLSpeech?
    /// Spoken when a popup with a timeout times out.
    public var timeoutPrompt: SDLSpeech?
    /// The voice help list's title.
    public var voiceHelpTitle: String?
    /// The voice help list; items are numbered in order. An item's image is uploaded where the
    /// display has a `vrHelpItem` image field, and left out elsewhere.
    public var voiceHelp: [SDLVoiceHelpItem]?

    /// Help to set; fields left nil are not changed.
    ///
    /// - Parameters:
    ///   - helpPrompt: spoken when the driver asks for help.
    ///   - timeoutPrompt: spoken when a popup times out.
    ///   - voiceHelpTitle: the voice help list's title.
    ///   - voiceHelp: the voice help list.
    public init(helpPrompt: SDLSpeech? = nil, timeoutPrompt: SDLSpeech? = nil, voiceHelpTitle: String? = nil, voiceHelp: [SDLVoiceHelpItem]? = nil) {
        self.helpPrompt = helpPrompt
        self.timeoutPrompt = timeoutPrompt
        self.voiceHelpTitle = voiceHelpTitle
        self.voiceHelp = voiceHelp
    }
}

/// One entry of the voice help list.
public struct SDLVoiceHelpItem: Sendable, Hashable {
    /// The command as the driver would say it.
    public var text: String
    /// An image beside it, where the display has a `vrHelpItem` image field.
    public var artwork: SDLArtwork?

    /// A voice help entry reading `text`, optionally with an image.
    ///
    /// - Parameters:
    ///   - text: the command as the driver would say it.
    ///   - artwork: an image beside it.
    public init(_ text: String, artwork: SDLArtwork? = nil) {
        self.text = text
        self.artwork = artwork
    }
}

/// What ``SDLScreenManager/resetHelp(_:)`` clears.
public enum SDLHelpProperty: Sendable, Hashable, CaseIterable {
    /// The spoken help prompt, back to the head unit's default.
    case helpPrompt
    /// The spoken timeout prompt, back to the head unit's default.
    case timeoutPrompt
    /// The voice help list's title, back to the head unit's default.
    case voiceHelpTitle
    /// The voice help list's items, back to the head unit's default.
    case voiceHelp

    var globalProperty: GlobalProperty {
        switch self {
        case .helpPrompt: .helpprompt
        case .timeoutPrompt: .timeoutprompt
        case .voiceHelpTitle: .vrhelptitle
        case .voiceHelp: .vrhelpitems
        }
    }
}

extension SDLScreenManager {
    // MARK: Speak

    /// Speaks through the screen queue: one Speak at a time, each sent only after the previous
    /// one's answer (a new Speak would cut off the one in progress, the guide warns). The
    /// chunks must be of the head unit's speech capabilities; files are uploaded first.
    @discardableResult
    public func speak(_ speech: SDLSpeech) async throws -> SDLSpeakOutcome {
        do throws(SDLScreenError) {
            guard !speech.isEmpty else { throw .invalid(.emptySpeech) }
            guard case .speech(let outcome) = try await enqueue(.speak(speech), id: nextOperationID()) else { return .cancelled }
            return outcome
        } catch {
            throw SDLError(error)
        }
    }

    func say(_ speech: SDLSpeech) async throws(SDLScreenError) -> SDLSpeakOutcome {
        guard let manager = current else { throw .stopped }
        guard let chunks = try await prepare(speech, manager: manager) else { return .spoken }
        let response = try await SDLScreenError.sending(Speak.functionName) { try await manager.send(Speak(ttsChunks: chunks), timeout: .seconds(60)) }
        if response.resultCode == .aborted { return .interrupted }
        guard response.success || response.resultCode == .warnings else { throw .refused(Speak.functionName, response.resultCode, info: response.info) }
        if response.resultCode == .warnings { logger.info("the head unit spoke with warnings", metadata: ["info": "\(response.info ?? "")"]) }
        return .spoken
    }

    // MARK: Help

    /// Sets the help prompts and voice help (one SetGlobalProperties through the screen queue,
    /// so it never collides with the manager's own keyboard and menu properties).
    public func setHelp(_ help: SDLHelp) async throws {
        do throws(SDLScreenError) {
            guard (help.voiceHelpTitle == nil) == (help.voiceHelp == nil) else { throw .invalid(.voiceHelpNeedsTitleAndItems) }
            _ = try await enqueue(.help(help))
        } catch {
            throw SDLError(error)
        }
    }

    /// Gives the head unit's defaults back (ResetGlobalProperties).
    public func resetHelp(_ properties: Set<SDLHelpProperty> = Set(SDLHelpProperty.allCases)) async throws {
        do throws(SDLScreenError) {
            guard !properties.isEmpty else { return }
            _ = try await enqueue(.resetHelp(SDLHelpProperty.allCases.filter(properties.contains).map(\.globalProperty)))
        } catch {
            throw SDLError(error)
        }
    }

    func apply(_ help: SDLHelp) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        let window = await manager.mainWindowCapability()
        var items: [VrHelpItem]?
        if let voiceHelp = help.voiceHelp {
            let showsImages = window?.imageFields?.contains { $0.name == .vrHelpItem } ?? false
            var built: [VrHelpItem] = []
            for (index, item) in voiceHelp.enumerated() {
                var image: SDLImage?
                if let artwork = item.artwork, showsImages {
                    try await upload(artwork, manager: manager)
                    image = artwork.image
                }
                built.append(VrHelpItem(text: item.text, image: image, position: index + 1))
            }
            items = built
        }
        let properties = SetGlobalProperties(
            helpPrompt: try await prepare(help.helpPrompt, manager: manager), timeoutPrompt: try await prepare(help.timeoutPrompt, manager: manager),
            vrHelpTitle: help.voiceHelpTitle, vrHelp: items)
        _ = try await request(properties, manager: manager)
    }

    func reset(_ properties: [GlobalProperty]) async throws(SDLScreenError) {
        guard let manager = current else { throw .stopped }
        _ = try await request(ResetGlobalProperties(properties: properties), manager: manager)
    }
}
