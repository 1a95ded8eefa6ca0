import Foundation

/// How to slice: tile geometry, tile format, parallelism and overwrite policy.
public struct SliceOptions: Sendable {
    /// The tile edge in pixels, `1 ... 8192` (Deep Zoom's usual 254 or 256).
    public var tileSize: Int = 256
    /// The DZI overlap in pixels, `0 ..< tileSize`.
    public var overlap: Int = 0
    /// The tile file extension without a dot (`jpg`, `png`); also the `.dzi`'s `Format`. Letters and digits only.
    public var fileExtension: String
    /// Makes one tile encoder per worker thread, called on that thread. Throwing fails the slice.
    public var makeEncoder: @Sendable () throws -> any TileEncoding
    /// The zlib level (0–9) of PNG tiles, and of a pyramidal TIFF's Deflate tiles (``TileFormat/png(compressionLevel:)``).
    public var compressionLevel = 6
    /// Worker threads that encode and write tiles (the calling thread decodes and shrinks), `1 ... 256`.
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// How the pyramid is stored: a folder of tile files, one `.szi` archive or one pyramidal `.tif`.
    public var container: PyramidContainer = .folder
    /// The one file's extension with its dot, as the destination names it (`.tiff`, `.TIF`); nil: the container's own
    /// (``PyramidContainer/fileExtension``). `-o NAME.tiff --force` then replaces `NAME.tiff`, not a new `NAME.tif`.
    public var containerExtension: String?
    /// For ``PyramidContainer/tiff``: whether the tiles' numbers are sRGB, so the file records sRGB's profile (false
    /// when the source's numbers are kept, `--keep-colour`: the file is then untagged, as its tiles are).
    public var tagsSRGB = true
    /// For ``PyramidContainer/tiff``: write BigTIFF even when the file would fit in classic TIFF's 4 GiB.
    public var bigTIFF = false
    /// What to record about the source beside the tiles (a slide's properties, ``PyramidProperties``): a folder and an
    /// SZI get `NAME_files/vips-properties.xml` (and an SZI `scan-properties.xml`), a TIFF the same XML as its
    /// ImageDescription (as `vips tiffsave --properties` writes it) and its microns per pixel in its resolution tags.
    /// Nil: nothing is recorded.
    public var properties: PyramidProperties?
    /// A slide's associated images to keep beside the tiles: `NAME_files/associated/KIND.jpg` in a folder and an SZI,
    /// a directory each after the levels in a TIFF (``TIFFAssociatedDirectory``).
    public var associatedImages: [AssociatedImage] = []
    /// Archive offsets and counts from this on are written as ZIP64 (tests lower it to check those records).
    var zip64Threshold = UInt64(UInt32.max)
    /// For a TIFF: the finest level's data from which its spool becomes the file (``TIFFTileWriter``; tests change it
    /// to take either way with small images).
    var tiffInPlaceMinimumBytes: UInt64 = 1 << 20
    /// Replace an existing `NAME.dzi` / `NAME_files` — only once the new pyramid is complete.
    public var force: Bool = false
    /// The least time between two progress callbacks, in seconds (one more comes at the end).
    public var progressInterval: Double = 0.25

    /// Called once, on the slicing thread, with the staging folder's tile folder (`.NAME.tiler-XXXXXX/NAME_files`)
    /// as soon as it exists (folder container only): tiles appear there as `LEVEL/COL_ROW.EXT`, each written whole
    /// by one `write` (a reader may meet a file still empty), until the folder is moved into place or removed. For
    /// serving the pyramid while it is built.
    public var onStaging: (@Sendable (_ filesPath: String) -> Void)?

    /// For a single-file container sent on while it is built (a multipart upload): called from any thread whenever more
    /// of the container's body is written for good — the file at `path` holds its final bytes before `through` — and
    /// once more, last, with the body's whole size. An SZI's body is the archive itself. A TIFF's is its finest level's
    /// tiles, which in the TIFF follow its front (header, directories, smaller levels): the file the slice then makes
    /// is that front alone, and the TIFF is the front followed by the body.
    public var onBodyWritten: (@Sendable (_ path: String, _ through: UInt64) -> Void)?

    /// Creates options with the defaults: 256-px tiles, no overlap, one worker per active core, no overwrite.
    public init(fileExtension: String, makeEncoder: @escaping @Sendable () throws -> any TileEncoding) {
        self.fileExtension = fileExtension
        self.makeEncoder = makeEncoder
    }

    /// Throws ``SliceError/Reason/invalidOptions`` when a value is out of range.
    func validate() throws(SliceError) {
        func fail(_ message: String) -> SliceError { SliceError(.invalidOptions, message) }
        guard (1...8192).contains(tileSize) else { throw fail("tile size \(tileSize) is outside 1…8192") }
        guard overlap >= 0 && overlap < tileSize else { throw fail("overlap \(overlap) must be at least 0 and less than the tile size \(tileSize)") }
        guard (1...256).contains(threads) else { throw fail("thread count \(threads) is outside 1…256") }
        let isAlphanumeric = { (c: UInt8) in (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
        guard !fileExtension.isEmpty && fileExtension.utf8.allSatisfy(isAlphanumeric) else {
            throw fail("tile extension \"\(fileExtension)\" must be letters and digits, like jpg or png")
        }
        guard progressInterval >= 0 else { throw fail("progress interval must not be negative") }
        if container == .tiff {
            guard TIFFTileCompression(fileExtension: fileExtension) != nil else {
                throw fail("a pyramidal TIFF holds JPEG, WebP or Deflate tiles: use --format jpg, webp or png (not \(fileExtension))")
            }
            guard (0...9).contains(compressionLevel) else { throw fail("zlib level \(compressionLevel) is outside 0…9") }
            guard overlap == 0 else { throw fail("a pyramidal TIFF's tiles do not overlap: use --overlap 0") }
            guard tileSize % 16 == 0 else { throw fail("a TIFF's tile size must be a multiple of 16 (not \(tileSize))") }
        }
    }
}
