import NIOCore

/// Which web origins may read the server's answers (CORS), with every header line it adds encoded once.
///
/// Any origin (`*`, the default): every response carries `Access-Control-Allow-Origin: *` in its profile's fixed
/// lines, as cheap as no CORS. A list of origins: every response says `Vary: Origin` (a cache must not hand one
/// origin's answer to another), and one whose request came from a listed origin also names it
/// (``allowLine(for:)``, a buffer looked up, not formatted). Both expose the headers the service names (`ETag` and
/// `Content-Range`, and the service's own) to scripts.
package final class CORSPolicy: Sendable {
    /// The origins allowed, `nil` for any.
    package let origins: [String]?
    /// The lines every response carries (each ending in CRLF).
    package let fixedLines: String
    /// `Access-Control-Allow-Origin: ORIGIN` for each listed origin.
    private let allowLines: [String: ByteBuffer]

    /// A policy allowing `origins` (`["*"]` or empty: any origin), exposing `ETag`, `Content-Range` and `exposing`
    /// (header names) to scripts.
    package init(origins: [String], exposing: [String] = []) {
        let expose = "Access-Control-Expose-Headers: \((["ETag", "Content-Range"] + exposing).joined(separator: ", "))\r\n"
        if origins.isEmpty || origins == ["*"] {
            self.origins = nil
            fixedLines = "Access-Control-Allow-Origin: *\r\n" + expose
            allowLines = [:]
        } else {
            self.origins = origins
            fixedLines = "Vary: Origin\r\n" + expose
            allowLines = Dictionary(
                origins.map { ($0, ByteBuffer(string: "Access-Control-Allow-Origin: \($0)\r\n")) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The line naming `origin` when the policy lists it; `nil` when any origin is allowed (the fixed lines say so)
    /// or `origin` is absent or not listed.
    ///
    /// - Complexity: One hash lookup, only with a list and an `Origin` header.
    package func allowLine(for origin: String?) -> ByteBuffer? {
        guard let origin, !allowLines.isEmpty else { return nil }
        return allowLines[origin]
    }

    /// Whether a request from `origin` (its `Origin` header, if any) may read the answer.
    package func allows(_ origin: String?) -> Bool {
        origins == nil || origin.map { allowLines[$0] != nil } ?? false
    }

    /// Checks an origin as `--cors-origin` takes it: `*`, or `scheme://host[:port]` with no path, query or
    /// trailing slash (what browsers send in `Origin`).
    ///
    /// - Returns: `nil` when valid, else a one-line reason.
    package static func problem(with origin: String) -> String? {
        if origin == "*" { return nil }
        guard let schemeEnd = origin.firstRange(of: "://"), schemeEnd.lowerBound > origin.startIndex else {
            return "\(origin) is not an origin: write scheme://host[:port], e.g. https://viewer.example.org"
        }
        let scheme = origin[..<schemeEnd.lowerBound]
        let authority = origin[schemeEnd.upperBound...]
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
            !authority.isEmpty, authority.utf8.allSatisfy(URLParts.isHostByte), !authority.contains("/")
        else {
            return "\(origin) is not an origin: write scheme://host[:port] with no path or trailing slash"
        }
        return nil
    }
}
