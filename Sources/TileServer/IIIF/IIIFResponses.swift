import NIOCore

/// The pre-encoded response heads of the IIIF service.
enum IIIFResponses {
    /// Rendered JPEG images: revalidated (IIIF ids carry no version, so a re-slice keeps the URL), which is cheap:
    /// the entity tag is known without rendering.
    static let jpeg = ResponseProfile(contentType: IIIFFormat.jpg.mimeType, cacheControl: ResponseProfile.revalidate, cors: true)
    /// Rendered PNG images.
    static let png = ResponseProfile(contentType: IIIFFormat.png.mimeType, cacheControl: ResponseProfile.revalidate, cors: true)
    /// Rendered WebP images.
    static let webp = ResponseProfile(contentType: IIIFFormat.webp.mimeType, cacheControl: ResponseProfile.revalidate, cors: true)
    /// Image information as JSON-LD.
    static let infoJSONLD = ResponseProfile(contentType: IIIFMediaType.jsonLD.contentType, cacheControl: ResponseProfile.short, cors: true)
    /// Image information as plain JSON.
    static let infoJSON = ResponseProfile(contentType: IIIFMediaType.json.contentType, cacheControl: ResponseProfile.short, cors: true)
    /// Redirects and CORS preflight answers (empty bodies).
    static let empty = ResponseProfile(contentType: "text/plain; charset=utf-8", cacheControl: ResponseProfile.short, cors: true)

    /// The profile of rendered images in `format`.
    static func image(_ format: IIIFFormat) -> ResponseProfile {
        switch format {
        case .jpg: jpeg
        case .png: png
        case .webp: webp
        }
    }

    /// The strong entity tag of a rendered image: a 64-bit FNV-1a hash of the image's name, its descriptor's size
    /// and modification time (as tiles' tags use), the canonical parameters and the renderer's version. Stable
    /// across restarts; changes when the pyramid is re-sliced or the rendering changes.
    static func etag(of request: IIIFImageRequest, image: CatalogImage) -> String {
        let signature = image.signature
        let text = "r1|\(image.name)|\(signature.size)|\(signature.seconds).\(signature.nanoseconds)|\(request.canonicalParameters)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\"iiif-\(String(hash, radix: 16))\""
    }
}
