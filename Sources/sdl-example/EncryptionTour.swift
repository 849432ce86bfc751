import Foundation
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
        return await place.finish("encryption", [manager], steps: steps)
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
        guard let issued = await place.driver.postReading("/security/certificates", #"{"appID": "\#(place.appID)"}"#),
              let object = try? JSONSerialization.jsonObject(with: issued) as? [String: Any],
              let certificate = object["certificate"] as? String, let key = object["privateKey"] as? String
        else {
            steps.fail("no certificate: give --cert and --key, or --control-url of sdl headunit --security")
            return nil
        }
        steps.pass("certificate for \(place.appID) issued by the emulator's test CA")
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
