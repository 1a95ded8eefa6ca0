import Glibc
import HTTPCore
import ImageCodecs
import TileGeometry

/// A pyramid stored in one file that the server reads in place: its levels (finest first), each stored tile's bytes
/// when they can be sent as they are (a standalone JPEG), and each stored tile's pixels. Thread-safe.
package protocol StoredPyramid: Sendable {
    /// The stored levels, finest first.
    var storedLevels: [StoredLevel] { get }
    /// The ICC profile the stored pixels are in, if any (untagged pixels are taken as sRGB, as `tiler slice` takes
    /// them).
    var colourProfile: [UInt8]? { get }
    /// What the file says about the image beyond its pixels (vendor, microns per pixel, …).
    var facts: ImageFacts { get }
    /// Stored tile (`column`, `row`) of level `level` as a standalone JPEG file, without decoding. Only for levels
    /// whose ``StoredLevel/passesThrough``.
    func jpegTile(level: Int, column: Int, row: Int) throws -> [UInt8]
    /// ``jpegTile(level:column:row:)`` when its bytes are all in the page cache; nil when reading them would wait.
    func jpegTileIfCached(level: Int, column: Int, row: Int) throws -> [UInt8]?
    /// Stored tile (`column`, `row`) of level `level` as ``jpegTile(level:column:row:)``'s bytes lie in the file, with a
    /// descriptor of the file the caller owns, for sending with `sendfile`; nil where the source cannot say (OpenSlide).
    /// Only for levels whose ``StoredLevel/passesThrough``.
    func jpegTileFile(level: Int, column: Int, row: Int) throws -> StoredTileFile?
    /// Stored tile (`column`, `row`) of level `level` decoded to 8-bit pixels, ``StoredLevel/channels`` each,
    /// `tileWidth` × `tileHeight` (edge tiles as stored, padded), into `pixels`.
    func decodeTile(level: Int, column: Int, row: Int, into pixels: UnsafeMutableRawBufferPointer) throws
    /// The pixels of `x0..<x1` × `y0..<y1` of level `level` (within the level), ``StoredLevel/channels`` each. The
    /// default decodes the stored tiles under the region (``decodeTile(level:column:row:into:)``); a source that reads
    /// any region at once (OpenSlide) does so.
    func region(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) throws -> PixelBuffer
    /// The slide OpenSlide reads in this file, for its properties and associated images (a label, a macro): the
    /// pyramid itself when OpenSlide serves it, an Aperio SVS's when the TIFF source serves its tiles; else nil.
    var slideExtras: SlidePyramid? { get }
    /// For a pyramid read over the network (a TIFF in a store): starts reading stored tile (`column`, `row`) of level
    /// `level` as ``jpegTile(level:column:row:)`` gives it and calls `onResult` once, on any thread, holding no thread
    /// while it waits; returns `true`. `false` (the default) for a pyramid read from a file: the tile is then read on
    /// a file thread. Only for levels whose ``StoredLevel/passesThrough``.
    func fetchJPEGTile(level: Int, column: Int, row: Int, onResult: @escaping @Sendable (Result<[UInt8], any Error>) -> Void) -> Bool
    /// The JPEG of associated image `kind` the pyramid keeps as a directory of its own (a sliced slide's label, macro,
    /// thumbnail). Blocking. The default keeps none.
    ///
    /// - Throws: ``FileLoadError`` `notFound` when it keeps none of that kind; the read's errors.
    func keptAssociatedJPEG(_ kind: String) throws -> [UInt8]
}

extension StoredPyramid {
    package func jpegTileFile(level: Int, column: Int, row: Int) throws -> StoredTileFile? { nil }

    package var slideExtras: SlidePyramid? { self as? SlidePyramid }

    package func fetchJPEGTile(level: Int, column: Int, row: Int, onResult: @escaping @Sendable (Result<[UInt8], any Error>) -> Void) -> Bool {
        false
    }

    package func keptAssociatedJPEG(_ kind: String) throws -> [UInt8] {
        throw FileLoadError(kind: .notFound, message: "no kept \(kind) image")
    }
}

/// A passed-through stored tile as it lies in its file: `prefix`, then `length` bytes at `offset` of the file open as
/// `descriptor` (the holder's to close), which had `fileSize` bytes and was last modified at `modified`.
package struct StoredTileFile {
    package let descriptor: Int32
    package let prefix: [UInt8]
    package let offset: Int
    package let length: Int
    package let fileSize: Int
    package let modified: timespec
}

/// One stored level of a ``StoredPyramid``.
package struct StoredLevel: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let tileWidth: Int
    package let tileHeight: Int
    /// Channels per decoded pixel: 1, 3 or 4.
    package let channels: Int
    /// Whether stored tiles are JPEG that can be sent as they are.
    package let passesThrough: Bool
}

