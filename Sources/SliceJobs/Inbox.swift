import CFileIO
import Foundation
import Synchronization

/// `--inbox DIR`: image files that appear in DIR become slicing jobs (source `inbox`) named after the file (its name
/// without the extension), sliced into ROOT; afterwards the file moves to `DIR/done/`, or to `DIR/failed/` beside a
/// `NAME.txt` saying why. Hidden files and folders are ignored.
///
/// A file is taken the moment it arrives whole, as inotify tells: moved in (a rename is atomic) or closed after
/// writing (a copy that ended). The folder is also looked at every ``lookInterval`` (``poll(now:)``), for what inotify
/// does not see (a file written over NFS or by another host, a watch the kernel refused, events lost): such a file is
/// complete once its size and modification time have stayed the same for ``settleSeconds``.
package final class Inbox: Sendable {
    /// How long a file's size must stay the same before a look takes it, in seconds.
    package static let settleSeconds = 1.0

    package let directory: String
    private let queue: JobQueue
    /// What each file looked like at the last look: size, modification time, and since when it has looked so (-1:
    /// taken, not again while it stays here).
    private let seen = Mutex<[String: (size: Int, modified: Double, since: Double)]>([:])
    /// The watching thread's wake-up pipe (write end) and its done signal, while it runs.
    private let watching = Mutex<(wake: Int32, done: DispatchSemaphore)?>(nil)

    /// An inbox on `directory` (created with `done/` and `failed/` if missing) feeding `queue`. Nothing is taken
    /// until ``start(lookInterval:)`` or a call of ``poll(now:)``.
    package init(directory: String, queue: JobQueue) throws {
        self.directory = directory
        self.queue = queue
        for folder in [directory, directory + "/done", directory + "/failed"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    /// Starts watching on a thread of its own: files are taken as inotify reports them, and the folder is looked at
    /// once now and then every `lookInterval` (its second look takes the files that were here already). Calling it
    /// again does nothing.
    package func start(lookInterval: Duration = .milliseconds(500)) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        let done = DispatchSemaphore(value: 0)
        let started = watching.withLock { watching in
            guard watching == nil else { return false }
            watching = (ends[1], done)
            return true
        }
        guard started else {
            close(ends[0])
            close(ends[1])
            return
        }
        let wake = ends[0]
        let seconds = Double(lookInterval.components.seconds) + Double(lookInterval.components.attoseconds) / 1e18
        // The watch is in place when this returns: made on the thread, a file arriving before the thread first ran
        // would wait for the next look at the folder.
        let events = tiler_watch_arrivals(directory)
        let thread = Thread { [self] in
            watch(events: events, wake: wake, lookInterval: seconds)
            close(wake)
            done.signal()
        }
        thread.name = "tiler-inbox"
        thread.start()
    }

    /// Stops watching and returns once the thread has ended. Safe to call when not watching.
    package func stop() {
        let running = watching.withLock { watching in
            let running = watching
            watching = nil
            return running
        }
        guard let (wake, done) = running else { return }
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
        done.wait()
        close(wake)
    }

    /// The watching thread: waits on inotify's `events` (when the kernel gave a watch: else -1) and the wake-up
    /// pipe, taking what arrives, and looks at the whole folder every `lookInterval` seconds, until woken to stop.
    private func watch(events: Int32, wake: Int32, lookInterval: Double) {
        defer { if events >= 0 { close(events) } }
        var names = [CChar](repeating: 0, count: 16 << 10)
        var nextLook = Date().timeIntervalSince1970
        while true {
            let now = Date().timeIntervalSince1970
            if now >= nextLook {
                poll(now: now)
                nextLook = now + lookInterval
            }
            var waits = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: events, events: Int16(POLLIN), revents: 0)]
            let timeout = Int32(clamping: Int(((nextLook - now) * 1000).rounded(.up)))
            guard Glibc.poll(&waits, events >= 0 ? 2 : 1, max(timeout, 0)) >= 0 || errno == EINTR else { return }
            if waits[0].revents != 0 { return }
            guard events >= 0, waits[1].revents != 0 else { continue }
            var overflowed: Int32 = 0
            let count = tiler_read_arrivals(events, &names, names.count, &overflowed)
            if overflowed != 0 { nextLook = 0 }
            guard count > 0 else { continue }
            for event in names.prefix(count).split(separator: 0) where event.count > 1 {
                let name = String(decoding: event.dropFirst().map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if event.first == CChar(UInt8(ascii: "-")) {
                    left(name)
                } else {
                    arrivedWhole(name)
                }
            }
        }
    }

    /// Takes `name`, which inotify reported moved in or closed after writing, unless it is hidden, not a regular
    /// file, empty (a file created and closed before it is written: a later look takes it once settled), or taken.
    package func arrivedWhole(_ name: String) {
        guard !name.hasPrefix(".") else { return }
        var info = stat()
        guard lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        let isNew = seen.withLock { seen in
            if let earlier = seen[name], earlier.since < 0 { return false }
            seen[name] = (Int(info.st_size), modified, -1)
            return true
        }
        if isNew { take(name) }
    }

    /// Forgets `name`, which left the folder (its job filed it, or someone moved it away): a file of that name that
    /// arrives later is a new one.
    package func left(_ name: String) {
        _ = seen.withLock { $0.removeValue(forKey: name) }
    }

    /// Looks at the folder once (blocking): files whose size has settled become jobs.
    package func poll(now: Double = Date().timeIntervalSince1970) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }
        var ready: [String] = []
        seen.withLock { seen in
            var next: [String: (size: Int, modified: Double, since: Double)] = [:]
            for name in names {
                var info = stat()
                guard lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                let size = Int(info.st_size)
                let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                if let earlier = seen[name], earlier.size == size, earlier.modified == modified {
                    if earlier.since >= 0 && now - earlier.since >= Self.settleSeconds {
                        ready.append(name)
                        next[name] = (size, modified, -1)  // taken: not again while it stays here
                    } else {
                        next[name] = earlier
                    }
                } else if let earlier = seen[name], earlier.since < 0 {
                    next[name] = earlier  // taken; its job is under way
                } else {
                    next[name] = (size, modified, now)
                }
            }
            seen = next
        }
        for name in ready.sorted() { take(name) }
    }

    /// Makes a job of the settled file `name`, or moves it to `failed/` at once when it cannot be one.
    private func take(_ name: String) {
        let path = directory + "/" + name
        let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
        if let problem = ImageName.problem(stem[...], maxDepth: queue.maxDepth) {
            return Self.move(path, failedWith: problem)
        }
        switch queue.add(name: stem, source: .inbox, replace: false, input: path, state: .receiving) {
        case .success(let job):
            var info = stat()
            if stat(path, &info) == 0 {
                job.update {
                    $0.bytesReceived = Int(info.st_size)
                    $0.bytesExpected = Int(info.st_size)
                }
            }
            queue.submit(job)
        case .failure(let refusal):
            Self.move(path, failedWith: refusal.message)
        }
    }

    /// Moves an inbox job's file to `done/` or `failed/` (with `NAME.txt`), as the job ended.
    package static func settle(_ job: SliceJob) {
        let snapshot = job.snapshot
        if snapshot.state == .done {
            move(job.input, to: "done")
        } else {
            move(job.input, failedWith: snapshot.error ?? "the job was \(snapshot.state.rawValue)")
        }
    }

    private static func move(_ path: String, failedWith reason: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path + "/failed"
        let stem = url.deletingPathExtension().lastPathComponent
        _ = FileManager.default.createFile(atPath: folder + "/" + stem + ".txt", contents: Data((reason + "\n").utf8))
        move(path, to: "failed")
    }

    /// Moves `path` into the sibling folder `folder` (replacing a file of the same name there).
    private static func move(_ path: String, to folder: String) {
        let url = URL(fileURLWithPath: path)
        let destination = url.deletingLastPathComponent().path + "/" + folder + "/" + url.lastPathComponent
        _ = rename(path, destination)
    }
}
