import Foundation
import Logging
import MallocCounter
import SDLCloudServer
import SDLHeadUnit
import SDLRPC
import SDLRuntime
import SDLTransport
import SDLWebSocket
import SmartDeviceLink
import Synchronization

/// Issue 16's load goal: a cloud-app server with N vehicles (default 1,000) from the emulator,
/// `sdl headunit --cloud-app URL --cloud-apps N`, in another process on loopback. Each session
/// registers, reaches FULL, sends Show and uploads 64 KB, then stays connected; then, with all
/// of them connected, every session sends one Show per second for the window (N Shows/s in all)
/// and the round trips are measured. Prints the server's memory per idle session, its CPU time,
/// the time until all are set up and the Show round-trip percentiles.
///
///   CloudBenchmarks --sdl PATH [--vehicles 1000] [--rate SHOWS_PER_SECOND] [--window 10] [--scheme ws|tcp] [--quiet 1] [--exit-idle]
///     [--setup-limit 300] [--release-every 10]
///
/// `--release-every SECONDS`: how often the host hands freed memory back to the system while
/// sessions come and go (`SDLCloudAppHost.releaseFreedMemory(every:)`, the server's default
/// 10 s); 0 never, to see what the allocator keeps without it.
///
/// `--rate`: Shows per second over all vehicles (default: one per vehicle per second); each
/// session sends one every `vehicles / rate` seconds at its own phase, for the window.
///
/// `--soak MINUTES [--churn PERCENT]`: after the set-up, every session sends Shows at the rate
/// until it ends, while the emulator drops PERCENT (default 1) of the vehicles per minute and
/// each dials again (`sdl headunit --churn --redial-after-drop`); a line per minute with the
/// server's heap, RSS, open file descriptors and sessions, then the growth from the first
/// minute to the last.
///
/// `--scheme tcp`: the same sessions through the same host over plain TCP, to see what the
/// WebSocket layer costs.

struct Options {
    var sdl = "../.build/release/sdl"
    var vehicles = 1000
    var window = 10
    /// Shows per second over all vehicles; nil: one per vehicle per second.
    var rate: Double?
    var scheme = "ws"
    /// `ready`: sessions only register and reach Ready (no FULL, Show or file), to see what that costs.
    var stage = "full"
    /// Seconds without traffic before the idle memory is read (11: past the 10 s request
    /// timeout, after which a connection's deadline loop has ended).
    var quiet = 1
    /// Exit right after the idle memory is read, sessions still open: under heaptrack the
    /// "leaks" are then exactly what the idle sessions hold.
    var exitIdle = false
    /// Seconds between the host's hand-backs of freed memory while sessions come and go; 0 never.
    var releaseEvery = 10
    /// Minutes of soak with reconnect churn; nil: the one-window benchmark.
    var soak: Int?
    /// Vehicles dropped and dialling again per minute, in percent of all, during a soak.
    var churn = 1.0
    /// Seconds the set-up of all vehicles may take before the run fails, saying how far it got
    /// (a vehicle that gave up dialling is never set up: without a limit the run would wait for ever).
    var setUpLimit = 300

    static let usage = """
        usage: CloudBenchmarks [--sdl PATH] [--vehicles N] [--rate SHOWS_PER_S] [--window S] [--scheme ws|tcp]
                               [--stage full|ready] [--quiet S] [--exit-idle] [--release-every S (0 never)]
                               [--soak MINUTES [--churn PERCENT_PER_MINUTE]] [--setup-limit S]
        """

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            let value = rest.popFirst() ?? ""
            switch name {
            case "--sdl": sdl = value
            case "--vehicles": vehicles = Int(value) ?? vehicles
            case "--window": window = Int(value) ?? window
            case "--rate": rate = Double(value)
            case "--scheme": scheme = value
            case "--stage": stage = value
            case "--quiet": quiet = Int(value) ?? quiet
            case "--soak": soak = Int(value)
            case "--churn": churn = Double(value) ?? churn
            case "--setup-limit": setUpLimit = Int(value) ?? setUpLimit
            case "--release-every": releaseEvery = Int(value) ?? releaseEvery
            case "--exit-idle":
                exitIdle = true
                if !value.isEmpty { rest.insert(value, at: rest.startIndex) }
            case "--probe": if !value.isEmpty { rest.insert(value, at: rest.startIndex) }
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                FileHandle.standardError.write(Data("unknown option \(name)\n\(Self.usage)\n".utf8))
                exit(2)
            }
        }
    }
}

