import SDLRPC

/// What the app wants on the main window: text, images and the template. Set it through
/// ``SDLScreenManager/update(_:)``; the screen manager works out the RPCs.
public struct SDLScreenContent: Sendable, Hashable {
    /// The four lines of the main field, top to bottom; fitted to the template's lines.
    public var textField1: String?
    /// The second line of the main field.
    public var textField2: String?
    /// The third line of the main field.
    public var textField3: String?
    /// The fourth line of the main field.
    public var textField4: String?
    /// What each line holds (title, artist...), for head units that style or speak them.
    public var textField1Type: MetadataType?
    /// What the second line holds.
    public var textField2Type: MetadataType?
    /// What the third line holds.
    public var textField3Type: MetadataType?
    /// What the fourth line holds.
    public var textField4Type: MetadataType?
    /// The media track field (media apps, on templates that have it).
    public var mediaTrack: String?
    /// The template's title (RPC 6.0+, on templates that have it).
    public var title: String?
    /// How the text lines are aligned (left, right, centered), where the template allows it.
    public var alignment: TextAlignment?
    /// The template's main image; the screen manager uploads it and shows it once the head unit
    /// has it.
    public var primaryGraphic: SDLArtwork?
    /// The template's second image, on templates that have one.
    public var secondaryGraphic: SDLArtwork?
    /// The template and its colours; nil keeps the head unit's default.
    public var template: SDLTemplate?

    /// Empty content; set the fields you want on the screen.
    public init() {}

    var lines: [String?] {
        get { [textField1, textField2, textField3, textField4] }
        set { (textField1, textField2, textField3, textField4) = (newValue[0], newValue[1], newValue[2], newValue[3]) }
    }

    var lineTypes: [MetadataType?] {
        get { [textField1Type, textField2Type, textField3Type, textField4Type] }
        set { (textField1Type, textField2Type, textField3Type, textField4Type) = (newValue[0], newValue[1], newValue[2], newValue[3]) }
    }

    /// The text part alone (what the first Show carries).
    var textPart: TextPart {
        TextPart(lines: lines, types: lineTypes, mediaTrack: mediaTrack, title: title, alignment: alignment)
    }

    struct TextPart: Hashable {
        var lines: [String?]
        var types: [MetadataType?]
        var mediaTrack: String?
        var title: String?
        var alignment: TextAlignment?
    }
}

/// A template (`PredefinedLayout` raw values such as "GRAPHIC_WITH_TEXT", or an OEM's) with its
/// day and night colours.
public struct SDLTemplate: Sendable, Hashable {
    /// The layout's name, such as `GRAPHIC_WITH_TEXT` or an OEM's own.
    public var name: String
    /// The colours by day; they apply only together with a template change.
    public var dayColors: TemplateColorScheme?
    /// The colours by night; they apply only together with a template change.
    public var nightColors: TemplateColorScheme?

    /// A template by name, with optional colours.
    ///
    /// - Parameters:
    ///   - name: the layout's name, e.g. `PredefinedLayout.graphicWithText.rawValue`.
    ///   - dayColors: the colours by day; they apply only together with a template change.
    ///   - nightColors: the colours by night, likewise.
    public init(_ name: String, dayColors: TemplateColorScheme? = nil, nightColors: TemplateColorScheme? = nil) {
        self.name = name
        self.dayColors = dayColors
        self.nightColors = nightColors
    }

    /// One of the spec's predefined layouts, with optional colours.
    ///
    /// - Parameters:
    ///   - layout: one of the spec's predefined layouts.
    ///   - dayColors: the colours by day; they apply only together with a template change.
    ///   - nightColors: the colours by night, likewise.
    public init(_ layout: PredefinedLayout, dayColors: TemplateColorScheme? = nil, nightColors: TemplateColorScheme? = nil) {
        self.init(layout.rawValue, dayColors: dayColors, nightColors: nightColors)
    }

    var configuration: TemplateConfiguration {
        TemplateConfiguration(template: name, dayColorScheme: dayColors, nightColorScheme: nightColors)
    }
}

/// How a screen update ended when it did not fail.
public enum SDLScreenUpdateResult: Sendable, Hashable {
    /// On the screen (or nothing needed sending).
    case applied
    /// A newer update replaced this one before it ran; the newer one carries its changes. Not
    /// a failure (the guide's "superseded").
    case superseded
}

/// Why a screen update failed.
package enum SDLScreenError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, RPC version...).
    case notSent(SDLManagerError)
    /// The head unit refused a request.
    case refused(String, SDLResult, info: String?)
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)
    /// An image could not be uploaded; the text is on the screen, the image is not.
    case upload(SDLArtwork, SDLFileError)
    /// Template colours apply only with a template change (the guide's caveat): change the
    /// template, or keep the colours.
    case colorsNeedTemplateChange
    /// The manager stopped before the update ran.
    case stopped
    /// The soft buttons break the guide's rules; nothing was sent.
    case softButtons(SDLSoftButtonError)
    /// The menu breaks the guide's rules; nothing was sent.
    case menu(SDLMenuError)
    /// The choice set breaks the guide's rules; nothing was sent.
    case choiceSet(SDLChoiceSetError)
    /// An alert, slider, message, speech, media clock or recording breaks the guide's rules or
    /// the head unit's capabilities; nothing was sent.
    case invalid(SDLPresentationError)
    /// An audio file could not be uploaded; nothing was sent.
    case uploadFile(String, SDLFileError)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .refused(let rpc, let code, let info): "the head unit refused \(rpc): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        case .upload(let artwork, let error): "image \(artwork.name) not uploaded: \(error)"
        case .colorsNeedTemplateChange: "template colours apply only with a template change; nothing was sent"
        case .stopped: "the manager stopped before the update ran"
        case .softButtons(let error): "\(error); nothing was sent"
        case .menu(let error): "\(error); nothing was sent"
        case .choiceSet(let error): "\(error); nothing was sent"
        case .invalid(let error): "\(error); nothing was sent"
        case .uploadFile(let name, let error): "audio file \(name) not uploaded, nothing was sent: \(error)"
        }
    }
}

extension SDLScreenError: SDLManagerOperationError {}
