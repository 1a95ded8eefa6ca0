/// What the access step (``Router/authorize(_:query:exchange:)``) allows a request, for the route to shape its
/// answer: nothing to check, a verified token, or a verified tile signature.
enum AccessGrant {
    /// The image is public (or there is no policy): answered as always.
    case open
    /// A private image, with this verified token: answered to the bearer only (never stored by shared caches).
    case token(AccessToken)
    /// A private image's tile under a signed URL valid until `expires` (Unix seconds): shared caches may keep it
    /// until then.
    case signed(expires: Int)
    /// The image list, with the token presented (if any): lists the public images and those it grants.
    case list(AccessToken?)
    /// The image list, whose credential was refused for this reason: the public images, the refusal in a header.
    case listRefused(AccessRefusal)
}
