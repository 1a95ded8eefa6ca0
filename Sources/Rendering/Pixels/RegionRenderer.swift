import ImageCodecs
import TileGeometry
import TileSources

/// Renders one IIIF image request from a pyramid, never from the original: it picks the coarsest level whose
/// resolution suffices, reads only the tiles the region needs (through the tile cache), one tile row at a time,
/// resamples them (``ResampleAxis``), mirrors and rotates, applies the quality, and encodes.
///
/// Memory is one band of level pixels (the region's width × one tile row), a few resampled rows, and the output.
/// Blocking (it waits for tile reads): run it on the render pool, never on an event loop.
package struct RegionRenderer {
    /// The request, resolved against the image.
    package let request: IIIFImageRequest
    /// The image.
    package let image: CatalogImage
    /// The tile cache and loader.
    package let tiles: TileStore
    /// The thread's encoders and decoder.
    package let workspace: RenderWorkspace
    /// The render's job, whose cancellation (its client has gone) stops the render at the next output row.
    package var job: RenderJob? = nil

    /// A renderer of `request` from `image`'s tiles read through `tiles`, in `workspace`; `job`, when given, stops it
    /// once cancelled.
    package init(request: IIIFImageRequest, image: CatalogImage, tiles: TileStore, workspace: RenderWorkspace, job: RenderJob? = nil) {
        self.request = request
        self.image = image
        self.tiles = tiles
        self.workspace = workspace
        self.job = job
    }

    /// The level a request is rendered from: the coarsest whose pixels are no fewer than the output's in either
    /// direction (`2^k · width ≤ region width` and likewise for heights), or full resolution when enlarging.
    package static func level(for request: IIIFImageRequest, in pyramid: Pyramid) -> (level: Int, scale: Int) {
        var shift = 0
        while shift < pyramid.maxLevel && (request.width << (shift + 1)) <= request.region.width
            && (request.height << (shift + 1)) <= request.region.height
        {
            shift += 1
        }
        return (pyramid.maxLevel - shift, 1 << shift)
    }

    /// Renders and encodes the image.
    ///
    /// - Throws: `CancellationError` when ``job`` is cancelled (checked before each output row, so at the latest after
    ///   the tile row being read, and before encoding, which runs to its end), the tile store's errors (``FileLoadError``, `CancellationError`) and `CodecError`.
    package func render() throws -> [UInt8] {
        let pyramid = image.pyramid
        let (level, scale) = Self.level(for: request, in: pyramid)
        let levelSize = pyramid.levelSize(level)
        let region = request.region
        let columns = ResampleAxis(origin: region.x, length: region.width, count: request.width, scale: scale, limit: levelSize.width)
        let rows = ResampleAxis(origin: region.y, length: region.height, count: request.height, scale: scale, limit: levelSize.height)
        let source = BandReader(
            image: image, tiles: tiles, decoder: workspace.decoder, level: level,
            columns: columns.sourceStart..<columns.sourceEnd, padding: columns.taps)
        let ring = ResampledRows(axis: rows, width: request.width)
        var output: OutputImage?
        var scaledRow: [UInt8] = []
        for y in 0..<request.height {
            if job?.isCancelled == true { throw CancellationError() }
            let needed = rows.starts[y]..<min(rows.starts[y] + rows.taps, rows.sourceEnd)
            while ring.next < needed.upperBound {
                let levelRow = try source.row(ring.next)
                ring.append(channels: source.channels) { PixelRows.horizontal(levelRow, axis: columns, channels: source.channels, into: $0) }
            }
            if output == nil {
                // The first tile decoded tells the channel count.
                output = OutputImage(for: request, sourceChannels: source.channels)
                scaledRow = [UInt8](repeating: 0, count: request.width * source.channels)
            }
            ring.combine(rows: needed, weightsOf: y, into: &scaledRow)
            output!.place(scaledRow, y: y)
        }
        let image = output!
        // Encoding is one call into the codec that cannot stop midway: the last point to give up.
        if job?.isCancelled == true { throw CancellationError() }
        return try workspace.encode(
            image.pixels, width: image.outputWidth, height: image.outputHeight, pixelFormat: image.pixelFormat, format: request.format)
    }
}
