extension Route {
    /// Matches a validated, decoded path (see ``RequestTarget``) against the routes.
    ///
    /// - Complexity: O(n) in the path's length; no allocation.
    init(path: Substring) {
        let utf8 = path.utf8
        if utf8.starts(with: "/images/".utf8) {
            self = Self.matchImages(path[utf8.index(utf8.startIndex, offsetBy: 8)...]) ?? .unknown(path: path)
        } else if utf8.starts(with: "/api/".utf8) || path == "/api" {
            self = Self.matchAPI(path) ?? .unknown(path: path)
        } else if path == "/healthz" {
            self = .health
        } else if path == "/metrics" {
            self = .metrics
        } else {
            self = .staticFile(path: path)
        }
    }

    private static func matchAPI(_ path: Substring) -> Route? {
        if path == "/api/images" { return .imageList }
        let utf8 = path.utf8
        let prefix = "/api/images/".utf8
        let suffix = "/visible".utf8
        guard utf8.count > prefix.count + suffix.count, utf8.starts(with: prefix), utf8.reversed().starts(with: suffix.reversed())
        else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: prefix.count)
        let end = utf8.index(utf8.endIndex, offsetBy: -suffix.count)
        return .visible(name: path[start..<end])
    }

    /// Matches what follows `/images/`: `{name}.dzi` or `{name}_files/{level}/{col}_{row}.{ext}`.
    private static func matchImages(_ rest: Substring) -> Route? {
        let utf8 = rest.utf8
        if utf8.reversed().starts(with: ".dzi".utf8.reversed()) {
            let name = rest[..<utf8.index(utf8.endIndex, offsetBy: -4)]
            return name.isEmpty || name.utf8.last == UInt8(ascii: "/") ? nil : .descriptor(name: name)
        }
        guard let fileSlash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let file = rest[utf8.index(after: fileSlash)...]
        let directory = rest[..<fileSlash]
        guard let levelSlash = directory.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let filesFolder = directory[..<levelSlash]
        guard let level = canonicalInteger(directory[directory.utf8.index(after: levelSlash)...]),
            filesFolder.utf8.count > 6, filesFolder.utf8.reversed().starts(with: "_files".utf8.reversed()),
            let (column, row, format) = matchTileFile(file)
        else { return nil }
        let name = filesFolder[..<filesFolder.utf8.index(filesFolder.utf8.endIndex, offsetBy: -6)]
        return .tile(name: name, tile: TileAddress(level: level, column: column, row: row), format: format)
    }

    /// `{col}_{row}.{ext}` → the numbers and the extension.
    private static func matchTileFile(_ file: Substring) -> (Int, Int, Substring)? {
        let utf8 = file.utf8
        guard let underscore = utf8.firstIndex(of: UInt8(ascii: "_")),
            let dot = utf8[underscore...].firstIndex(of: UInt8(ascii: ".")),
            let column = canonicalInteger(file[..<underscore]),
            let row = canonicalInteger(file[utf8.index(after: underscore)..<dot])
        else { return nil }
        let format = file[utf8.index(after: dot)...]
        return format.isEmpty ? nil : (column, row, format)
    }

    /// A non-negative decimal integer written the way tile paths write it: digits only, no leading zero (except
    /// `0` itself), at most 9 digits.
    static func canonicalInteger(_ text: Substring) -> Int? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 9, utf8.count == 1 || utf8.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
