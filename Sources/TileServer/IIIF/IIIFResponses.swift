import NIOCore
import Rendering
import TileSources

/// What the IIIF service's answers share (their profiles are in ``ResponseBlocks``).
enum IIIFResponses {
    /// The strong entity tag of a rendered image: a 64-bit FNV-1a hash of the image's name, its descriptor's size
    /// and modification time (as tiles' tags use), the canonical parameters and the renderer's version. Stable
    /// across restarts; changes when the pyramid is re-sliced or the rendering changes.
    static func etag(of request: IIIFImageRequest, image: CatalogImage) -> String {
        let signature = image.signature
        let text = "r1|\(image.name)|\(signature.size)|\(signature.seconds).\(signature.nanoseconds)|\(request.canonicalParameters)"
        return "\"iiif-\(String(FNV1a.hash(text.utf8), radix: 16))\""
    }
}
