import MallocCounter
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTransport
import SmartDeviceLink

/// Protocol benchmarks (issue 4): framing throughput by payload size, and RPC round-trip latency
/// for Show against the emulator over TCP loopback. Run in release:
/// `swift run -c release --package-path Benchmarks ProtocolBenchmarks`.

func measure(_ iterations: Int, _ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    return try clock.measure { for _ in 0..<iterations { try body() } }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func framingRow(size: Int) throws -> String {
    let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131) }
    let message = SDLProtocolMessage(version: 5, serviceType: .rpc, sessionID: 1, messageID: 1, payload: payload)
    // Enough iterations for ~0.1 s per sample.
    let iterations = max(3, 100_000_000 / max(size, 1))
    // One sender buffer, decoder and reassembler for the whole run, as a session keeps them.
    var wire: [UInt8] = []
    var decoder = SDLFrameDecoder(maxDataSize: SDLFramer.defaultMaxPayloadSize)
    var reassembler = SDLReassembler()
    func roundTrip() throws {
        wire.removeAll(keepingCapacity: true)
        SDLFramer.encode(message, maxPayloadSize: SDLFramer.defaultMaxPayloadSize, into: &wire)
        decoder.append(wire)
        var joined: SDLProtocolMessage?
        while let frame = try decoder.nextFrame() {
            if let complete = try reassembler.receive(frame) { joined = complete }
        }
        precondition(joined?.payload.count == size)
    }
    try roundTrip()
    let before = malloc_counter_allocations()
    try roundTrip()
    let allocations = malloc_counter_allocations() - before
    // Median of 7 samples, so a burst of load elsewhere does not decide the number.
    var samples: [Double] = []
    for _ in 0..<7 { samples.append(seconds(try measure(iterations, roundTrip)) / Double(iterations)) }
    let perMessage = samples.sorted()[3]
    let throughput = Double(size) / perMessage / 1e9
    let frames = size <= SDLFramer.defaultMaxPayloadSize ? 1 : (size + SDLFramer.defaultMaxPayloadSize - 1) / SDLFramer.defaultMaxPayloadSize + 1
    return "| \(label(size)) | \(frames) | \(format(perMessage * 1e6)) µs | \(format(throughput)) GB/s | \(Int((1 / perMessage).rounded())) | \(allocations) |"
}

func label(_ size: Int) -> String {
    size >= 1 << 20 ? "\(size >> 20) MB" : "\(size >> 10) KB"
}

func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}

func latency(samples: Int) async throws -> (p50: Double, p99: Double, max: Double) {
    let listener = try await SDLTCPListener.bind(port: 0)
    var configuration = SDLHeadUnitEmulator.Configuration()
    // Activated at once: Show is allowed only from BACKGROUND up, as in SDL Core.
    configuration.activationDelay = .zero
    let emulator = SDLHeadUnitEmulator(configuration: configuration)
    let server = Task { try await listener.run { transport in await emulator.serve(transport) } }
    let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
    var times: [Double] = []
    times.reserveCapacity(samples)
    try await withSDLSession(transport: transport) { client in
        _ = try await client.send(
            RegisterAppInterface(
                syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "bench",
                isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "1"))
        let show = Show(mainField1: "Now playing", mainField2: "Artist", softButtons: [SoftButton(type: .text, text: "Skip", softButtonID: 1)])
        let clock = ContinuousClock()
        for _ in 0..<200 { _ = try await client.send(show) }  // warm up
        let answer = try await client.send(show)
        guard answer.success else { fatalError("Show was answered \(answer.resultCode.rawValue): the benchmark would time a refusal") }
        for _ in 0..<samples {
            let start = clock.now
            _ = try await client.send(show)
            times.append(seconds(clock.now - start) * 1e3)
        }
    }
    await listener.close()
    server.cancel()
    times.sort()
    return (times[samples / 2], times[samples * 99 / 100], times[samples - 1])
}

print("## Framing: encode + split + decode + reassemble, one message at a time, MTU 131,072")
print()
print("| payload | frames | time per message | throughput | messages/s | allocations per message |")
print("| ---: | ---: | ---: | ---: | ---: | ---: |")
for size in [1 << 10, 10 << 10, 100 << 10, 1 << 20, 10 << 20] {
    print(try framingRow(size: size))
}
print()
let result = try await latency(samples: 5000)
print("## RPC round trip: Show → ShowResponse against the emulator, TCP loopback, 5,000 sequential requests")
print()
print("| p50 | p99 | max |")
print("| ---: | ---: | ---: |")
print("| \(format(result.p50)) ms | \(format(result.p99)) ms | \(format(result.max)) ms |")
