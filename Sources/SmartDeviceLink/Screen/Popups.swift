import SDLRPC
import SDLRuntime

/// A large popup alert: up to three lines of text, an icon, up to four soft buttons, speech or
/// a tone, a progress indicator, shown for `duration` (the head unit's 5 s when nil).
///
/// The guide's rules are checked before sending: at least one line of text or some speech,
/// at most four buttons with unique names, a duration of 3–10 s. The head unit's capabilities
/// decide which fields go out: lines beyond its alert text fields are joined into the last one,
/// the icon is sent only where the display has an `alertIcon` field (RPC 6.0+), and soft-button
/// images only where soft buttons take images.
public struct SDLAlertView: Sendable {
    /// The first line of text.
    public var text: String?
    /// The second line of text.
    public var secondaryText: String?
    /// The third line; joined into the last line the display has when it has fewer.
    public var tertiaryText: String?
    /// Uploaded before the alert is sent.
    public var icon: SDLArtwork?
    /// Each button's first state is shown; its handler runs when the driver presses it.
    public var buttons: [SDLSoftButton]
    /// Spoken (or played, for file chunks) when the alert appears. Cancelling the alert does not
    /// stop speech already playing (the guide's caveat): keep it short if you may cancel.
    public var audio: SDLSpeech?
    /// Plays the head unit's alert tone when the alert appears.
    public var playTone: Bool
    /// How long the alert stays (3–10 s); the head unit's default, 5 s, when nil.
    public var duration: Duration?
    /// A spinning wheel or hourglass, where the head unit has one.
    public var showWaitIndicator: Bool

    /// An alert; give at least one line of text or some speech.
    ///
    /// - Parameters:
    ///   - text: the first line.
    ///   - secondaryText: the second line.
    ///   - tertiaryText: the third line.
    ///   - icon: an image shown in the alert.
    ///   - buttons: up to four soft buttons.
    ///   - audio: speech or an audio file played when it appears.
    ///   - playTone: plays the head unit's alert tone.
    ///   - duration: how long it stays, 3–10 s.
    ///   - showWaitIndicator: shows a progress indicator.
    public init(
        text: String? = nil, secondaryText: String? = nil, tertiaryText: String? = nil, icon: SDLArtwork? = nil,
        buttons: [SDLSoftButton] = [], audio: SDLSpeech? = nil, playTone: Bool = false, duration: Duration? = nil,
        showWaitIndicator: Bool = false
    ) {
        self.text = text
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.icon = icon
        self.buttons = buttons
        self.audio = audio
        self.playTone = playTone
        self.duration = duration
        self.showWaitIndicator = showWaitIndicator
    }

    var lines: [String] { [text, secondaryText, tertiaryText].compactMap { $0 }.filter { !$0.isEmpty } }
}

/// A small notification-style alert (RPC 7.0+): up to two lines, an icon, up to two soft
/// buttons, speech; it does not interrupt what else is on the screen. Touching it dismisses it
/// (the driver's tap arrives as OnSubtleAlertPressed: ``SDLAlertOutcome/pressed``).
public struct SDLSubtleAlertView: Sendable {
    /// The first line of text.
    public var text: String?
    /// The second line of text.
    public var secondaryText: String?
    /// An image shown in the alert; uploaded before the alert is sent.
    public var icon: SDLArtwork?
    /// Up to two soft buttons; each button's first state is shown and its handler runs when the
    /// driver presses it.
    public var buttons: [SDLSoftButton]
    /// Spoken (or played, for file chunks) when the alert appears.
    public var audio: SDLSpeech?
    /// How long it stays (3–10 s); the head unit's default, 5 s, when nil.
    public var duration: Duration?

    /// A subtle alert; give at least one line of text or some speech.
    ///
    /// - Parameters:
    ///   - text: the first line.
    ///   - secondaryText: the second line.
    ///   - icon: an image shown in the alert.
    ///   - buttons: up to two soft buttons.
    ///   - audio: speech or an audio file played when it appears.
    ///   - duration: how long it stays, 3–10 s.
    public init(
        text: String? = nil, secondaryText: String? = nil, icon: SDLArtwork? = nil, buttons: [SDLSoftButton] = [],
        audio: SDLSpeech? = nil, duration: Duration? = nil
    ) {
        self.text = text
        self.secondaryText = secondaryText
        self.icon = icon
        self.buttons = buttons
        self.audio = audio
        self.duration = duration
    }

