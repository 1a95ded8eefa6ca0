import Foundation
import ImageCodecs
import TileGeometry

/// Slices a streamed image into a Deep Zoom pyramid (`NAME.dzi` + `NAME_files/<level>/<col>_<row>.<ext>`), in the
/// shape of libvips `dzsave`.
///
/// The calling thread reads the source top to bottom and shrinks it level by level (``LevelStrip``, ``Downsample``);
/// ``SliceOptions/threads`` workers encode and write the tiles. Memory is bounded by the image width — about
/// `Σ levels (level width × (tileSize + 2·overlap) × channels)` of strips plus two more of the full-size level and one
/// of the level below it (``stripCounts(_:)``), see ``SliceSummary/peakBufferBytes`` — never by its height. The
/// pyramid is built in a hidden folder beside the destination and moved into place only when complete; on any error or
/// cancellation that folder is removed and the destination is left as it was. A slice killed outright leaves the
/// folder, with an owner file; ``StagingSweep`` removes it later.
public final class PyramidBuilder: Sendable {
    /// The options every ``slice(_:into:name:progress:)`` uses.
    public let options: SliceOptions
    /// The flag ``cancel()`` sets; share it to cancel from elsewhere (a signal handler's dispatch source).
    public let cancellation: SliceCancellation

    /// Strips kept of the level below full size: one filling while one is being encoded.
    static let stripsPerLevel = 2
    /// Strips kept of the full-size level: one more, so that the decoder can run a strip ahead of the encoders instead
    /// of waiting whenever a strip's tiles take longer than decoding the next. Slicing is bound by decoding, so
    /// every such wait lengthens it: the 32768² Q90 4:4:4 sample to SZI took 6.45 and 6.59 s with three, against 6.87
    /// and 7.38 s with two (alternating, one sitting), for 25 MB more (the full-size level's strips are half of all).
    static let fullSizeStrips = 3

    /// How many strips each level keeps: ``fullSizeStrips`` of the full size, ``stripsPerLevel`` of the level below it,
    /// and one of each smaller level. A smaller level's tiles jump the queue
    /// (``TileWorkerPool/submit(_:tileRow:urgent:)``), so the decoder waits for them only briefly, a few milliseconds
    /// every 1,024 full-size rows, which the JPEG pipeline's ring absorbs. A second strip each cost the 32768² sample's
    /// slice 12 MB more (173 MB peak against 161) for no time; one strip of the level below full size too saved 12 MB
    /// more but took 0.2 s longer (3 rounds each).
    static func stripCounts(_ pyramid: Pyramid) -> [Int: Int] {
        var counts = [pyramid.maxLevel: fullSizeStrips]
        if pyramid.maxLevel >= 1 { counts[pyramid.maxLevel - 1] = stripsPerLevel }
        return counts
    }

    /// Creates a builder. A cancelled `cancellation` makes every later slice fail at once.
    public init(options: SliceOptions, cancellation: SliceCancellation = SliceCancellation()) {
        self.options = options
        self.cancellation = cancellation
    }

    /// Cancels the running slice, from any thread: the source is no longer read, workers stop after their current
    /// tile, and ``slice(_:into:name:progress:)`` throws ``SliceError/Reason/cancelled`` once they have.
    public func cancel() {
        cancellation.cancel()
    }

    /// Slices `source`, turned to its display `orientation`, into `directory/name.dzi` and `directory/name_files/` (or
    /// `directory/name.szi`, as ``SliceOptions/container`` says).
    ///
    /// - Parameters:
    ///   - source: The image as stored, read top to bottom on this thread.
    ///   - orientation: How the stored rows are turned (EXIF/TIFF 1–8); the pyramid has the displayed size. Anything
    ///     but 1 and 2 first copies the stored pixels to an unlinked temporary file in the staging folder (see
    ///     ``OrientedRowSource``): disk O(width × height), memory still O(width).
    ///   - directory: An existing, writable folder.
    ///   - name: The pyramid's file name stem (no `/`).
    ///   - progress: Called on this thread at most every ``SliceOptions/progressInterval`` seconds, and once at the end.
    /// - Returns: What was written and what it cost.
    /// - Throws: ``SliceError``; nothing is then left behind and the destination is untouched.
    /// - Complexity: O(width × height); memory O(width × (tileSize + 2·overlap) × channels).
    public func slice(
        _ stored: any RowSource, orientation: Orientation = .up, into directory: String, name: String,
        progress: ((SliceProgress) -> Void)? = nil
    ) throws(SliceError) -> SliceSummary {
        var meter = ProgressMeter(interval: options.progressInterval, callback: progress)
        try options.validate()
        try Self.validate(stored)
        if options.container == .tiff && options.fileExtension == "jpg" && stored.channels % 2 == 0 {
            throw SliceError(
                .invalidOptions, "a pyramidal TIFF's JPEG tiles cannot hold alpha: use --format png (Deflate tiles) or webp to keep it")
        }
        if cancellation.isCancelled { throw SliceError.cancelledError }
        let staging = try StagingFolder.create(
            directory: directory, name: name, force: options.force, container: options.container, fileExtension: options.containerExtension)
        if options.container == .folder, let onStaging = options.onStaging { onStaging(staging.filesPath) }
        let cancellation = self.cancellation
        let source: any RowSource =
            orientation == .up
            ? stored
            : OrientedRowSource(stored, orientation: orientation, scratchFolder: staging.path) { cancellation.isCancelled }
        let pyramid = Pyramid(width: source.width, height: source.height, tileSize: options.tileSize, overlap: options.overlap)
        do throws(SliceError) {
            let outcome = try build(source, pyramid: pyramid, in: staging, meter: &meter)
            if cancellation.isCancelled { throw SliceError.cancelledError }
            try staging.publish(force: options.force)
            let seconds = meter.elapsedSeconds
            return SliceSummary(
                width: pyramid.width, height: pyramid.height, channels: source.channels, levels: outcome.storedLevels ?? pyramid.levelCount,
                tiles: outcome.tiles, bytesWritten: outcome.bytes, seconds: seconds,
                megapixelsPerSecond: Double(pyramid.width) * Double(pyramid.height) / 1e6 / max(seconds, 1e-9),
                peakResidentBytes: ResidentMemory.peakBytes(), peakBufferBytes: outcome.peakBufferBytes,
                dziPath: staging.destinationDZI, filesPath: staging.destinationFiles, container: options.container.rawValue,
                path: options.container == .folder ? staging.destinationDZI : staging.destinationArchive, fileBytes: outcome.fileBytes)
        } catch {
            staging.discard()
            throw error
        }
    }

    /// The number of tiles in the pyramid's levels from `smallest` (all levels by default) up to full size.
    public static func tileCount(of pyramid: Pyramid, from smallest: Int = 0) -> Int {
        (smallest..<pyramid.levelCount).reduce(0) { total, level in
            let grid = pyramid.grid(level)
            return total + grid.columns * grid.rows
        }
    }

    private static func validate(_ source: any RowSource) throws(SliceError) {
        guard source.width >= 1 && source.height >= 1 else {
            throw SliceError(.invalidSource, "image size \(source.width)×\(source.height) is empty")
        }
        guard (1...4).contains(source.channels) else {
            throw SliceError(.invalidSource, "images with \(source.channels) channels are not supported (1 to 4)")
        }
        guard source.width <= Int(Int32.max) && source.height <= Int(Int32.max) else {
            throw SliceError(.invalidSource, "image size \(source.width)×\(source.height) is too large")
        }
    }
}
