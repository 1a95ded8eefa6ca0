import JSONText

extension JSONWriter {
    /// Writes a job as the drop contract's JOB object (what `GET /api/jobs/ID` answers), the one shape a job has in
    /// JSON, for a job of this run and an earlier run's record alike: `id`, `name`, `source`, `state` (as given: a
    /// record keeps it as text), `progress`'s counts, `fraction` (rounded to 0.001), whether it can be viewed (its
    /// `dzi`), its `error` and when it was `created` (`progress.state` is not written: `state` is).
    package mutating func job(
        id: String, name: String, source: String, state: String, progress: JobSnapshot, fraction: Double, created: Int
    ) {
        openObject()
        member("id", id)
        member("name", name)
        member("source", source)
        member("state", state)
        member("bytesReceived", progress.bytesReceived)
        member("bytesExpected", progress.bytesExpected)
        member("rowsDecoded", progress.rowsDecoded)
        member("rows", progress.rows)
        member("tilesWritten", progress.tilesWritten)
        member("tiles", progress.tiles)
        member("fraction", (fraction * 1000).rounded() / 1000)
        member("viewable", progress.dzi != nil)
        member("dzi", progress.dzi)
        member("error", progress.error)
        member("created", created)
        closeObject()
    }
}
