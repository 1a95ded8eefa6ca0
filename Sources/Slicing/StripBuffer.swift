/// One strip of a level: up to `capacityRows` full-width rows, the pixels a row of tiles (plus overlap) is cut from.
///
/// Ownership discipline (why `@unchecked Sendable` is sound): a strip is either *free* (in its ``StripPool``),
/// *filling* (checked out by the decoding thread, which alone writes `firstRow` and the pixels), or *submitted*
/// (handed to tile jobs; everyone only reads it until the last holder gives it back with ``StripPool/release(_:)``).
/// `holds` is touched only under the pool's lock; the job queue's and the pool's locks order the hand-offs.
final class StripBuffer: @unchecked Sendable {
    /// The pyramid level this strip belongs to.
    let level: Int
    /// The pixels: `capacityRows × rowBytes` bytes.
    let base: UnsafeMutablePointer<UInt8>
    /// Bytes per row: level width × channels.
    let rowBytes: Int
    /// Rows the buffer holds at most.
    let capacityRows: Int
    /// The level row stored in the buffer's first row.
    var firstRow = 0
    /// Outstanding holders of a submitted strip (jobs, plus the decoder while it copies overlap rows). Pool lock.
    var holds = 0

    /// Allocates an uninitialised strip.
    init(level: Int, rowBytes: Int, capacityRows: Int) {
        self.level = level
        self.rowBytes = rowBytes
        self.capacityRows = capacityRows
        base = .allocate(capacity: rowBytes * capacityRows)
    }

    deinit { base.deallocate() }

    /// The byte size of the buffer.
    var byteCount: Int { rowBytes * capacityRows }

    /// The start of level row `row`, which must be in the strip.
    func row(_ row: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(row >= firstRow && row < firstRow + capacityRows, "row \(row) is outside the strip")
        return base + (row - firstRow) * rowBytes
    }
}
