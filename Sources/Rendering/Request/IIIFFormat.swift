/// The format of a IIIF image response (Image API 3.0 §4.5): the extension ending the request.
package enum IIIFFormat: String, Sendable, CaseIterable {
    /// JPEG, `image/jpeg`.
    case jpg
    /// PNG, `image/png`.
    case png
    /// WebP, `image/webp` (lossy, or lossless for stored lossless tiles sent as they are).
    case webp

    /// Formats the specification defines that this server does not produce: requests for them get 501.
    package static let unimplemented: Set<Substring> = ["tif", "gif", "jp2", "pdf"]

    /// The format named by `text` (exactly, as bytes), or `nil`.
    package init?(bytes text: Substring) {
        if text.isBytes("jpg") {
            self = .jpg
        } else if text.isBytes("png") {
            self = .png
        } else if text.isBytes("webp") {
            self = .webp
        } else {
            return nil
        }
    }

    /// The `Content-Type` of responses in this format.
    package var mimeType: String {
        switch self {
        case .jpg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// The format whose tiles are stored with the pyramid extension `tileExtension` (`jpg`, `jpeg`, `png` or
    /// `webp`, any case), or `nil`.
    package init?(tileExtension: String) {
        // Case-insensitive on ASCII bytes, without allocating (this is on every tile-shaped request's path).
        let lower = tileExtension.utf8.lazy.map { $0 | 0x20 }
        if lower.elementsEqual("jpg".utf8) || lower.elementsEqual("jpeg".utf8) {
            self = .jpg
        } else if lower.elementsEqual("png".utf8) {
            self = .png
        } else if lower.elementsEqual("webp".utf8) {
            self = .webp
        } else {
            return nil
        }
    }
}
