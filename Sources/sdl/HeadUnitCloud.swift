import ArgumentParser
import Foundation
import NIOSSL
import SDLCloudServer
import SDLHeadUnit
import SDLHeadUnitControl
import SDLTransport
import SDLWebSocket
import SmartDeviceLink
import Synchronization

extension HeadUnit {
    /// `--cloud-app`: N vehicles, each an emulator of its own dialing the app's server, with
    /// a line on standard error for each connection, registration and drop. The control API,
    /// if asked for, plays the driver of vehicle 1.
    func runCloudVehicles(url text: String, configuration: SDLHeadUnitEmulator.Configuration) async throws {
        // tcp://HOST:PORT: the same vehicles over plain TCP (SDL Core dials cloud apps over
        // WebSocket only), to measure what the WebSocket layer costs.
        let plainTCP: (host: String, port: Int)?
        let url: SDLWebSocketURL
        do {
            if text.hasPrefix("tcp://") {
                let address = try SDLWebSocketURL("ws://" + text.dropFirst(6))
                plainTCP = (address.host, address.port)
                url = address
            } else {
                plainTCP = nil
                url = Self.asSDLCoreDials(try SDLWebSocketURL(text))
                if let problem = SDLManager.cloudEndpointProblem(text) {
                    throw ValidationError("\(text): SDL Core would not dial it: \(problem)")
                }
            }
        } catch {
            throw ValidationError("--cloud-app: \(error)")
        }
        Self.raiseFileLimit(toFit: 2 * cloudApps + 64)
        guard cloudApps >= 1 else { throw ValidationError("--cloud-apps must be at least 1.") }
        guard retryDelay >= 0, retryAttempts >= 1 else { throw ValidationError("--retry-delay must not be negative and --retry-attempts must be at least 1.") }
        if let churn {
            guard churn > 0, churn <= 100 else { throw ValidationError("--churn is a percentage of the vehicles per minute, above 0 and at most 100.") }
            guard redialAfterDrop else { throw ValidationError("--churn needs --redial-after-drop: a dropped vehicle must dial again.") }
        }
        let tls: TLSConfiguration?
        do {
            tls = try trust.map { try SDLWebSocketTLS.client(trustingPEMFile: $0) }
        } catch {
            throw ValidationError("--trust: \(error)")
        }
        if cloudApps > 1 {
            // A fleet's vehicles take uploads and answer thousands of requests at once: glibc
            // would give the top of its heap back as soon as 128 KB were free and fault it in
            // again moments later (page faults were 15 % of this process's CPU while 10,000
            // vehicles set up). This process only, a load generator, not the apps it tests.
            FreedMemory.keep(upTo: 256 << 20, pad: 64 << 20)
        }
        var configuration = configuration
        // The vehicles hold the files they all received the same once (an app uploading its
        // icon to every vehicle would otherwise fill this process with copies).
        if cloudApps > 1 { configuration.sharedFileBytes = SDLSharedFileBytes() }
        let (count, token, host) = (cloudApps, authToken, self.host)
        let retryDelay = Duration.milliseconds(Int(self.retryDelay * 1000))
        let attempts = retryAttempts
        let redialAfterDrop = self.redialAfterDrop
        let hasControl = controlPort != nil
        Output.error("\(count) vehicle\(count == 1 ? "" : "s") dialing \(text)")
        let vehicles = (1...count).map { _ in SDLHeadUnitEmulator(configuration: configuration) }
        // Each vehicle's open connection, for --churn to drop.
        let connections = (1...count).map { _ in OpenConnection() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, emulator) in vehicles.enumerated() {
                let number = index + 1
                let endpoint = SDLCloudAppEndpoint(
                    authToken: token.map { count == 1 ? $0 : "\($0)-\(number)" }, retryDelay: retryDelay, maxAttempts: attempts,
                    redialsAfterDrop: redialAfterDrop
                ) { [connection = connections[index]] in
                    let transport =
                        if let plainTCP { try await SDLChannelTransport.connect(host: plainTCP.host, port: plainTCP.port) } else {
                            try await SDLChannelTransport.connectWebSocket(to: url, tls: tls)
                        }
                    connection.transport = transport
                    return transport
                }
                group.addTask {
                    await withTaskGroup(of: Void.self) { vehicle in
                        vehicle.addTask {
                            for await event in emulator.events() {
                                switch event {
                                case .appRegistered(let appID): Output.error("vehicle \(number): app \(appID) registered")
                                case .appUnregistered(let appID): Output.error("vehicle \(number): app \(appID) unregistered")
                                default: continue
                                }
                            }
                        }
                        await emulator.runCloudApp(endpoint) { event in
                            switch event {
                            case .connected: Output.error("vehicle \(number): connected")
                            case .disconnected:
                                connections[index].transport = nil
                                Output.error("vehicle \(number): disconnected")
                            case .waitingForActivation:
                                // The control API plays vehicle 1's HMI; the others wait for good (use --redial-after-drop).
                                let how = hasControl && number == 1 ? " (POST /cloud-app/activate)" : "; no control API drives it: use --redial-after-drop"
                                Output.error("vehicle \(number): waiting for the HMI to activate the app again, as SDL Core does\(how)")
                            case .dialFailed(let attempt, let reason): Output.error("vehicle \(number): dial \(attempt) failed: \(reason)")
                            case .gaveUp: Output.error("vehicle \(number): gave up")
                            }
                        }
                        vehicle.cancelAll()
                    }
                }
            }
            if let controlPort, let first = vehicles.first {
                group.addTask {
                    try await SDLHeadUnitControlServer(headUnit: first, host: host, port: controlPort) { bound in
                        Output.error("control API (vehicle 1) on http://\(host):\(bound)")
                    }.run()
                }
            }
            if let churn {
                group.addTask { try await Self.churn(connections, percentPerMinute: churn) }
            }
            // Every vehicle gave up (the control API and the churn alone do not keep the command running).
            for _ in vehicles { try await group.next() }
            group.cancelAll()
        }
    }
}

