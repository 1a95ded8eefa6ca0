import Foundation
import JSONText
import Slicing

/// The few lines a job leaves on disk beside its staging file (`ROOT/.tiler-jobs/ID.job`): enough for the next start
/// to list a job the server did not finish as `interrupted` and to remove what it left. Written atomically (a
/// temporary file renamed over the old one).
///
/// The folder is hidden, so the catalog never scans it; an upload's body is `ID.upload` there.
package struct JobRecord: Codable, Equatable {
    package var id: String
    package var name: String
    package var source: String
    package var state: String
    package var error: String?
    package var created: Int
    /// The topmost folder (relative to ROOT) the job created for its pyramid, if it created any: removed again, while
    /// empty, when the job does not finish (also after a kill, at the next start).
    package var createdFolder: String?

    /// The jobs folder under `root`.
    package static func folder(root: String) -> String { root + "/.tiler-jobs" }

    /// Where job `id`'s record is.
    package static func path(root: String, id: String) -> String { folder(root: root) + "/\(id).job" }

    /// Where an upload's body is staged.
    package static func uploadPath(root: String, id: String) -> String { folder(root: root) + "/\(id).upload" }

    package init(id: String, name: String, source: String, state: String, error: String?, created: Int) {
        self.id = id
        self.name = name
        self.source = source
        self.state = state
        self.error = error
        self.created = created
    }

    /// The record of `job` now.
    package init(_ job: SliceJob) {
        let snapshot = job.snapshot
        id = job.id
        name = job.name
        source = job.source.rawValue
        state = snapshot.state.rawValue
        error = snapshot.error
        created = job.created
    }

    /// Writes the record (best effort: a record that cannot be written only loses the job's history).
    package func save(root: String) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        let path = Self.path(root: root, id: id)
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// Removes the folders a job created for image `name` (from its own folder up to `createdFolder`, relative to
    /// `root`) while they are empty, deepest first; `rmdir` leaves any folder that holds anything, and nothing above
    /// `createdFolder` is touched.
    package static func removeEmptyFolders(of name: String, upTo createdFolder: String?, root: String) {
        guard let createdFolder else { return }
        var folder = ImageName.split(name).folder
        while folder == createdFolder || folder.hasPrefix(createdFolder + "/") {
            guard rmdir(root + "/" + folder) == 0, folder != createdFolder else { return }
            folder = folder.split(separator: "/").dropLast().joined(separator: "/")
        }
    }

    /// The topmost of `folder`'s folders (relative to `root`, `a`, `a/b`, …) that does not exist yet, or nil.
    package static func firstMissing(of folder: String, root: String) -> String? {
        var path = ""
        for part in folder.split(separator: "/") {
            path += (path.isEmpty ? "" : "/") + part
            if !FileManager.default.fileExists(atPath: root + "/" + path) { return path }
        }
        return nil
    }

    /// At a start: creates the jobs folder, marks every unfinished record `interrupted`, removes the staging files of
    /// every job and the staging folders killed slices left where the jobs were publishing, and returns the records,
    /// newest first (at most `keep`; older ones are deleted).
    package static func sweep(root: String, keep: Int = 100) -> [JobRecord] {
        let folder = folder(root: root)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var records: [JobRecord] = []
        for name in names {
            let path = folder + "/" + name
            if name.hasSuffix(".job"), let data = FileManager.default.contents(atPath: path),
                var record = try? JSONDecoder().decode(JobRecord.self, from: data)
            {
                if JobState(rawValue: record.state)?.isTerminal != true {
                    record.state = JobState.interrupted.rawValue
                    record.error = "the server stopped before the job was done; what it had written was removed"
                    record.save(root: root)
                    let (target, stem) = ImageName.split(record.name)
                    _ = StagingSweep.removeLeftovers(in: target.isEmpty ? root : root + "/" + target, interrupted: stem)
                    removeEmptyFolders(of: record.name, upTo: record.createdFolder, root: root)
                }
                records.append(record)
            } else if !name.hasSuffix(".job") {
                // Upload bodies, coarse pyramids and half-written records: nothing finished is ever left here.
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        _ = StagingSweep.removeLeftovers(in: root)
        records.sort { ($0.created, $0.id) > ($1.created, $1.id) }
        for old in records.dropFirst(keep) { unlink(path(root: root, id: old.id)) }
        return Array(records.prefix(keep))
    }
}

extension JobRecord {
    /// A job of an earlier run, as the contract's JOB object: its recorded state and error, no progress (none is kept
    /// across a restart), done or not done at all.
    package var json: String {
        JSONWriter.text { writer in
            writer.job(
                id: id, name: name, source: source, state: state, progress: JobSnapshot(state: .interrupted, error: error),
                fraction: state == JobState.done.rawValue ? 1 : 0, created: created)
        }
    }
}
