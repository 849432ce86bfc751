import ArgumentParser
import Foundation
import NIOSSL
import SDLHeadUnit
import SDLHeadUnitControl
import SDLTransport
import SDLWebSocket

extension HeadUnit {
    /// `--cloud-app`: N vehicles, each an emulator of its own dialing the app's server, with
    /// a line on standard error for each connection, registration and drop. The control API,
    /// if asked for, plays the driver of vehicle 1.
    func runCloudVehicles(url text: String, configuration: SDLHeadUnitEmulator.Configuration) async throws {
        let url: SDLWebSocketURL
        do {
            url = try SDLWebSocketURL(text)
        } catch {
            throw ValidationError("--cloud-app: \(error)")
        }
        guard cloudApps >= 1 else { throw ValidationError("--cloud-apps must be at least 1.") }
        guard retryDelay >= 0, retryAttempts >= 1 else { throw ValidationError("--retry-delay must not be negative and --retry-attempts must be at least 1.") }
        let tls: TLSConfiguration?
        do {
            tls = try trust.map { try SDLWebSocketTLS.client(trustingPEMFile: $0) }
        } catch {
            throw ValidationError("--trust: \(error)")
        }
        let (count, token, host) = (cloudApps, authToken, self.host)
        let retryDelay = Duration.milliseconds(Int(self.retryDelay * 1000))
        let attempts = retryAttempts
        Output.error("\(count) vehicle\(count == 1 ? "" : "s") dialing \(url)")
        let vehicles = (1...count).map { _ in SDLHeadUnitEmulator(configuration: configuration) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, emulator) in vehicles.enumerated() {
                let number = index + 1
                let endpoint = SDLCloudAppEndpoint(
                    authToken: token.map { count == 1 ? $0 : "\($0)-\(number)" }, retryDelay: retryDelay, maxAttempts: attempts
                ) {
                    try await SDLChannelTransport.connectWebSocket(to: url, tls: tls)
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
                            case .disconnected: Output.error("vehicle \(number): disconnected; dialing again")
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
                    try await SDLHeadUnitControlServer(headUnit: first, host: host, port: controlPort).run { bound in
                        Output.error("control API (vehicle 1) on http://\(host):\(bound)")
                    }
                }
            }
            // Every vehicle gave up (the control API alone does not keep the command running).
            for _ in vehicles { try await group.next() }
            group.cancelAll()
        }
    }
}
