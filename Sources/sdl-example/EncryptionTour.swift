import Foundation
import SDLRPC
import SDLTLS
import SmartDeviceLink

/// Encryption (guide "Encryption"): the app's certificate from `--cert`/`--key` (a head unit with
/// its own CA) or from the emulator's test CA, the SDL security handshake with swift-nio-ssl, a
/// protected GetVehicleData, and an RPC the head unit's policy requires encrypted: refused in
/// plain text (ENCRYPTION_NEEDED), then sent protected by the manager on its own.
struct EncryptionTour {
    let place: TourPlace
    let certificatePath: String?
    let keyPath: String?
    /// The RPC the head unit requires encrypted (`sdl headunit --encryption-required AddCommand`).
    var requiredRPC = "AddCommand"

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: encryption")
        guard let identity = await identity(steps) else { return await place.finish("encryption", [], steps: steps) }
        var configuration = place.configuration()
        configuration.encryption.securityManagers = [SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) }]
        guard let manager = await place.start(configuration, steps: steps) else { return false }
        let states = Task {
            for await change in manager.encryptionStates() { steps.note("encryption of the \(change.service) service: \(change.state)") }
        }
        defer { states.cancel() }
        if await place.driver.activate(manager, steps: steps) {
            await steps.run("handshake") {
                try await manager.startRPCEncryption()
                return "the RPC service is encrypted (TLS 1.2, the app's certificate checked by the head unit)"
            }
            await steps.run("protected GetVehicleData") {
                let reading = try await manager.send(GetVehicleData(speed: true), protected: true)
                guard reading.success else { throw TourError("GetVehicleData: \(reading.resultCode.rawValue)") }
                return "speed \(reading.speed.map { "\($0) km/h" } ?? "-"), request and response encrypted"
            }
            await requiredEncryption(manager, steps: steps)
        }
        var managers = [manager]
        // Encrypted video: a NAVIGATION app of its own (its own app ID, so its own certificate).
        if let navigation = await protectedVideo(steps) { managers.append(navigation) }
        return await place.finish("encryption", managers, steps: steps)
    }

    /// A navigation app whose video service must be encrypted streams a second of the clip.
    private func protectedVideo(_ steps: Steps) async -> SDLManager? {
        let appID = "\(place.appID)-nav"
        guard certificatePath == nil else {
            steps.note("--cert is for \(place.appID): the protected video needs a certificate for \(appID), not tried")
            return nil
        }
        guard let identity = await issued(for: appID, steps) else { return nil }
        var configuration = place.configuration(appID: appID, name: "SDL Example Secure Navigation", types: [.navigation])
        configuration.encryption.securityManagers = [SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) }]
        configuration.encryption.video = .required
        guard let manager = await place.start(configuration, steps: steps, label: "navigation app ready") else { return nil }
        let states = manager.videoStreaming.states()
        let driver = Driver(appID: appID, controlURL: place.driver.controlURL, activationTimeout: place.driver.activationTimeout)
        guard await driver.activate(manager, steps: steps) else { return manager }
        let outcome = await within(10) { () -> SDLVideoStreamState? in
            for await state in states {
                if state.parameters != nil { return state }
                if case .failed = state { return state }
            }
            return nil
        }
        guard let parameters = outcome?.parameters, parameters.isEncrypted else {
            steps.fail("the video service did not start encrypted: \(outcome.map { "\($0)" } ?? "no answer in 10 s")")
            return manager
        }
        guard let clip = Bundle.module.url(forResource: "navigation-800x380", withExtension: "h264"), let data = try? Data(contentsOf: clip) else {
            steps.fail("the clip is missing from the example's resources")
            return manager
        }
        await steps.run("protected video") {
            let frames = SDLH264.accessUnits(in: Array(data)).prefix(15)
            // At the clip's pace (15 fps), as a player would: faster, the manager drops frames.
            let clock = ContinuousClock()
            let start = clock.now
            for (index, bytes) in frames.enumerated() {
                let time = Duration.seconds(1) / 15 * index
                try? await clock.sleep(until: start + time, tolerance: .milliseconds(2))
                guard try await manager.videoStreaming.send(SDLVideoFrame(annexB: bytes, presentationTime: time)) == .queued else {
                    throw TourError("frame \(index) was not queued")
                }
            }
            // The emulator's statistics count what it decrypted (asked up to 100 times, 50 ms apart;
            // not cancelled midway: FoundationNetworking on Linux crashes on a cancelled request).
            var received: Int?
            for _ in 0..<100 where received == nil {
                if let data = await place.driver.fetch("/apps/\(appID)/streams"),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let video = object["video"] as? [String: Any], let count = video["frames"] as? Int, count >= frames.count - 1
                {
                    received = count
                } else {
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            guard let received else { throw TourError("the head unit did not report the frames (GET /apps/\(appID)/streams)") }
            return "\(frames.count) frames (1 s of the clip) encrypted; the head unit decrypted \(received)"
        }
        return manager
    }

    /// The certificate and key from files, or issued by the emulator's test CA.
    private func identity(_ steps: Steps) async -> SDLTLSIdentity? {
        if let certificatePath, let keyPath {
            guard let certificate = FileManager.default.contents(atPath: certificatePath), let key = FileManager.default.contents(atPath: keyPath) else {
                steps.fail("cannot read \(certificatePath) or \(keyPath)")
                return nil
            }
            steps.pass("certificate from \(certificatePath)")
            return SDLTLSIdentity(certificateChainPEM: String(decoding: certificate, as: UTF8.self), privateKeyPEM: String(decoding: key, as: UTF8.self))
        }
        return await issued(for: place.appID, steps)
    }

    /// A certificate for `appID` from the emulator's test CA (`POST /security/certificates`).
    private func issued(for appID: String, _ steps: Steps) async -> SDLTLSIdentity? {
        guard let issued = await place.driver.postReading("/security/certificates", #"{"appID": "\#(appID)"}"#),
            let object = try? JSONSerialization.jsonObject(with: issued) as? [String: Any],
            let certificate = object["certificate"] as? String, let key = object["privateKey"] as? String
        else {
            steps.fail("no certificate for \(appID): give --cert and --key, or --control-url of sdl headunit --security")
            return nil
        }
        steps.pass("certificate for \(appID) issued by the emulator's test CA")
        return SDLTLSIdentity(certificateChainPEM: certificate, privateKeyPEM: key)
    }

    private func requiredEncryption(_ manager: SDLManager, steps: Steps) async {
        guard await manager.permissions?.permission(of: requiredRPC).requiresEncryption == true else {
            steps.note("the head unit's policy requires no encryption for \(requiredRPC) (sdl headunit --encryption-required \(requiredRPC))")
            return
        }
        let command = AddCommand(cmdID: 4242, menuParams: MenuParams(menuName: "Encrypted command"))
        await steps.run("\(requiredRPC) in plain text") {
            let plain = try await manager.send(command, protected: false)
            guard plain.resultCode == .encryptionNeeded else { throw TourError("expected ENCRYPTION_NEEDED, got \(plain.resultCode.rawValue)") }
            return "ENCRYPTION_NEEDED, as the policy's requireEncryption says"
        }
        await steps.run("\(requiredRPC) as the permissions ask") {
            let sent = try await manager.send(command)
            guard sent.success else { throw TourError("\(sent.resultCode.rawValue)") }
            return "sent encrypted on its own: \(sent.resultCode.rawValue)"
        }
    }
}
