/// A batch of tiles for a worker: some adjacent columns of one tile row, cut from one submitted strip.
///
/// Batching a run of tiles per hand-off keeps queue traffic to a few operations per tile row.
struct TileJob: Sendable {
    /// The strip the tiles are cut from; the job holds it until ``StripPool/release(_:)``.
    let strip: StripBuffer
    /// The tile row, in the strip's level.
    let tileRow: Int
    /// The tile columns to encode.
    let columns: Range<Int>
}