let options = Options(CommandLine.arguments)
let clock = ContinuousClock()

func microseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
}

/// The session ended under the request: its vehicle dropped (the soak's churn).
func sessionEnded(_ error: any Error) -> Bool {
    [.connectionClosed, .stopped, .notReady, .cancelled].contains(SDLError(error).code)
}

/// Open file descriptors of this process.
func openFiles() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// The resident set, from /proc (kB → bytes).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }
    return 0
}

/// Heap bytes in use (glibc's count of allocated, not yet freed bytes): what the sessions hold,
/// without the freed memory the allocator keeps for later.
func heapInUse() -> Int {
    Int(malloc_counter_heap_in_use())
}

func cpuSeconds(_ who: Int32 = RUSAGE_SELF.rawValue) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

var limit = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

/// What the sessions report, and the gates they wait at.
final class Board: Sendable {
    struct State {
        var setUp: [Duration] = []
        var firstShows: [Double] = []
        var shows: [Double] = []
        var failures: [String] = []
        var setUpWaiters: [CheckedContinuation<Void, Never>] = []
        var windowOpen = false
        var windowWaiters: [CheckedContinuation<Void, Never>] = []
        var windowDone = 0
        var doneWaiters: [CheckedContinuation<Void, Never>] = []
        /// Soak: sessions set up in all, sessions the churn cut, Shows of the current minute.
        var sessionsSetUp = 0
        var sessionsEnded = 0
        var minuteShows: [Double] = []
    }

    let state = Mutex(State())
    let expected: Int
    init(expected: Int) { self.expected = expected }

    func setUp(after duration: Duration, firstShow: Double) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.sessionsSetUp += 1
            // A soak keeps only the first wave's: the benchmark's own records must not grow.
            guard state.setUp.count < expected else { return [] }
            state.setUp.append(duration)
            state.firstShows.append(firstShow)
            return state.setUp.count == expected ? state.setUpWaiters : []
        }
        waiters.forEach { $0.resume() }
    }

    func failed(_ reason: String) {
        state.withLock { $0.failures.append(reason) }
    }

    func allSetUp() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.setUp.count >= expected { return true }
                state.setUpWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func openWindow() {
        let waiters = state.withLock { state in
            state.windowOpen = true
            return state.windowWaiters
        }
        waiters.forEach { $0.resume() }
    }

    func windowOpened() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.windowOpen { return true }
                state.windowWaiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func show(_ latency: Double) { state.withLock { $0.shows.append(latency) } }

    /// Soak: a Show of this minute (its latencies are read and reset each minute).
    func soakShow(_ latency: Double) { state.withLock { $0.minuteShows.append(latency) } }

    /// Soak: a session the churn cut (its vehicle dropped).
    func sessionEnded() { state.withLock { $0.sessionsEnded += 1 } }

    /// Soak: this minute's sorted Show latencies, the count kept for the next (no growth).
    func takeMinute() -> (shows: [Double], setUp: Int, ended: Int, failures: Int) {
        state.withLock { state in
            let shows = state.minuteShows.sorted()
            state.minuteShows.removeAll(keepingCapacity: true)
            return (shows, state.sessionsSetUp, state.sessionsEnded, state.failures.count)
        }
    }

    func sessionFinishedWindow() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.windowDone += 1
            return state.windowDone == expected ? state.doneWaiters : []
        }
        waiters.forEach { $0.resume() }
    }

    func allFinishedWindow() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.windowDone >= expected { return true }
                state.doneWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// `--probe`: heap per object for the parts a session keeps, 1,000 of each.
if CommandLine.arguments.contains("--probe") {
    func measure(_ label: String, _ make: () -> Any) {
        var kept: [Any] = []
        let before = heapInUse()
        for _ in 0..<1000 { kept.append(make()) }
        print("\(label): \((heapInUse() - before) / 1000) bytes each")
        withExtendedLifetime(kept) {}
    }
    let registration = SDLHeadUnitEmulator.Configuration.defaultCapabilities.jsonBytes
    // Its own configuration: the top-level `app` below is not initialised yet here.
    measure("SDLManager, not started") { SDLManager(configuration: SDLManager.Configuration(appName: "Bench", appID: "bench")) }
    measure("RegisterAppInterfaceResponse decoded") { try! SDLJSON.decode(RegisterAppInterfaceResponse.self, from: registration).value }
    exit(0)
}

