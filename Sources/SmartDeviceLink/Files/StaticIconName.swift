/// A built-in icon of the head unit, named by its hex value in the SDL static icon list (the
/// Generic HMI has them all; OEMs design their own). Open: any value of the list works.
public struct SDLStaticIconName: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The icon's hex value in the static icon list, such as `0x29`.
    public var rawValue: String

    /// The icon with this hex value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The icon with this hex value, written as a string literal (`"0x29"`).
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The accept-call icon (0x29).
    public static let acceptCall: SDLStaticIconName = "0x29"
    /// The add-waypoint icon (0x1B).
    public static let addWaypoint: SDLStaticIconName = "0x1B"
    /// The album icon (0x21).
    public static let album: SDLStaticIconName = "0x21"
    /// The ambient lighting icon (0x3D).
    public static let ambientLighting: SDLStaticIconName = "0x3D"
    /// The north arrow icon (0x40).
    public static let arrowNorth: SDLStaticIconName = "0x40"
    /// The audio mute icon (0x12).
    public static let audioMute: SDLStaticIconName = "0x12"
    /// The audiobook episode icon (0x83).
    public static let audiobookEpisode: SDLStaticIconName = "0x83"
    /// The audiobook narrator icon (0x82).
    public static let audiobookNarrator: SDLStaticIconName = "0x82"
    /// The auxiliary audio icon (0x45).
    public static let auxiliaryAudio: SDLStaticIconName = "0x45"
    /// The back icon (0x86).
    public static let back: SDLStaticIconName = "0x86"
    /// The battery icon at 0 of 5 bars (0xF7).
    public static let batteryCapacity0Of5: SDLStaticIconName = "0xF7"
    /// The battery icon at 1 of 5 bars (0xF8).
    public static let batteryCapacity1Of5: SDLStaticIconName = "0xF8"
}
