import Foundation
import Synchronization

/// `--inbox DIR`: image files that appear in DIR become slicing jobs (source `inbox`) named after the file (its name
/// without the extension), sliced into ROOT; afterwards the file moves to `DIR/done/`, or to `DIR/failed/` beside a
/// `NAME.txt` saying why. A file counts as complete once its size and modification time have stayed the same for
/// ``settleSeconds`` (a copy in progress keeps growing); one moved in is complete at once, and is seen the same way.
/// Hidden files and folders are ignored.
final class Inbox: Sendable {
    /// How long a file's size must stay the same before it is taken, in seconds.
    static let settleSeconds = 1.0

    let directory: String
    private let queue: JobQueue
    /// What each file looked like at the last look: size, modification time, and since when it has looked so.
    private let seen = Mutex<[String: (size: Int, modified: Double, since: Double)]>([:])

    /// An inbox on `directory` (created with `done/` and `failed/` if missing) feeding `queue`.
    init(directory: String, queue: JobQueue) throws {
        self.directory = directory
        self.queue = queue
        for folder in [directory, directory + "/done", directory + "/failed"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    /// Looks at the folder once (blocking; the server calls it every half second on a file thread): files whose
    /// size has settled become jobs.
    func poll(now: Double = Date().timeIntervalSince1970) {
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
    static func settle(_ job: SliceJob) {
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
