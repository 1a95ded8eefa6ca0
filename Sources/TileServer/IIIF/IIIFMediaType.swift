/// Which media type the image information is answered with (Image API 3.0 §5.1): JSON-LD with the version 3
/// profile when the client sends no `Accept` header or prefers `application/ld+json`, else plain JSON.
enum IIIFMediaType: Equatable {
    /// `application/ld+json;profile="http://iiif.io/api/image/3/context.json"`
    case jsonLD
    /// `application/json`
    case json

    /// The `Content-Type` value.
    var contentType: String {
        switch self {
        case .jsonLD: "application/ld+json;profile=\"\(IIIFInfo.context)\""
        case .json: "application/json"
        }
    }

    /// The type to answer a request whose `Accept` header is `accept` (all its values joined with commas).
    ///
    /// JSON-LD is chosen when `application/ld+json` is named explicitly with a quality above 0 and at least that of
    /// `application/json` (matched explicitly or by a wildcard); `*/*` alone, as browsers send, gets plain JSON.
    static func negotiate(accept: String?) -> IIIFMediaType {
        guard let accept else { return .jsonLD }
        var jsonLD: Double?
        var json: (quality: Double, specificity: Int)?
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingSpaces() }
            guard let type = parts.first?.lowercased() else { continue }
            let quality = parts.dropFirst().compactMap(Self.quality).last ?? 1
            switch type {
            case "application/ld+json":
                jsonLD = max(jsonLD ?? 0, quality)
            case "application/json", "application/*", "*/*":
                let specificity = type == "application/json" ? 2 : (type == "*/*" ? 0 : 1)
                if json == nil || specificity > json!.specificity { json = (quality, specificity) }
            default:
                continue
            }
        }
        guard let jsonLD, jsonLD > 0 else { return .json }
        return jsonLD >= (json?.quality ?? 0) ? .jsonLD : .json
    }

    /// The value of a `q=` parameter, or `nil` for other parameters.
    private static func quality(_ parameter: Substring) -> Double? {
        let lower = parameter.lowercased()
        guard lower.hasPrefix("q=") else { return nil }
        return Double(lower.dropFirst(2)).map { min(max($0, 0), 1) }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}
