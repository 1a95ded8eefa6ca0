import NIOCore

/// One `GET /api/jobs/ID/events` answer being written: the job's JSON as a Server-Sent Event (`event: job`,
/// `data: JOB`) now and after each change, at most ``minimumGap`` apart (changes in between are merged into the next
/// event), until the job is over; then the connection closes. Lives on the connection's event loop.
final class EventStream {
    /// The least time between two events: at most 10 a second.
    static let minimumGap = TimeAmount.milliseconds(100)

    let job: SliceJob
    private let loop: any EventLoop
    /// Writes one event's bytes; `last` when the job is over (the writer then closes).
    private let send: (ByteBuffer, _ last: Bool) -> Void
    private var watcher: UInt64?
    private var lastSent: NIODeadline?
    private var scheduled: Scheduled<Void>?
    private var ended = false

    init(job: SliceJob, loop: any EventLoop, send: @escaping (ByteBuffer, _ last: Bool) -> Void) {
        self.job = job
        self.loop = loop
        self.send = send
    }

    /// Sends the current state and follows the job.
    func start() {
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        watcher = job.watch { loop.execute { bound.value.changed() } }
        emit()
    }

    /// Stops following the job (the connection closed).
    func stop() {
        ended = true
        scheduled?.cancel()
        scheduled = nil
        if let watcher { job.unwatch(watcher) }
        watcher = nil
    }

    private func changed() {
        guard !ended, scheduled == nil else { return }
        let now = NIODeadline.now()
        if let lastSent, now - lastSent < Self.minimumGap {
            let bound = NIOLoopBound(self, eventLoop: loop)
            scheduled = loop.scheduleTask(deadline: lastSent + Self.minimumGap) { bound.value.fire() }
        } else {
            emit()
        }
    }

    private func fire() {
        scheduled = nil
        emit()
    }

    private func emit() {
        guard !ended else { return }
        let snapshot = job.snapshot
        lastSent = .now()
        let last = snapshot.state.isTerminal
        if last { stop() }
        send(Self.event(job.json(snapshot)), last)
    }

    /// One Server-Sent Event carrying a job's JSON (`event: job`, `data: JOB`).
    static func event(_ json: String) -> ByteBuffer {
        ByteBuffer(string: "event: job\ndata: \(json)\n\n")
    }
}
