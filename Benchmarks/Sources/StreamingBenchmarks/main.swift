import Foundation
import LoopbackBaseline
import SDLHeadUnit
import SDLRPC
import SDLTransport
import SmartDeviceLink
import Synchronization

/// Issue 25's speed goals: 1080p-sized H.264 access units (a 200 KB key frame, then 29 frames
/// of 40 KB: 1.36 MB per 30-frame second, 10.9 Mbit/s at 30 fps) through
/// `manager.videoStreaming` to the emulator over TCP loopback (SDL Core's 128 KiB MTU), RAW
/// and RTP, beside a plain loopback socket pair writing the same bytes, alternating in one run;
/// then the latency from `send(_:)` to the emulator's receipt, frames paced at 30 fps.

let clock = ContinuousClock()
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// An access unit of `size` bytes: SPS, PPS and IDR for a key frame, a P slice otherwise; no
/// zero bytes inside, so no start code appears in the slice.
func accessUnit(key: Bool, size: Int, seed: Int) -> [UInt8] {
    var bytes: [UInt8] = key ? [0, 0, 0, 1, 0x67, 0x42, 0x00, 0x28, 0xE9, 0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80] : []
    bytes += [0, 0, 0, 1, key ? 0x65 : 0x41]
    bytes += (0..<(size - bytes.count)).map { UInt8(truncatingIfNeeded: seed &+ $0 &* 31) | 0x01 }
    return bytes
}
let gop = (0..<30).map { accessUnit(key: $0 == 0, size: $0 == 0 ? 200_000 : 40_000, seed: $0) }
let framesPerRun = 300
let frames = (0..<framesPerRun).map { gop[$0 % gop.count] }
let totalBytes = frames.reduce(0) { $0 + $1.count }

/// What the emulator's consumer got: bytes, and when each chunk came.
final class Receipts: Sendable {
    private struct State {
        var bytes = 0
        var chunks: [ContinuousClock.Instant] = []
        var waiter: (target: Int, continuation: CheckedContinuation<Void, Never>)?
    }
    private let state = Mutex(State())

    func received(_ count: Int) {
        let now = ContinuousClock.now
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.bytes += count
            state.chunks.append(now)
            guard let waiter = state.waiter, state.bytes >= waiter.target else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    func reset() { state.withLock { $0 = State() } }
    var chunkTimes: [ContinuousClock.Instant] { state.withLock { $0.chunks } }

    /// Returns once `target` bytes arrived in all.
    func wait(for target: Int) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.bytes >= target { return true }
                state.waiter = (target, continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

let receipts = Receipts()
var emulatorConfiguration = SDLHeadUnitEmulator.Configuration()
emulatorConfiguration.streamSink = { receipts.received($0.bytes.count) }
let emulator = SDLHeadUnitEmulator(configuration: emulatorConfiguration)
// As `sdl headunit` listens: reads of up to 256 KiB.
let listener = try await SDLTCPListener.bind(port: 0, maxReadSize: 256 * 1024)
let server = Task { try await listener.run { transport in await emulator.serve(transport) } }

/// A navigation app streaming `format`, with a queue deep enough that nothing is dropped.
func streamingManager(_ format: VideoStreamingFormat, appID: String) async throws -> SDLManager {
    var configuration = SDLManager.Configuration(appName: "bench \(appID)", appID: appID, transport: .tcp(host: "127.0.0.1", port: listener.port))
    configuration.reconnectPolicy = .never
    configuration.appTypes = [.navigation]
    configuration.videoStreaming.formats = [format]
    configuration.videoStreaming.maxQueuedFrames = framesPerRun
    let manager = SDLManager(configuration: configuration)
    // Stopped (which ends the run) by the benchmark before it exits.
    Task { try await manager.run() }
    try await manager.waitUntilReady()
    for await state in manager.videoStreaming.states() where state.parameters != nil { break }
    return manager
}

/// Sends every frame as fast as the manager takes them; the time until the emulator has them all.
func push(_ manager: SDLManager) async throws -> Duration {
    receipts.reset()
    let began = clock.now
    for (index, frame) in frames.enumerated() {
        let outcome = try await manager.videoStreaming.send(SDLVideoFrame(annexB: frame, presentationTime: .milliseconds(33 * index)))
        precondition(outcome == .queued, "a frame was dropped")
    }
    await receipts.wait(for: totalBytes)
    return clock.now - began
}

let raw = try await streamingManager(VideoStreamingFormat(protocol: .raw, codec: .h264), appID: "raw")
// Warm up.
_ = rawLoopback(frames.flatMap { $0 })
_ = try await push(raw)

var baseline: [Double] = []
var rawRates: [Double] = []
let payload = frames.flatMap { $0 }
for _ in 0..<7 {
    baseline.append(Double(totalBytes) / seconds(rawLoopback(payload)))
    rawRates.append(Double(totalBytes) / seconds(try await push(raw)))
}

// Latency: one frame every 1/30 s, from send(_:) to the emulator's receipt of the (RAW) frame.
receipts.reset()
var sentAt: [ContinuousClock.Instant] = []
let start = clock.now
for (index, frame) in frames.enumerated() {
    try await clock.sleep(until: start + .milliseconds(33) * index, tolerance: nil)
    sentAt.append(clock.now)
    try await raw.videoStreaming.send(SDLVideoFrame(annexB: frame, presentationTime: .milliseconds(33 * index)))
}
await receipts.wait(for: totalBytes)
let arrivals = receipts.chunkTimes
precondition(arrivals.count == sentAt.count, "RAW: one chunk per frame expected")
let latencies = zip(sentAt, arrivals).map { seconds($1 - $0) * 1000 }.sorted()
await raw.stop()

let rtp = try await streamingManager(VideoStreamingFormat(protocol: .rtp, codec: .h264), appID: "rtp")
_ = try await push(rtp)
var rtpRates: [Double] = []
for _ in 0..<7 { rtpRates.append(Double(totalBytes) / seconds(try await push(rtp))) }
await rtp.stop()
await listener.close()
server.cancel()

let frameBytes = Double(totalBytes) / Double(framesPerRun)
let baselineMedian = median(baseline)
func row(_ name: String, _ bytesPerSecond: Double, baseline: Double, frameBytes: Double) -> String {
    let fps = bytesPerSecond / frameBytes
    return "| \(name) | \(Int(fps.rounded())) | \(Int((bytesPerSecond * 8 / 1e6).rounded())) | \((bytesPerSecond / baseline * 1000).rounded() / 10) % |"
}
print("| 300 access units (200 KB key frame + 29 × 40 KB per 30), median of 7 alternating runs | frames/s | Mbit/s | of raw TCP |")
print("| --- | ---: | ---: | ---: |")
print(row("raw TCP loopback, plain socket pair (same bytes)", baselineMedian, baseline: baselineMedian, frameBytes: frameBytes))
print(row("manager.videoStreaming RAW → emulator", median(rawRates), baseline: baselineMedian, frameBytes: frameBytes))
print(row("manager.videoStreaming RTP → emulator (depacketised there)", median(rtpRates), baseline: baselineMedian, frameBytes: frameBytes))
func percentile(_ p: Double, _ sorted: [Double]) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print("")
print("| latency, send(_:) → emulator receipt, RAW, 300 frames at 30 fps | p50 | p99 | max |")
print("| --- | ---: | ---: | ---: |")
print(
    String(
        format: "| 40 KB frames, 200 KB key frames | %.2f ms | %.2f ms | %.2f ms |", percentile(0.5, latencies), percentile(0.99, latencies),
        latencies.last ?? 0))
