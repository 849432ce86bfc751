import SDLRPC

/// A button on the head unit's turn-by-turn screens (the maneuver, the maneuver alert, the
/// turn list). Its presses arrive as OnButtonPress `CUSTOM_BUTTON` with its `id`
/// (``SDLNavigationManager/turnButtonPresses()``).
public struct SDLTurnButton: Sendable {
    /// The ID its presses carry (0–65535).
    public var id: Int
    /// The label.
    public var text: String?
    /// The image, uploaded first.
    public var artwork: SDLArtwork?

    /// A button `id` with a label, an image or both.
    public init(id: Int, text: String? = nil, artwork: SDLArtwork? = nil) {
        self.id = id
        self.text = text
        self.artwork = artwork
    }

    var softButton: SoftButton {
        let type: SoftButtonType = text != nil && artwork != nil ? .both : artwork != nil ? .image : .text
        return SoftButton(type: type, text: text, image: artwork?.image, softButtonID: id, systemAction: .defaultAction)
    }
}

/// The next maneuver, as ShowConstantTBT shows it: the guide's best practice is the direction in
/// `text1` ("Turn right") and the distance to it in `text2` ("3 mi").
public struct SDLManeuver: Sendable {
    /// The direction to give.
    public var text1: String?
    /// The distance to it.
    public var text2: String?
    /// Estimated time of arrival, as text.
    public var eta: String?
    /// Time left to the destination, as text.
    public var timeToDestination: String?
    /// Distance left to the destination, as text.
    public var totalDistance: String?
    /// The maneuver's icon, uploaded first.
    public var icon: SDLArtwork?
    /// The icon of the maneuver after it, uploaded first.
    public var nextIcon: SDLArtwork?
    /// The distance to the maneuver, for the head unit's progress bar, with `distanceToManeuverScale`.
    public var distanceToManeuver: Double?
    /// The distance at which the progress bar starts.
    public var distanceToManeuverScale: Double?
    /// Up to 3 buttons.
    public var buttons: [SDLTurnButton] = []

    /// A maneuver with its two texts.
    public init(text1: String? = nil, text2: String? = nil, icon: SDLArtwork? = nil) {
        self.text1 = text1
        self.text2 = text2
        self.icon = icon
    }
}

/// One entry of the turn list.
public struct SDLTurn: Sendable {
    /// The turn in words.
    public var text: String?
    /// Its icon, uploaded first.
    public var icon: SDLArtwork?

    /// A turn with its text and icon.
    public init(text: String? = nil, icon: SDLArtwork? = nil) {
        self.text = text
        self.icon = icon
    }
}

