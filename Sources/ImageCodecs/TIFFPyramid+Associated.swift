import CTIFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TIFFPyramid {
    /// The associated images the file keeps as directories of their own after its levels — a sliced slide's `label`,
    /// `macro` and `thumbnail`, as `tiler slice --container tiff` stores them (striped, NewSubfileType 1, JPEG in one
    /// strip, the kind alone as ImageDescription) — with their sizes in pixels, by kind. Empty for the other layouts
    /// (an Aperio SVS's are OpenSlide's to read).
    public var associatedImages: [String: (width: Int, height: Int)] {
        var images: [String: (width: Int, height: Int)] = [:]
        for index in 0..<tiler_tiff_pyramid_associated_count(pyramid) {
            var image = tiler_tiff_associated()
            tiler_tiff_pyramid_get_associated(pyramid, index, &image)
            images[String(cString: image.kind)] = (Int(image.width), Int(image.height))
        }
        return images
    }

    /// Associated image `kind` (``associatedImages``) as a JPEG file: its strip as stored, after its directory's
    /// JPEGTables (without EOI) when it has them. One pread; no decoding. Blocking.
    ///
    /// - Complexity: O(image bytes). - Throws: ``TIFFPyramidError``: `.invalidArgument` when the file keeps no image of
    ///   that kind, `.damaged` for a short read (the file changed since it was opened) or a strip that is no JPEG.
    public func associatedJPEG(_ kind: String) throws(TIFFPyramidError) -> [UInt8] {
        let range = try associatedStripRange(kind)
        let strip = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, count in
            let descriptor = tiler_tiff_pyramid_descriptor(pyramid)
            var done = 0
            while done < range.count {
                let read = pread(descriptor, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { break }
                done += read
            }
            count = done
        }
        guard strip.count == range.count else {
            throw TIFFPyramidError(
                kind: .damaged, path: path, reason: "the \(kind) image's \(range.count) bytes at \(range.lowerBound) cannot be read")
        }
        return try associatedJPEG(kind, strip: strip)
    }

    /// Where associated image `kind`'s strip lies in the TIFF, in bytes (within it), to be read by a caller that reads
    /// the TIFF's bytes itself (an object in a store).
    ///
    /// - Throws: ``TIFFPyramidError`` `.invalidArgument` when the file keeps no image of that kind.
    public func associatedStripRange(_ kind: String) throws(TIFFPyramidError) -> Range<Int> {
        let image = try associatedImage(kind)
        return Int(image.offset)..<Int(image.offset + image.length)
    }

    /// Associated image `kind` as a JPEG file from its strip's bytes (``associatedStripRange(_:)``, read by the
    /// caller): the strip after its directory's JPEGTables (without EOI) when it has them. No decoding.
    ///
    /// - Throws: ``TIFFPyramidError`` `.invalidArgument` when the file keeps no image of that kind, `.damaged` for a
    ///   strip that is no JPEG.
    public func associatedJPEG(_ kind: String, strip: [UInt8]) throws(TIFFPyramidError) -> [UInt8] {
        let image = try associatedImage(kind)
        guard strip.count >= 2, strip[0] == 0xFF, strip[1] == 0xD8 else {
            throw TIFFPyramidError(kind: .damaged, path: path, reason: "the \(kind) image is not JPEG")
        }
        guard let tables = image.tables, image.tables_length >= 4 else { return strip }
        // Tables without EOI, then the strip without SOI: one JPEG file again (a redefined table replaces the other).
        return [UInt8](UnsafeBufferPointer(start: tables, count: Int(image.tables_length) - 2)) + strip.dropFirst(2)
    }

    /// The C description of associated image `kind`.
    private func associatedImage(_ kind: String) throws(TIFFPyramidError) -> tiler_tiff_associated {
        var image = tiler_tiff_associated()
        let found = (0..<tiler_tiff_pyramid_associated_count(pyramid)).contains { index in
            tiler_tiff_pyramid_get_associated(pyramid, index, &image)
            return String(cString: image.kind) == kind
        }
        guard found else { throw TIFFPyramidError(kind: .invalidArgument, path: path, reason: "no associated image \(kind.prefix(64))") }
        return image
    }
}
