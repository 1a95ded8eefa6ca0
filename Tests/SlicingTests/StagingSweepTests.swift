import Foundation
import Testing

@testable import Slicing

/// Leftover staging folders: removed when their process is gone from this host, kept while it runs or when it ran
/// elsewhere, and owner-less ones only once they are a day old.
@Suite struct StagingSweepTests {
    static let hour = 3600.0

    /// Makes the staging folder `name` in `fixture` holding a few tiles, with `owner` as its owner file unless nil,
    /// last changed `age` seconds ago.
    @discardableResult
    static func leftover(_ name: String, owner: String?, age: Double = 0, in fixture: SliceFixture) throws -> String {
        let path = "\(fixture.directory)/\(name)"
        try FileManager.default.createDirectory(atPath: "\(path)/photo_files/10", withIntermediateDirectories: true)
        for tile in ["0_0.jpg", "1_0.jpg"] { try Data("tile".utf8).write(to: URL(fileURLWithPath: "\(path)/photo_files/10/\(tile)")) }
        if let owner { try Data(owner.utf8).write(to: URL(fileURLWithPath: "\(path)/\(StagingOwner.fileName)")) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: path)
        return path
    }

    /// This process's owner record with another PID, start time, boot or host.
    static func owner(pid: Int32 = getpid(), start: String? = nil, boot: String? = nil, host: String? = nil, pidns: String? = nil) -> String {
        let here = StagingOwner.current()
        return StagingOwner(
            pid: pid, host: host ?? here.host, startTime: start ?? here.startTime, bootID: boot ?? here.bootID,
            pidNamespace: pidns ?? here.pidNamespace
        ).line
    }

