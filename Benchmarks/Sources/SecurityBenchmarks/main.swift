import Foundation
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTLS
import SDLTransport
import SmartDeviceLink

/// Issue 28: what protection costs. The same TCP loopback session to the emulator (a security
/// manager with a test CA) sends plain and protected Shows, alternating in batches so both see
/// the same machine, then streams RAW video frames plain and protected. Run in release:
/// `Benchmarks/security.sh`.

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ value: Double) -> String { "\((value * 100).rounded() / 100)" }

if CommandLine.arguments.contains("--micro") {
    try await microTLS()
    exit(0)
}
let authority = try SDLCertificateAuthority.generate()
let appID = "bench"
var configuration = SDLHeadUnitEmulator.Configuration()
configuration.activationDelay = .zero
let trusted = authority.certificate
configuration.security = { appID in try SDLTLSSecurity(role: .client(SDLCertificateCheck(authority: trusted, expectedSerialNumber: appID))) }
let emulator = SDLHeadUnitEmulator(configuration: configuration)
let listener = try await SDLTCPListener.bind(host: "127.0.0.1", port: 0, maxReadSize: 256 * 1024)
let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
let identity = try authority.issue(appID: appID)

try await withSDLSession(transport: transport) { client in
    await client.session.setSecurity(try SDLTLSSecurity(role: .server(identity)))
    _ = try await client.send(
        RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "bench",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appHMIType: [.navigation], appID: appID))
    let protection = try await client.session.startProtectedService(.rpc)
    precondition(protection.isEncrypted, "the RPC service was not protected")
    let show = Show(mainField1: "Now playing", mainField2: "Artist", softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1)])
    let clock = ContinuousClock()
    for encrypted in [false, true] { for _ in 0..<300 { _ = try await client.send(show, encrypted: encrypted) } }  // warm up
    guard try await client.send(show, encrypted: true).success else { fatalError("the protected Show was refused") }

    // Round trips: 20 batches of 250 each way, alternating.
    var plain: [Double] = []
    var protected: [Double] = []
    for _ in 0..<20 {
        for encrypted in [false, true] {
            for _ in 0..<250 {
                let start = clock.now
                _ = try await client.send(show, encrypted: encrypted)
                let elapsed = seconds(clock.now - start) * 1e3
                if encrypted { protected.append(elapsed) } else { plain.append(elapsed) }
            }
        }
    }
    plain.sort()
    protected.sort()
    func p(_ values: [Double], _ q: Int) -> Double { values[values.count * q / 100] }
    print("## Show round trip, plain and protected, TCP loopback, 5,000 each, alternating batches of 250")
    print()
    print("| | p50 | p99 | max |")
    print("| --- | ---: | ---: | ---: |")
    print("| plain | \(format(p(plain, 50))) ms | \(format(p(plain, 99))) ms | \(format(plain.last!)) ms |")
    print("| protected (TLS 1.2) | \(format(p(protected, 50))) ms | \(format(p(protected, 99))) ms | \(format(protected.last!)) ms |")
    print("| protected / plain | \(format(p(protected, 50) / p(plain, 50))) | \(format(p(protected, 99) / p(plain, 99))) | |")
    print()

    // Video: RAW H.264-like access units of 20 KB, plain then protected (the protected service
    // first, as an app would), each run ended by a round trip so every frame was handled.
    try await emulator.activate(appID: appID)
    var parameters = SDLControlPayload()
    parameters.videoProtocol = "RAW"
    parameters.videoCodec = "H264"
    func frame(_ seed: Int) -> [UInt8] {
        [0, 0, 0, 1, 0x65] + (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &+ seed) | 0x10 }
    }
    let frames = (0..<8).map(frame)
    func stream(encrypted: Bool, count: Int) async throws -> Double {
        let start = clock.now
        for index in 0..<count { try await client.session.sendMedia(frames[index % frames.count], service: .video, encrypted: encrypted) }
        _ = try await client.send(ListFiles())
        return Double(count * 20_005) / seconds(clock.now - start) / 1e6
    }
    _ = try await client.session.startProtectedService(.video, parameters: parameters)
    var plainRates: [Double] = []
    var protectedRates: [Double] = []
    for _ in 0..<7 {
        plainRates.append(try await stream(encrypted: false, count: 500))
        protectedRates.append(try await stream(encrypted: true, count: 500))
    }
    plainRates.sort()
    protectedRates.sort()
    print("## Video throughput, 20 KB access units over RAW, 500 per run, median of 7 runs each, alternating")
    print()
    print("| | MB/s |")
    print("| --- | ---: |")
    print("| plain | \(format(plainRates[3])) |")
    print("| protected (one TLS record per 16 KB frame) | \(format(protectedRates[3])) |")
    print("| protected / plain | \(format(protectedRates[3] / plainRates[3])) |")
}
await listener.close()
server.cancel()