let board = Board(expected: options.vehicles)
var app = SDLManager.Configuration(appName: "Bench", appID: "bench")
app.capabilityPollInterval = nil
var quiet = Logger(label: "bench")
quiet.logLevel = .critical
app.logger = quiet
let payload = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }
let window = options.window
let rate = options.rate ?? Double(options.vehicles)
/// Between two Shows of one session.
let interval = Duration.microseconds(Int64(Double(options.vehicles) / rate * 1_000_000))

/// A session's set-up: Ready, FULL, a Show, a 64 KB file. False when it did not get through
/// (recorded on the board).
@inline(never)
func setUp(_ manager: SDLManager) async -> Bool {
    let began = clock.now
    do {
        try await manager.waitUntilReady()
        if options.stage == "ready" {
            board.setUp(after: clock.now - began, firstShow: 0)
            return true
        }
        guard await manager.waitForHMILevel(.full, timeout: .seconds(300)) else { throw CancellationError() }
        let showStart = clock.now
        _ = try await manager.send(Show(mainField1: "Hello", mainField2: "from the cloud"))
        let firstShow = milliseconds(clock.now - showStart)
        _ = try await manager.files.upload(SDLFile(name: "bench-64k.bin", bytes: payload, type: .binary))
        board.setUp(after: clock.now - began, firstShow: firstShow)
        return true
    } catch {
        if options.soak != nil, sessionEnded(error) {
            board.sessionEnded()
        } else {
            board.failed("\(error)")
        }
        return false
    }
}

/// Soak: until the vehicle drops, one Show every `interval`, at this session's own phase.
@inline(never)
func soak(_ manager: SDLManager) async {
    var next = clock.now + .microseconds(Int64.random(in: 0..<max(1, microseconds(interval))))
    while true {
        try? await clock.sleep(until: next)
        next += interval
        let sent = clock.now
        do {
            _ = try await manager.send(Show(mainField1: "Soak"))
            board.soakShow(milliseconds(clock.now - sent))
        } catch {
            if sessionEnded(error) { board.sessionEnded() } else { board.failed("soak: \(error)") }
            return
        }
    }
}

/// One Show every `interval`, each session at its own phase within it, until the window ends.
@inline(never)
func showWindow(_ manager: SDLManager) async {
    let start = clock.now
    let phase = Duration.microseconds(Int64.random(in: 0..<microseconds(interval)))
    var tick = 0
    while phase + interval * tick < .seconds(window) {
        try? await clock.sleep(until: start + phase + interval * tick)
        tick += 1
        let sent = clock.now
        do {
            _ = try await manager.send(Show(mainField1: "Tick \(tick)"))
            board.show(milliseconds(clock.now - sent))
        } catch {
            board.failed("window: \(error)")
        }
    }
}

/// The app: a handler that lives as long as its session, written as the DocC article "Cloud
/// apps" recommends for one: its set-up on a child task (a task keeps the memory of its deepest
/// call), its idle wait in a small frame, the window's and the soak's work in functions of their own.
let handler: SDLCloudAppHost.SessionHandler = { manager in
    let ready = await withTaskGroup(of: Bool.self) { group in
        group.addTask { await setUp(manager) }
        return await group.next() ?? false
    }
    guard ready else { return }
    await board.windowOpened()
    if options.stage == "ready" {
        board.sessionFinishedWindow()
        return
    }
    if options.soak != nil {
        await soak(manager)
        return
    }
    await showWindow(manager)
    board.sessionFinishedWindow()
}

let host: SDLCloudAppHost
let serving: Task<Void, any Error>
let url: String
if options.scheme == "tcp" {
    host = SDLCloudAppHost(app: app, logger: quiet)
    let listener = try await SDLTCPListener.bind(port: 0)
    url = "tcp://127.0.0.1:\(listener.port)"
    let releaseEvery = options.releaseEvery
    serving = Task {
        try await withThrowingTaskGroup(of: Void.self) { group in
            if releaseEvery > 0 { group.addTask { await host.releaseFreedMemory(every: .seconds(releaseEvery)) } }
            try await listener.run { transport in await host.serve(transport, handler: handler) }
            group.cancelAll()
        }
    }
} else {
    let server = SDLWebSocketServer(
        listening: .init(port: 0, path: "/"), app: app, logger: quiet,
        releasingFreedMemoryEvery: options.releaseEvery > 0 ? .seconds(options.releaseEvery) : nil)
    host = server.host
    serving = Task { try await server.run(handler) }
    guard let port = await server.port() else { fatalError("the server did not start") }
    url = "ws://127.0.0.1:\(port)/"
}

