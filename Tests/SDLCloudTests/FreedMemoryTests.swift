import Logging
import SDLCloudServer
import SDLConcurrency
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

@Suite("Freed memory handed back", .timeLimit(.minutes(1)))
struct FreedMemoryTests {
    /// While sessions come and go the host hands freed memory back at most once per interval,
    /// and once more an interval after the last of them; quiet intervals cost nothing;
    /// cancelling ends it. Sessions are looked at five times per interval (every 2 s here).
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
            // Seconds since the start, and the releases by then: at the first look after the
            // session (10 s since the last release), then 10 s after that look, then never again.
            for (second, expected) in [(12, 1), (14, 1), (20, 1), (22, 2), (24, 2), (40, 2)] {
                while clock.now.offset < .seconds(second) {
                    clock.advance(by: .seconds(2))
                    await clock.waitForSleepers(1)
                }
                #expect(releases() == expected, "at \(second) s")
            }
            releaser.cancel()
            await releaser.value
        #else
            // Nothing to hand back with: the loop ends at its first due release.
            clock.advance(by: .seconds(2))
            await releaser.value
            #expect(releases() == 0)
        #endif
    }
}
