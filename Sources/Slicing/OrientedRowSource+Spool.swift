import Foundation
import ImageCodecs

extension OrientedRowSource {
    /// Orientations 3 and 4: the stored rows, in order, one after the other.
    func spoolRows() throws {
        let file = try SpoolFile(folder: scratchFolder)
        let rowBytes = source.width * channels
        var strip = [UInt8](repeating: 0, count: rowBytes * blockRows)
        var row = 0
        while row < source.height {
            if isCancelled() { throw CancellationError() }
            let count = try readStored(into: &strip, at: row)
            try strip.withUnsafeBytes { try file.write($0.baseAddress!, count: count * rowBytes, at: row * rowBytes) }
            row += count
        }
        spool = file
    }

    /// Displayed rows `rowsDelivered ..< + count` are stored rows `height − rowsDelivered − count ..<` backwards.
    func readFlipped(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws {
        let rowBytes = width * channels
        let first = height - rowsDelivered - count
        try spool!.read(into: buffer, count: count * rowBytes, at: first * rowBytes)
        var (top, bottom) = (0, count - 1)
        while top < bottom {
            swapRows(buffer + top * rowBytes, buffer + bottom * rowBytes, bytes: rowBytes)
            top += 1
            bottom -= 1
        }
        if orientation.value == 3 {
            for row in 0..<count { mirror(buffer + row * rowBytes) }
        }
    }

    /// Orientations 5–8: block `b` holds stored rows `b·blockRows ..<` column by column, each column's pixels
    /// contiguous, at offset `b · blockRows · storedWidth · channels`.
    func spoolBlocks() throws {
        let file = try SpoolFile(folder: scratchFolder)
        let storedWidth = source.width
        var strip = [UInt8](repeating: 0, count: storedWidth * channels * blockRows)
        var block = [UInt8](repeating: 0, count: strip.count)
        var row = 0
        while row < source.height {
            if isCancelled() { throw CancellationError() }
            let count = try readStored(into: &strip, at: row)
            let channels = self.channels
            strip.withUnsafeBufferPointer { input in
                block.withUnsafeMutableBufferPointer { output in
                    for r in 0..<count {
                        for c in 0..<storedWidth {
                            let from = (r * storedWidth + c) * channels
                            let to = (c * count + r) * channels
                            for s in 0..<channels { output[to + s] = input[from + s] }
                        }
                    }
                }
            }
            let offset = row * storedWidth * channels
            try block.withUnsafeBytes { try file.write($0.baseAddress!, count: count * storedWidth * channels, at: offset) }
            row += count
        }
        spool = file
    }

    /// Copies displayed rows from the current band, loading the next band when needed.
    func readTransposed(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws {
        let rowBytes = width * channels
        for index in 0..<count {
            let row = rowsDelivered + index
            if row >= bandStart + bandRows || band.isEmpty { try loadBand(from: row) }
            band.withUnsafeBufferPointer { band in
                (buffer + index * rowBytes).update(from: band.baseAddress! + (row - bandStart) * rowBytes, count: rowBytes)
            }
        }
    }

    /// Reads displayed rows `first ..< first + blockRows` (stored columns) from every block of the spool file.
    private func loadBand(from first: Int) throws {
        let rows = min(blockRows, height - first)
        let storedWidth = source.width
        let storedHeight = source.height
        let channels = self.channels
        if band.count < rows * width * channels { band = [UInt8](repeating: 0, count: blockRows * width * channels) }
        // The stored columns of this band, lowest first.
        let lowColumn = orientation.columnsReversed ? storedWidth - first - rows : first
        var segment = [UInt8](repeating: 0, count: rows * blockRows * channels)
        var blockStart = 0
        while blockStart < storedHeight {
            let blockHeight = min(blockRows, storedHeight - blockStart)
            let offset = blockStart * storedWidth * channels + lowColumn * blockHeight * channels
            try segment.withUnsafeMutableBytes { raw in
                try spool!.read(into: raw.baseAddress!, count: rows * blockHeight * channels, at: offset)
            }
            scatter(segment, rows: rows, blockStart: blockStart, blockHeight: blockHeight, first: first, lowColumn: lowColumn)
            blockStart += blockHeight
        }
        bandStart = first
        bandRows = rows
    }

    /// Places one block's pixels of the band's columns into the band's displayed rows.
    private func scatter(_ segment: [UInt8], rows: Int, blockStart: Int, blockHeight: Int, first: Int, lowColumn: Int) {
        let channels = self.channels
        let rowBytes = width * channels
        let storedWidth = source.width
        let storedHeight = source.height
        let reverseColumns = orientation.columnsReversed
        let reversePixels = orientation.rowsReversedInOutput
        segment.withUnsafeBufferPointer { input in
            band.withUnsafeMutableBufferPointer { output in
                for columnIndex in 0..<rows {
                    let column = lowColumn + columnIndex
                    let displayRow = (reverseColumns ? storedWidth - 1 - column : column) - first
                    for r in 0..<blockHeight {
                        let storedRow = blockStart + r
                        let x = reversePixels ? storedHeight - 1 - storedRow : storedRow
                        let from = (columnIndex * blockHeight + r) * channels
                        let to = displayRow * rowBytes + x * channels
                        for s in 0..<channels { output[to + s] = input[from + s] }
                    }
                }
            }
        }
    }

    /// Reads up to ``blockRows`` stored rows starting at `row`; fails when the source ends early.
    private func readStored(into strip: inout [UInt8], at row: Int) throws -> Int {
        let wanted = min(blockRows, source.height - row)
        let rowBytes = source.width * channels
        var done = 0
        while done < wanted {
            let count = try strip.withUnsafeMutableBufferPointer { buffer in
                try source.readRows(into: buffer.baseAddress! + done * rowBytes, rowCount: wanted - done)
            }
            guard count > 0 else { throw SpoolFile.Failure("source ended early at stored row \(row + done) of \(source.height)") }
            done += count
        }
        return wanted
    }

    private func swapRows(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, bytes: Int) {
        let temporary = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        defer { temporary.deallocate() }
        temporary.update(from: a, count: bytes)
        a.update(from: b, count: bytes)
        b.update(from: temporary, count: bytes)
    }
}
