import ImageCodecs

/// A slide's associated image (its label, macro or thumbnail), kept with the slide's sliced pyramid as JPEG:
/// `NAME_files/associated/KIND.jpg` in a folder and in an SZI, where `tiler serve` finds it and serves it as it serves
/// a slide's own (`/api/images/NAME/associated/KIND`), so the picker shows a sliced slide's label too.
public struct AssociatedImage: Sendable, Equatable {
    /// OpenSlide's name for it (`label`, `macro`, `thumbnail`).
    public let kind: String
    /// The image as JPEG (quality 90, as the server encodes a slide's).
    public let jpeg: [UInt8]

    public init(kind: String, jpeg: [UInt8]) {
        self.kind = kind
        self.jpeg = jpeg
    }

    /// The largest kept image, in bytes (a macro image of a whole slide at quality 90 is a few megabytes at most).
    public static let maxBytes = 64 << 20

    /// Whether `kind` can name a kept image's file: 1–64 ASCII letters, digits, `-` and `_`.
    public static func isKeepable(_ kind: some StringProtocol) -> Bool {
        (1...64).contains(kind.utf8.count)
            && kind.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// The associated images of the slide at `path`, as JPEG; empty when OpenSlide does not read the file or it has
    /// none. One that cannot be read or named as a file is left out (the slice goes on without it).
    public static func ofSlide(path: String) -> [AssociatedImage] {
        guard Slide.vendor(of: path) != nil, let slide = try? Slide(path: path), let encoder = try? JPEGEncoder(quality: 90) else { return [] }
        return slide.associatedImages.keys.sorted().compactMap { kind in
            guard isKeepable(kind), let pixels = try? slide.associatedRGB(kind), let jpeg = try? encoder.encode(pixels) else { return nil }
            return AssociatedImage(kind: kind, jpeg: jpeg)
        }
    }
}
