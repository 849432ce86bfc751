import Logging
import SDLRPC

/// A focusable area of the app's video (a button, a list row), in the app's pixels: the head
/// unit's haptic controller (a knob, a touchpad) moves between such areas.
public struct SDLHapticArea: Sendable, Hashable {
    /// The area's ID, unique among the app's areas; touches report it back.
    public var id: Int
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// An area `id` at (`x`, `y`) of `width` × `height` in the app's video pixels.
    public init(id: Int, x: Double, y: Double, width: Double, height: Double) {
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The app's focusable areas on the head unit (SendHapticData), like the iOS library's
/// focusable item locator, for NAVIGATION and PROJECTION apps whose head unit supports haptic
/// spatial data (VIDEO_STREAMING `hapticSpatialDataSupported`).
///
/// ```swift
/// try await manager.haptics.setFocusableAreas([
///     SDLHapticArea(id: 1, x: 20, y: 300, width: 120, height: 60),
///     SDLHapticArea(id: 2, x: 160, y: 300, width: 120, height: 60),
/// ])
/// ```
///
/// Areas are sent scaled to the head unit's pixels (multiplied by the video's scale), only when
/// they changed, again after a reconnection, and cleared (an empty SendHapticData) when the app
/// stops the manager or calls ``clear()``.
public actor SDLHapticManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    private let context: any SDLStreamingContext
    private let logger: Logger
    /// The areas the app declared, in its pixels.
    public private(set) var focusableAreas: [SDLHapticArea] = []
    /// What the head unit holds on this connection (nil: unknown, send again).
    private var sent: [HapticRect]?
    /// The video scale the areas were sent at.
    private var sentScale: Double?

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// A haptic manager on `context` alone, for tests without a manager.
    init(context: any SDLStreamingContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    /// Declares the app's focusable areas and sends them when they differ from what the head
    /// unit holds.
    ///
    /// - Throws: `SDLError` code `invalidArgument` when two areas share an ID or one has a
    ///   negative size; `wrongAppType` for apps other than NAVIGATION and PROJECTION;
    ///   `unsupportedByHeadUnit` when the head unit takes no haptic data; what the head unit
    ///   answers otherwise. The areas are kept either way and sent after a reconnection.
    public func setFocusableAreas(_ areas: [SDLHapticArea]) async throws {
        if Set(areas.map(\.id)).count != areas.count {
            throw SDLError(SDLFeatureError.invalid("two focusable areas share an ID"))
        }
        if areas.contains(where: { $0.width < 0 || $0.height < 0 }) {
            throw SDLError(SDLFeatureError.invalid("a focusable area has a negative size"))
        }
        focusableAreas = areas
        try await synchronise()
    }

    /// Removes every focusable area (an empty SendHapticData).
    public func clear() async throws {
        try await setFocusableAreas([])
    }

    private func synchronise() async throws {
        let types = await context.appTypes
        guard types.contains(.navigation) || types.contains(.projection) else {
            throw SDLError(SDLFeatureError.wrongAppType("SendHapticData", needs: .navigation))
        }
        let parameters = await context.videoParameters()
        let capability = await context.capability(.videoStreaming)?.videoStreamingCapability
        guard parameters?.hapticSpatialDataSupported ?? capability?.hapticSpatialDataSupported ?? false else {
            throw SDLError(SDLFeatureError.unsupported("the head unit takes no haptic spatial data (VIDEO_STREAMING hapticSpatialDataSupported)"))
        }
        let scale = parameters?.scale ?? capability?.scale.flatMap { $0 > 0 ? $0 : nil } ?? 1
        let rects = focusableAreas.map { area in
            HapticRect(id: area.id, rect: SDLRectangle(x: area.x * scale, y: area.y * scale, width: area.width * scale, height: area.height * scale))
        }
        guard rects != sent else { return }
        do {
            _ = try await context.feature(SendHapticData(hapticRectData: rects))
        } catch {
            throw SDLError(error)
        }
        sent = rects
        sentScale = scale
    }

    /// Clears the areas on the head unit before the app unregisters (the manager's stop).
    /// The manager is stopping (no longer Ready), so this goes through the connection's client.
    func clearBeforeStopping(_ client: SDLRPCClient) async {
        guard let sent, !sent.isEmpty else { return }
        do {
            _ = try await client.send(SendHapticData(hapticRectData: []))
            self.sent = []
        } catch {
            logger.debug("the haptic areas were not cleared", metadata: ["error": "\(error)"])
        }
    }

    func connectionReady(_ connection: SDLConnectionContext) async {
        let types = await context.appTypes
        guard types.contains(.navigation) || types.contains(.projection) else { return }
        // The areas follow the video: sent again when a stream starts at another scale.
        let states = context.videoStates()
        connection.tasks.spawn {
            for await state in states {
                guard let parameters = state.parameters else { continue }
                await self.videoStreams(at: parameters.scale)
            }
        }
        guard !focusableAreas.isEmpty else { return }
        do {
            try await synchronise()
        } catch {
            logger.info("the focusable areas were not sent again", metadata: ["error": "\(error)"])
        }
    }

    private func videoStreams(at scale: Double) async {
        guard !focusableAreas.isEmpty, sent != nil, scale != sentScale else { return }
        do {
            try await synchronise()
        } catch {
            logger.info("the focusable areas were not sent at the video's new scale", metadata: ["error": "\(error)"])
        }
    }

    func connectionEnded() async {
        sent = nil
        sentScale = nil
    }

    func managerStopped() async {
        sent = nil
        sentScale = nil
    }
}

extension SendHapticDataResponse: SDLResultCarrying {}
