import SDLRPC

/// One look of a soft button: text, an image, or both, possibly highlighted.
public struct SDLSoftButtonState: Sendable, Hashable {
    /// Unique among the button's states; `transition(_:to:)` names it.
    public var name: String
    /// The label.
    public var text: String?
    /// The image; uploaded by the screen manager, shown only where soft buttons take images.
    public var artwork: SDLArtwork?
    /// Shown highlighted (selected), such as a toggle that is on.
    public var isHighlighted: Bool
    /// What the head unit does itself on a press (DEFAULT_ACTION lets the app decide).
    public var systemAction: SystemAction?

    /// A state named `name` showing text, an image, or both.
    ///
    /// - Parameters:
    ///   - name: unique among the button's states.
    ///   - text: the label.
    ///   - artwork: the image (uploaded by the screen manager when needed).
    ///   - isHighlighted: shown highlighted.
    ///   - systemAction: what the head unit does itself on a press.
    public init(name: String, text: String? = nil, artwork: SDLArtwork? = nil, isHighlighted: Bool = false, systemAction: SystemAction? = nil) {
        self.name = name
        self.text = text
        self.artwork = artwork
        self.isHighlighted = isHighlighted
        self.systemAction = systemAction
    }
}

/// A soft button: a unique name, one or more states, and what a press does. The screen manager
/// assigns its ID.
public struct SDLSoftButton: Sendable {
    /// Unique among the app's soft buttons; transitions and press streams name the button by it.
    public let name: String
    /// The button's looks; `transition(_:to:)` switches between them.
    public let states: [SDLSoftButtonState]
    /// The state shown first.
    public let initialState: String
    /// Runs on every press (short or long).
    public let handler: (@Sendable (OnButtonPress) -> Void)?

    /// A button with several states, such as a toggle.
    ///
    /// - Parameters:
    ///   - name: unique among the app's soft buttons.
    ///   - states: its looks; the first is shown unless `initialState` names another.
    ///   - initialState: the state shown first.
    ///   - handler: runs on every press.
    public init(name: String, states: [SDLSoftButtonState], initialState: String? = nil, handler: (@Sendable (OnButtonPress) -> Void)? = nil) {
        self.name = name
        self.states = states
        self.initialState = initialState ?? states.first?.name ?? ""
        self.handler = handler
    }

    /// A button with one state.
    ///
    /// - Parameters:
    ///   - name: unique among the app's soft buttons.
    ///   - text: the label.
    ///   - artwork: the image.
    ///   - handler: runs on every press.
    public init(name: String, text: String? = nil, artwork: SDLArtwork? = nil, handler: (@Sendable (OnButtonPress) -> Void)? = nil) {
        self.init(name: name, states: [SDLSoftButtonState(name: name, text: text, artwork: artwork)], handler: handler)
    }
}

/// Why soft buttons were refused before anything was sent.
package enum SDLSoftButtonError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two soft buttons share this name; names must be unique.
    case duplicateButtonName(String)
    /// One button has two states with this name.
    case duplicateStateName(button: String, state: String)
    /// The button has no state of this name (its initial state or a transition's target).
    case unknownState(button: String, state: String)
    /// No soft button on the screen has this name.
    case unknownButton(String)
    /// A state with neither text nor image.
    case emptyState(button: String, state: String)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .duplicateButtonName(let name): "two soft buttons are named \(name); names must be unique"
        case .duplicateStateName(let button, let state): "soft button \(button) has two states named \(state)"
        case .unknownState(let button, let state): "soft button \(button) has no state \(state)"
        case .unknownButton(let name): "no soft button is named \(name)"
        case .emptyState(let button, let state): "state \(state) of soft button \(button) has neither text nor image"
        }
    }
}

/// The soft buttons on screen: their current states and IDs.
struct SoftButtonBoard: Sendable {
    private(set) var buttons: [SDLSoftButton] = []
    private(set) var current: [String: String] = [:]
    /// IDs by button name, stable for the manager's life; 1000 up, apart from other features' IDs.
    private var ids: [String: Int] = [:]
    private var nextID = 1_000

    /// Checks the guide's rules and takes the new buttons.
    mutating func set(_ buttons: [SDLSoftButton]) throws(SDLSoftButtonError) {
        var names: Set<String> = []
        for button in buttons {
            guard names.insert(button.name).inserted else { throw .duplicateButtonName(button.name) }
            var stateNames: Set<String> = []
            for state in button.states {
                guard stateNames.insert(state.name).inserted else { throw .duplicateStateName(button: button.name, state: state.name) }
                if state.text == nil && state.artwork == nil { throw .emptyState(button: button.name, state: state.name) }
            }
            guard stateNames.contains(button.initialState) else { throw .unknownState(button: button.name, state: button.initialState) }
        }
        self.buttons = buttons
        current = Dictionary(uniqueKeysWithValues: buttons.map { ($0.name, $0.initialState) })
        for button in buttons where ids[button.name] == nil {
            ids[button.name] = nextID
            nextID += 1
        }
    }

    mutating func transition(_ name: String, to state: String) throws(SDLSoftButtonError) {
        guard let button = buttons.first(where: { $0.name == name }) else { throw .unknownButton(name) }
        guard button.states.contains(where: { $0.name == state }) else { throw .unknownState(button: name, state: state) }
        current[name] = state
    }

    func id(of name: String) -> Int? { ids[name] }

    func button(withID id: Int) -> SDLSoftButton? {
        buttons.first { ids[$0.name] == id }
    }

    /// The states to show, in order.
    var shownStates: [(id: Int, state: SDLSoftButtonState)] {
        buttons.compactMap { button in
            guard let id = ids[button.name], let state = button.states.first(where: { $0.name == current[button.name] }) else { return nil }
            return (id, state)
        }
    }

    /// The Show's soft buttons: images only where the head unit takes them (`imagesAllowed`) and
    /// has them (`available`); an image-only state the head unit cannot show is withheld, text
    /// and image fall back to text.
    func softButtons(imageSupported: Bool, available: (SDLArtwork) -> Bool) -> [SoftButton] {
        shownStates.compactMap { id, state in
            let image = state.artwork.flatMap { imageSupported && available($0) ? $0.image : nil }
            switch (state.text, image) {
            case (let text?, let image?):
                return SoftButton(type: .both, text: text, image: image, isHighlighted: state.isHighlighted, softButtonID: id, systemAction: state.systemAction)
            case (let text?, nil):
                return SoftButton(type: .text, text: text, isHighlighted: state.isHighlighted, softButtonID: id, systemAction: state.systemAction)
            case (nil, let image?):
                return SoftButton(type: .image, image: image, isHighlighted: state.isHighlighted, softButtonID: id, systemAction: state.systemAction)
            case (nil, nil):
                return nil
            }
        }
    }
}
