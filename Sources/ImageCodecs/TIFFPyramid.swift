import CTIFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pyramidal TIFF opened for serving in place: its levels, and any stored tile as JPEG bytes or decoded pixels.
///
/// Finds the reduced resolutions in any of three layouts (``Layout``), in TIFF and BigTIFF. Opening reads directories
/// only, copying each level's tile index (TileOffsets, TileByteCounts) and JPEGTables, and keeps one descriptor; no
/// tile data is read until asked for. Memory: about 16 bytes per stored tile, plus up to four libtiff handles.
///
/// A pyramid can also be read from bytes that are no local file (an object in a store, ``init(source:label:)``): its
/// directories through a ``TIFFByteSource``, its tiles from bytes the caller reads where ``storedTileRange(level:column:row:)``
/// says they lie (``jpegTile(level:column:row:stored:)``, ``decodeTile(level:column:row:stored:into:)``).
///
/// Thread-safe: any number of threads may call ``jpegTile(level:column:row:)`` (pread only, no libtiff) and
/// ``decodeTile(level:column:row:into:)`` (one of four libtiff handles, each behind a lock) at once. A damaged file or
/// one changed under us makes a call throw ``TIFFPyramidError``; nothing is printed and nothing traps.
public final class TIFFPyramid: Sendable {
    /// One stored resolution, as tiles are delivered.
    public struct Level: Sendable, Equatable {
        /// The level's size in pixels.
        public let width: Int, height: Int
        /// The stored tiles' size in pixels (edge tiles are stored padded to it).
        public let tileWidth: Int, tileHeight: Int
        /// Tiles across and down: `ceil(width / tileWidth)`, `ceil(height / tileHeight)`.
        public let columns: Int, rows: Int
        /// The TIFF Compression code: 1 none, 5 LZW, 7 JPEG, 8 or 32946 Deflate, 50000 ZSTD, …
        public let compression: Int
        /// 8-bit samples per decoded pixel: 1 gray, 3 RGB, 4 RGBA.
        public let channels: Int
        /// Stored tiles are JPEG that ``TIFFPyramid/jpegTile(level:column:row:)`` hands out without decoding (8-bit gray,
        /// YCbCr or RGB, no alpha).
        public let jpegPassThrough: Bool
        /// The stored JPEG data is RGB, not YCbCr (common in Aperio files): pass-through adds an Adobe APP14 marker.
        public let jpegStoresRGB: Bool

        init(_ raw: tiler_tiff_level) {
            width = Int(raw.width)
            height = Int(raw.height)
            tileWidth = Int(raw.tile_width)
            tileHeight = Int(raw.tile_height)
            columns = Int(raw.columns)
            rows = Int(raw.rows)
            compression = Int(raw.compression)
            channels = Int(raw.channels)
            jpegPassThrough = raw.jpeg_pass_through != 0
            jpegStoresRGB = raw.jpeg_rgb != 0
        }

        /// Bytes of one decoded tile: `tileWidth × tileHeight × channels`.
        public var decodedTileBytes: Int { tileWidth * tileHeight * channels }
    }

    /// Where the reduced resolutions are stored.
    public enum Layout: String, Sendable {
        /// Following IFDs marked reduced-resolution by NewSubfileType (`vips tiffsave --pyramid`, COG).
        case pyramid
        /// SubIFDs of IFD 0 (OME-TIFF, `vips tiffsave --subifd`).
        case subIFDs
        /// Aperio SVS: IFD 0, then further tiled IFDs (the thumbnail, label and macro images skipped).
        case aperio
    }