    var lines: [String] { [text, secondaryText].compactMap { $0 }.filter { !$0.isEmpty } }
}

/// How an alert or subtle alert ended.
public enum SDLAlertOutcome: Sendable, Hashable {
    /// It closed by itself (its duration) or the driver closed it.
    case dismissed
    /// The driver pressed this soft button (its handler has run).
    case buttonPressed(String)
    /// The driver touched the subtle alert (OnSubtleAlertPressed), which dismisses it.
    case pressed
    /// Cancelled by the app (task cancellation; CancelInteraction on RPC 6.0+) or by the driver
    /// backing out, or another alert took its place (ABORTED).
    case cancelled
}

/// The subtle alert reports like the large one.
public typealias SDLSubtleAlertOutcome = SDLAlertOutcome

/// A popup slider: 2–26 positions, a header, and no footer, one footer, or one per position.
public struct SDLSliderView: Sendable, Hashable {
    /// The text under the slider.
    public enum Footer: Sendable, Hashable {
        /// No footer.
        case none
        /// The same text at every position.
        case single(String)
        /// One text per position (as many as `ticks`).
        case perPosition([String])
    }

    /// The number of positions, 2–26.
    public var ticks: Int
    /// The position shown first, 1...ticks.
    public var position: Int
    /// The slider's title.
    public var header: String
    /// No footer, one for every position, or one per position.
    public var footer: Footer
    /// How long the head unit waits for the driver (its default, 10 s, when nil; at most 65.535 s).
    public var timeout: Duration?

    /// A slider the driver moves to choose one of `ticks` positions.
    ///
    /// - Parameters:
    ///   - ticks: the number of positions, 2–26.
    ///   - position: the position shown first, 1...ticks.
    ///   - header: the title.
    ///   - footer: none, one, or one per position.
    ///   - timeout: how long the head unit waits for the driver.
    public init(ticks: Int, position: Int = 1, header: String, footer: Footer = .none, timeout: Duration? = nil) {
        self.ticks = ticks
        self.position = position
        self.header = header
        self.footer = footer
        self.timeout = timeout
    }
}

/// How a slider ended.
public enum SDLSliderOutcome: Sendable, Hashable {
    /// The driver chose this position (1...ticks).
    case selected(Int)
    /// The driver did not choose before the timeout (TIMED_OUT).
    case timedOut
    /// Cancelled by the app or the driver (ABORTED).
    case cancelled
}

/// A long, scrollable text with up to eight soft buttons.
public struct SDLScrollableMessage: Sendable {
    /// Up to 500 characters.
    public var text: String
    /// Up to eight soft buttons; each button's handler runs when the driver presses it.
    public var buttons: [SDLSoftButton]
    /// How long the head unit shows it (its default, 30 s, when nil; at most 65.535 s).
    public var timeout: Duration?

    /// A scrollable message with `text` and, optionally, soft buttons.
    ///
    /// - Parameters:
    ///   - text: the message, up to 500 characters.
    ///   - buttons: up to eight soft buttons.
    ///   - timeout: how long the head unit shows it.
    public init(text: String, buttons: [SDLSoftButton] = [], timeout: Duration? = nil) {
        self.text = text
        self.buttons = buttons
        self.timeout = timeout
    }
}

/// How a scrollable message ended.
public enum SDLScrollableMessageOutcome: Sendable, Hashable {
    /// Its timeout elapsed or the driver closed it (SDL Core answers both SUCCESS).
    case dismissed
    /// The driver pressed this soft button (its handler has run).
    case buttonPressed(String)
    /// The head unit reported the timeout as such (TIMED_OUT).
    case timedOut
    /// Cancelled by the app or the driver (ABORTED).
    case cancelled
}

