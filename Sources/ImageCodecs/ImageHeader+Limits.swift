extension ImageHeader {
    /// Throws unless the declared size is non-zero, within `maxPixels`, and a row's byte count fits an Int.
    ///
    /// Runs on the header alone, before any pixel memory is allocated. O(1).
    func checkLimits(maxPixels: Int, path: String) throws(CodecError) {
        guard width > 0, height > 0 else {
            throw CodecError(kind: .corrupt, path: path, message: "image has zero size (\(width) × \(height))")
        }
        try Self.checkPixelCount(width: width, height: height, maxPixels: maxPixels, path: path)
        guard !width.multipliedReportingOverflow(by: channels).overflow else {
            throw CodecError(kind: .tooLarge, path: path, message: "a row of \(width) pixels × \(channels) channels is too large")
        }
    }

    /// Throws `.tooLarge` unless `width × height` is at most `maxPixels`. O(1).
    static func checkPixelCount(width: Int, height: Int, maxPixels: Int, path: String) throws(CodecError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            let count = overflow ? "more than \(Int.max)" : "\(pixels)"
            throw CodecError(
                kind: .tooLarge, path: path,
                message: "image is \(width) × \(height) = \(count) pixels, over the limit of \(maxPixels)")
        }
    }
}
