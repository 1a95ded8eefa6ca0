import Dispatch
import Foundation
import ImageCodecs

extension ProceduralImage {
    /// Renders the whole picture into a PNG or JPEG file at `path`, strip by strip, on every core.
    ///
    /// Memory is O(width × strip rows × threads); the file appears only when complete (see `ImageFileWriter`).
    /// `progress` is called on the calling thread with the rows written so far. When `isCancelled` turns true the
    /// writing stops between strips with `CancellationError`, and the partial file is removed.
    public func write(
        to path: String, format: ImageFileWriter.Format, isCancelled: () -> Bool = { false }, progress: ((Int) -> Void)? = nil
    ) throws {
        let writer = try ImageFileWriter(path: path, width: width, height: height, pixelFormat: .rgb, format: format)
        let bandRows = 64
        let bands = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let rowBytes = width * 3
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * bandRows * bands)
        defer { buffer.deallocate() }
        let shared = SendablePointer(buffer)
        var row = 0
        while row < height {
            if isCancelled() { throw CancellationError() }
            let first = row
            let rows = min(bandRows * bands, height - row)
            // Each band renders into its own disjoint slice of the buffer.
            DispatchQueue.concurrentPerform(iterations: (rows + bandRows - 1) / bandRows) { band in
                let start = band * bandRows
                let count = min(bandRows, rows - start)
                renderRows(startRow: first + start, rowCount: count, into: shared.pointer + start * rowBytes)
            }
            try writer.write(rows: buffer, count: rows)
            row += rows
            progress?(row)
        }
        try writer.finish()
    }
}

/// A pointer handed to concurrent workers that write disjoint parts of its memory.
private struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
}
