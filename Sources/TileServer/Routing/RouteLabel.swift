/// The route a request was counted under in the metrics: a closed set with fixed slots.
enum RouteLabel: Int, CaseIterable, Sendable {
    /// `/api/images`
    case images
    /// `/api/images/{name}/visible`
    case visible
    /// `/images/{name}.dzi`
    case descriptor
    /// `/images/{name}_files/{level}/{col}_{row}.{ext}`
    case tile
    /// `/healthz`
    case health
    /// `/metrics`
    case metrics
    /// The viewer's files from `Public/`.
    case staticFile
    /// Requests refused before routing: malformed, bad paths, wrong methods, timeouts.
    case invalid
    /// `/iiif/3/{id}` and `/iiif/3/{id}/info.json`
    case iiifInfo
    /// `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`
    case iiifImage
    /// `PUT /api/images/{name}`: uploads.
    case upload
    /// `/api/jobs…`: slicing jobs.
    case jobs

    /// The Prometheus label value.
    var name: String {
        switch self {
        case .images: "images"
        case .visible: "visible"
        case .descriptor: "dzi"
        case .tile: "tile"
        case .health: "healthz"
        case .metrics: "metrics"
        case .staticFile: "static"
        case .invalid: "invalid"
        case .iiifInfo: "iiif_info"
        case .iiifImage: "iiif_image"
        case .upload: "upload"
        case .jobs: "jobs"
        }
    }
}
