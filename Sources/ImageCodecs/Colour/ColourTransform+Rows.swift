import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

extension ColourTransform {
    /// Below this many pixels a batch is converted on the calling thread: handing rows to other cores costs more
    /// than it saves (a 16384-pixel row converts in about 0.1 ms).
    public static let pixelsPerThread = 32_768

    /// Converts `rows` rows of `pixels` pixels, `sourceStride` and `destinationStride` bytes apart, spreading them
    /// over the cores when there are enough (the decoding thread waits for them). O(rows × pixels).
    ///
    /// Colour conversion runs on the decoding thread, which feeds every tile; split across cores it no longer
    /// holds the pyramid back (bench/faithful-pixels.sh).
    public func apply(
        rows: Int, from source: UnsafeRawPointer, stride sourceStride: Int, to destination: UnsafeMutablePointer<UInt8>,
        stride destinationStride: Int, pixels: Int
    ) {
        precondition(rows >= 0 && pixels >= 0, "row and pixel counts must not be negative")
        let parts = min(Self.cores, rows, max(1, rows * pixels / Self.pixelsPerThread))
        guard parts > 1 else {
            for row in 0..<rows {
                apply(source + row * sourceStride, to: destination + row * destinationStride, pixels: pixels)
            }
            return
        }
        // Each part converts rows no other part touches: the shim only reads the transform.
        let from = UInt(bitPattern: source)
        let to = UInt(bitPattern: destination)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for row in rows * part / parts..<rows * (part + 1) / parts {
                apply(
                    UnsafeRawPointer(bitPattern: from + UInt(row * sourceStride))!,
                    to: UnsafeMutablePointer(bitPattern: to + UInt(row * destinationStride))!, pixels: pixels)
            }
        }
    }

    private static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
