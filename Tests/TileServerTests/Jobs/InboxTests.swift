import Foundation
import Testing

@testable import SliceJobs
@testable import TileServer
@testable import TileSources

/// `--inbox DIR` on a real server: a file moved in is sliced into ROOT under its name and moved to `done/`; a file
/// that is not an image goes to `failed/` with a `.txt` saying why; a file still growing is not taken.
@Suite(.serialized) struct InboxTests {
    @Test func filesMovedInAreSlicedThenFiled() async throws {
        let fixture = try PyramidFixture()
        let inbox = fixture.base + "/inbox"
        var configuration = testConfiguration(root: fixture.root)
        configuration.inbox = inbox
        let image = try UploadFixture.png(width: 640, height: 480)
        try await withServer(fixture, configuration) { server in
            for folder in ["", "/done", "/failed"] {
                #expect(FileManager.default.fileExists(atPath: inbox + folder), "the server creates \(inbox + folder)")
            }
            try Data(image).write(to: URL(fileURLWithPath: fixture.base + "/holiday.png"))
            #expect(rename(fixture.base + "/holiday.png", inbox + "/holiday.png") == 0)
            try Data("not an image at all".utf8).write(to: URL(fileURLWithPath: inbox + "/notes.png"))
            #expect(await eventually(within: 30) { FileManager.default.fileExists(atPath: inbox + "/done/holiday.png") })
            #expect(FileManager.default.fileExists(atPath: fixture.root + "/holiday.dzi"))
            #expect(await eventually { (try? fetch(server, "/api/images").text.contains("\"name\":\"holiday\"")) == true })
            #expect(await eventually(within: 30) { FileManager.default.fileExists(atPath: inbox + "/failed/notes.txt") })
            let reason = try String(contentsOfFile: inbox + "/failed/notes.txt", encoding: .utf8)
            #expect(!reason.isEmpty && reason.split(separator: "\n").count == 1, "\(reason)")
            #expect(FileManager.default.fileExists(atPath: inbox + "/failed/notes.png"))
            #expect(!FileManager.default.fileExists(atPath: fixture.root + "/notes.dzi"))
        }
    }

    @Test func aFileStillGrowingIsNotTaken() async throws {
        let fixture = try PyramidFixture()
        let inbox = fixture.base + "/inbox"
        let queue = Self.queue(fixture)
        defer { queue.shutdown() }
        let watcher = try Inbox(directory: inbox, queue: queue)
        let image = try UploadFixture.png(width: 64, height: 64)
        let handle = try #require(FileHandle(forWritingAtPath: try Self.create(inbox + "/growing.png")))
        try handle.write(contentsOf: Data(image.prefix(20)))
        watcher.poll(now: 100)
        try handle.write(contentsOf: Data(image.dropFirst(20).prefix(20)))
        watcher.poll(now: 101.5)
        #expect(queue.all().jobs.isEmpty, "its size changed between the looks")
        watcher.poll(now: 102.0)
        #expect(queue.all().jobs.isEmpty, "unchanged for only half a second")
        try handle.write(contentsOf: Data(image.dropFirst(40)))
        try handle.close()
        watcher.poll(now: 103)
        watcher.poll(now: 104.2)
        #expect(queue.all().jobs.map(\.name) == ["growing"], "settled for over a second")
    }

    /// Watched with inotify, a file is taken the moment it arrives whole — moved in, or closed after it was written —
    /// with no look at the folder (the looks are an hour apart here); hidden and empty files are not.
    @Test func aFileIsTakenTheMomentItArrivesWhole() async throws {
        let fixture = try PyramidFixture()
        let inbox = fixture.base + "/inbox"
        let queue = Self.queue(fixture)
        defer { queue.shutdown() }
        let watcher = try Inbox(directory: inbox, queue: queue)
        watcher.start(lookInterval: .seconds(3600))
        defer { watcher.stop() }
        let image = Data(try UploadFixture.png(width: 64, height: 64))
        try image.write(to: URL(fileURLWithPath: fixture.base + "/moved.png"))
        #expect(rename(fixture.base + "/moved.png", inbox + "/moved.png") == 0)
        #expect(await eventually { queue.all().jobs.map(\.name) == ["moved"] }, "taken when moved in")
        #expect(FileManager.default.createFile(atPath: inbox + "/.hidden.png", contents: image))
        #expect(FileManager.default.createFile(atPath: inbox + "/empty.png", contents: nil))
        #expect(FileManager.default.createFile(atPath: inbox + "/written.png", contents: image))
        // Events come in order: once the last file is taken, the hidden and the empty one were passed over.
        #expect(await eventually { queue.all().jobs.map(\.name).sorted() == ["moved", "written"] }, "\(queue.all().jobs.map(\.name))")
        // Filed when done; a file of the same name moved in again later is a new arrival.
        #expect(await eventually(within: 30) { FileManager.default.fileExists(atPath: inbox + "/done/moved.png") })
        #expect(rename(inbox + "/done/moved.png", inbox + "/moved.png") == 0)
        #expect(await eventually { queue.all().jobs.filter { $0.name == "moved" }.count == 2 }, "taken again")
    }

    /// A job queue slicing into `fixture`'s ROOT on one thread, with no server around it.
    static func queue(_ fixture: PyramidFixture) -> JobQueue {
        JobQueue(
            root: fixture.root, maxDepth: 4, threads: 1, catalog: ImageCatalog(root: fixture.root, maxDepth: 4, logger: .init(label: "t")),
            logger: .init(label: "t"), onPublished: {})
    }

    static func create(_ path: String) throws -> String {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        return path
    }
}
