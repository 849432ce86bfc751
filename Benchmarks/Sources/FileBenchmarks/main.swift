import Foundation
import LoopbackBaseline
import SDLHeadUnit
import SDLTransport
import SmartDeviceLink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 12's speed goal: a 10 MB upload through the file manager to the emulator over TCP
/// loopback (each chunk's CRC checked there, SDL Core's MTU of 128 KiB), beside the raw
/// throughput of a plain loopback socket pair writing the same bytes, alternating in one run.

let size = 10 * 1024 * 1024
let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let listener = try await SDLTCPListener.bind(port: 0)
let emulator = SDLHeadUnitEmulator()
let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
var configuration = SDLManager.Configuration(appName: "bench", appID: "files", transport: .tcp(host: "127.0.0.1", port: listener.port))
configuration.reconnectPolicy = .never
if let inFlight = ProcessInfo.processInfo.environment["CHUNKS_IN_FLIGHT"].flatMap(Int.init) { configuration.files.maxChunksInFlight = inFlight }
let manager = SDLManager(configuration: configuration)
let managerRun = Task { try await manager.run() }
try await manager.waitUntilReady()
for await level in manager.hmiLevels() where level == .full { break }
let file = SDLFile(name: "bench.bin", bytes: payload, type: .binary, overwrite: true)

// Warm up both.
_ = rawLoopback(payload)
try await manager.files.upload(file)
guard await emulator.file(appID: "files", name: "bench.bin") == payload else { fatalError("the emulator does not hold the bytes sent") }

var raw: [Double] = []
var uploads: [Double] = []
if ProcessInfo.processInfo.environment["UPLOADS_ONLY"] != nil {
    let began = clock.now
    for _ in 0..<50 { try await manager.files.upload(file) }
    print("50 uploads: \(Double(size) * 50 / seconds(clock.now - began) / 1e6) MB/s")
    exit(0)
}
for _ in 0..<7 {
    raw.append(Double(size) / seconds(rawLoopback(payload)) / 1e6)
    let began = clock.now
    try await manager.files.upload(file)
    uploads.append(Double(size) / seconds(clock.now - began) / 1e6)
}
// CRC-32 alone (zlib), for the record.
let crcStart = clock.now
for _ in 0..<10 { _ = SDLCRC32.checksum(payload) }
let crcRate = Double(size) * 10 / seconds(clock.now - crcStart) / 1e6

await manager.stop()
_ = await managerRun.result
await listener.close()
server.cancel()

let rawMedian = median(raw)
let uploadMedian = median(uploads)
print("| measure (7 alternating runs, 10 MB each) | median |")
print("| --- | ---: |")
print("| raw TCP loopback, plain socket pair | \(Int(rawMedian.rounded())) MB/s |")
print("| SDLFileManager.upload to the emulator (CRC checked there) | \(Int(uploadMedian.rounded())) MB/s |")
print("| upload / raw | \((uploadMedian / rawMedian * 1000).rounded() / 10) % |")
print("| CRC-32 (zlib) alone | \(Int(crcRate.rounded())) MB/s |")
