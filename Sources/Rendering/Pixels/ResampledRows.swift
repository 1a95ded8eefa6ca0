/// The horizontally resampled level rows a vertical filter still needs: a ring holding the most recent rows, as
/// many as the widest window of consecutive output rows spans.
///
/// Not Sendable: used by one render at a time.
package final class ResampledRows {
    /// The vertical filter.
    package let axis: ResampleAxis
    /// Output pixels per row.
    package let width: Int
    /// Rows the ring holds.
    package let capacity: Int
    /// The next level row to append (rows are appended in order from `axis.sourceStart`).
    package private(set) var next: Int
    private var channels = 0
    private var storage: UnsafeMutablePointer<UInt16>?
    private var accumulator: UnsafeMutablePointer<Int32>?

    /// An empty ring for `axis`, whose rows are `width` pixels wide.
    package init(axis: ResampleAxis, width: Int) {
        self.axis = axis
        self.width = width
        var capacity = 1
        var reached = axis.sourceStart
        for y in 0..<axis.count {
            reached = max(reached, min(axis.starts[y] + axis.taps, axis.sourceEnd))
            capacity = max(capacity, reached - axis.starts[y])
        }
        self.capacity = capacity
        next = axis.sourceStart
    }

    deinit {
        storage?.deallocate()
        accumulator?.deallocate()
    }

    /// Appends level row ``next``: `fill` writes its `width × channels` resampled values.
    package func append(channels: Int, _ fill: (UnsafeMutablePointer<UInt16>) -> Void) {
        if storage == nil {
            self.channels = channels
            storage = .allocate(capacity: capacity * width * channels)
            accumulator = .allocate(capacity: width * channels)
        }
        precondition(channels == self.channels, "the channel count changed between rows")
        fill(storage! + (next % capacity) * width * channels)
        next += 1
    }

    /// Writes output row `y`: level rows `rows` (all appended, none dropped yet) weighted by the filter's taps
    /// for `y`, into `output` (`width × channels` bytes).
    package func combine(rows: Range<Int>, weightsOf y: Int, into output: inout [UInt8]) {
        precondition(rows.upperBound <= next && rows.lowerBound >= next - capacity, "rows outside the ring")
        axis.weights.withUnsafeBufferPointer { weights in
            output.withUnsafeMutableBufferPointer { out in
                PixelRows.vertical(
                    ring: storage!, capacity: capacity, stride: width * channels, first: rows.lowerBound, count: rows.count,
                    weights: weights.baseAddress! + y * axis.taps, accumulator: accumulator!, into: out.baseAddress!)
            }
        }
    }
}
