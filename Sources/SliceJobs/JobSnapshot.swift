import JSONText

/// A job's state at one moment: what `GET /api/jobs/ID` answers (the drop contract's JOB object).
package struct JobSnapshot: Sendable, Equatable {
    package var state: JobState
    /// Body bytes received (an upload) or the file's size (an inbox file).
    package var bytesReceived = 0
    /// The declared body length, nil when unknown (a chunked upload).
    package var bytesExpected: Int?
    /// Source rows decoded so far, and the image's height (0 until known).
    package var rowsDecoded = 0
    package var rows = 0
    /// Tiles written so far, and the final pyramid's tile count (0 until known).
    package var tilesWritten = 0
    package var tiles = 0
    /// The versioned descriptor URL while the image can be viewed, else nil.
    package var dzi: String?
    /// One line saying why the job failed, else nil.
    package var error: String?

    /// The share of the whole job done, `0 ... 1`: an upload's receiving counts for the first fifth, slicing (tiles
    /// written) for the rest; an inbox job is all slicing.
    package func fraction(source: JobSource) -> Double {
        if state == .done { return 1 }
        let receiveShare = source == .upload ? 0.2 : 0
        // An inbox file or a finished upload has all its bytes; slicing starts only then, so the parts add up.
        let received = bytesExpected.map { $0 > 0 ? min(1, Double(bytesReceived) / Double($0)) : 1 } ?? (state == .receiving ? 0 : 1)
        let sliced = tiles > 0 ? min(1, Double(tilesWritten) / Double(tiles)) : 0
        return receiveShare * received + (1 - receiveShare) * sliced
    }
}

extension SliceJob {
    /// The job as JSON (one line): the contract's JOB object.
    package func json(_ snapshot: JobSnapshot) -> String {
        JSONWriter.text { writer in
            writer.job(
                id: id, name: name, source: source.rawValue, state: snapshot.state.rawValue, progress: snapshot,
                fraction: snapshot.fraction(source: source), created: created)
        }
    }

    /// The job's current JSON.
    package var json: String { json(snapshot) }
}
