import SDLHeadUnit
import SDLRPC
import SDLTransport
import SmartDeviceLink

/// Issue 11's speed goals against the emulator over TCP loopback: time from `start()` to Ready
/// (activation delay 0), and what `SDLManager.send` adds over the bare `SDLRPCClient.send`,
/// both measured in the same run, alternating blocks so machine noise hits both alike.

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

let listener = try await SDLTCPListener.bind(port: 0)
let emulator = SDLHeadUnitEmulator()
let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
let clock = ContinuousClock()
let show = Show(mainField1: "Now playing", mainField2: "Artist", softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1)])

// Start to Ready.
var startTimes: [Double] = []
for index in 0..<60 {
    var configuration = SDLManager.Configuration(appName: "bench", appID: "start\(index)", transport: .tcp(host: "127.0.0.1", port: listener.port))
    configuration.reconnectPolicy = .never
    let manager = SDLManager(configuration: configuration)
    let began = clock.now
    // The benchmark's top level has no task group: the run goes on a task of its own.
    let run = Task { try await manager.run() }
    try await manager.waitUntilReady()
    let elapsed = clock.now - began
    if index >= 10 { startTimes.append(milliseconds(elapsed)) }  // the first ones warm up
    await manager.stop()
    _ = await run.result
}

// Per-request overhead: the manager and a bare client, each against its own registered app.
var configuration = SDLManager.Configuration(appName: "bench", appID: "managed", transport: .tcp(host: "127.0.0.1", port: listener.port))
configuration.reconnectPolicy = .never
let manager = SDLManager(configuration: configuration)
let managerRun = Task { try await manager.run() }
try await manager.waitUntilReady()
for await level in manager.hmiLevels() where level == .full { break }

let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port)
let session = SDLProtocolSession(transport: transport)
let client = SDLRPCClient(session: session)
let clientRun = Task { try await client.run() }
try await session.start()
_ = try await client.send(
    RegisterAppInterface(
        syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "bare",
        isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "bare"))

for _ in 0..<300 {
    _ = try await client.send(show)
    _ = try await manager.send(show)
}
var bare: [Double] = []
var managed: [Double] = []
for _ in 0..<20 {
    var began = clock.now
    for _ in 0..<200 { _ = try await client.send(show) }
    bare.append(milliseconds(clock.now - began) / 200)
    began = clock.now
    for _ in 0..<200 { _ = try await manager.send(show) }
    managed.append(milliseconds(clock.now - began) / 200)
}
// Each round trip timed on its own, for the tail.
var single: [Double] = []
for _ in 0..<4_000 {
    let began = clock.now
    _ = try await manager.send(show)
    single.append(milliseconds(clock.now - began))
}
await manager.stop()
_ = await managerRun.result
await client.close()
_ = await clientRun.result
await listener.close()
server.cancel()

print("| measure | median |")
print("| --- | ---: |")
print("| run() → Ready (50 starts) | \((median(startTimes) * 100).rounded() / 100) ms |")
print("| Show round trip, bare SDLRPCClient (20 blocks of 200) | \((median(bare) * 1000).rounded() / 1000) ms |")
print("| Show round trip, SDLManager.send (same run) | \((median(managed) * 1000).rounded() / 1000) ms |")
print("| manager overhead | \(((median(managed) / median(bare) - 1) * 1000).rounded() / 10) % |")
print("| run() → Ready, p99 | \((percentile(startTimes, 0.99) * 100).rounded() / 100) ms |")
print("| Show round trip, SDLManager.send, each timed (4,000): p50 | \((percentile(single, 0.5) * 1000).rounded() / 1000) ms |")
print("| Show round trip, SDLManager.send, each timed (4,000): p99 | \((percentile(single, 0.99) * 1000).rounded() / 1000) ms |")
