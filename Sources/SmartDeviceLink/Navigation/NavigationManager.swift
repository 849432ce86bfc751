import Logging
import SDLRPC
import SDLRuntime

/// A destination for the car's navigation (SendLocation).
public struct SDLDestination: Sendable {
    /// Degrees, -90...90; give it together with `longitude` (SDL Core refuses one without the
    /// other).
    public var latitude: Double?
    /// Degrees, -180...180; give it together with `latitude`.
    public var longitude: Double?
    /// The place's name, as the navigation shows it.
    public var name: String?
    /// A description of the place.
    public var description: String?
    /// Up to four lines.
    public var addressLines: [String]?
    /// The structured address (country, postal code, locality, street...).
    public var address: OASISAddress?
    /// The place's phone number.
    public var phoneNumber: String?
    /// Uploaded before the request when it is not a static icon.
    public var image: SDLArtwork?
    /// When the driver should be there.
    public var arrival: DateTime?
    /// Navigate at once, ask the driver, or save it for later.
    public var deliveryMode: DeliveryMode?

    /// A destination; give coordinates, an address, or both.
    ///
    /// - Parameters:
    ///   - latitude: degrees, -90...90.
    ///   - longitude: degrees, -180...180.
    ///   - name: the place's name.
    ///   - description: a description.
    ///   - addressLines: up to four lines of address.
    ///   - address: the structured address.
    ///   - phoneNumber: the place's phone number.
    ///   - image: an image of the place.
    ///   - arrival: when to be there.
    ///   - deliveryMode: navigate at once, ask, or save.
    public init(
        latitude: Double? = nil, longitude: Double? = nil, name: String? = nil, description: String? = nil,
        addressLines: [String]? = nil, address: OASISAddress? = nil, phoneNumber: String? = nil, image: SDLArtwork? = nil,
        arrival: DateTime? = nil, deliveryMode: DeliveryMode? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.description = description
        self.addressLines = addressLines
        self.address = address
        self.phoneNumber = phoneNumber
        self.image = image
        self.arrival = arrival
        self.deliveryMode = deliveryMode
    }
}