extension HeadUnit {
    /// `--churn`: every `60 s / (vehicles × percent / 100)` one connected vehicle, picked at
    /// random, loses its connection without a goodbye (`--redial-after-drop` dials it again).
    static func churn(_ connections: [OpenConnection], percentPerMinute: Double) async throws {
        let dropsPerMinute = Double(connections.count) * percentPerMinute / 100
        let gap = Duration.milliseconds(Int64((60_000 / dropsPerMinute).rounded()))
        Output.error("churn: one vehicle dropped every \(gap) (\(percentPerMinute) % of \(connections.count) per minute)")
        while true {
            try await Task.sleep(for: gap)
            let connected = connections.indices.filter { connections[$0].transport != nil }
            guard let index = connected.randomElement(), let transport = connections[index].take() else { continue }
            Output.error("vehicle \(index + 1): dropped (churn)")
            await transport.abort()
        }
    }

    /// SDL Core 8.2 asks for the policy table endpoint's path with a trailing slash: `/sdl` is
    /// requested as `/sdl/` (its cloud transport appends one to the path it reads).
    static func asSDLCoreDials(_ url: SDLWebSocketURL) -> SDLWebSocketURL {
        var dialed = url
        let path = url.uri.prefix { $0 != "?" && $0 != "#" }
        if !path.hasSuffix("/") { dialed.uri = path + "/" + url.uri.dropFirst(path.count) }
        return dialed
    }

    /// Each vehicle holds a socket: a thousand need more descriptors than the usual soft limit
    /// of 1,024, so it is raised toward the hard limit.
    static func raiseFileLimit(toFit needed: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(needed) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(needed))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// A vehicle's current connection, set by its dialer, taken by `--churn`.
final class OpenConnection: Sendable {
    private let current = Mutex<SDLChannelTransport?>(nil)

    var transport: SDLChannelTransport? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func take() -> SDLChannelTransport? {
        current.withLock { current in
            defer { current = nil }
            return current
        }
    }
}
