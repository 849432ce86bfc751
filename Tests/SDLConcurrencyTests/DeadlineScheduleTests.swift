import SDLConcurrency
import Testing

@Suite struct DeadlineScheduleTests {
    @Test func earliestFirstWithCancelAndMove() {
        var schedule = SDLDeadlineSchedule<Int>()
        schedule.schedule(1, at: .seconds(10))
        schedule.schedule(2, at: .seconds(5))
        schedule.schedule(3, at: .seconds(7))
        #expect(schedule.earliest() == .seconds(5))
        schedule.cancel(2)
        #expect(schedule.earliest() == .seconds(7))
        schedule.schedule(1, at: .seconds(6))  // moved earlier
        #expect(schedule.popExpired(now: .seconds(6)) == [1])
        #expect(schedule.popExpired(now: .seconds(100)) == [3])
        #expect(schedule.isEmpty)
        #expect(schedule.earliest() == nil)
    }

    @Test func staleEntriesDoNotAccumulate() {
        var schedule = SDLDeadlineSchedule<Int>()
        for key in 0..<10_000 {
            schedule.schedule(key, at: .seconds(Int64(key)))
            schedule.cancel(key)
        }
        schedule.schedule(-1, at: .seconds(1))
        #expect(schedule.count == 1)
        #expect(schedule.popExpired(now: .seconds(1)) == [-1])
    }
}
