import Archive
import Foundation
import ImageCodecs

/// A slide's associated image (its label, macro or thumbnail), kept with the slide's sliced pyramid as JPEG:
/// `NAME_files/associated/KIND.jpg` in a folder and in an SZI, a directory of its own in a TIFF
/// (``TIFFAssociatedDirectory``), where `tiler serve` finds it and serves it as it serves a slide's own
/// (`/api/images/NAME/associated/KIND`), so the picker shows a sliced slide's label too.
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
        SZIArchive.isAssociatedKind(kind.utf8)
    }

    /// The kinds a folder pyramid keeps in `files/associated/KIND.jpg` (`files` its `NAME_files`), sorted; empty when
    /// it keeps none.
    public static func kept(inFiles files: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: files + "/associated")) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".jpg"), isKeepable(name.dropLast(4)) else { return nil }
            return String(name.dropLast(4))
        }.sorted()
    }

    /// The associated images of `slide`, as JPEG; empty when it has none. One that cannot be read or named as a file is
    /// left out (the slice goes on without it).
    static func all(of slide: Slide) -> [AssociatedImage] {
        guard let encoder = try? JPEGEncoder(quality: 90) else { return [] }
        return slide.associatedImages.keys.sorted().compactMap { kind in
            guard isKeepable(kind), let pixels = try? slide.associatedRGB(kind), let jpeg = try? encoder.encode(pixels) else { return nil }
            return AssociatedImage(kind: kind, jpeg: jpeg)
        }
    }
}
