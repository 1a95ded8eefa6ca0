import CFileIO
import Foundation
import TileGeometry

/// The worker threads that encode and write tiles, fed through a FIFO of ``TileJob``s (and a second one, taken first,
/// for the strips the decoding thread waits to refill: see ``PyramidBuilder/stripCounts(_:)``).
///
/// The decoding thread submits each full strip as a few jobs (adjacent column runs, about one per thread), so workers
/// share a row of tiles without per-tile hand-offs. After the first failure, or once cancelled, workers skip the
/// remaining jobs — but still release their strips, so the decoder is never left waiting.
///
/// The decoding thread is the slice's critical path (a JPEG's entropy decoding is serial). With a worker per core, one
/// core is shared by the decoder and a worker throughout: the decoder runs at a fraction of a core while the workers
/// drain a strip's jobs, then they idle until it hands over the next one. So only `cores − 1` workers take jobs all
/// along; the others (*helpers*) take a job only while the decoder waits for a strip (the workers are behind: back-
/// pressure, see ``StripPool``) or once it has read the last row. At least one worker is never a helper, so every
/// submitted strip comes back and the decoder's wait always ends.
final class TileWorkerPool: @unchecked Sendable {
    /// How much lower the encoder threads' CPU priority is than the decoding thread's (nice steps).
    static let encoderNice: Int32 = 4

    // @unchecked: the mutable state below is read and written under `condition` only; the rest is immutable and
    // Sendable. Encoders are created and used on their own worker thread.
    private let condition = NSCondition()
    private var queue: [TileJob] = []
    private var head = 0
    /// Jobs taken before `queue`'s: those of levels of one strip, which the decoder waits for.
    private var urgent: [TileJob] = []
    private var closed = false
    private var running = 0
    private var failure: SliceError?
    private var tiles = 0
    private var bytes = 0
    /// Whether the decoding thread is waiting for a strip (helpers take jobs only then, or once the queue is closed).
    private var decoderWaiting = false

    private let pyramid: Pyramid
    private let channels: Int
    private let threads: Int
    /// Of ``threads``, the helpers: the workers past the first `cores − 1` (none with a single worker).
    let helpers: Int
    private let makeEncoder: @Sendable () throws -> any TileEncoding
    private let writer: any TileSink
    private let strips: StripPool
    private let cancellation: SliceCancellation
    /// Whether edge tiles are encoded at the full tile size, their last column and row repeated (a TIFF's tiles all
    /// have one size).
    private let padsEdgeTiles: Bool

    /// Creates a pool; no thread runs before ``start()``.
    init(
        pyramid: Pyramid, channels: Int, threads: Int, makeEncoder: @escaping @Sendable () throws -> any TileEncoding,
        writer: any TileSink, strips: StripPool, cancellation: SliceCancellation, padsEdgeTiles: Bool = false,
        cores: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.padsEdgeTiles = padsEdgeTiles
        self.helpers = max(0, threads - max(1, cores - 1))
        self.pyramid = pyramid
        self.channels = channels
        self.threads = threads
        self.makeEncoder = makeEncoder
        self.writer = writer
        self.strips = strips
        self.cancellation = cancellation
    }

