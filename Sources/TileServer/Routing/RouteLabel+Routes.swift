import HTTPCore

/// The service's routes as metrics count them, in the order `/metrics` lists them.
extension RouteLabel {
    /// `/api/images`
    static let images = RouteLabel(rawValue: 1, name: "images")
    /// `/api/images/{name}/visible`
    static let visible = RouteLabel(rawValue: 2, name: "visible")
    /// `/images/{name}.dzi`
    static let descriptor = RouteLabel(rawValue: 3, name: "dzi")
    /// `/images/{name}_files/{level}/{col}_{row}.{ext}`
    static let tile = RouteLabel(rawValue: 4, name: "tile")
    /// `/healthz`
    static let health = RouteLabel(rawValue: 5, name: "healthz")
    /// `/metrics`
    static let metrics = RouteLabel(rawValue: 6, name: "metrics")
    /// The viewer's files from `Public/`.
    static let staticFile = RouteLabel(rawValue: 7, name: "static")
    /// `/iiif/3/{id}` and `/iiif/3/{id}/info.json`
    static let iiifInfo = RouteLabel(rawValue: 8, name: "iiif_info")
    /// `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`
    static let iiifImage = RouteLabel(rawValue: 9, name: "iiif_image")
    /// `PUT /api/images/{name}`: uploads.
    static let upload = RouteLabel(rawValue: 10, name: "upload")
    /// `/api/jobs…`: slicing jobs.
    static let jobs = RouteLabel(rawValue: 11, name: "jobs")

    /// Every label, in the order `/metrics` lists them; `rawValue`s are 0 ..< `allCases.count`.
    static let allCases: [RouteLabel] = [
        .images, .visible, .descriptor, .tile, .health, .metrics, .staticFile, .invalid, .iiifInfo, .iiifImage, .upload, .jobs,
    ]
}