try await Task.sleep(for: .milliseconds(200))
let baseline = residentBytes()
let heapBaseline = heapInUse()
let cpuBefore = cpuSeconds()
let emulator = Process()
emulator.executableURL = URL(fileURLWithPath: options.sdl)
emulator.arguments = ["headunit", "--cloud-app", url, "--cloud-apps", "\(options.vehicles)", "--retry-attempts", "3"]
if options.soak != nil {
    emulator.arguments! += ["--redial-after-drop", "--retry-delay", "1", "--churn", "\(options.churn)"]
}
emulator.standardError = FileHandle.nullDevice
emulator.standardOutput = FileHandle.nullDevice
let spawned = clock.now
try emulator.run()

// A set-up that stalls fails the run with what it reached instead of hanging it.
let watchdog = Task {
    try await Task.sleep(for: .seconds(options.setUpLimit))
    let (count, failures) = board.state.withLock { ($0.setUp.count, $0.failures) }
    print(
        """
        set-up stalled: \(count) of \(options.vehicles) vehicles set up after \(options.setUpLimit) s, \(await host.openSessions) sessions open, \
        \(failures.count) failures\(failures.first.map { " (first: \($0))" } ?? ""); the emulator \(emulator.isRunning ? "still runs" : "exited with \(emulator.terminationStatus)")
        """)
    emulator.terminate()
    exit(2)
}
await board.allSetUp()
watchdog.cancel()
let allSetUp = clock.now - spawned
let cpuRamp = cpuSeconds() - cpuBefore
try await Task.sleep(for: .seconds(options.quiet))
let idle = residentBytes()
let heapIdle = heapInUse()
let heapFreeIdle = Int(malloc_counter_heap_free())
let trimStart = ContinuousClock.now
malloc_counter_trim()
let trimTook = ContinuousClock.now - trimStart
let idleTrimmed = residentBytes()
let open = await host.openSessions
if options.exitIdle {
    print(
        "\(open) sessions idle: heap \(f(Double(heapIdle - heapBaseline) / Double(max(1, options.vehicles)) / 1024)) KB, RSS \(f(Double(idle - baseline) / Double(max(1, options.vehicles)) / 1024)) KB per session; \(heapFreeIdle / 1024) KB free in the allocator's arenas; RSS \(idleTrimmed / 1024) KB after malloc_trim (which took \(trimTook))"
    )
    // The vehicles go too: an emulator left behind would dial on and load later runs.
    emulator.terminate()
    exit(0)
}

if let minutes = options.soak {
    struct Sample { var heap: Int, rss: Int, files: Int, open: Int }
    func sample() async -> Sample { Sample(heap: heapInUse(), rss: residentBytes(), files: openFiles(), open: await host.openSessions) }
    func kb(_ bytes: Int) -> String { "\(bytes / 1024) KB" }
    board.openWindow()
    let began = clock.now
    let cpuSoakStart = cpuSeconds()
    var samples = [await sample()]
    print(
        "soak: \(options.vehicles) vehicles, \(f(rate, 0)) Shows/s, \(f(options.churn)) % of the vehicles dropped and dialling again per minute, \(minutes) min"
    )
    print("minute 0: \(samples[0].open) sessions, heap \(kb(samples[0].heap)), RSS \(kb(samples[0].rss)), \(samples[0].files) open files")
    for minute in 1...max(1, minutes) {
        try await clock.sleep(until: began + .seconds(60 * minute))
        let now = await sample()
        samples.append(now)
        let (shows, setUp, ended, failures) = board.takeMinute()
        print(
            "minute \(minute): \(now.open) sessions (\(setUp) set up in all, \(ended) cut by the churn, \(failures) failures), heap \(kb(now.heap)), RSS \(kb(now.rss)), \(now.files) open files; \(shows.count) Shows, p50 \(f(percentile(shows, 0.5), 2)) ms, p99 \(f(percentile(shows, 0.99), 2)) ms"
        )
    }
    let cpuSoak = cpuSeconds() - cpuSoakStart
    // Read before the emulator goes, which ends every session.
    let state = board.state.withLock { $0 }
    emulator.terminate()
    emulator.waitUntilExit()
    // Every session ends with the vehicles gone: what the server still holds then (past the
    // 10 s request timeout) is what a session left behind.
    let ending = clock.now
    while await host.openSessions > 0, clock.now - ending < .seconds(30) { try await Task.sleep(for: .milliseconds(100)) }
    try await Task.sleep(for: .seconds(11))
    let (afterOpen, afterHeap) = (await host.openSessions, heapInUse())
    let (first, last) = (samples[1], samples[samples.count - 1])
    func growth(_ from: Int, _ to: Int) -> String { f(Double(to - from) / Double(from) * 100, 2) + " %" }
    print(
        """
        soak summary: \(state.sessionsSetUp - options.vehicles) sessions set up again after a drop, \(state.sessionsEnded) cut by the churn, \(state.failures.count) failures\(state.failures.first.map { " (first: \($0))" } ?? "")
        from minute 1 to minute \(minutes): heap \(kb(first.heap)) → \(kb(last.heap)) (\(growth(first.heap, last.heap))), RSS \(kb(first.rss)) → \(kb(last.rss)) (\(growth(first.rss, last.rss))), open files \(first.files) → \(last.files) with \(first.open) → \(last.open) sessions
        from minute 0 (all set up, idle): heap \(growth(samples[0].heap, last.heap)), RSS \(growth(samples[0].rss, last.rss)); server CPU \(f(cpuSoak, 1)) s in \(minutes) min
        after every vehicle left: \(afterOpen) sessions open, heap \(kb(afterHeap)) (\(kb(heapBaseline)) before the first vehicle: \(f(Double(afterHeap - heapBaseline) / Double(max(1, state.sessionsSetUp)) / 1024, 2)) KB left per session served), \(openFiles()) open files
        """)
    serving.cancel()
    exit(state.failures.isEmpty ? 0 : 1)
}

