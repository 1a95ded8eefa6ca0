/// Which images an IIIF route’s requests touch, for the access policy.
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
