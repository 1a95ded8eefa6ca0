/// What a request touches, as the access step (``Router/authorize(_:query:exchange:)``) sees it: routes of both
/// services map to one of these, so access is decided in one place.
enum AccessSubject {
    /// Nothing private: health, metrics, the viewer's files, unknown paths.
    case open
    /// The image list (filtered by the token presented, if any).
    case list
    /// What describes image `name` (as in the URL): a descriptor, a visible-rect answer, IIIF image information or
    /// its probe. A private image's needs a token.
    case metadata(name: Substring)
    /// Image `name`'s pixels: a tile, an IIIF image. A private image's needs a signed URL or a token.
    case pixels(name: Substring)
}
