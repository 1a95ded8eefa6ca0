import CTIFF

/// The bytes of a TIFF that is no local file — an object in a store — as ``TIFFPyramid/init(source:label:)`` reads its
/// header and directories: from bytes the caller fetched ahead, never by waiting for them. A read of bytes not at hand
/// fails the open; the caller, having noted which were wanted, fetches them and opens again (as an SZI in a store is
/// opened, parsed over the bytes fetched).
///
/// Read on the opening thread, and later by the threads that decode tiles (each libtiff handle reads its level's
/// directory again): a conformance must be thread-safe. Tiles are never read through it.
public protocol TIFFByteSource: AnyObject, Sendable {
    /// The TIFF's size in bytes.
    var size: Int { get }

    /// Copies the bytes at `offset` into `buffer`, as many as fit (fewer only at the end of the TIFF), and returns how
    /// many it copied; nil when they are not at hand.
    ///
    /// - Complexity: O(`buffer.count`) plus the lookup of the bytes held.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int?
}

/// The C view of a ``TIFFByteSource``: its size, and a read function called with the box as context. The box is kept
/// by the ``TIFFPyramid`` that reads through it, so it outlives the C pyramid.
final class TIFFSourceBox: Sendable {
    let source: any TIFFByteSource

    init(_ source: any TIFFByteSource) {
        self.source = source
    }

    /// The `tiler_tiff_source` reading through this box (valid while the box lives): its read function gives the
    /// byte count copied, or -1 when the bytes are not at hand.
    var cSource: tiler_tiff_source {
        tiler_tiff_source(context: Unmanaged.passUnretained(self).toOpaque(), size: UInt64(source.size)) { context, offset, destination, length in
            guard let context, let destination, offset <= UInt64(Int.max) else { return -1 }
            let box = Unmanaged<TIFFSourceBox>.fromOpaque(context).takeUnretainedValue()
            let copied = box.source.read(at: Int(offset), into: UnsafeMutableRawBufferPointer(start: destination, count: length))
            return copied.map { Int64($0) } ?? -1
        }
    }
}
