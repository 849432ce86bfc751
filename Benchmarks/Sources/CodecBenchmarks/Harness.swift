// A small timing harness: every candidate of a group is calibrated to about `sampleMilliseconds`
// per sample, then the candidates take their samples in turn (round-robin, so a burst of load
// from elsewhere hits all of them alike), and the median sample gives ns per operation.
import MallocCounter

struct HarnessOptions {
    var samples = 15
    var sampleMilliseconds = 20
    /// Only this candidate, as `group:name` (e.g. `decode:SDLJSON`), or this group's (`decode`),
    /// for profiling one codec.
    var candidate: String?
    /// Exactly this many operations per candidate, one sample, no calibration (for callgrind).
    var fixedIterations: Int?
}

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) var sink = 0

@inline(never)
func consume(_ value: Int) {
    sink &+= value
}

struct Candidate {
    let name: String
    /// One operation; returns something derived from the result (e.g. a count).
    let body: () throws -> Int
}

struct Measurement {
    let name: String
    /// Median ns per operation.
    let nanoseconds: Double
    /// Fastest sample, ns per operation.
    let fastest: Double
    /// Allocation calls per operation.
    let allocations: Double
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

func measure(_ group: String, _ candidates: [Candidate], options: HarnessOptions) throws -> [Measurement] {
    let candidates = candidates.filter { candidate in
        options.candidate.map { $0 == group || $0 == "\(group):\(candidate.name)" } ?? true
    }
    let clock = ContinuousClock()
    var iterations: [Int] = []
    var allocations: [Double] = []
    for candidate in candidates {
        // Warm up, count allocations, then find how many operations fill a sample.
        for _ in 0..<10 { consume(try candidate.body()) }
        let countRuns = 100
        let before = malloc_counter_allocations()
        for _ in 0..<countRuns { consume(try candidate.body()) }
        allocations.append(Double(malloc_counter_allocations() - before) / Double(countRuns))
        if let fixed = options.fixedIterations {
            iterations.append(fixed)
            continue
        }
        var count = 1
        while true {
            let start = clock.now
            for _ in 0..<count { consume(try candidate.body()) }
            let elapsed = (clock.now - start).nanoseconds
            if elapsed >= Double(options.sampleMilliseconds) * 1e6 / 4 {
                count = max(1, Int(Double(count) * Double(options.sampleMilliseconds) * 1e6 / elapsed))
                break
            }
            count *= 2
        }
        iterations.append(count)
    }
    var samples = Array(repeating: [Double](), count: candidates.count)
    for _ in 0..<(options.fixedIterations == nil ? options.samples : 1) {
        for (index, candidate) in candidates.enumerated() {
            let count = iterations[index]
            let start = clock.now
            for _ in 0..<count { consume(try candidate.body()) }
            samples[index].append((clock.now - start).nanoseconds / Double(count))
        }
    }
    return candidates.indices.map { index in
        let sorted = samples[index].sorted()
        return Measurement(
            name: candidates[index].name,
            nanoseconds: sorted[sorted.count / 2],
            fastest: sorted[0],
            allocations: allocations[index]
        )
    }
}
