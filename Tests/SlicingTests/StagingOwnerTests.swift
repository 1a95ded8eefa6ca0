import Foundation
import Testing

@testable import Slicing

/// The owner record of a staging folder: what it holds, how it reads back, and when its process counts as gone.
@Suite struct StagingOwnerTests {
    static let here = StagingOwner(pid: 100, host: "box", startTime: "5000", bootID: "boot-a", pidNamespace: "4026531836")

    @Test func currentIsThisProcessWithItsStartTime() throws {
        let owner = StagingOwner.current()
        #expect(owner.pid == getpid())
        #expect(!owner.host.isEmpty && !owner.host.contains(" "))
        // Field 22 of /proc/self/stat, read independently: the command name of a test runner holds no ')'.
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let fields = stat.split(separator: " ")
        #expect(owner.startTime == String(fields[21]))
        #expect(owner.bootID == (try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)).trimmingCharacters(in: .newlines))
        #expect(owner.pidNamespace?.allSatisfy(\.isNumber) == true)
        #expect(StagingOwner.probe(getpid()) == .present(startTime: owner.startTime))
    }

    @Test func theLineReadsBack() {
        let line = Self.here.line
        #expect(line == "pid=100 host=box start=5000 boot=boot-a pidns=4026531836\n")
        #expect(StagingOwner(parsing: line) == Self.here)
        let sparse = StagingOwner(pid: 7, host: "h", startTime: nil, bootID: nil, pidNamespace: nil)
        #expect(sparse.line == "pid=7 host=h start=- boot=- pidns=-\n")
        #expect(StagingOwner(parsing: sparse.line) == sparse)
        #expect(StagingOwner(parsing: "host=h pid=7") == sparse)
    }

    @Test(arguments: ["", "garbage", "pid=0 host=h", "pid=-1 host=h", "pid=x host=h", "pid=7", "pid=7 host=", "pid=99999999999 host=h"])
    func unreadableRecordsAreNil(text: String) {
        #expect(StagingOwner(parsing: text) == nil)
    }

    @Test func theStartTimeIsCountedFromTheLastParenthesis() {
        // Fields 4 to 23, each its own number.
        let tail = (4...23).map(String.init).joined(separator: " ")
        #expect(StagingOwner.startTime(inStat: "42 (a) b) S \(tail)") == "22")
        #expect(StagingOwner.startTime(inStat: "42 (two words) S \(tail)") == "22")
        #expect(StagingOwner.startTime(inStat: "42 (short) S 4 5") == nil)
        #expect(StagingOwner.startTime(inStat: "no parenthesis") == nil)
    }

    @Test func standing() {
        func owner(host: String = "box", start: String? = "4000", boot: String? = "boot-a", pidns: String? = "4026531836") -> StagingOwner {
            StagingOwner(pid: 42, host: host, startTime: start, bootID: boot, pidNamespace: pidns)
        }
        let running: (Int32) -> StagingOwner.Probe = { _ in .present(startTime: "4000") }
        let recycled: (Int32) -> StagingOwner.Probe = { _ in .present(startTime: "4711") }
        let absent: (Int32) -> StagingOwner.Probe = { _ in .absent }
        #expect(owner().standing(from: Self.here, probe: running) == .alive)
        #expect(owner().standing(from: Self.here, probe: absent) == .gone)
        #expect(owner().standing(from: Self.here, probe: recycled) == .gone)
        // Without a start time on either side a running PID must be taken for the owner.
        #expect(owner(start: nil).standing(from: Self.here, probe: recycled) == .alive)
        #expect(owner().standing(from: Self.here) { _ in .present(startTime: nil) } == .alive)
        #expect(owner(host: "other").standing(from: Self.here, probe: absent) == .elsewhere)
        #expect(owner(pidns: "4026532000").standing(from: Self.here, probe: absent) == .elsewhere)
        #expect(owner(boot: "boot-b").standing(from: Self.here, probe: running) == .goneBeforeRestart)
        #expect(owner(boot: nil).standing(from: Self.here, probe: running) == .alive)
    }

    @Test func anEndedProcessIsAbsent() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        // Reaped, so its PID is free (Linux hands PIDs out in turn: it is not reused this soon).
        #expect(StagingOwner.probe(child.processIdentifier) == .absent)
    }
}