/// The tiles of a ``StoredPyramid``, as Deep Zoom tiles of 256 pixels, overlap 0. A tile that is exactly one stored
/// tile — that level stored, 256-pixel stored tiles, JPEG, a whole tile (edge tiles are stored padded), no colour to
/// convert — is the stored bytes (``StoredPyramid/jpegTile(level:column:row:)``), no decoding and no re-encoding.
/// Any other is made once (the tile store keeps it) from the coarsest stored level at least as large, reading only
/// the stored tiles it covers: when that level is this one halved k times the Deep Zoom way (sizes rounded up) and
/// the tile covers at most ``maxSourcePixels`` of it, by k 2×2 box means, exactly as `tiler slice` shrinks; when its size is otherwise related (Aperio's
/// levels, rounded down) and at most 4× larger, by an area average; a level further below every stored one is made
/// from the Deep Zoom level above it, four tiles a tile, through the tile store (its cache and single-flight reads).
package struct StoredTiles: Sendable {
    package let pyramid: any StoredPyramid
    /// The conversion of stored pixels to sRGB, for a pyramid tagged with a colour profile (its tiles are then all made,
    /// none passed through).
    package let colour: StoredColour?
    /// How made tiles are encoded (the descriptor's format: `jpg`, or `png` where the source has alpha).
    package let format: String
    /// The JPEG quality of made tiles.
    package let quality: Int

    /// The Deep Zoom tile `address` of `image` when it can be had without waiting or working: a passed-through tile
    /// whose bytes are in the page cache (for an event loop, as folder tiles are read there); nil otherwise.
    package func tileIfCheap(_ address: TileAddress, of image: CatalogImage) throws -> LoadedFile? {
        guard let source = source(of: address, in: image.pyramid), passesThrough(source, tileSize: image.pyramid.tileSize),
            let bytes = try pyramid.jpegTileIfCached(level: source.index, column: address.column, row: address.row)
        else { return nil }
        return LoadedFile(bytes: bytes, etag: etag(of: image, address, passedThrough: true))
    }

    /// The Deep Zoom tile `address` of `image` as an ``OpenFile`` to send with `sendfile`, when it is a stored tile
    /// passed through and the source can say where it lies; nil otherwise, and for a tile larger than `maxBytes` or
    /// damaged (the caller then reads it, which gives the right answer or error). Same bytes and entity tag as
    /// ``tile(_:of:store:)``.
    package func open(_ address: TileAddress, of image: CatalogImage, maxBytes: Int) -> OpenFile? {
        guard let source = source(of: address, in: image.pyramid), passesThrough(source, tileSize: image.pyramid.tileSize),
            let file = try? pyramid.jpegTileFile(level: source.index, column: address.column, row: address.row)
        else { return nil }
        guard file.prefix.count + file.length <= maxBytes else {
            close(file.descriptor)
            return nil
        }
        return OpenFile(
            descriptor: file.descriptor, prefix: file.prefix, offset: file.offset, length: file.length, fileSize: file.fileSize,
            modified: file.modified, etag: etag(of: image, address, passedThrough: true))
    }

    /// The stored level whose tile (`address`'s column and row) is the Deep Zoom tile `address` of `image` passed
    /// through as stored (no decoding, see ``tile(_:of:store:)``); nil when the tile is made. O(levels).
    package func passThroughLevel(_ address: TileAddress, of image: CatalogImage) -> Int? {
        guard let source = source(of: address, in: image.pyramid), passesThrough(source, tileSize: image.pyramid.tileSize) else { return nil }
        return source.index
    }

    /// Where a Deep Zoom tile comes from: the coarsest stored level at least as large as the tile's level (its index
    /// and description), the level's size and the tile's rectangle in it.
    private struct Source {
        package let index: Int
        package let stored: StoredLevel
        package let size: (width: Int, height: Int)
        package let rect: PixelRect
    }

    /// The source of tile `address` of a pyramid of `geometry`; nil when no stored level is that large.
    private func source(of address: TileAddress, in geometry: Pyramid) -> Source? {
        let size = geometry.levelSize(address.level)
        let levels = pyramid.storedLevels
        guard let index = levels.lastIndex(where: { $0.width >= size.width && $0.height >= size.height }) else { return nil }
        return Source(
            index: index, stored: levels[index], size: size, rect: geometry.tileRect(level: address.level, column: address.column, row: address.row))
    }

    /// Whether the tile is exactly one stored tile that can be sent as it is: that level stored with `tileSize`-pixel
    /// JPEG tiles, a whole tile, JPEG output and no colour to convert.
    private func passesThrough(_ source: Source, tileSize: Int) -> Bool {
        let stored = source.stored
        return colour == nil && format == "jpg" && source.rect.width == tileSize && source.rect.height == tileSize && stored.passesThrough
            && stored.width == source.size.width && stored.height == source.size.height && stored.tileWidth == tileSize
            && stored.tileHeight == tileSize
    }

    /// The memory making tile `address` of `image` holds at its peak, in bytes — the stored pixels it reads (as at
    /// most two copies: decoded tiles and the region), one decoded stored tile and the tile made — or nil for a tile
    /// passed through (nothing decoded). O(levels).
    package func workingBytes(_ address: TileAddress, of image: CatalogImage) -> Int? {
        let tileSize = image.pyramid.tileSize
        guard let source = source(of: address, in: image.pyramid), !passesThrough(source, tileSize: tileSize) else { return nil }
        let stored = source.stored
        let scaleX = Double(stored.width) / Double(max(1, source.size.width))
        let scaleY = Double(stored.height) / Double(max(1, source.size.height))
        let covered = Double(source.rect.width) * scaleX * Double(source.rect.height) * scaleY
        // Beyond the direct read's limit the tile is made from four of the level above.
        let read = min(Int(covered.rounded(.up)), Self.maxSourcePixels)
        let channels = max(3, stored.channels)
        return (2 * read + stored.tileWidth * stored.tileHeight + 4 * tileSize * tileSize) * channels
    }

    /// The Deep Zoom tile `address` of `image`, as the bytes to send.
    ///
    /// - Throws: the pyramid's read and decode errors, `CodecError` when encoding fails.
    package func tile(_ address: TileAddress, of image: CatalogImage, store: any TileReading) throws -> LoadedFile {
        guard let source = source(of: address, in: image.pyramid) else {
            throw RenderError(message: "no stored level is as large as level \(address.level)")
        }
        if passesThrough(source, tileSize: image.pyramid.tileSize) {
            let bytes = try pyramid.jpegTile(level: source.index, column: address.column, row: address.row)
            return LoadedFile(bytes: bytes, etag: etag(of: image, address, passedThrough: true))
        }
        let (index, stored, size, rect) = (source.index, source.stored, source.size, source.rect)
        let reader = StoredRegionReader(pyramid: pyramid, level: index, stored: stored, colour: colour)
        let pixels: PixelBuffer
        let halvings = (0...20).first { k in Self.ceilShift(stored.width, k) == size.width && Self.ceilShift(stored.height, k) == size.height }
        if let halvings, Self.sourcePixels(of: rect, halvings: halvings, stored: stored) <= Self.maxSourcePixels {
            // The stored level is this one halved k times, as Deep Zoom (and `tiler slice`) halves: the same box means.
            pixels = try reader.halvedPixels(of: rect, halvings: halvings)
        } else if Double(stored.width) / Double(size.width) <= 4.0001 {
            pixels = try reader.pixels(of: rect, levelWidth: size.width, levelHeight: size.height)
        } else {
            pixels = try halvedFromFiner(address, of: image, store: store)
        }
        let bytes = try pixels.encoded(format: format, quality: quality)
        return LoadedFile(bytes: bytes, etag: etag(of: image, address, passedThrough: false))
    }

    /// Tile `address` as the 2×2 box mean of the (up to four) tiles of the level above that cover it, read through the
    /// tile store.
    private func halvedFromFiner(_ address: TileAddress, of image: CatalogImage, store: any TileReading) throws -> PixelBuffer {
        let geometry = image.pyramid
        let finer = address.level + 1
        let grid = geometry.grid(finer)
        var parts: [(column: Int, row: Int)] = []
        for dy in 0..<2 {
            for dx in 0..<2 {
                let column = address.column * 2 + dx
                let row = address.row * 2 + dy
                if column < grid.columns && row < grid.rows { parts.append((column, row)) }
            }
        }
        let keys = parts.map { TileKey(image: image.id, address: TileAddress(level: finer, column: $0.column, row: $0.row)) }
        let files = try store.filesMadeHere(keys, of: image)
        let fineSize = geometry.levelSize(finer)
        let x0 = address.column * 2 * geometry.tileSize
        let y0 = address.row * 2 * geometry.tileSize
        let decoder = EncodedTileDecoder()
        var mosaic: PixelBuffer?
        for (part, file) in zip(parts, files) {
            let decoded = try decoder.decode(file, fallbackPath: nil)
            if mosaic == nil {
                mosaic = .blank(
                    width: min(2 * geometry.tileSize, fineSize.width - x0), height: min(2 * geometry.tileSize, fineSize.height - y0),
                    format: decoded.pixelFormat)
            }
            mosaic!.paste(decoded, x: part.column * geometry.tileSize - x0, y: part.row * geometry.tileSize - y0)
        }
        return mosaic!.halved()
    }

    /// The most stored pixels one made tile reads directly (2048², 64 stored tiles of 256 pixels): beyond it, the
    /// tile is made from the level above.
    package static let maxSourcePixels = 2048 * 2048

    /// How many stored pixels `rect`, `halvings` times halved from the stored level, covers.
    private static func sourcePixels(of rect: PixelRect, halvings: Int, stored: StoredLevel) -> Int {
        let width = min(stored.width, rect.maxX << halvings) - (rect.x << halvings)
        let height = min(stored.height, rect.maxY << halvings) - (rect.y << halvings)
        return width * height
    }

    /// `value / 2^shift`, rounded up (Deep Zoom's level sizes).
    private static func ceilShift(_ value: Int, _ shift: Int) -> Int {
        (value + (1 << shift) - 1) >> shift
    }

    /// A strong entity tag for a made or passed-through tile: the image's version (it changes when the file does) and
    /// the tile's address.
    package func etag(of image: CatalogImage, _ address: TileAddress, passedThrough: Bool) -> String {
        "\"\(image.version)-\(address.level)-\(address.column)-\(address.row)\(passedThrough ? "p" : "m")\""
    }
}
