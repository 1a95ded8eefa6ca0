import HTTPCore
import NIOHTTP1
import TileSources

/// What a request asks for, matched from its decoded path by ``Route/init(path:)``.
///
/// Names are slices of the path (no allocation); they are looked up in the catalog, never used as file paths.
enum Route {
    /// `GET /api/images`: the list of pyramids.
    case imageList
    /// `GET /api/images/{name}/visible?…`: the visible-rect query.
    case visible(name: Substring)
    /// `GET /api/images/{name}/properties`: every property of a slide (OpenSlide's), as JSON.
    case properties(name: Substring)
    /// `GET /api/images/{name}/associated/{kind}`: a slide's associated image (`label`, `macro`, `thumbnail`), as JPEG.
    case associated(name: Substring, kind: Substring)
    /// `GET /images/{name}.dzi`: a pyramid's descriptor.
    case descriptor(name: Substring)
    /// `GET /images/{name}_files/{level}/{col}_{row}.{ext}`: one tile.
    case tile(name: Substring, tile: TileAddress, format: String)
    /// `GET /api/jobs` (write token): every slicing job.
    case jobs
    /// `GET` or `DELETE /api/jobs/{id}`: one job.
    case job(id: Substring)
    /// `GET /api/jobs/{id}/events`: the job's changes as Server-Sent Events.
    case jobEvents(id: Substring)
    /// `GET /healthz`
    case health
    /// `GET /metrics`
    case metrics
    /// Any other path: a file of the viewer.
    case staticFile(path: Substring)
    /// A path under `/api/` or `/images/` that matches no route: 404 with a JSON body.
    case unknown(path: Substring)

    /// The methods this route's resource takes, as `Allow` lists them: `GET`, `HEAD` and `OPTIONS` everywhere, `DELETE`
    /// for a job (cancelling it), and only `PUT` and `OPTIONS` for an upload's URL (`/api/images/NAME`, which names no
    /// resource to read).
    var allowedMethods: [HTTPMethod] {
        switch self {
        case .job: [.GET, .HEAD, .DELETE, .OPTIONS]
        case .unknown(let path) where path.hasPrefix("/api/images/"): [.PUT, .OPTIONS]
        default: [.GET, .HEAD, .OPTIONS]
        }
    }

    /// The metrics label of this route.
    var label: RouteLabel {
        switch self {
        case .imageList: .images
        case .visible: .visible
        case .properties, .associated: .images
        case .descriptor: .descriptor
        case .tile: .tile
        case .health: .health
        case .metrics: .metrics
        case .staticFile: .staticFile
        case .unknown: .invalid
        case .jobs, .job, .jobEvents: .jobs
        }
    }
}
