import Glibc
import TileGeometry

/// One level of the pyramid under construction: its current strip, the rows it has received, and the level below.
///
/// Rows arrive in order, from the source (top level) or from the level above. Tile row `k` needs level rows
/// `[k·T − O, (k+1)·T + O)` (clipped to the level), so a strip holds at most `T + 2·O` rows. As each row arrives it
/// completes a vertical pair, which is shrunk at once into the next row of the level below (and may cascade). When
/// the strip holds all rows of its tile row, it is handed to the workers, and a fresh strip starts with the `2·O`
/// overlap rows copied over. The last strip is simply the one that ends at the level's last row, so nothing needs
/// flushing at the end. Used from the decoding thread only.
final class LevelStrip {
    /// The pyramid level.
    let level: Int
    /// The level width in pixels.
    let width: Int
    /// The level height in pixels.
    let height: Int
    /// Bytes per row.
    let rowBytes: Int
    /// Rows received so far (the index of the next row).
    private(set) var rowsReceived = 0

    private let channels: Int
    private let tileSize: Int
    private let overlap: Int
    private let tileRows: Int
    private let capacityRows: Int
    private let below: LevelStrip?
    private let strips: StripPool
    private let workers: TileWorkerPool
    private var strip: StripBuffer
    private var tileRow = 0
    /// An even row waiting for its odd partner (in `strip`, or in `carry` after a strip change).
    private var pendingTop: UnsafePointer<UInt8>?
    /// One row, to keep `pendingTop` alive when its strip is handed off (needed when no overlap rows are kept).
    private let carry: UnsafeMutablePointer<UInt8>
    /// Whether the level has one strip, refilled once its tiles are encoded, instead of a pool's turn of them.
    private let single: Bool

    /// Sets up level `level` of `pyramid`, feeding `below` (the level `level − 1`, `nil` for level 0).
    init(pyramid: Pyramid, level: Int, channels: Int, below: LevelStrip?, strips: StripPool, workers: TileWorkerPool) {
        let size = pyramid.levelSize(level)
        precondition(below.map { $0.width == (size.width + 1) / 2 && $0.height == (size.height + 1) / 2 } ?? (level == 0))
        self.level = level
        self.width = size.width
        self.height = size.height
        self.channels = channels
        self.rowBytes = size.width * channels
        self.tileSize = pyramid.tileSize
        self.overlap = pyramid.overlap
        self.tileRows = pyramid.grid(level).rows
        self.capacityRows = min(pyramid.tileSize + 2 * pyramid.overlap, size.height)
        self.below = below
        self.strips = strips
        self.workers = workers
        carry = .allocate(capacity: below == nil ? 0 : rowBytes)
        strips.account(extra: below == nil ? 0 : rowBytes)
        single = strips.limit(level) == 1
        strip = strips.acquire(level: level, rowBytes: rowBytes, capacityRows: capacityRows)
        strip.firstRow = 0
    }

    deinit { carry.deallocate() }

    /// Where the next rows go, and how many (`1 ... limit`) fit before the strip must be handed off.
    ///
    /// - Precondition: the level still expects rows.
    func writableRows(limit: Int) -> (start: UnsafeMutablePointer<UInt8>, count: Int) {
        precondition(rowsReceived < height && tileRow < tileRows && limit >= 1, "level \(level) is complete")
        return (strip.row(rowsReceived), min(limit, stripEnd(tileRow) - rowsReceived))
    }

    /// Takes `count` rows just written at ``writableRows(limit:)``: shrinks each completed pair into the level below,
    /// and hands the strip to the workers when its tile row is complete.
    func commitRows(_ count: Int) {
        precondition(count >= 1 && rowsReceived + count <= stripEnd(tileRow), "more rows than the strip has room for")
        for _ in 0..<count {
            let row = rowsReceived
            rowsReceived += 1
            if below != nil { feedBelow(row: row, UnsafePointer(strip.row(row))) }
        }
        // A loop: when the overlap reaches the level's last row, the strips after it are complete at once.
        while tileRow < tileRows && rowsReceived == stripEnd(tileRow) { finishStrip() }
    }

    /// Shrinks `row` with its pair partner into the level below, or keeps it until the partner arrives.
    private func feedBelow(row: Int, _ pixels: UnsafePointer<UInt8>) {
        let top: UnsafePointer<UInt8>
        let bottom: UnsafePointer<UInt8>?
        if row & 1 == 1 {
            top = pendingTop!
            bottom = pixels
            pendingTop = nil
        } else if row == height - 1 {
            top = pixels
            bottom = nil
        } else {
            pendingTop = pixels
            return
        }
        let below = below!
        let target = below.writableRows(limit: 1)
        Downsample.shrinkRow(top, bottom, width: width, channels: channels, into: target.start)
        below.commitRows(1)
    }

    /// Hands the full strip to the workers and, unless it was the last, starts the next one with the overlap rows: in a
    /// fresh strip, or, for a level of one strip, in the same one once its tiles are encoded.
    private func finishStrip() {
        let done = strip
        workers.submit(done, tileRow: tileRow, urgent: single)
        tileRow += 1
        guard tileRow < tileRows else {
            strips.release(done)
            return
        }
        if let pending = pendingTop, pending != UnsafePointer(carry) {
            carry.update(from: pending, count: rowBytes)
            pendingTop = UnsafePointer(carry)
        }
        let firstRow = stripStart(tileRow)
        let kept = rowsReceived - firstRow
        if single {
            strips.reclaim(done)
            if kept > 0 { memmove(done.base, done.row(firstRow), kept * rowBytes) }
            done.firstRow = firstRow
            return
        }
        let next = strips.acquire(level: level, rowBytes: rowBytes, capacityRows: capacityRows)
        next.firstRow = firstRow
        if kept > 0 {
            next.base.update(from: done.row(firstRow), count: kept * rowBytes)
        }
        strip = next
        strips.release(done)
    }

    /// The first level row of tile row `k`'s strip.
    private func stripStart(_ k: Int) -> Int { max(k * tileSize - overlap, 0) }

    /// One past the last level row of tile row `k`'s strip.
    private func stripEnd(_ k: Int) -> Int { min((k + 1) * tileSize + overlap, height) }
}