/// Why an alert, slider, scrollable message, speech, media clock or audio pass-thru was refused
/// before anything was sent.
package enum SDLPresentationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An alert needs at least one line of text or some speech (the guide's rule).
    case alertNeedsTextOrSpeech
    /// More soft buttons than the popup or the display takes.
    case tooManyButtons(count: Int, maximum: Int)
    /// Two soft buttons share a name; names must be unique.
    case duplicateButtonName(String)
    /// A button whose first state has neither text nor image.
    case emptyButton(String)
    /// A duration or timeout outside what the spec allows.
    case durationOutOfRange(Duration, allowed: ClosedRange<Duration>)
    /// A slider has 2 to 26 positions.
    case sliderTicks(Int)
    /// The first position lies outside 1...ticks.
    case sliderPosition(Int, ticks: Int)
    /// Footers must be one, or one per position.
    case sliderFooters(count: Int, ticks: Int)
    /// A text is longer than its field allows.
    case textTooLong(field: String, length: Int, maximum: Int)
    /// The head unit cannot speak this kind of speech chunk; `supported` lists what it can.
    case speechUnsupported(SpeechCapabilities, supported: [SpeechCapabilities])
    /// The head unit has no such prerecorded sound; `available` lists what it has.
    case prerecordedSoundUnsupported(PrerecordedSpeech, available: [PrerecordedSpeech])
    /// The speech has no chunks, or only empty ones.
    case emptySpeech
    /// SDL Core takes the voice help title and list only together.
    case voiceHelpNeedsTitleAndItems
    /// SetMediaClockTimer is for media apps (`appTypes` containing MEDIA).
    case notMediaApp
    /// Counting up needs a start before the end; counting down, after it.
    case mediaClockRange(start: Duration, end: Duration, counting: UpdateMode)
    /// A seek indicator's jump is 1–99 seconds, and only for the TIME type.
    case seekTime(Int)
    /// The media clock's count rate is 0.1–100.
    case countRate(Double)
    /// The head unit's audio pass-thru capabilities do not list this format.
    case audioFormatUnsupported(SDLAudioFormat, supported: [SDLAudioFormat])

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .alertNeedsTextOrSpeech: "an alert needs at least one line of text or some speech"
        case .tooManyButtons(let count, let maximum): "\(count) soft buttons; at most \(maximum) fit"
        case .duplicateButtonName(let name): "two soft buttons are named \(name); names must be unique"
        case .emptyButton(let name): "soft button \(name) has neither text nor image"
        case .durationOutOfRange(let duration, let allowed): "\(duration) is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case .sliderTicks(let ticks): "a slider has 2 to 26 positions, not \(ticks)"
        case .sliderPosition(let position, let ticks): "position \(position) is outside 1...\(ticks)"
        case .sliderFooters(let count, let ticks): "\(count) footers for \(ticks) positions: give one, or one per position"
        case .textTooLong(let field, let length, let maximum): "\(field) has \(length) characters; at most \(maximum)"
        case .speechUnsupported(let type, let supported):
            "the head unit does not speak \(type.rawValue) (it speaks \(supported.map(\.rawValue).joined(separator: ", ")))"
        case .prerecordedSoundUnsupported(let sound, let available):
            "the head unit has no prerecorded \(sound.rawValue) (it has \(available.map(\.rawValue).joined(separator: ", ")))"
        case .emptySpeech: "there is nothing to speak"
        case .voiceHelpNeedsTitleAndItems: "the voice help title and items go together: set both or neither"
        case .notMediaApp: "the media clock is for media apps; add .media to the configuration's appTypes"
        case .mediaClockRange(let start, let end, let mode): "\(mode.rawValue) from \(start) to \(end) runs the wrong way"
        case .seekTime(let seconds): "a seek indicator jumps 1 to 99 seconds (TIME type), not \(seconds)"
        case .countRate(let rate): "the media clock's count rate is 0.1 to 100, not \(rate)"
        case .audioFormatUnsupported(let format, let supported):
            "the head unit records no \(format) (it records \(supported.map(\.description).joined(separator: ", ")))"
        }
    }
}
