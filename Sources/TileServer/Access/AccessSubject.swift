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

extension Route {
    /// What this route touches.
    var accessSubject: AccessSubject {
        switch self {
        case .tile(let name, _, _): .pixels(name: name)
        // A slide's properties and associated images (a label may carry a patient's name) need a token, like its
        // descriptor: no signed URLs are handed out for them.
        case .descriptor(let name), .visible(let name), .properties(let name), .associated(let name, _): .metadata(name: name)
        case .imageList: .list
        // A job's id is its capability; the job list and cancelling check the write token themselves.
        case .health, .metrics, .staticFile, .unknown, .jobs, .job, .jobEvents: .open
        }
    }
}

extension IIIFRoute {
    /// What this route touches.
    var accessSubject: AccessSubject {
        switch self {
        case .base(let identifier), .info(let identifier), .probe(let identifier): .metadata(name: identifier)
        case .image(let identifier, _, _, _, _): .pixels(name: identifier)
        case .accessToken, .unknown: .open
        }
    }
}