let cpuWindowStart = cpuSeconds()
let windowStarted = clock.now
board.openWindow()
await board.allFinishedWindow()
let windowTook = clock.now - windowStarted
let cpuWindow = cpuSeconds() - cpuWindowStart
let afterWindow = residentBytes()

emulator.terminate()
emulator.waitUntilExit()
let emulatorCPU = cpuSeconds(RUSAGE_CHILDREN.rawValue)

let state = board.state.withLock { $0 }
let shows = state.shows.sorted()
let setUps = state.setUp.map(milliseconds).sorted()
let firsts = state.firstShows.sorted()
print(
    """
    scheme \(options.scheme), \(options.vehicles) vehicles (\(open) sessions open), \(state.failures.count) failures\(state.failures.first.map { " (first: \($0))" } ?? "")
    all set up (registered, FULL, Show, 64 KB PutFile) \(f(milliseconds(allSetUp) / 1000, 2)) s after the emulator started; per session p50 \(f(percentile(setUps, 0.5), 0)) ms, p99 \(f(percentile(setUps, 0.99), 0)) ms
    server memory (RSS): \(baseline / 1024) KB before, \(idle / 1024) KB with all idle → \(f(Double(idle - baseline) / Double(max(1, options.vehicles)) / 1024)) KB per idle session; \(idleTrimmed / 1024) KB after malloc_trim → \(f(Double(idleTrimmed - baseline) / Double(max(1, options.vehicles)) / 1024)) KB per session; \(afterWindow / 1024) KB after the window
    server heap in use: \(heapBaseline / 1024) KB before, \(heapIdle / 1024) KB with all idle → \(f(Double(heapIdle - heapBaseline) / Double(max(1, options.vehicles)) / 1024)) KB per idle session
    server CPU: \(f(cpuRamp, 2)) s during set-up (\(f(cpuRamp / (milliseconds(allSetUp) / 1000) * 100, 0)) % of one core), \(f(cpuWindow, 2)) s in the \(f(milliseconds(windowTook) / 1000, 1)) s window (\(f(cpuWindow / (milliseconds(windowTook) / 1000) * 100, 0)) % of one core); emulator process \(f(emulatorCPU, 2)) s
    Show round trip during set-up: p50 \(f(percentile(firsts, 0.5), 2)) ms, p99 \(f(percentile(firsts, 0.99), 2)) ms
    Show round trip, \(f(rate, 0)) Shows/s for \(window) s (\(shows.count) Shows): p50 \(f(percentile(shows, 0.5), 2)) ms, p99 \(f(percentile(shows, 0.99), 2)) ms, max \(f(shows.last ?? .nan, 2)) ms
    """)
serving.cancel()
exit(state.failures.isEmpty ? 0 : 1)