    /// The path as the caller gave it (used in messages and by ``isCurrent``); for a pyramid read through a
    /// ``TIFFByteSource``, the label it was given (`s3://bucket/key`).
    public let path: String
    /// The stored levels, finest (the full resolution) first; at least two.
    public let levels: [Level]
    /// Where the reduced levels were found.
    public let layout: Layout
    /// A BigTIFF (64-bit offsets).
    public let bigTIFF: Bool
    /// The full-resolution image's ICC profile, if any (colour is not converted here).
    public let iccProfile: [UInt8]?
    /// The full-resolution image's ImageDescription (Aperio and OME metadata live there), if any.
    public let imageDescription: String?
    /// The file as it was when opened; for a pyramid read through a ``TIFFByteSource``, no file's (its size alone).
    public let identity: FileIdentity
    /// Microns per pixel of the full resolution from the XResolution, YResolution and ResolutionUnit tags (inch or
    /// centimetre), or nil when they are absent, give no physical unit, or are a screen default
    /// (``micronsPerPixel(resolutionUnit:x:y:)``).
    public let tagMicronsPerPixel: (x: Double, y: Double)?

    /// The C pyramid: immutable after open, internally locked (see the type's discussion), so shared freely.
    nonisolated(unsafe) let pyramid: OpaquePointer
    /// Per level, the bytes sent before each passed-through JPEG tile (see ``JPEGTileRegion/prefix``): made once, not
    /// for every tile.
    let jpegPrefixes: [[UInt8]]
    /// What the C pyramid reads through when it is no file (``init(source:label:)``): kept as long as it lives.
    let source: TIFFSourceBox?

