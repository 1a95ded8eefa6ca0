import CFileIO
import Foundation
import HTTPCore
import Logging
import Synchronization
import TileSources

/// The server's slicing jobs: every job since the start (and the records of earlier runs), the names being written,
/// and `threads` worker threads that slice queued jobs in order, one each, at a lower CPU priority than the event
/// loops (nice 10: the kernel gives serving the cores first; see ``JobQueue+Slicing.swift``).
package final class JobQueue: Sendable {
    /// Where the catalog's pyramids are.
    package let root: String
    /// The catalog's scan depth (names have at most one more segment).
    package let maxDepth: Int
    /// Slicing threads.
    package let threads: Int
    /// Ended jobs of this run kept (listed, and answering at their URLs); older ones are forgotten.
    package let endedJobsKept: Int
    /// Called (on a worker thread) once a pyramid is published or a provisional one appears: the server rescans.
    package let onPublished: @Sendable () -> Void
    /// Called (on the slicing thread) with a job's id once its image can be viewed while it is sliced
    /// (``ServerConfiguration/onViewable``).
    package let onViewable: (@Sendable (String) -> Void)?
    /// The catalog, to tell which names exist and to find the published version.
    package let catalog: ImageCatalog
    package let logger: Logger
    private let registry: Mutex<Registry>
    /// The pyramids being built, by image name, served while they fill.
    package let provisionals = Mutex<[String: ProvisionalPyramid]>([:])
    /// Counts queued jobs (and, at shutdown, one wake-up per worker).
    private let ready = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let workers = DispatchGroup()

    package struct Registry {
        /// Every job, by id.
        package var jobs: [String: SliceJob] = [:]
        /// Ids, oldest first.
        package var order: [String] = []
        /// Jobs waiting for a thread, oldest first.
        package var waiting: [SliceJob] = []
        /// The names of unfinished jobs (one job per name at a time).
        package var busyNames: Set<String> = []
        /// Records of earlier runs (newest first), listed after this run's jobs.
        package var earlier: [JobRecord] = []
    }

    /// Sweeps what an earlier run left under `root` (``JobRecord/sweep(root:keep:)``) and starts the workers.
    package init(
        root: String, maxDepth: Int, threads: Int, catalog: ImageCatalog, logger: Logger, onPublished: @escaping @Sendable () -> Void,
        onViewable: (@Sendable (String) -> Void)? = nil, endedJobsKept: Int = 1000
    ) {
        self.root = root
        self.maxDepth = maxDepth
        self.threads = threads
        self.catalog = catalog
        self.logger = logger
        self.onPublished = onPublished
        self.onViewable = onViewable
        self.endedJobsKept = endedJobsKept
        var registry = Registry()
        registry.earlier = JobRecord.sweep(root: root)
        self.registry = Mutex(registry)
        for index in 0..<threads {
            workers.enter()
            let thread = Thread { [self] in
                Self.lowerPriority()
                work()
                workers.leave()
            }
            thread.name = "tiler-slice-\(index)"
            thread.start()
        }
    }

    /// Makes a job for `name` unless one is running for it, or the name exists and `replace` is off: then the
    /// refusal (409).
    package func add(name: String, source: JobSource, replace: Bool, input: String?, state: JobState) -> Result<SliceJob, RequestError> {
        if !replace, catalog.current.images[name[...]] != nil {
            return .failure(RequestError(status: .conflict, message: "an image named \(name) exists (add ?replace=1 to replace it)"))
        }
        let id = SliceJob.newID()
        let job = SliceJob(
            id: id, name: name, source: source, replace: replace, input: input ?? JobRecord.uploadPath(root: root, id: id), state: state)
        let added = registry.withLock { registry -> Bool in
            guard !registry.busyNames.contains(name) else { return false }
            registry.busyNames.insert(name)
            registry.jobs[id] = job
            registry.order.append(id)
            return true
        }
        guard added else { return .failure(RequestError(status: .conflict, message: "a job for \(name) is already running")) }
        JobRecord(job).save(root: root)
        _ = job.watch { [root] in
            let snapshot = job.snapshot
            if snapshot.state.isTerminal { JobRecord(job).save(root: root) }
        }
        return .success(job)
    }

    /// Puts a complete job in line for a slicing thread.
    package func enqueue(_ job: SliceJob) {
        job.update { $0.state = .queued }
        guard job.snapshot.state == .queued else { return cleanUp(job) }
        registry.withLock { $0.waiting.append(job) }
        ready.signal()
    }

    /// Ends `job` (failed, cancelled, done, …): frees its name, and forgets the oldest ended jobs beyond
    /// ``endedJobsKept`` (their records too), so a server that slices for months keeps a bounded list.
    package func finished(_ job: SliceJob) {
        let jobs = registry.withLock { registry in
            registry.busyNames.remove(job.name)
            return registry.order.compactMap { registry.jobs[$0] }
        }
        // Each job's state is read outside the registry's lock (a job has a lock of its own).
        let ended = jobs.filter { $0.snapshot.state.isTerminal }.map(\.id)
        let forgotten = Set(ended.dropLast(endedJobsKept))
        guard !forgotten.isEmpty else { return }
        registry.withLock { registry in
            registry.order.removeAll { forgotten.contains($0) }
            for id in forgotten { registry.jobs[id] = nil }
        }
        for id in forgotten { unlink(JobRecord.path(root: root, id: id)) }
    }

    /// The provisional pyramid of image `name` under `version`, if one is being built.
    package func provisional(named name: Substring, version: Substring) -> ProvisionalPyramid? {
        provisionals.withLock { $0[String(name)] }.flatMap { $0.version == version ? $0 : nil }
    }

    /// Every provisional pyramid, by name.
    package var provisionalPyramids: [ProvisionalPyramid] {
        provisionals.withLock { Array($0.values) }.sorted { $0.job.name < $1.job.name }
    }

    /// The job with id `id`, if any.
    package func job(id: Substring) -> SliceJob? {
        registry.withLock { $0.jobs[String(id)] }
    }

    /// The record of job `id` of an earlier run, if kept.
    package func earlierRecord(id: Substring) -> JobRecord? {
        registry.withLock { registry in registry.earlier.first { $0.id == id } }
    }

    /// Every job of this run, newest first, then the records of earlier runs.
    package func all() -> (jobs: [SliceJob], earlier: [JobRecord]) {
        registry.withLock { registry in (registry.order.reversed().compactMap { registry.jobs[$0] }, registry.earlier) }
    }

    /// Cancels `job`: a queued one ends at once, a slicing one as soon as its slicer sees the flag (it removes what it
    /// wrote), a receiving one when its connection is closed by the caller.
    package func cancel(_ job: SliceJob) {
        job.cancellation.cancel()
        let wasQueued = job.snapshot.state == .queued
        job.update {
            $0.state = .cancelled
            $0.dzi = nil
        }
        if wasQueued {
            registry.withLock { $0.waiting.removeAll { $0 === job } }
            cleanUp(job)
        }
    }

    /// Stops the workers: running slices are cancelled (they remove their staging folders); returns once every worker
    /// has stopped.
    package func shutdown() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        let running = registry.withLock { $0.jobs.values.filter { !$0.snapshot.state.isTerminal } }
        for job in running { job.cancellation.cancel() }
        for _ in 0..<threads { ready.signal() }
        workers.wait()
    }

    /// A worker's loop: the oldest waiting job, sliced, until shutdown.
    private func work() {
        while true {
            ready.wait()
            if stopping.load(ordering: .relaxed) { return }
            guard let job = registry.withLock({ $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }) else { continue }
            run(job)
        }
    }

    /// Removes what the job staged (an upload's body), then frees its name.
    package func cleanUp(_ job: SliceJob) {
        if job.source == .upload { unlink(job.input) }
        finished(job)
    }

    /// Lowers the calling thread's CPU priority to nice 10 (Linux: per thread; threads it starts inherit it).
    private static func lowerPriority() {
        _ = tiler_nice_this_thread(10)
    }
}
