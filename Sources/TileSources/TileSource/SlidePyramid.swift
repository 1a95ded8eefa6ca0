import ImageCodecs
import Synchronization

/// A whole-slide image served in place through OpenSlide (``Slide``): its levels as stored levels of 3-channel
/// pixels read a region at a time (never passed through), its properties and associated images.
///
/// The OpenSlide handle is not held: it lives in ``SlideHandles`` and is opened again, after checking that the file is
/// still the one first opened, when a read finds it closed. A handle OpenSlide put in its error state is closed at
/// once, so the next read opens the file afresh. Thread-safe.
package final class SlidePyramid: StoredPyramid {
    /// The real path of the slide's main file.
    package let path: String
    /// The file when it was opened: a read finding another (replaced, rewritten) fails instead of serving it as this.
    package let signature: FileSignature
    /// The other files the slide is read from (a VMS's JPEGs, a MIRAX folder's), checked the same way.
    package let companions: SlideCompanions
    /// The folder of the slide's main file when it was opened (nil: not a directory then).
    private let folder: (path: String, signature: FileSignature?)
    /// OpenSlide's format name, e.g. `"aperio"`, `"mirax"`.
    package let vendor: String
    /// The levels as OpenSlide gives them, finest first.
    package let levels: [Slide.Level]
    package let storedLevels: [StoredLevel]
    /// Every property OpenSlide reports.
    package let properties: [String: String]
    /// The colour of what is not scanned: `openslide.background-color`, else white.
    package let background: (red: UInt8, green: UInt8, blue: UInt8)
    /// The associated images' names and sizes.
    package let associatedImages: [String: (width: Int, height: Int)]
    /// The vendor, objective, microns per pixel, bounds and associated images, from the properties.
    package let facts: ImageFacts
    /// A VMS's JPEGs, for the levels read without OpenSlide (the same pixels, one decode a region).
    package let jpegGrid: RestartJPEGGrid?
    private let handles: SlideHandles
    /// Decoded blocks of the levels ``jpegGrid`` reads.
    private let blocks: SlideBlockCache
    private let id: Int
    /// Associated images encoded as JPEG, by name, once asked for.
    private let associatedJPEGs = Mutex<[String: [UInt8]]>([:])

    /// The side of the square tiles ``decodeTile(level:column:row:into:)`` reads (OpenSlide has no single tile size).
    package static let tileSide = 256

    /// Opens the slide at `path` (a real path) and keeps its handle in `handles`.
    ///
    /// - Throws: ``SlideError``.
    package init(path: String, handles: SlideHandles = .shared, blocks: SlideBlockCache = .shared) throws(SlideError) {
        guard let signature = FileSignature(path: path) else { throw SlideError(kind: .changed, path: path, reason: "not a regular file") }
        // The files beside it first: one that is not a regular file (a FIFO) would hold OpenSlide's open for ever.
        let detected = Slide.vendor(of: path) ?? ""
        let companions = SlideCompanions(path: path, vendor: detected)
        guard !companions.hasIrregularFile else {
            throw SlideError(kind: .damaged, path: path, reason: "a file it is read from is not a regular file")
        }
        let slide = try Slide(path: path)
        self.path = path
        self.signature = signature
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let folderPath = parent.isEmpty ? "/" : parent
        folder = (folderPath, FileSignature(directory: folderPath))
        self.companions = slide.vendor == detected ? companions : SlideCompanions(path: path, vendor: slide.vendor)
        vendor = slide.vendor
        levels = slide.levels
        storedLevels = slide.levels.map {
            StoredLevel(width: $0.width, height: $0.height, tileWidth: Self.tileSide, tileHeight: Self.tileSide, channels: 3, passesThrough: false)
        }
        properties = slide.properties
        background = slide.background
        jpegGrid = slide.vendor == "hamamatsu" ? RestartJPEGGrid(vmsPath: path, levels: slide.levels, properties: slide.properties) : nil
        associatedImages = slide.associatedImages
        colourProfile = PyramidFileNames.isTIFFFamily(path) ? (try? ImageDecoder.readHeader(path: path))?.iccProfile : nil
        facts = ImageFacts(vendor: slide.vendor, properties: slide.properties, associated: Array(slide.associatedImages.keys))
        self.handles = handles
        self.blocks = blocks
        id = handles.makeID()
        handles.keep(slide, for: id)
    }

    deinit { handles.drop(id) }

    /// A TIFF-based slide's ICC profile (its first image's `ICCProfile` tag; OpenSlide 3.4 has no call for it), so its
    /// tiles are converted to sRGB as `tiler slice` converts the same file's; nil for other formats.
    package let colourProfile: [UInt8]?

    /// The open handle, opened again if it was closed.
    ///
    /// - Throws: ``SlideError`` — `.changed` when the file is no longer the one first opened, or what opening throws.
    package func slide() throws(SlideError) -> Slide {
        if let slide = handles.handle(id) { return slide }
        guard isCurrent else {
            throw SlideError(kind: .changed, path: path, reason: "the file changed since it was opened")
        }
        let slide = try Slide(path: path)
        guard slide.levels == levels else { throw SlideError(kind: .changed, path: path, reason: "the file changed since it was opened") }
        handles.keep(slide, for: id)
        return slide
    }

    /// Closes the handle now, as an eviction from ``SlideHandles`` would: the next read opens the file again.
    package func closeHandle() { handles.drop(id) }

    /// Whether the file at ``path`` and its ``companions`` are still the ones opened. One stat per file.
    package var isCurrent: Bool { FileSignature(path: path) == signature && companions.areCurrent }

    /// ``isCurrent`` for a read of the VMS JPEGs `jpegs` alone, in a stat each for the key file, those JPEGs and the
    /// folder: while no entry of the folder was added, removed or renamed over since the slide was opened, every other
    /// companion is still there and the same file (or rewritten in place, which the next scan notices; no pixel of
    /// the read is its). Otherwise every companion is checked, as ``isCurrent``. A slide has up to hundreds of JPEGs;
    /// one stat each was about 1 % of a tile one level down (`bench/slide-serve.sh`).
    private func isCurrent(reading jpegs: [String]) -> Bool {
        guard FileSignature(path: path) == signature, companions.areCurrent(jpegs) else { return false }
        return (folder.signature != nil && FileSignature(directory: folder.path) == folder.signature) || companions.areCurrent
    }

    /// `pixels`, read from the slide, if its files are still the ones opened; else the handle is closed and the read
    /// fails. Checked after the read: a file replaced during it (a new identity for good) is noticed. `jpegs`: the read
    /// was of those of a VMS's JPEGs alone (``RestartJPEGGrid``), so only they and the key file are checked (a stat
    /// each, not one per file of the slide); nil: through OpenSlide, which may have read any of them.
    ///
    /// - Throws: ``SlideError`` `.changed`.
    private func checked<T>(_ pixels: T, jpegs: [String]? = nil) throws(SlideError) -> T {
        guard jpegs.map(isCurrent(reading:)) ?? isCurrent else {
            handles.drop(id)
            throw SlideError(kind: .changed, path: path, reason: "the slide's files changed since it was opened")
        }
        return pixels
    }

    package func region(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) throws -> PixelBuffer {
        let downsample = levels[level].downsample
        if let jpegGrid, jpegGrid.reads(level: level) {
            let jpegs = jpegGrid.paths(level: level, x0: x0, y0: y0, x1: x1, y1: y1)
            let read: PixelBuffer?
            do {
                read = try blocks.region(
                    slide: id, level: level, size: (levels[level].width, levels[level].height), x0: x0, y0: y0, x1: x1, y1: y1,
                    background: background
                ) { x, y, width, height in
                    try jpegGrid.rgb(level: level, x: x, y: y, width: width, height: height, background: background)
                }
            } catch let error as SlideError {
                // A JPEG replaced since it was indexed reads as damaged: say it changed.
                throw try checked(error, jpegs: jpegs)
            }
            if let read { return try checked(read, jpegs: jpegs) }
        }
        let slide = try slide()
        do {
            return try checked(
                slide.rgb(level: level, x: Int(Double(x0) * downsample), y: Int(Double(y0) * downsample), width: x1 - x0, height: y1 - y0))
        } catch {
            // OpenSlide keeps a failed handle failed: close it, so the next read tries the file again.
            if error.kind == .damaged { handles.drop(id) }
            throw error
        }
    }

    /// Associated image `name` as RGB.
    ///
    /// - Throws: ``SlideError``.
    package func associated(_ name: String) throws(SlideError) -> PixelBuffer {
        let slide = try slide()
        do {
            return try checked(slide.associatedRGB(name))
        } catch {
            if error.kind == .damaged { handles.drop(id) }
            throw error
        }
    }

    /// Associated image `name` as JPEG, if it was encoded already.
    package func encodedAssociated(_ name: String) -> [UInt8]? {
        associatedJPEGs.withLock { $0[name] }
    }

    /// Associated image `name` as JPEG (quality 90), encoded now and kept. Blocking.
    ///
    /// - Throws: ``SlideError``, `CodecError`.
    package func encodeAssociated(_ name: String) throws -> [UInt8] {
        if let bytes = encodedAssociated(name) { return bytes }
        let bytes = try JPEGEncoder(quality: 90).encode(try associated(name))
        associatedJPEGs.withLock { $0[name] = bytes }
        return bytes
    }

    package func decodeTile(level: Int, column: Int, row: Int, into pixels: UnsafeMutableRawBufferPointer) throws {
        let side = Self.tileSide
        let tile = try region(level: level, x0: column * side, y0: row * side, x1: column * side + side, y1: row * side + side)
        precondition(pixels.count >= tile.bytes.count, "tile buffer too small")
        tile.bytes.withUnsafeBytes { pixels.copyMemory(from: $0) }
    }

    package func jpegTile(level: Int, column: Int, row: Int) throws -> [UInt8] {
        throw SlideError(kind: .invalidArgument, path: path, reason: "slide tiles are not passed through")
    }

    package func jpegTileIfCached(level: Int, column: Int, row: Int) throws -> [UInt8]? { nil }
}
