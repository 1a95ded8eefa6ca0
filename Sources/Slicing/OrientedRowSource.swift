import Foundation
import ImageCodecs

/// Any ``RowSource`` turned to its display ``Orientation``, with memory bounded by the image width, never its area.
///
/// Orientation 2 mirrors each row as it streams. Everything else cannot stream top to bottom: the stored rows are
/// first copied to a temporary file in `scratchFolder` (the builder's staging folder), unlinked as soon as it is
/// created so it disappears on success, failure, cancellation and signals alike. 3 and 4 then read that file's
/// rows bottom up; 5–8 store it as column-major blocks of ``blockRows`` stored rows, so each band of displayed rows
/// is ``blockRows``-pixel reads from every block. Memory: about `2 · blockRows · max(width, height) · channels`
/// bytes. Disk: `width × height × channels` bytes, once.
public final class OrientedRowSource: RowSource {
    /// The stored rows.
    public let source: any RowSource
    /// How they are turned.
    public let orientation: Orientation
    public let width: Int
    public let height: Int
    /// Stored once: the hot loops below must not call through the `any RowSource` existential per pixel.
    public let channels: Int
    /// Stored rows per block of the spool file, and displayed rows per band read back.
    let blockRows = 64

    let scratchFolder: String
    let isCancelled: () -> Bool
    var spool: SpoolFile?
    /// Displayed rows already delivered.
    var rowsDelivered = 0
    /// Orientations 5–8: the current band of displayed rows, its first row and row count.
    var band: [UInt8] = []
    var bandStart = 0
    var bandRows = 0

    /// Wraps `source`; nothing is read or written until the first ``readRows(into:rowCount:)``.
    /// - Parameters:
    ///   - scratchFolder: An existing writable folder for the temporary file (orientations 3–8).
    ///   - isCancelled: Polled between blocks while the stored rows are copied.
    public init(_ source: any RowSource, orientation: Orientation, scratchFolder: String, isCancelled: @escaping () -> Bool = { false }) {
        self.source = source
        self.orientation = orientation
        self.channels = source.channels
        (width, height) = orientation.displaySize(width: source.width, height: source.height)
        self.scratchFolder = scratchFolder
        self.isCancelled = isCancelled
    }

    public func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        let count = min(rowCount, height - rowsDelivered)
        guard count > 0 else { return 0 }
        switch orientation.value {
        case 1:
            let done = try source.readRows(into: buffer, rowCount: count)
            rowsDelivered += done
            return done
        case 2:
            let done = try source.readRows(into: buffer, rowCount: count)
            for row in 0..<done { mirror(buffer + row * width * channels) }
            rowsDelivered += done
            return done
        case 3, 4:
            if spool == nil { try spoolRows() }
            try readFlipped(into: buffer, count: count)
        default:
            if spool == nil { try spoolBlocks() }
            try readTransposed(into: buffer, count: count)
        }
        rowsDelivered += count
        return count
    }

    /// Reverses the order of the pixels of one displayed row in place. O(width).
    func mirror(_ row: UnsafeMutablePointer<UInt8>) {
        let channels = self.channels
        var (left, right) = (0, (width - 1) * channels)
        while left < right {
            for sample in 0..<channels {
                let value = row[left + sample]
                row[left + sample] = row[right + sample]
                row[right + sample] = value
            }
            left += channels
            right -= channels
        }
    }
}