/// The car's navigation: send it a destination, read the route's waypoints, follow them as they
/// change. All three are OEM-restricted: the navigation capability (`sendLocationEnabled`,
/// `getWayPointsEnabled`) and the policy are checked before anything is sent.
public actor SDLNavigationManager: SDLSubManager {
    let link = ManagerLink()
    /// What the manager offers it: `link` in an app, a fake in unit tests.
    let context: any SDLSubManagerContext
    private let logger: Logger
    private var readers: [Int: AsyncStream<[LocationDetails]>.Continuation] = [:]
    private var nextReader = 0
    private var subscribed = false
    /// Whether the waypoint listener runs (a child of the manager's run, started on first use).
    private var listening = false

    init(logger: Logger) {
        self.logger = logger
        self.context = link
    }

    /// The context while a manager is behind it.
    private var current: (any SDLSubManagerContext)? { context.isAttached ? context : nil }

    /// The same on `context` alone, for tests without a manager.
    init(context: any SDLSubManagerContext, logger: Logger) {
        self.logger = logger
        self.context = context
    }

    /// Sends a destination to the navigation (SendLocation, RPC 3.0+). The head unit says
    /// nothing of what the driver does with it.
    public func send(_ destination: SDLDestination) async throws {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            try await require(\.sendLocationEnabled, "send locations", manager)
            if let artwork = destination.image {
                // Skipped for a static icon or an image the head unit has.
                do throws(SDLFileError) { _ = try await manager.uploadArtwork(artwork) } catch { throw .upload(artwork.name, error) }
            }
            if let lines = destination.addressLines, lines.count > 4 { throw .invalid("a destination has at most 4 address lines, not \(lines.count)") }
            _ = try await manager.feature(
                SendLocation(
                    longitudeDegrees: destination.longitude, latitudeDegrees: destination.latitude, locationName: destination.name,
                    locationDescription: destination.description, addressLines: destination.addressLines, phoneNumber: destination.phoneNumber,
                    locationImage: destination.image?.image, timeStamp: destination.arrival, address: destination.address,
                    deliveryMode: destination.deliveryMode))
        } catch {
            throw SDLError(error)
        }
    }

    /// The route's waypoints now (GetWayPoints, RPC 4.1+); `.destination` gives only the last.
    public func wayPoints(_ type: WayPointType = .all) async throws -> [LocationDetails] {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            try await require(\.getWayPointsEnabled, "read waypoints", manager)
            return try await manager.feature(GetWayPoints(wayPointType: type)).wayPoints ?? []
        } catch {
            throw SDLError(error)
        }
    }

    /// The route's waypoints each time they change (OnWayPointChange), for as long as the
    /// sequence is read. The first reader subscribes (SubscribeWayPoints; IGNORED, already
    /// subscribed, counts as success), the last one to leave unsubscribes; the subscription is
    /// renewed after a reconnection.
    public func wayPointChanges() async throws -> AsyncStream<[LocationDetails]> {
        do throws(SDLFeatureError) {
            let manager = try SDLFeatureError.required(context)
            try await require(\.getWayPointsEnabled, "follow waypoints", manager)
            startListening(manager)
            let (stream, continuation) = AsyncStream<[LocationDetails]>.makeStream(bufferingPolicy: .bufferingNewest(16))
            nextReader += 1
            let id = nextReader
            readers[id] = continuation
            let context = self.context
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                context.spawn { await self.readerLeft(id) }
            }
            if !subscribed {
                do {
                    try await subscribe(manager)
                } catch {
                    readers[id] = nil
                    continuation.finish()
                    throw error
                }
            }
            return stream
        } catch {
            throw SDLError(error)
        }
    }

    private func subscribe(_ manager: any SDLSubManagerContext) async throws(SDLFeatureError) {
        let response = try await SDLFeatureError.sending(SubscribeWayPoints.functionName) { try await manager.send(SubscribeWayPoints()) }
        guard response.success || response.resultCode == .ignored else {
            throw .refused(SubscribeWayPoints.functionName, response.resultCode, info: response.info)
        }
        subscribed = true
    }

    private func readerLeft(_ id: Int) async {
        guard readers.removeValue(forKey: id) != nil, readers.isEmpty, subscribed, let manager = current else { return }
        subscribed = false
        _ = try? await manager.send(UnsubscribeWayPoints())
    }

    private func startListening(_ manager: any SDLSubManagerContext) {
        guard !listening else { return }
        let changes = manager.notifications(OnWayPointChange.self)
        listening = context.spawn { [weak self] in
            for await change in changes { await self?.deliver(change.wayPoints) }
        }
    }

    private func deliver(_ wayPoints: [LocationDetails]) {
        for reader in readers.values { reader.yield(wayPoints) }
    }

    /// Checks the navigation capability: the head unit must have one, and not say `false` for
    /// `flag` (older head units leave the flags out; then the policy decides).
    private func require(_ flag: KeyPath<NavigationCapability, Bool?>, _ what: String, _ manager: any SDLSubManagerContext) async throws(SDLFeatureError) {
        // Before RPC 4.5 nothing can be fetched: hmiCapabilities' word is all there is (the guide).
        guard await manager.isSupported(.navigation) else {
            throw .unsupported("the head unit has no navigation to \(what)")
        }
        if await manager.capability(.navigation)?.navigationCapability?[keyPath: flag] == false {
            throw .unsupported("the head unit's navigation cannot \(what)")
        }
    }

    // MARK: Connections

    func connectionReady(_ connection: SDLConnectionContext) {
        guard !readers.isEmpty, let manager = current else {
            subscribed = false
            return
        }
        subscribed = false
        connection.tasks.spawn {
            do {
                try await self.subscribe(manager)
            } catch {
                self.logger.warning("could not renew the waypoint subscription", metadata: ["error": "\(error)"])
            }
        }
    }

    func managerStopped() {
        listening = false
        subscribed = false
        let ending = readers
        readers = [:]
        for reader in ending.values { reader.finish() }
    }
}

extension SendLocationResponse: SDLResultCarrying {}
extension GetWayPointsResponse: SDLResultCarrying {}
