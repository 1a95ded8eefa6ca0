import HTTPCore
import NIOCore

/// A job's event stream (`GET /api/jobs/ID/events`): its JSON as a Server-Sent Event (`event: job`, `data: JOB`)
/// after each change, the last when the job is over.
extension SliceJob: EventSource {
    package func currentEvent() -> (event: ByteBuffer, isLast: Bool) {
        let snapshot = self.snapshot
        return (Self.event(json(snapshot)), snapshot.state.isTerminal)
    }

    /// One Server-Sent Event carrying a job's JSON (`event: job`, `data: JOB`).
    package static func event(_ json: String) -> ByteBuffer {
        ByteBuffer(string: "event: job\ndata: \(json)\n\n")
    }
}