extension SDLNavigationManager {
    /// Shows the next maneuver on the head unit's navigation screen (ShowConstantTBT); shown
    /// even while the app is in the background or a call is on. Icons are uploaded first.
    ///
    /// - Throws: `SDLError` code `invalidArgument` for a text with a newline or tab, more than
    ///   3 buttons, or a text button without text (SDL Core refuses them, INVALID_DATA), or two
    ///   buttons with one ID (their presses could not be told apart); otherwise what the head
    ///   unit answers.
    public func showManeuver(_ maneuver: SDLManeuver) async throws {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            let texts = [maneuver.text1, maneuver.text2, maneuver.eta, maneuver.timeToDestination, maneuver.totalDistance].compactMap { $0 }
            try Self.checkTexts(texts + maneuver.buttons.compactMap(\.text))
            try Self.checkButtons(maneuver.buttons, max: 3)
            try await Self.upload([maneuver.icon, maneuver.nextIcon] + maneuver.buttons.map(\.artwork), manager)
            var request = ShowConstantTBT(
                navigationText1: maneuver.text1, navigationText2: maneuver.text2, eta: maneuver.eta, timeToDestination: maneuver.timeToDestination,
                totalDistance: maneuver.totalDistance, turnIcon: maneuver.icon?.image, nextTurnIcon: maneuver.nextIcon?.image,
                distanceToManeuver: maneuver.distanceToManeuver, distanceToManeuverScale: maneuver.distanceToManeuverScale)
            if !maneuver.buttons.isEmpty { request.softButtons = maneuver.buttons.map(\.softButton) }
            _ = try await manager.feature(request)
        } catch {
            throw SDLError(error)
        }
    }

    /// Speaks (and shows) the maneuver now (AlertManeuver): the only way to tell the driver of
    /// the next turn during a phone call.
    ///
    /// - Throws: `SDLError` code `invalidArgument` without speech and buttons (SDL Core refuses
    ///   it, INVALID_DATA), with a newline, or with more than 3 buttons.
    public func alertManeuver(_ speech: String?, buttons: [SDLTurnButton] = []) async throws {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            let spoken = speech.flatMap { $0.isEmpty ? nil : $0 }
            if spoken == nil && buttons.isEmpty { throw .invalid("an AlertManeuver needs speech or buttons") }
            try Self.checkTexts([spoken].compactMap { $0 } + buttons.compactMap(\.text))
            try Self.checkButtons(buttons, max: 3)
            try await Self.upload(buttons.map(\.artwork), manager)
            _ = try await manager.feature(
                AlertManeuver(
                    ttsChunks: spoken.map { [TTSChunk(text: $0, type: .text)] }, softButtons: buttons.isEmpty ? nil : buttons.map(\.softButton)))
        } catch {
            throw SDLError(error)
        }
    }

    /// Replaces the turn list (UpdateTurnList): 1 to 100 turns, their icons uploaded first, and
    /// at most one button.
    ///
    /// - Throws: `SDLError` code `invalidArgument` for an empty or too long list, a turn with
    ///   neither text nor icon (SDL Core refuses it, INVALID_DATA), a newline, or more than one
    ///   button.
    public func updateTurnList(_ turns: [SDLTurn], button: SDLTurnButton? = nil) async throws {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            guard (1...100).contains(turns.count) else { throw .invalid("a turn list has 1 to 100 turns, not \(turns.count)") }
            if let index = turns.firstIndex(where: { $0.text == nil && $0.icon == nil }) {
                throw .invalid("turn \(index + 1) has neither text nor icon")
            }
            try Self.checkTexts(turns.compactMap(\.text) + [button?.text].compactMap { $0 })
            if let button { try Self.checkButtons([button], max: 1) }
            try await Self.upload(turns.map(\.icon) + [button?.artwork], manager)
            _ = try await manager.feature(
                UpdateTurnList(
                    turnList: turns.map { Turn(navigationText: $0.text, turnIcon: $0.icon?.image) }, softButtons: button.map { [$0.softButton] }))
        } catch {
            throw SDLError(error)
        }
    }

    /// Clears the maneuver and its alert from the navigation screen (ShowConstantTBT with
    /// `maneuverComplete`).
    public func clearManeuver() async throws {
        do throws(SDLFeatureError) {
            _ = try await SDLFeatureError.required(context).feature(ShowConstantTBT(maneuverComplete: true))
        } catch {
            throw SDLError(error)
        }
    }

    /// Presses of the turn-by-turn buttons (OnButtonPress `CUSTOM_BUTTON`): their IDs, across
    /// reconnections, until the manager stops.
    public nonisolated func turnButtonPresses() -> AsyncCompactMapSequence<AsyncStream<OnButtonPress>, Int> {
        context.notifications(OnButtonPress.self).compactMap { $0.buttonName == .customButton ? $0.customButtonID : nil }
    }

    /// SDL Core refuses texts with a newline or a tab (INVALID_DATA): refused before sending.
    private static func checkTexts(_ texts: [String]) throws(SDLFeatureError) {
        if let text = texts.first(where: { $0.contains("\n") || $0.contains("\t") || $0.contains("\\n") || $0.contains("\\t") }) {
            throw .invalid("turn-by-turn texts may not hold a newline or a tab: \(text.debugDescription)")
        }
    }

    private static func checkButtons(_ buttons: [SDLTurnButton], max: Int) throws(SDLFeatureError) {
        if buttons.count > max { throw .invalid("at most \(max) buttons here, not \(buttons.count)") }
        if let empty = buttons.first(where: { ($0.text ?? "").allSatisfy(\.isWhitespace) && $0.artwork == nil }) {
            throw .invalid("button \(empty.id) has neither text nor image")
        }
        if Set(buttons.map(\.id)).count != buttons.count { throw .invalid("two buttons share an ID") }
        if let bad = buttons.first(where: { !(0...65_535).contains($0.id) }) { throw .invalid("button ID \(bad.id) is not in 0–65535") }
    }

    private static func upload(_ artworks: [SDLArtwork?], _ manager: any SDLSubManagerContext) async throws(SDLFeatureError) {
        for artwork in artworks.compactMap({ $0 }) {
            do throws(SDLFileError) { _ = try await manager.uploadArtwork(artwork) } catch { throw .upload(artwork.name, error) }
        }
    }
}

extension ShowConstantTBTResponse: SDLResultCarrying {}
extension AlertManeuverResponse: SDLResultCarrying {}
extension UpdateTurnListResponse: SDLResultCarrying {}
