#if canImport(Glibc)
    import Glibc
#endif

/// Wall-clock and CPU timing for benchmarks.
enum Stopwatch {
    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// The fastest of `runs` timings of `body`, in seconds (the least disturbed by other load).
    static func best(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var fastest = Double.infinity
        for _ in 0..<runs {
            let start = now()
            try body()
            fastest = min(fastest, now() - start)
        }
        return fastest
    }

    /// Peak resident set size of this process so far, in MiB.
    static func peakRSSMiB() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