    /// Starts the worker threads.
    func start() {
        condition.withLock { running = threads }
        for index in 0..<threads {
            let helper = index >= threads - helpers
            let thread = Thread { [self] in
                // Below the decoding thread (whose nice it inherits), the critical path: a JPEG decodes serially, and
                // the encoders have tiles to catch up on whenever it runs ahead.
                _ = tiler_nice_this_thread(min(19, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) + Self.encoderNice))
                work(helper: helper)
            }
            thread.name = "tiler-slice-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Queues tile row `tileRow` of a filled strip, which stays held by its jobs plus one hold for the caller
    /// (released with ``StripPool/release(_:)`` when the caller no longer reads it); `urgent` jobs are taken before
    /// all others.
    func submit(_ strip: StripBuffer, tileRow: Int, urgent: Bool = false) {
        let columns = pyramid.grid(strip.level).columns
        let perJob = (columns + threads - 1) / threads
        let jobs = stride(from: 0, to: columns, by: perJob).map { TileJob(strip: strip, tileRow: tileRow, columns: $0..<min($0 + perJob, columns)) }
        strips.submit(strip, holds: jobs.count + 1)
        condition.withLock {
            if urgent {
                self.urgent.append(contentsOf: jobs)
            } else {
                queue.append(contentsOf: jobs)
            }
            condition.broadcast()
        }
    }

    /// Tells the helpers whether the decoding thread waits for a strip (``StripPool/observeWaits(_:)``).
    func decoderWaits(_ waiting: Bool) {
        condition.withLock {
            decoderWaiting = waiting
            if waiting { condition.broadcast() }
        }
    }

    /// Records `error` unless an earlier one is recorded; workers then skip the remaining jobs.
    func fail(_ error: SliceError) {
        condition.withLock {
            if failure == nil { failure = error }
        }
    }

    /// The first recorded failure.
    var firstFailure: SliceError? {
        condition.withLock { failure }
    }

    /// Tiles and bytes written so far.
    var written: (tiles: Int, bytes: Int) {
        condition.withLock { (tiles, bytes) }
    }

    /// Declares that no more jobs come, then waits until every worker has finished the queue and exited, calling
    /// `tick` on this thread about every `interval` seconds meanwhile.
    func finish(tickEvery interval: Double, _ tick: () -> Void) {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 {
            let deadline = Date(timeIntervalSinceNow: max(interval, 0.01))
            if !condition.wait(until: deadline) {
                condition.unlock()
                tick()
                condition.lock()
            }
        }
        condition.unlock()
    }

    /// The next job, or `nil` once the queue is closed and empty. A `helper` takes one only while the decoder waits
    /// for a strip or once the queue is closed.
    private func nextJob(helper: Bool) -> TileJob? {
        condition.lock()
        defer { condition.unlock() }
        while (head == queue.count && urgent.isEmpty) || (helper && !decoderWaiting && !closed) {
            if closed && head == queue.count && urgent.isEmpty { return nil }
            condition.wait()
        }
        if !urgent.isEmpty { return urgent.removeFirst() }
        let job = queue[head]
        head += 1
        if head >= 64 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return job
    }

    private var shouldSkip: Bool {
        condition.withLock { failure != nil } || cancellation.isCancelled
    }

    /// A worker thread's life: make an encoder, run jobs until the queue closes, then report the exit.
    private func work(helper: Bool) {
        var encoder: (any TileEncoding)?
        while let job = nextJob(helper: helper) {
            if !shouldSkip {
                do {
                    if encoder == nil { encoder = try makeEncoder() }
                    try run(job, encoder!)
                } catch let error as SliceError {
                    fail(error)
                } catch {
                    fail(SliceError(.encoder, "cannot create a tile encoder: \(SliceError.oneLine(error))"))
                }
            }
            strips.release(job.strip)
        }
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// Encodes and writes the job's tiles, stopping early on cancellation or another worker's failure.
    private func run(_ job: TileJob, _ encoder: any TileEncoding) throws(SliceError) {
        let level = job.strip.level
        for column in job.columns {
            if shouldSkip { return }
            let rect = pyramid.tileImageRect(level: level, column: column, row: job.tileRow)
            let origin = job.strip.row(rect.y) + rect.x * channels
            precondition(rect.maxY <= job.strip.firstRow + job.strip.capacityRows, "tile reaches past its strip")
            let file: [UInt8]
            do {
                if padsEdgeTiles && (rect.width < pyramid.tileSize || rect.height < pyramid.tileSize) {
                    file = try EdgePadding.encode(
                        origin, width: rect.width, height: rect.height, rowStride: job.strip.rowBytes, channels: channels, size: pyramid.tileSize,
                        encoder: encoder)
                } else {
                    file = try encoder.encode(origin, width: rect.width, height: rect.height, rowStride: job.strip.rowBytes, channels: channels)
                }
            } catch {
                throw SliceError(.encoder, "cannot encode tile \(level)/\(column)_\(job.tileRow): \(SliceError.oneLine(error))")
            }
            try writer.writeTile(file, level: level, column: column, row: job.tileRow)
            condition.withLock {
                tiles += 1
                bytes += file.count
            }
        }
    }
}
