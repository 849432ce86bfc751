import Foundation
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The manager against a head unit that misbehaves at every step (`HostileHeadUnit`: other result
/// codes, malformed, missing, duplicated and out-of-order responses, notifications at random
/// (capability updates included), the connection dropped after a random message of either side:
/// in registration, an upload, a menu update or a video stream), a fixed set of seeds in CI and as many as
/// `SDL_HOSTILE_SEEDS` asks on demand. Whatever the head unit does: nothing crashes; every call
/// returns or throws, at the latest once the manager stops; an upload reported successful means
/// the head unit holds the bytes; the screen's shown text is one the head unit confirmed; the
/// manager is freed after it stops.
@Suite(.timeLimit(.minutes(5)), .runsManagers) struct HostileHeadUnitTests {
    static let seeds: [UInt64] = {
        let count = ProcessInfo.processInfo.environment["SDL_HOSTILE_SEEDS"].flatMap { UInt64($0) } ?? 24
        return Array(1...max(1, count))
    }()
    static let appID = "hostile"

    struct Outcome: Sendable {
        var uploaded = false
        var shownText: String?
        var ready = false
        /// Video reached the head unit (a navigation seed's stream started).
        var streamed = false
    }

    @Test(arguments: seeds)
    func theManagerHoldsUp(seed: UInt64) async throws {
        _ = try await Self.run(seed: seed)
    }

    /// The properties are checked only where a seed got that far. With every response delivered
    /// (other codes, malformed, duplicated, notifications and drops, but none lost or held back)
    /// no call waits for a timeout, so enough seeds get past registration to an upload and a
    /// confirmed screen for the checks to mean something, however loaded the machine.
    @Test func theSeedsReachTheChecks() async throws {
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for seed in 1...UInt64(24) { group.addTask { try await Self.run(seed: seed, losesResponses: false) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter(\.uploaded).count >= 3)
        #expect(outcomes.filter { $0.shownText != nil }.count >= 3)
        #expect(outcomes.filter { !$0.ready }.count >= 1)
        #expect(outcomes.filter(\.streamed).count >= 1)
    }

    /// One seed's run with its checks; its outcome.
    static func run(seed: UInt64, losesResponses: Bool = true) async throws -> Outcome {
        let hostile = HostileHeadUnit(seed: seed, losesResponses: losesResponses)
        var configuration = SDLManager.Configuration(appName: "Hostile \(seed)", appID: Self.appID, transport: .custom { hostile.connect() })
        // Even seeds play a navigation app, which streams video once in FULL.
        configuration.appTypes = seed % 2 == 0 ? [.navigation] : [.media]
        configuration.reconnectPolicy = .never
        // Short where answers go missing, so that they cost little; long where none does, so that
        // a loaded machine never turns a slow answer into a timeout.
        let timeout: Duration = losesResponses ? .seconds(1) : .seconds(30)
        configuration.requestTimeout = timeout
        configuration.session.controlTimeout = timeout
        configuration.files.fileRetryCount = 1
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }

        weak var freed: SDLManager?
        // The connection's RPC client (and with it its protocol session and transport).
        weak var freedClient: SDLRPCClient?
        var outcome: Outcome
        do {
            let manager = SDLManager(configuration: configuration)
            freed = manager
            let (done, finished) = AsyncStream<Void>.makeStream()
            let scenario = Task {
                let outcome = await Self.scenario(manager, seed: seed, bytes: bytes)
                finished.finish()
                return outcome
            }
            // The screen waits while the head unit says NONE: after a while the app gives up
            // and stops, which must end every call still waiting. A seed the head unit lets
            // through is done in under a second on a quiet machine, but beside a CPU hog at the
            // start of a run it took more than 8 s: 20 s leaves it room.
            _ = await firstOf(timeout: losesResponses ? .seconds(5) : .seconds(20), on: .continuous) {
                for await _ in done {}
                return true
            }
            freedClient = manager.client
            await manager.stop()
            outcome = await scenario.value
            outcome.streamed = hostile.record.current.videoMessages > 0

            if ProcessInfo.processInfo.environment["SDL_HOSTILE_VERBOSE"] != nil {
                let record = hostile.record.current
                print(
                    "hostile seed \(seed): ready \(outcome.ready), uploaded \(outcome.uploaded), streamed \(hostile.record.current.videoMessages), shown \(outcome.shownText ?? "-"), dropped \(record.dropped), \(record.mischief.sorted { $0.key < $1.key })"
                )
            }
            if outcome.uploaded {
                let held = await hostile.emulator.file(appID: Self.appID, name: "hostile.bin")
                #expect(
                    held == bytes,
                    "seed \(seed): an upload reported done that the head unit does not hold (\(held?.count ?? 0) bytes; \(hostile.record.current.mischief))")
            }
            if let shown = outcome.shownText {
                #expect(hostile.record.current.confirmedTexts.contains(shown), "seed \(seed): the screen manager shows \(shown), never confirmed")
            }
        }
        // Nothing keeps the manager or its connection once stopped and released: no task,
        // stream or cycle.
        try await until { freed == nil && freedClient == nil }
        return outcome
    }

    /// What an app does: start, upload, update the screen, set a menu, send a Show; each step's
    /// failure is the head unit's right, so only what comes back is kept.
    static func scenario(_ manager: SDLManager, seed: UInt64, bytes: [UInt8]) async -> Outcome {
        var outcome = Outcome()
        guard (try? await startRunning(manager)) != nil else { return outcome }
        outcome.ready = true
        _ = await manager.waitForHMILevel(.full, timeout: .seconds(1))
        // Persistent: the head unit keeps it after the app leaves, for the check afterwards.
        if (try? await manager.files.upload(SDLFile(name: "hostile.bin", bytes: bytes, type: .binary, persistent: true, overwrite: true))) != nil {
            outcome.uploaded = true
        }
        for step in 1...3 {
            let text = "seed \(seed) step \(step)"
            _ = try? await manager.screen.update { $0.textField1 = text }
            outcome.shownText = await manager.screen.shownContent.textField1
        }
        _ = try? await manager.screen.setMenu([SDLMenuCell(title: "A"), SDLMenuCell(title: "B", subCells: [SDLMenuCell(title: "B1")])])
        // A menu update: one cell gone, one moved into the submenu, one new.
        _ = try? await manager.screen.setMenu([
            SDLMenuCell(title: "B", subCells: [SDLMenuCell(title: "B1"), SDLMenuCell(title: "A")]), SDLMenuCell(title: "C"),
        ])
        if seed % 2 == 0 {
            // Frames whether the stream started or not: each is queued, refused or dropped.
            for index in 0..<40 {
                _ = try? await manager.videoStreaming.send(
                    VideoStreamingTests.frame(key: index % 10 == 0, size: 2_000, seed: UInt8(index), at: .milliseconds(33 * index)))
            }
        }
        _ = try? await manager.send(Show(mainField2: "direct"))
        outcome.shownText = await manager.screen.shownContent.textField1
        return outcome
    }
}