    /// The PID of a process that has ended.
    static func endedPID() throws -> Int32 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        return child.processIdentifier
    }

    static func sweep(_ fixture: SliceFixture) -> [String: String] {
        let removed = StagingSweep.removeLeftovers(in: fixture.directory)
        #expect(removed.allSatisfy { $0.removed }, "\(removed)")
        return Dictionary(uniqueKeysWithValues: removed.map { ($0.folder, $0.description) })
    }

    @Test func foldersOfEndedProcessesAreRemovedWhateverThePyramidName() throws {
        let fixture = try SliceFixture()
        let ended = try Self.endedPID()
        try Self.leftover(".photo.tiler-ab12cd", owner: Self.owner(pid: ended), in: fixture)
        // This PID, but started at another time: a recycled PID, not the owner.
        try Self.leftover(".map.v2.tiler-Q9w8e7", owner: Self.owner(start: "1"), in: fixture)
        try Self.leftover(".rebooted.tiler-000000", owner: Self.owner(boot: "an-earlier-boot"), in: fixture)
        try FileManager.default.createDirectory(atPath: "\(fixture.directory)/.git", withIntermediateDirectories: false)
        #expect(
            Self.sweep(fixture) == [
                ".photo.tiler-ab12cd": "removed .photo.tiler-ab12cd, left by process \(ended) on this host, which is gone",
                ".map.v2.tiler-Q9w8e7": "removed .map.v2.tiler-Q9w8e7, left by process \(getpid()) on this host, which is gone",
                ".rebooted.tiler-000000": "removed .rebooted.tiler-000000, left by process \(getpid()) on this host before it restarted",
            ])
        #expect(try fixture.listing() == [".git"])
    }

    @Test func foldersOfRunningProcessesAndOtherHostsAreKept() throws {
        let fixture = try SliceFixture()
        let ended = try Self.endedPID()
        try Self.leftover(".mine.tiler-aaaaaa", owner: Self.owner(), age: 100 * Self.hour, in: fixture)
        try Self.leftover(".theirs.tiler-bbbbbb", owner: Self.owner(pid: ended, host: "another-host"), age: 100 * Self.hour, in: fixture)
        try Self.leftover(".container.tiler-cccccc", owner: Self.owner(pid: ended, pidns: "1"), in: fixture)
        let before = try fixture.snapshot()
        #expect(Self.sweep(fixture).isEmpty)
        #expect(try fixture.snapshot() == before)
    }

    @Test func ownerlessFoldersAreRemovedOnceADayOld() throws {
        let fixture = try SliceFixture()
        try Self.leftover(".young.tiler-aaaaaa", owner: nil, age: 2 * Self.hour, in: fixture)
        try Self.leftover(".unreadable.tiler-bbbbbb", owner: "garbage", age: 23 * Self.hour, in: fixture)
        try Self.leftover(".old.tiler-cccccc", owner: nil, age: 30 * Self.hour + 60, in: fixture)
        try Self.leftover(".ancient.tiler-dddddd", owner: "pid=0 host=", age: 5 * 24 * Self.hour + 60, in: fixture)
        #expect(
            Self.sweep(fixture) == [
                ".old.tiler-cccccc": "removed .old.tiler-cccccc, left by a slice with no owner recorded, unchanged for 30 hours",
                ".ancient.tiler-dddddd": "removed .ancient.tiler-dddddd, left by a slice with no owner recorded, unchanged for 5 days",
            ])
        #expect(try fixture.listing() == [".unreadable.tiler-bbbbbb", ".young.tiler-aaaaaa"])
    }

    /// A server's job found unfinished at its next start: its pyramid's staging folders without an owner file (killed
    /// between creating the folder and writing the file, or while writing it) go at once; other names' wait their day,
    /// and one of that name whose process runs stays.
    @Test func ownerlessFoldersOfAnInterruptedSliceAreRemovedAtOnce() throws {
        let fixture = try SliceFixture()
        try Self.leftover(".big.tiler-aaaaaa", owner: nil, in: fixture)
        try Self.leftover(".big.tiler-bbbbbb", owner: "", in: fixture)
        try Self.leftover(".big.tiler-cccccc", owner: Self.owner(), in: fixture)
        try Self.leftover(".bigger.tiler-dddddd", owner: nil, in: fixture)
        try Self.leftover(".other.tiler-eeeeee", owner: nil, in: fixture)
        let removed = StagingSweep.removeLeftovers(in: fixture.directory, interrupted: "big")
        let why = "left by an interrupted slice before it recorded its owner"
        #expect(
            Dictionary(uniqueKeysWithValues: removed.map { ($0.folder, $0.description) }) == [
                ".big.tiler-aaaaaa": "removed .big.tiler-aaaaaa, \(why)", ".big.tiler-bbbbbb": "removed .big.tiler-bbbbbb, \(why)",
            ])
        #expect(try fixture.listing() == [".big.tiler-cccccc", ".bigger.tiler-dddddd", ".other.tiler-eeeeee"])
    }

    @Test func removalFollowsNoLink() throws {
        let fixture = try SliceFixture()
        let outside = try SliceFixture()
        try FileManager.default.createDirectory(atPath: "\(outside.directory)/inner", withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: "\(outside.directory)/inner/keep.txt"))
        // An owner file saying "gone", so that a sweep that followed the link below would empty this folder.
        try Data(Self.owner(pid: try Self.endedPID()).utf8).write(to: URL(fileURLWithPath: "\(outside.directory)/\(StagingOwner.fileName)"))
        let before = try outside.snapshot()

        let staging = try Self.leftover(".photo.tiler-ab12cd", owner: Self.owner(pid: try Self.endedPID()), in: fixture)
        try FileManager.default.createSymbolicLink(atPath: "\(staging)/photo_files/10/folder-link", withDestinationPath: outside.directory)
        let file = "\(outside.directory)/inner/keep.txt"
        try FileManager.default.createSymbolicLink(atPath: "\(staging)/photo_files/file-link", withDestinationPath: file)
        try FileManager.default.createSymbolicLink(atPath: "\(staging)/dangling", withDestinationPath: "\(outside.directory)/missing")
        try FileManager.default.createSymbolicLink(atPath: "\(fixture.directory)/.trap.tiler-zzzzzz", withDestinationPath: outside.directory)

        #expect(Array(Self.sweep(fixture).keys) == [".photo.tiler-ab12cd"])
        #expect(try fixture.listing() == [".trap.tiler-zzzzzz"])
        #expect(try outside.snapshot() == before)
    }

    @Test func aFolderThatCannotBeRemovedIsReported() throws {
        let fixture = try SliceFixture()
        let ended = try Self.endedPID()
        let staging = try Self.leftover(".photo.tiler-ab12cd", owner: Self.owner(pid: ended), in: fixture)
        // Folders nested deeper than removal enters (root may remove anything, so depth, not permissions, makes it fail).
        let deep = staging + "/photo_files" + String(repeating: "/d", count: TreeRemoval.maxDepth + 2)
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let removed = StagingSweep.removeLeftovers(in: fixture.directory)
        #expect(removed.count == 1)
        let line = removed.first?.description ?? ""
        #expect(line.hasPrefix("cannot remove .photo.tiler-ab12cd (left by process \(ended) on this host, which is gone): "), "\(line)")
        // The owner file stays: the next slice knows the folder and tries again.
        #expect(try fixture.listing(".photo.tiler-ab12cd").contains(StagingOwner.fileName))
    }

    @Test(arguments: [
        (".photo.tiler-ab12cd", true), (".a.tiler-123456", true), (".name.with.dots.tiler-XyZ0aB", true), (".tiler-ab12cd", false),
        ("photo.tiler-ab12cd", false), (".photo.tiler-ab12c", false), (".photo.tiler-ab12c!", false), (".photo.tiler-ab12cd.bak", false),
        (".git", false), (".photo-tiler-ab12cd", false),
    ])
    func stagingNames(name: String, isStaging: Bool) {
        #expect(StagingSweep.isStagingName(name) == isStaging)
    }

    @Test func aNewStagingFolderNamesItsOwnerAndIsKept() throws {
        let fixture = try SliceFixture()
        let staging = try StagingFolder.create(directory: fixture.directory, name: "photo", force: false)
        let text = try String(contentsOfFile: "\(staging.path)/\(StagingOwner.fileName)", encoding: .utf8)
        #expect(StagingOwner(parsing: text) == StagingOwner.current())
        #expect(Self.sweep(fixture).isEmpty)
        #expect(try fixture.listing().count == 1)
        staging.discard()
        #expect(try fixture.listing().isEmpty)
    }
}
