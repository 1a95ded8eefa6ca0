import ImageCodecs
import Slicing

/// A ``RowSource`` over a ``TestImage``, with knobs for the failure tests.
final class MemoryRowSource: RowSource {
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    let image: TestImage
    /// The most rows one read returns (smaller than asked exercises partial reads).
    var rowsPerRead = Int.max
    /// Throw ``ReadError`` instead of delivering this row.
    var failAtRow: Int?
    /// The thrown error's description.
    var failureMessage = "simulated read error (bad block)"
    /// Report the end of the image (return 0) instead of delivering this row.
    var endAtRow: Int?
    /// Called before each read with the next row's index.
    var beforeRead: ((Int) -> Void)?
    private(set) var nextRow = 0

    init(_ image: TestImage) { self.image = image }

    var width: Int { image.width }
    var height: Int { image.height }
    var channels: Int { image.channels }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        precondition(rowCount >= 1 && nextRow + rowCount <= height, "asked for rows past the end")
        beforeRead?(nextRow)
        var count = min(rowCount, rowsPerRead)
        if let failAtRow, failAtRow < nextRow + count {
            if failAtRow == nextRow { throw ReadError(description: failureMessage) }
            count = failAtRow - nextRow
        }
        if let endAtRow, endAtRow < nextRow + count {
            if endAtRow == nextRow { return 0 }
            count = endAtRow - nextRow
        }
        let rowBytes = width * channels
        image.pixels.withUnsafeBufferPointer { pixels in
            buffer.update(from: pixels.baseAddress! + nextRow * rowBytes, count: count * rowBytes)
        }
        nextRow += count
        return count
    }
}

/// A gray ``RowSource`` that computes its rows as it goes, so very tall images cost no memory in the test.
///
/// Pixel (x, y) is `(7x + 3y) mod 256`. Since 7 is invertible mod 256 (7 · 183 ≡ 1), row y is the row-0 pattern
/// shifted by `(3y · 183) mod 256 = 37y mod 256` pixels, so each row is one copy from a precomputed pattern.
final class GeneratedRowSource: RowSource {
    let width: Int
    let height: Int
    let channels = 1
    private var nextRow = 0
    private let pattern: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pattern = (0..<width + 256).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    /// Pixel (`x`, `y`).
    static func sample(x: Int, y: Int) -> UInt8 { UInt8(truncatingIfNeeded: x &* 7 &+ y &* 3) }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        pattern.withUnsafeBufferPointer { pattern in
            for index in 0..<rowCount {
                let shift = (37 * (nextRow + index)) & 255
                (buffer + index * width).update(from: pattern.baseAddress! + shift, count: width)
            }
        }
        nextRow += rowCount
        return rowCount
    }
}
