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
        var image = tiler_tiff_associated()
        let found = (0..<tiler_tiff_pyramid_associated_count(pyramid)).contains { index in
            tiler_tiff_pyramid_get_associated(pyramid, index, &image)
            return String(cString: image.kind) == kind
        }
        guard found else { throw TIFFPyramidError(kind: .invalidArgument, path: path, reason: "no associated image \(kind.prefix(64))") }
        let length = Int(image.length)
        let strip = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            let descriptor = tiler_tiff_pyramid_descriptor(pyramid)
            var done = 0
            while done < length {
                let read = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(image.offset) + off_t(done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { break }
                done += read
            }
            count = done
        }
        guard strip.count == length else {
            throw TIFFPyramidError(kind: .damaged, path: path, reason: "the \(kind) image's \(length) bytes at \(image.offset) cannot be read")
        }
        guard strip[0] == 0xFF, strip[1] == 0xD8 else {
            throw TIFFPyramidError(kind: .damaged, path: path, reason: "the \(kind) image is not JPEG")
        }
        guard let tables = image.tables, image.tables_length >= 4 else { return strip }
        // Tables without EOI, then the strip without SOI: one JPEG file again (a redefined table replaces the other).
        return [UInt8](UnsafeBufferPointer(start: tables, count: Int(image.tables_length) - 2)) + strip.dropFirst(2)
    }
}
