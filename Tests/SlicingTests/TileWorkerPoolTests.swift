import Foundation
import Synchronization
import Testing
import TileGeometry

@testable import Slicing

/// The worker pool keeps the decoder's core for the decoder: with a worker per core, the last is a helper that takes
/// jobs only while the decoder waits for a strip, or once no more jobs come.
@Suite struct TileWorkerPoolTests {
    /// Counts the tiles stored.
    final class CountingSink: TileSink {
        let stored = Mutex(0)
        func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError) {
            stored.withLock { $0 += 1 }
        }
    }

    /// The worker threads that made an encoder (each makes one, on its first job).
    final class EncoderMakers: Sendable {
        let threads = Mutex<Set<UInt>>([])
        func make() -> any TileEncoding {
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return PAMTileEncoding()
        }
    }

    /// Submits `count` filled strips of the finest level of `pyramid` (8 tiles each) and waits until their tiles are
    /// stored.
    static func submit(_ count: Int, of pyramid: Pyramid, to workers: TileWorkerPool, strips: StripPool, sink: CountingSink) {
        let before = sink.stored.withLock { $0 }
        for _ in 0..<count {
            let strip = strips.acquire(level: pyramid.maxLevel, rowBytes: pyramid.width * 3, capacityRows: 256)
            strip.firstRow = 0
            strip.base.initialize(repeating: 128, count: strip.byteCount)
            workers.submit(strip, tileRow: 0)
            strips.release(strip)
        }
        while sink.stored.withLock({ $0 }) < before + 8 * count { usleep(1000) }
    }

    @Test func helpersTakeJobsOnlyWhileTheDecoderWaitsOrOnceTheQueueCloses() {
        let pyramid = Pyramid(width: 2048, height: 256, tileSize: 256, overlap: 0)
        let strips = StripPool(perLevel: 64)
        let sink = CountingSink()
        let makers = EncoderMakers()
        let workers = TileWorkerPool(
            pyramid: pyramid, channels: 3, threads: 2, makeEncoder: { makers.make() }, writer: sink, strips: strips,
            cancellation: SliceCancellation(), cores: 2)
        #expect(workers.helpers == 1)
        workers.start()
        Self.submit(12, of: pyramid, to: workers, strips: strips, sink: sink)
        #expect(makers.threads.withLock { $0.count } == 1, "the helper took a job while the decoder was not waiting")
        workers.decoderWaits(true)
        workers.finish(tickEvery: 1) {}
        #expect(workers.firstFailure == nil && sink.stored.withLock { $0 } == 96)
    }

    @Test func helpersAreTheWorkersPastOnePerSpareCore() {
        let pyramid = Pyramid(width: 256, height: 256, tileSize: 256, overlap: 0)
        func helpers(threads: Int, cores: Int) -> Int {
            TileWorkerPool(
                pyramid: pyramid, channels: 3, threads: threads, makeEncoder: { PAMTileEncoding() }, writer: CountingSink(),
                strips: StripPool(perLevel: 2), cancellation: SliceCancellation(), cores: cores
            ).helpers
        }
        #expect(helpers(threads: 1, cores: 2) == 0)
        #expect(helpers(threads: 2, cores: 2) == 1)
        #expect(helpers(threads: 3, cores: 2) == 2)
        #expect(helpers(threads: 8, cores: 8) == 1)
        #expect(helpers(threads: 4, cores: 8) == 0)
        #expect(helpers(threads: 1, cores: 1) == 0)
    }

    /// Records the level of each tile stored, and holds the first tile until `go` is signalled.
    final class OrderSink: TileSink {
        let levels = Mutex<[Int]>([])
        let go = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError) {
            let first = levels.withLock { levels in
                levels.append(level)
                return levels.count == 1
            }
            if first {
                started.signal()
                go.wait()
            }
        }
    }

    @Test func urgentJobsAreTakenBeforeTheQueuedOnes() {
        let pyramid = Pyramid(width: 2048, height: 512, tileSize: 256, overlap: 0)
        let top = pyramid.maxLevel
        let strips = StripPool(perLevel: 4)
        let sink = OrderSink()
        let workers = TileWorkerPool(
            pyramid: pyramid, channels: 3, threads: 1, makeEncoder: { PAMTileEncoding() }, writer: sink, strips: strips,
            cancellation: SliceCancellation(), cores: 2)
        workers.start()
        func filled(level: Int, tileRow: Int = 0) -> StripBuffer {
            let size = pyramid.levelSize(level)
            let strip = strips.acquire(level: level, rowBytes: size.width * 3, capacityRows: 256)
            strip.firstRow = tileRow * 256
            strip.base.initialize(repeating: 128, count: strip.byteCount)
            return strip
        }
        let first = filled(level: top)
        workers.submit(first, tileRow: 0)
        sink.started.wait()  // the one worker is inside the first strip's job
        let queued = filled(level: top, tileRow: 1)
        let urgent = filled(level: top - 1)
        workers.submit(queued, tileRow: 1)
        workers.submit(urgent, tileRow: 0, urgent: true)
        sink.go.signal()
        workers.finish(tickEvery: 1) {}
        for strip in [first, queued, urgent] { strips.release(strip) }
        let levels = sink.levels.withLock { $0 }
        #expect(workers.firstFailure == nil)
        #expect(levels == Array(repeating: top, count: 8) + Array(repeating: top - 1, count: 4) + Array(repeating: top, count: 8))
    }
}
