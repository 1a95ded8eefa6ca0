/// Content types by file extension, for tiles and the viewer's files.
package enum MIMEType {
    /// The `Content-Type` for a file extension (case-insensitive, without the dot); `application/octet-stream` for
    /// unknown ones.
    package static func forExtension(_ fileExtension: some StringProtocol) -> String {
        switch fileExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json", "map": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "webp": "image/webp"
        case "gif": "image/gif"
        case "ico": "image/x-icon"
        case "dzi", "xml": "application/xml"
        case "txt": "text/plain; charset=utf-8"
        case "wasm": "application/wasm"
        case "woff2": "font/woff2"
        default: "application/octet-stream"
        }
    }

    /// The extension of the last path segment (without the dot), or `""`.
    package static func fileExtension(of path: some StringProtocol) -> Substring {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return Substring(name[name.index(after: dot)...])
    }
}
