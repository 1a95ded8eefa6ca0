/// The format of a IIIF image response (Image API 3.0 §4.5): the extension ending the request.
enum IIIFFormat: String, Sendable, CaseIterable {
    /// JPEG, `image/jpeg`.
    case jpg
    /// PNG, `image/png`.
    case png

    /// Formats the specification defines that this server does not produce: requests for them get 501.
    static let unimplemented: Set<Substring> = ["tif", "gif", "jp2", "pdf", "webp"]

    /// The `Content-Type` of responses in this format.
    var mimeType: String {
        switch self {
        case .jpg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// The format whose tiles are stored with the pyramid extension `tileExtension` (`jpg`, `jpeg` or `png`, any
    /// case), or `nil`.
    init?(tileExtension: String) {
        switch tileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpg
        case "png": self = .png
        default: return nil
        }
    }
}
