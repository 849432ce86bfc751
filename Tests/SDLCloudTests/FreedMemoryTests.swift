import Logging
import SDLConcurrency
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

@Suite("Freed memory handed back", .timeLimit(.minutes(1)))
struct FreedMemoryTests {
    /// After an interval in which sessions came or went, and once more after the last of them,
    /// the host hands freed memory back; a quiet interval costs nothing; cancelling ends it.
    @Test func afterSessionsComeAndGo() async throws {
        let clock = ManualClock()
        let lines = Locked<[String]>([])
        var app = SDLManager.Configuration(appName: "Cloud", appID: "cloud-1")
        app.session.clock = SDLClock(clock)
        let host = SDLCloudAppHost(app: app, logger: Logger(label: "cloud-test") { _ in CapturingLogHandler(lines: lines) })
        let releases = { lines.current.filter { $0 == "debug freed memory handed back to the system" }.count }
        let releaser = Task { await host.releaseFreedMemory(every: .seconds(10)) }

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        await clock.waitForSleepers(1)
        #expect(releases() == 0, "no session came or went")

        // A head unit that hangs up at once: one session starts and ends.
        let (headUnit, appSide) = SDLMemoryTransport.pair(bufferSize: 1 << 10)
        await headUnit.close()
        await host.serve(appSide) { _ in }
        #expect(await host.openSessions == 0)

        #if canImport(Glibc)
        for expected in [1, 2, 2] {
            clock.advance(by: .seconds(10))
            await clock.waitForSleepers(1)
            #expect(releases() == expected)
        }
        releaser.cancel()
        await releaser.value
        #else
        // Nothing to hand back with: the loop ends at its first due release.
        clock.advance(by: .seconds(10))
        await releaser.value
        #expect(releases() == 0)
        #endif
    }
}
