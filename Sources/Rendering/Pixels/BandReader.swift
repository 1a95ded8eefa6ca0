import ImageCodecs
import TileGeometry
import TileSources

/// Level pixels one tile row at a time: the columns a render reads, for the tile row holding the row asked for.
/// Tiles come from the tile cache (or are loaded through it) and are decoded once per band.
///
/// Not Sendable: used by one render at a time. Blocking: waits for tile reads.
package final class BandReader {
    private let image: CatalogImage
    private let tiles: TileStore
    private let decoder: EncodedTileDecoder
    private let level: Int
    private let columns: Range<Int>
    private let padding: Int
    /// Channels per pixel, set by the first tile decoded (0 before).
    package private(set) var channels = 0
    private var storage: UnsafeMutablePointer<UInt8>?
    private var stride = 0
    private var band = -1

    /// A reader of level `level`'s pixel columns `columns`, each row followed by `padding` zero pixels (so filters
    /// may read past the end with weight 0).
    package init(image: CatalogImage, tiles: TileStore, decoder: EncodedTileDecoder, level: Int, columns: Range<Int>, padding: Int) {
        self.image = image
        self.tiles = tiles
        self.decoder = decoder
        self.level = level
        self.columns = columns
        self.padding = padding
    }

    deinit {
        storage?.deallocate()
    }

    /// Level row `row`, starting at column `columns.lowerBound`; valid until the next call.
    ///
    /// - Throws: the tile store's errors, `CodecError`, ``RenderError``.
    package func row(_ row: Int) throws -> UnsafePointer<UInt8> {
        let tileSize = image.pyramid.tileSize
        if row / tileSize != band {
            try load(band: row / tileSize)
        }
        return UnsafePointer(storage! + (row - band * tileSize) * stride)
    }

    /// Decodes the tiles of tile row `tileRow` that hold ``columns`` into the band.
    private func load(band tileRow: Int) throws {
        let pyramid = image.pyramid
        let tileSize = pyramid.tileSize
        let tileColumns = (columns.lowerBound / tileSize)...((columns.upperBound - 1) / tileSize)
        let keys = tileColumns.map { TileKey(image: image.id, address: TileAddress(level: level, column: $0, row: tileRow)) }
        let files = try tiles.files(keys, of: image)
        for (column, file) in zip(tileColumns, files) {
            guard let file else { continue }
            let pixels = try decoder.decode(
                file,
                fallbackPath: image.source.tilePath(TileKey(image: image.id, address: .init(level: level, column: column, row: tileRow)), of: image))
            try copy(pixels, column: column, row: tileRow)
        }
        // After the tiles present, which say how many channels there are.
        for (column, file) in zip(tileColumns, files) where file == nil {
            fillBlank(column: column, row: tileRow)
        }
        band = tileRow
    }

    /// Fills the part of tile (`column`, `row`) that lies in ``columns`` with what a tile the pyramid lacks stands for:
    /// `vips dzsave --skip-blanks` leaves out the tiles equal to its background, white unless told otherwise.
    private func fillBlank(column: Int, row: Int) {
        let core = image.pyramid.tileRect(level: level, column: column, row: row)
        // When no tile read yet has said how many channels there are: the descriptor's format does (PNG tiles may hold
        // alpha, which an opaque white loses nothing of; JPEG tiles hold none).
        if storage == nil { allocate(channels: image.descriptor.format == "png" ? 4 : 3) }
        let x0 = max(core.x, columns.lowerBound)
        let x1 = min(core.maxX, columns.upperBound)
        guard x0 < x1 else { return }
        for y in 0..<core.height {
            (storage! + y * stride + (x0 - columns.lowerBound) * channels).update(repeating: 255, count: (x1 - x0) * channels)
        }
    }

    /// Copies the part of a decoded tile that lies in ``columns`` into the band.
    private func copy(_ pixels: PixelBuffer, column: Int, row: Int) throws {
        let pyramid = image.pyramid
        let core = pyramid.tileRect(level: level, column: column, row: row)
        let stored = pyramid.tileImageRect(level: level, column: column, row: row)
        guard pixels.width == stored.width && pixels.height == stored.height else {
            throw RenderError(
                message:
                    "tile \(level)/\(column)_\(row) of \(image.name) is \(pixels.width)×\(pixels.height), expected \(stored.width)×\(stored.height)")
        }
        let from = pixels.pixelFormat.channels
        if storage == nil { allocate(channels: from) }
        let x0 = max(core.x, columns.lowerBound)
        let x1 = min(core.maxX, columns.upperBound)
        guard x0 < x1 else { return }
        pixels.bytes.withUnsafeBufferPointer { source in
            for y in 0..<core.height {
                let input = source.baseAddress! + ((core.y - stored.y + y) * stored.width + (x0 - stored.x)) * from
                let output = storage! + y * stride + (x0 - columns.lowerBound) * channels
                PixelRows.convert(input, from: from, to: channels, count: x1 - x0, into: output)
            }
        }
    }

    private func allocate(channels: Int) {
        self.channels = channels
        stride = (columns.count + padding) * channels
        let size = stride * image.pyramid.tileSize
        storage = .allocate(capacity: size)
        storage!.initialize(repeating: 0, count: size)
    }
}
