import ArgumentParser
import Foundation
import SDLHeadUnit
import SDLHeadUnitControl
import SDLRPC
import SDLRuntime
import SDLStandInHMI
import SDLTLS
import SDLTransport
import SmartDeviceLink
import SwiftASN1
import X509

/// `sdl headunit`: the emulator on a TCP port, with its control API on another.
struct HeadUnit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headunit",
        abstract: "Run a head unit that behaves like SDL Core 8.2, with a control API to play the driver.",
        discussion: """
            Apps connect over TCP (SDL Core's port is 12345). The emulator keeps each app's HMI level, screen,
            menu, choice sets, button subscriptions and what is on top, and answers like SDL Core
            (DISALLOWED, INVALID_ID, IGNORED...). With --control-port, an HTTP API plays the driver:
              curl localhost:8080/apps
              curl -X POST localhost:8080/apps/8675309/activate
              curl -X POST localhost:8080/buttons/OK/press -d '{"mode":"SHORT"}'
              curl -X POST localhost:8080/apps/8675309/interaction -d '{"choiceID":1}'
            See the README for every route.
            """)

    @Option(help: "TCP port apps connect to.")
    var port = 12345

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("JSON file with the RegisterAppInterface response (capabilities).", valueName: "path"))
    var capabilities: String?

    @Option(help: "Seconds after registration before the app is activated (FULL).")
    var activationDelay: Double = 0

    @Flag(help: "Leave apps in NONE until the control API activates them.")
    var manualActivation = false

    @Option(help: "The head unit's language, e.g. EN-US; apps asking for another get WRONG_LANGUAGE.")
    var language = "EN-US"

    @Option(help: ArgumentHelp("JSON policy table in SDL Core's vocabulary (functional_groupings, app_policies).", valueName: "path"))
    var policy: String?

    @Option(help: ArgumentHelp("JSON object of vehicle-data values, e.g. {\"speed\": 88.0}.", valueName: "path"))
    var vehicleData: String?

    @Option(
        help: ArgumentHelp(
            "A policy server: the policy update at an app's first activation goes through the app (OnSystemRequest PROPRIETARY) to this URL, as on SDL Core.",
            valueName: "url"))
    var policyURL: String?

    @Option(help: "Bytes each app may store with PutFile.")
    var fileQuota = 100 * 1024 * 1024

    @Option(help: "Seconds the head unit takes to speak each Speak (0: answered at once, as SDL Core with a stand-in HMI).")
    var speakingTime: Double = 0

    @Option(help: "Milliseconds of audio in each OnAudioPassThru chunk of the synthetic microphone.")
    var audioChunkMilliseconds = 100

    @Flag(help: "No phone paired over Bluetooth: DialNumber is REJECTED.")
    var noPhone = false

    @Option(
        help: ArgumentHelp(
            "The lock screen logo's URL sent to apps in OnSystemRequest(LOCK_SCREEN_ICON_URL) after registration (default: SDL's logo on GitHub, as SDL Core's policy table names).",
            valueName: "url"))
    var lockScreenIconURL: String?

    @Flag(
        help:
            "Announce what a stock SDL Core 8.2 does: speech TEXT only, no DISPLAYS capability (legacy display capabilities), image fields without imageTypeSupported but for locationImage and alertIcon."
    )
    var sdlCoreDefaults = false

    @Flag(
        help:
            "Dynamic menu updates (RPC 7.0): submenus filled on demand (OnUpdateSubMenu when the driver opens one) and menu icons fetched when shown (OnUpdateFile)."
    )
    var dynamicMenus = false

    @Flag(help: "The driver refuses remote-control consent (GetInteriorVehicleDataConsent answers false).")
    var refuseConsent = false

    @Option(
        help: ArgumentHelp(
            "Grant this functional group to every app without an entry of its own, as an OEM's policy would (e.g. HapticGroup: touches for navigation apps). Repeatable.",
            valueName: "group"))
    var grant: [String] = []

    @Flag(
        help:
            "Run SDL Core's security manager: the TLS handshake with apps that protect services, checking their certificates against a CA (a test CA made at start unless --ca), ENCRYPTION_NEEDED for RPCs of encryption_required groups."
    )
    var security = false

    @Option(
        help: ArgumentHelp(
            "An RPC every app must send encrypted (a policy group with encryption_required): plain, it is answered ENCRYPTION_NEEDED. Repeatable.",
            valueName: "rpc"))
    var encryptionRequired: [String] = []

    @Option(help: ArgumentHelp("With --security: the CA certificate (PEM) app certificates must be signed by.", valueName: "path"))
    var ca: String?

    @Option(help: ArgumentHelp("With --security and --ca: the CA's private key (PEM), so the control API can issue app certificates.", valueName: "path"))
    var caKey: String?

    @Option(
        help: ArgumentHelp(
            "With --security: the head unit's own certificate (PEM, SDL Core's CertificatePath), presented to an app that asks for it; needs --key.",
            valueName: "path"))
    var cert: String?

    @Option(help: ArgumentHelp("With --security and --cert: the head unit certificate's private key (PEM, SDL Core's KeyPath).", valueName: "path"))
    var key: String?

    @Flag(
        help:
            "With --security: start without the HMI's system time (SDL Core before BasicCommunication.OnSystemTimeReady): protected services are refused \"System time provider is not ready\" until PUT /security/system-time {\"ready\": true}."
    )
    var noSystemTime = false

    @Option(
        help: ArgumentHelp(
            "With --security: write the CA certificate (and a generated CA's key) to this directory as ca.pem and ca-key.pem.", valueName: "directory"))
    var writeCA: String?

    @Option(help: "Port of the HTTP control API (0: any free port); none without this option.")
    var controlPort: Int?

    @Option(
        help: ArgumentHelp(
            "Listen for HMIs on this port as SDL Core does on 8087 (WebSocket, the HMI API's JSON-RPC): SDL's own HMI (sdl_hmi) or any HMI written for SDL Core becomes the head unit's screen. Apps are served once it says OnReady; they stay in NONE until it activates them.",
            valueName: "port"))
    var hmiPort: Int?

    @Flag(
        help: ArgumentHelp(
            "With --hmi-port: connect a headless stand-in HMI to it over the HMI API (it answers as SDL's stand-in HMI, shows interactions until the driver answers) and play the control API's driver through it: every request and driver step goes through the HMI API."
        ))
    var standInHMI = false

    @Flag(help: "Log every frame, both directions, as JSON lines on standard output.")
    var log = false

    @Option(
        help: ArgumentHelp(
            "Write each app's streams here: <appID>-video.h264 (H.264 Annex-B, RTP depacketised) and <appID>-audio.wav (the head unit's PCM format).",
            valueName: "dir"))
    var recordStreams: String?

    @Option(
        help: ArgumentHelp(
            "Dial a cloud app's WebSocket server (ws:// or wss://) as SDL Core does, instead of listening on TCP (after a drop: see --redial-after-drop). tcp://HOST:PORT dials plain TCP (for comparisons; SDL Core uses WebSocket).",
            valueName: "url"))
    var cloudApp: String?

    @Option(help: "With --cloud-app: this many vehicles, each its own head unit with its own connection (load tests).")
    var cloudApps = 1

    @Option(
        help: "With --cloud-app: the app's auth token (the policy table's auth_token), sent in StartServiceACK; vehicle N gets TOKEN-N when there are several.")
    var authToken: String?

    @Option(help: ArgumentHelp("With a wss:// --cloud-app: trust the certificates in this PEM file (a self-signed server).", valueName: "path"))
    var trust: String?

    @Option(help: "With --cloud-app: seconds between dials after a failed dial (SDL Core: 1), and after a drop with --redial-after-drop.")
    var retryDelay: Double = 1

    @Option(help: "With --cloud-app: failed dials in a row before a vehicle gives up (SDL Core: 5).")
    var retryAttempts = 5

    @Flag(
        help:
            "With --cloud-app: dial again after a connection drops (load tests, scale-out drills). Without it, as SDL Core 8.2, a vehicle waits for the HMI to activate the app again (POST /cloud-app/activate)."
    )
    var redialAfterDrop = false

    @Option(
        help: ArgumentHelp(
            "With --cloud-app, several vehicles and --redial-after-drop: drop this percentage of the vehicles per minute, spread over the minute (a random connected vehicle's socket closes without a goodbye, as in a tunnel), so that each dials again: reconnect churn for soak tests.",
            valueName: "percent"))
    var churn: Double?

    /// The security manager: a TLS client per connection checking app certificates against the
    /// CA (SDL Core's rules), and the CA's issuer for the control API when its key is known.
    func configureSecurity(_ configuration: inout SDLHeadUnitEmulator.Configuration) throws {
        let authority: SDLCertificateAuthority?
        let trusted: Certificate
        if let ca {
            let pem = String(decoding: try Self.read(ca), as: UTF8.self)
            if let caKey {
                let key = String(decoding: try Self.read(caKey), as: UTF8.self)
                do {
                    authority = try SDLCertificateAuthority(certificatePEM: pem, privateKeyPEM: key)
                } catch {
                    throw ValidationError("\(ca), \(caKey): not a CA certificate and its key: \(error)")
                }
                trusted = authority!.certificate
            } else {
                authority = nil
                do {
                    trusted = try Certificate(pemEncoded: pem)
                } catch {
                    throw ValidationError("\(ca) is not a PEM certificate: \(error)")
                }
            }
        } else {
            authority = try SDLCertificateAuthority.generate(name: "sdl headunit test CA")
            trusted = authority!.certificate
        }
        var identity: SDLTLSIdentity?
        switch (cert, key) {
        case (let cert?, let key?):
            identity = SDLTLSIdentity(
                certificateChainPEM: String(decoding: try Self.read(cert), as: UTF8.self), privateKeyPEM: String(decoding: try Self.read(key), as: UTF8.self))
            // Fail now, not at the first app's handshake.
            do {
                _ = try SDLTLSSecurity(role: .client(SDLCertificateCheck(authority: trusted, expectedSerialNumber: ""), identity: identity))
            } catch {
                throw ValidationError("\(cert), \(key): not a certificate and its key: \(error)")
            }
        case (nil, nil): identity = nil
        default: throw ValidationError("--cert and --key go together.")
        }
        let headUnitIdentity = identity
        // As SDL Core 8.2: an app that offers TLS 1.3 gets it, and its protected traffic fails.
        configuration.security = { appID in
            try SDLTLSSecurity(
                role: .client(SDLCertificateCheck(authority: trusted, expectedSerialNumber: appID), identity: headUnitIdentity), tls13: .brokenAsInSDLCore82)
        }
        configuration.systemTimeReady = !noSystemTime
        if let authority {
            configuration.certificateIssuer = { appID in
                let identity = try authority.issue(appID: appID)
                return (String(decoding: identity.certificateChainPEM, as: UTF8.self), String(decoding: identity.privateKeyPEM, as: UTF8.self))
            }
        }
        Output.error("security: app certificates must be signed by \(trusted.subject)")
        if let writeCA {
            try FileManager.default.createDirectory(atPath: writeCA, withIntermediateDirectories: true)
            try Data(try trusted.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: writeCA).appendingPathComponent("ca.pem"))
            if let authority, ca == nil {
                try Data(try authority.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: writeCA).appendingPathComponent("ca-key.pem"))
            }
            Output.error("security: CA written to \(writeCA)")
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read \(path).") }
        return Array(data)
    }

    func run() async throws {
        var configuration = sdlCoreDefaults ? SDLHeadUnitEmulator.Configuration.sdlCoreDefaults : SDLHeadUnitEmulator.Configuration()
        if let capabilities {
            guard let data = FileManager.default.contents(atPath: capabilities) else { throw ValidationError("Cannot read \(capabilities).") }
            do {
                configuration.capabilities = try SDLJSONValue(parsing: Array(data))
            } catch {
                throw ValidationError("\(capabilities) is not JSON: \(error)")
            }
        }
        if let policy {
            do {
                configuration.policy = try SDLHeadUnitPolicy(parsing: try Self.read(policy))
            } catch let error as SDLHeadUnitPolicyError {
                throw ValidationError("\(policy): \(error)")
            }
        }
        if let vehicleData {
            let bytes = try Self.read(vehicleData)
            do {
                try configuration.vehicle.set(try SDLJSONValue(parsing: bytes))
            } catch let error as SDLSimulatedVehicleError {
                throw ValidationError("\(vehicleData): \(error)")
            } catch {
                throw ValidationError("\(vehicleData) is not JSON: \(error)")
            }
        }
        guard fileQuota >= 0 else { throw ValidationError("--file-quota must not be negative.") }
        for group in grant { configuration.policy = configuration.policy.granting(group, to: "default") }
        if !encryptionRequired.isEmpty { configuration.policy = configuration.policy.requiringEncryption(for: encryptionRequired) }
        configuration.fileQuota = fileQuota
        configuration.policyServerURL = policyURL
        guard speakingTime >= 0, audioChunkMilliseconds > 0 else {
            throw ValidationError("--speaking-time must not be negative and --audio-chunk-milliseconds must be positive.")
        }
        configuration.speakingTime = .milliseconds(Int(speakingTime * 1000))
        configuration.audioPassThruChunkInterval = .milliseconds(audioChunkMilliseconds)
        configuration.phoneConnected = !noPhone
        configuration.dynamicMenuUpdates = dynamicMenus
        if let lockScreenIconURL { configuration.lockScreenIconURL = lockScreenIconURL }
        configuration.remoteControlConsent = !refuseConsent
        let language = Language(rawValue: language)
        guard language.isRecognized else { throw ValidationError("--language \(self.language) is not a language of the spec.") }
        configuration.language = language
        configuration.activationDelay = manualActivation || activationDelay < 0 || hmiPort != nil ? nil : .milliseconds(Int(activationDelay * 1000))
        // As SDL Core: apps wait for the HMI's OnReady, and the HMI activates them; the files
        // it shows are written where it can load them by path (Core's AppStorageFolder).
        configuration.waitsForHMI = hmiPort != nil
        if hmiPort != nil {
            configuration.hmiFileFolder =
                FileManager.default.temporaryDirectory.appendingPathComponent("sdl-headunit-\(ProcessInfo.processInfo.processIdentifier)").path
            // The HMI plays an app's video from the control API (a raw H.264 stream over HTTP,
            // as SDL Core's socket consumer serves it), when its port is known in advance.
            if let controlPort, controlPort > 0 {
                let host = host
                configuration.hmiStreamURL = { appID, service in service == 11 ? "http://\(host):\(controlPort)/apps/\(appID)/video" : "http://127.0.0.1:5080" }
            }
        }
        if log { configuration.log = { Output.line($0) } }
        if let recordStreams {
            // Audio is recorded in the format the head unit announces for streamed PCM.
            let pcm = configuration.capabilities["pcmStreamCapabilities"]
            func value(_ key: String) -> String? { if case .string(let text)? = pcm?[key] { text } else { nil } }
            let audioFormat = SDLAudioFormat(
                samplingRate: SamplingRate(rawValue: value("samplingRate") ?? "16KHZ"),
                bitsPerSample: BitsPerSample(rawValue: value("bitsPerSample") ?? "16_BIT"))
            let recorder = try StreamRecorder(directory: recordStreams, audioFormat: audioFormat)
            configuration.streamSink = { recorder.write($0) }
        }
        if security { try configureSecurity(&configuration) }
        if let cloudApp {
            return try await runCloudVehicles(url: cloudApp, configuration: configuration)
        }
        let emulator = SDLHeadUnitEmulator(configuration: configuration)
        let host = self.host
        let (bound, report) = AsyncStream<Int>.makeStream()
        let service = SDLHeadUnitService(emulator: emulator, host: host, port: port, controlPort: controlPort, hmiPort: hmiPort) { endpoints in
            Output.error("head unit listening on \(host):\(endpoints.appPort)")
            if let control = endpoints.controlPort { Output.error("control API on http://\(host):\(control)") }
            if let hmi = endpoints.hmiPort {
                Output.error("HMI API on ws://\(host):\(hmi); apps wait for an HMI's OnReady")
                report.yield(hmi)
            }
            report.finish()
        }
        guard standInHMI else { return try await service.run() }
        guard hmiPort != nil else { throw ValidationError("--stand-in-hmi needs --hmi-port.") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.run() }
            var ports = bound.makeAsyncIterator()
            guard let port = await ports.next() else { return try await group.waitForAll() }
            var hmiConfiguration = SDLStandInHMI.Configuration()
            hmiConfiguration.vehicle = configuration.vehicle
            let standIn = SDLStandInHMI(configuration: hmiConfiguration)
            let host = host == "0.0.0.0" ? "127.0.0.1" : host
            group.addTask {
                // Its connection's end (or failure) ends the head unit: nothing would answer.
                try await standIn.run(url: "ws://\(host):\(port)") {
                    await emulator.setHMIDriver(standIn)
                    Output.error("stand-in HMI connected; the control API plays the driver through it")
                }
                throw ValidationError("the stand-in HMI's connection ended")
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
