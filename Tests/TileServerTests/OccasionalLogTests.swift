import Glibc
import Testing

@testable import HTTPCore
@testable import TileServer

/// Failures that repeat are logged at most once per interval — for each key apart: one image's flood neither hides
/// another image's first failure nor is hidden by it.
@Suite struct OccasionalLogTests {
    @Test func eachKeyHasItsOwnInterval() {
        let recorder = LogRecorder(level: .trace)
        let log = OccasionalLog(logger: recorder.logger, interval: .seconds(60))
        #expect(log.note("a failed", key: "a"))
        #expect(!log.note("a failed", key: "a"))
        #expect(!log.note("a failed", key: "a"))
        #expect(log.note("b failed", key: "b"), "another key's first failure is logged")
        #expect(!log.note("b failed", key: "b"))
        #expect(log.note("unkeyed"), "the unkeyed line has its own interval")
        #expect(recorder.lines == ["a failed", "b failed", "unkeyed"])
    }

    @Test func theCountOfSkippedLinesFollowsTheirKey() {
        let recorder = LogRecorder(level: .trace)
        let log = OccasionalLog(logger: recorder.logger, interval: .milliseconds(1))
        #expect(log.note("a failed", key: "a"))
        for _ in 0..<3 { _ = log.note("a failed", key: "a") }
        _ = log.note("b failed", key: "b")
        // Past the interval: a's next line counts what was skipped of a, whatever b did.
        usleep(20_000)
        #expect(log.note("a again", key: "a"))
        #expect(recorder.lines.last == "a again (3 more since the last such line)")
    }

    @Test func keysAreBounded() {
        let log = OccasionalLog(logger: LogRecorder(level: .trace).logger, interval: .seconds(60))
        for index in 0..<(OccasionalLog.keyCapacity * 3) { #expect(log.note("x", key: "k\(index)")) }
    }
}
