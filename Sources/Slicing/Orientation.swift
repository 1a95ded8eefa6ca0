import ImageCodecs

/// An EXIF / TIFF orientation (1–8): how the stored rows must be turned to show the picture as it is meant to be
/// seen. Any format's decoder reports the number; ``OrientedRowSource`` applies it to any ``RowSource``.
public struct Orientation: Sendable, Hashable, CustomStringConvertible {
    /// The EXIF value, 1…8.
    public let value: Int

    /// The orientation for EXIF `value`, or nil outside 1…8.
    public init?(exif value: Int) {
        guard (1...8).contains(value) else { return nil }
        self.value = value
    }

    private init(checked value: Int) { self.value = value }

    /// 1: stored upright.
    public static let up = Orientation(checked: 1)

    /// Orientations 5–8 exchange width and height.
    public var swapsAxes: Bool { value >= 5 }

    /// The displayed size of a stored `width × height` image.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// In words, e.g. `"6 (rotate 90° clockwise)"`.
    public var description: String {
        let words = [
            "upright", "mirrored left to right", "rotate 180°", "mirrored top to bottom", "transposed",
            "rotate 90° clockwise", "transversed", "rotate 90° counter-clockwise",
        ]
        return "\(value) (\(words[value - 1]))"
    }

    /// Whether displayed rows are stored columns (5–8) and, for each displayed row, whether it is read from the
    /// last stored column backwards (7, 8) and whether its pixels run from the last stored row up (6, 7).
    var columnsReversed: Bool { value == 7 || value == 8 }
    var rowsReversedInOutput: Bool { value == 6 || value == 7 }
}
