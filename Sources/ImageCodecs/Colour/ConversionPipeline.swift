import Dispatch

/// Colour conversion one batch behind the decoder, on another thread: while batch N is converted, the decoding thread
/// reads batch N + 1. Two raw and two converted buffers of `batchRows` rows; converted rows are handed out by copy.
///
/// The decoding thread feeds every tile of a slice and is its critical path; converting on it added the whole
/// conversion to the wall time (bench/faithful-pixels.sh). Not thread-safe itself: one reader drives it.
final class ConversionPipeline {
    /// Rows per batch: O(batchRows × width) memory, four times over.
    let batchRows: Int
    private let transform: ColourTransform
    private let pixels: Int
    private let rawStride: Int
    private let outStride: Int
    private let raw: [UnsafeMutablePointer<UInt8>]
    private let converted: [UnsafeMutablePointer<UInt8>]
    private let group = DispatchGroup()
    /// The slot whose rows are being converted, and how many.
    private var converting: (slot: Int, rows: Int)?
    /// Converted rows not yet handed out.
    private var ready: (slot: Int, offset: Int, rows: Int) = (0, 0, 0)
    /// The slot the next decoded batch goes into: never the one being converted.
    private var free = 0

    init(transform: ColourTransform, pixels: Int, rawStride: Int, outStride: Int, batchRows: Int) {
        precondition(batchRows > 0 && pixels > 0, "a batch needs rows and pixels")
        self.transform = transform
        self.pixels = pixels
        self.rawStride = rawStride
        self.outStride = outStride
        self.batchRows = batchRows
        raw = (0..<2).map { _ in .allocate(capacity: rawStride * batchRows) }
        converted = (0..<2).map { _ in .allocate(capacity: outStride * batchRows) }
    }

    deinit {
        group.wait()
        for buffer in raw + converted { buffer.deallocate() }
    }

    /// Converted rows waiting to be taken.
    var readyRows: Int { ready.rows }

    /// Whether a batch is being converted.
    var isConverting: Bool { converting != nil }

    /// Where the next batch is decoded to: `batchRows` rows, `rawStride` bytes apart.
    var freeRaw: UnsafeMutablePointer<UInt8> { raw[free] }

    /// Starts converting the `rows` rows just decoded into ``freeRaw``. Only when no batch is being converted.
    func startConverting(rows: Int) {
        precondition(converting == nil && rows > 0 && rows <= batchRows, "one batch at a time, within the buffer")
        let slot = free
        converting = (slot, rows)
        free = 1 - slot
        let job = Job(
            transform: transform, from: UInt(bitPattern: raw[slot]), to: UInt(bitPattern: converted[slot]), rows: rows,
            pixels: pixels, rawStride: rawStride, outStride: outStride)
        DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run() }
    }

    /// Waits for the batch being converted; its rows become ready. Only when ``readyRows`` is 0.
    func finish() {
        guard let batch = converting else { return }
        precondition(ready.rows == 0, "finish only once the ready rows are taken")
        group.wait()
        converting = nil
        ready = (batch.slot, 0, batch.rows)
    }

    /// Copies up to `rows` ready rows to `destination` (`outStride` bytes apart); returns how many. O(rows × width).
    func take(into destination: UnsafeMutablePointer<UInt8>, rows: Int) -> Int {
        let count = min(rows, ready.rows)
        guard count > 0 else { return 0 }
        destination.update(from: converted[ready.slot] + ready.offset * outStride, count: count * outStride)
        ready.offset += count
        ready.rows -= count
        return count
    }

    /// One batch's conversion, carried to another thread as addresses: the buffers outlive it (deinit waits).
    private struct Job: Sendable {
        let transform: ColourTransform
        let from: UInt
        let to: UInt
        let rows: Int
        let pixels: Int
        let rawStride: Int
        let outStride: Int

        func run() {
            for row in 0..<rows {
                transform.apply(
                    UnsafeRawPointer(bitPattern: from + UInt(row * rawStride))!,
                    to: UnsafeMutablePointer(bitPattern: to + UInt(row * outStride))!, pixels: pixels)
            }
        }
    }
}
