/// A built-in icon of the head unit, named by its hex value in the SDL static icon list (the
/// Generic HMI has them all; OEMs design their own). Open: any value of the list works.
public struct SDLStaticIconName: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let acceptCall: SDLStaticIconName = "0x29"
    public static let addWaypoint: SDLStaticIconName = "0x1B"
    public static let album: SDLStaticIconName = "0x21"
    public static let ambientLighting: SDLStaticIconName = "0x3D"
    public static let arrowNorth: SDLStaticIconName = "0x40"
    public static let audioMute: SDLStaticIconName = "0x12"
    public static let audiobookEpisode: SDLStaticIconName = "0x83"
    public static let audiobookNarrator: SDLStaticIconName = "0x82"
    public static let auxiliaryAudio: SDLStaticIconName = "0x45"
    public static let back: SDLStaticIconName = "0x86"
    public static let batteryCapacity0Of5: SDLStaticIconName = "0xF7"
    public static let batteryCapacity1Of5: SDLStaticIconName = "0xF8"
}