    /// Opens `path` and finds its levels: the full-resolution image must be tiled and have at least one reduced level.
    ///
    /// Reads the directories only (no tile data). - Throws: ``TIFFPyramidError`` — `.notPyramid` (striped, one
    /// resolution, levels not shrinking; also a file that is not a TIFF at all), `.unsupported`, `.damaged`, `.unreadable`.
    public convenience init(path: String) throws(TIFFPyramidError) {
        // O_NONBLOCK: a FIFO named like a TIFF must not hang open(2); it is refused as not a regular file below.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw TIFFPyramidError(kind: .unreadable, path: path, reason: Self.describe(errno: errno)) }
        guard let identity = FileIdentity(descriptor: descriptor), identity.isRegularFile else {
            close(descriptor)
            throw TIFFPyramidError(kind: .unreadable, path: path, reason: "not a regular file")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var head = [UInt8](repeating: 0, count: 4)
        let count = pread(descriptor, &head, 4, 0)
        guard Self.hasTIFFMagic(head.prefix(max(0, count))) else {
            close(descriptor)
            throw TIFFPyramidError(kind: .notPyramid, path: path, reason: "not a TIFF file")
        }
        guard identity.size >= 8 else {
            close(descriptor)
            throw TIFFPyramidError(kind: .damaged, path: path, reason: "truncated TIFF header (\(identity.size) bytes)")
        }
        var opened: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = tiler_tiff_pyramid_open(descriptor, &opened, &message, message.count)  // owns the descriptor now
        guard status == TILER_TIFF_OK, let opened else {
            throw TIFFPyramidError(kind: TIFFPyramidError.Kind(status: status), path: path, reason: Self.string(message))
        }
        self.init(opened: opened, path: path, identity: identity, source: nil)
    }

    /// Takes `opened`, a C pyramid just opened (owned from now on), reading `path` (a file of `identity`) or `source`.
    init(opened: OpaquePointer, path: String, identity: FileIdentity, source: TIFFSourceBox?) {
        var info = tiler_tiff_pyramid_info()
        tiler_tiff_pyramid_get_info(opened, &info)
        pyramid = opened
        self.path = path
        self.identity = identity
        self.source = source
        levels = (0..<Int(info.level_count)).map { index in
            var raw = tiler_tiff_level()
            tiler_tiff_pyramid_get_level(opened, Int32(index), &raw)
            return Level(raw)
        }
        jpegPrefixes = levels.indices.map { Self.jpegPrefix(opened, level: $0) }
        layout = [TILER_TIFF_LAYOUT_SUBIFDS: .subIFDs, TILER_TIFF_LAYOUT_APERIO: .aperio][info.layout] ?? .pyramid
        bigTIFF = info.big_tiff != 0
        iccProfile = info.icc.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(info.icc_length))) }
        imageDescription = info.description.map { String(cString: $0) }
        tagMicronsPerPixel = Self.micronsPerPixel(resolutionUnit: Int(info.resolution_unit), x: info.x_resolution, y: info.y_resolution)
    }

    /// ``micronsPerPixel(resolutionUnit:x:y:)`` of a TIFF's resolution tags as OpenSlide reports them
    /// (`tiff.ResolutionUnit` `centimeter` or `inch`, `tiff.XResolution`, `tiff.YResolution`); nil without them.
    public static func micronsPerPixel(openSlideProperties properties: [String: String]) -> (x: Double, y: Double)? {
        guard let unit = properties["tiff.ResolutionUnit"].flatMap({ ["inch": 2, "centimeter": 3][$0] }),
            let x = properties["tiff.XResolution"].flatMap(Double.init), let y = properties["tiff.YResolution"].flatMap(Double.init)
        else { return nil }
        return micronsPerPixel(resolutionUnit: unit, x: x, y: y)
    }

    /// Microns per pixel from TIFF resolution tags: `resolutionUnit` 2 (inch) or 3 (centimetre), `x` and `y` pixels
    /// per unit; nil for no unit, a resolution that is not positive, or 72 or 96 pixels per inch both ways (in inches,
    /// or in centimetres as libvips converts them) — the screen resolutions photo and graphics software writes into
    /// every file it saves, which say nothing of the thing pictured (a scale bar from them would call a panorama a
    /// few metres wide).
    public static func micronsPerPixel(resolutionUnit: Int, x: Double, y: Double) -> (x: Double, y: Double)? {
        guard let micronsPerUnit = [2: 25_400.0, 3: 10_000.0][resolutionUnit], x > 0, y > 0, x.isFinite, y.isFinite else { return nil }
        let perInch = (x: x * 25_400 / micronsPerUnit, y: y * 25_400 / micronsPerUnit)
        let isScreenDefault = [72.0, 96.0].contains { abs(perInch.x - $0) < 0.01 && abs(perInch.y - $0) < 0.01 }
        return isScreenDefault ? nil : (micronsPerUnit / x, micronsPerUnit / y)
    }

    deinit { tiler_tiff_pyramid_destroy(pyramid) }

    /// Whether `path` still names the file that was opened (same device, inode, size and modification time); false for
    /// a pyramid read through a ``TIFFByteSource``. One stat.
    public var isCurrent: Bool { FileIdentity(path: path) == identity }

    /// Whether `head`, a file's first (up to) 4 bytes, is "II*\0", "MM\0*", or their BigTIFF forms (43), or a prefix of
    /// one of them (cut short).
    static func hasTIFFMagic(_ head: some Collection<UInt8>) -> Bool {
        guard !head.isEmpty else { return false }
        let forms: [[UInt8]] = [[0x49, 0x49, 42, 0], [0x49, 0x49, 43, 0], [0x4D, 0x4D, 0, 42], [0x4D, 0x4D, 0, 43]]
        return forms.contains { $0.prefix(head.count).elementsEqual(head.prefix(4)) }
    }

    static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: return "no such file"
        case EACCES, EPERM: return "permission denied"
        default: return String(cString: strerror(code))
        }
    }

    /// A C message buffer's text, up to its terminating zero.
    static func string(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension TIFFPyramidError.Kind {
    /// The kind for a CTIFF status code.
    init(status: Int32) {
        switch status {
        case TILER_TIFF_ERR_NOT_PYRAMID: self = .notPyramid
        case TILER_TIFF_ERR_UNSUPPORTED: self = .unsupported
        case TILER_TIFF_ERR_IO, TILER_TIFF_ERR_NOMEM: self = .unreadable
        case TILER_TIFF_ERR_ARGUMENT: self = .invalidArgument
        default: self = .damaged
        }
    }
}
