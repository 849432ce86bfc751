import SDLConcurrency
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink

/// Synchronising on what the head unit did, never on time.
enum Wait {
    /// Until something of `kind` (any kind when nil) is on top of an app's screen.
    static func interaction(_ events: AsyncStream<SDLHeadUnitEvent>, kind: String? = nil) async {
        for await event in events {
            if case .interactionStarted(_, let started) = event, kind == nil || started == kind { return }
        }
    }

    /// Until a request of `function` arrived (it is being handled).
    static func request(_ events: AsyncStream<SDLHeadUnitEvent>, _ function: String) async {
        for await event in events {
            if case .requestReceived(_, function) = event { return }
        }
    }

    /// The next `count` elements of `stream`.
    static func next<T>(_ count: Int, of stream: AsyncStream<T>) async -> [T] {
        var taken: [T] = []
        var iterator = stream.makeAsyncIterator()
        while taken.count < count, let element = await iterator.next() { taken.append(element) }
        return taken
    }
}

extension TestApp {
    /// A head unit that leaves apps in NONE until the test activates them, configured further.
    static func headUnit(clock: ManualClock? = nil, _ configure: (inout SDLHeadUnitEmulator.Configuration) throws -> Void) rethrows -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        if let clock { configuration.clock = SDLClock(clock) }
        try configure(&configuration)
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    /// Round trip of a harmless request: everything the app sent before it has been handled.
    func settle() async throws {
        _ = try await client.send(ListFiles())
    }
}

extension SDLHeadUnitEmulator.Configuration {
    /// Replaces one member of the RegisterAppInterface response the head unit sends.
    mutating func setCapability(_ key: String, _ json: String) throws {
        guard case .object(var members) = capabilities else { return }
        let value = try SDLJSONValue(parsing: json)
        if let index = members.firstIndex(where: { $0.key == key }) { members[index].value = value } else { members.append(.init(key: key, value: value)) }
        capabilities = .object(members)
    }
}

extension SDLHeadUnitEmulator {
    /// The names of the RPCs the head unit sent the app, in order, responses as `<Name>Response`.
    func sentToApp(_ appID: String) -> [String] {
        recordedRPCs(appID: appID).filter { $0.direction == "out" }.map { $0.payload.rpcType == .response ? "\($0.functionName)Response" : $0.functionName }
    }
}
