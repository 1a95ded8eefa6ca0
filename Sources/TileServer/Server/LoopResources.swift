import HTTPCore
import Logging
import NIOCore
import TileSources

/// What the connections of one event loop share without locking: the `Date` line cache, the open tile files, a view
/// of the catalog and a metrics shard.
final class LoopResources: Sendable {
    /// The loop.
    let eventLoop: any EventLoop
    /// The loop's `Date` header cache; only touched on the loop.
    let date: NIOLoopBoundBox<DateHeader>
    /// The loop's open tile files; only touched on the loop.
    let openTiles: NIOLoopBoundBox<OpenTileFiles>
    /// The loop's view of the catalog; only touched on the loop.
    let catalog: NIOLoopBoundBox<CatalogView>
    /// The loop's metrics shard index.
    let metricsShard: Int
    /// The loop's access log, when one is written; only touched on the loop.
    let accessLog: NIOLoopBoundBox<AccessLog?>

    /// Creates the resources of `eventLoop` (callable from any thread), keeping up to `openTileFiles` tile files open
    /// and viewing `catalog`; with `accessLog`, the loop writes access-log lines in that format to `sink`, flushed
    /// every 200 ms. `everyAnswer`: header lines every answer sends after its `Date` line (`Strict-Transport-Security`).
    init(
        eventLoop: any EventLoop, catalog: ImageCatalog, metricsShard: Int, openTileFiles: Int, accessLog format: AccessLogFormat? = nil,
        sink: AccessLogSink? = nil, logger: Logger = Logger(label: "tiler.server"), everyAnswer: String = ""
    ) {
        self.eventLoop = eventLoop
        self.date = NIOLoopBoundBox.makeBoxSendingValue(DateHeader(following: everyAnswer), eventLoop: eventLoop)
        self.openTiles = NIOLoopBoundBox.makeBoxSendingValue(OpenTileFiles(capacity: openTileFiles), eventLoop: eventLoop)
        self.catalog = NIOLoopBoundBox.makeBoxSendingValue(CatalogView(catalog: catalog), eventLoop: eventLoop)
        self.metricsShard = metricsShard
        let log: AccessLog? =
            if let format, let sink { AccessLog(format: format, sink: sink, logger: logger) } else { nil }
        let enabled = log != nil
        self.accessLog = NIOLoopBoundBox.makeBoxSendingValue(log, eventLoop: eventLoop)
        if enabled {
            let box = accessLog
            eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .milliseconds(200)) { _ in box.value?.flush() }
        }
    }

    /// Writes what the loop's access log holds (at shutdown); from any thread.
    func flushAccessLog() -> EventLoopFuture<Void> {
        let box = accessLog
        return eventLoop.submit { box.value?.flush() }
    }

    /// Closes, on the loop, the open tile files of the given images (all of them when `images` is `nil`).
    func closeTileFiles(of images: Set<Int>?) {
        let openTiles = self.openTiles
        eventLoop.execute {
            if let images {
                openTiles.value.removeAll(images: images)
            } else {
                openTiles.value.removeAll()
            }
        }
    }
}
