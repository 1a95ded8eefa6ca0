import TileSources

extension Route {
    /// Matches a validated, decoded path (see ``RequestTarget``) against the routes.
    ///
    /// Works on the path's contiguous UTF-8 bytes with integer offsets (index arithmetic on `Substring.UTF8View` cost
    /// a few percent of a tile request's CPU); names are sliced from the path at ASCII separators.
    ///
    /// - Complexity: O(n) in the path's length; no allocation for a native string (`withUTF8` copies others once).
    init(path: Substring) {
        var text = path
        self = text.withUTF8 { Self.match(PathBytes(path: path, bytes: $0)) }
    }

    private static func match(_ path: PathBytes) -> Route {
        if path.hasPrefix("/images/") {
            return matchImages(path, from: 8) ?? .unknown(path: path.path)
        }
        if path.hasPrefix("/api/") || path.equals("/api") {
            return matchAPI(path) ?? .unknown(path: path.path)
        }
        if path.equals("/healthz") { return .health }
        if path.equals("/metrics") { return .metrics }
        return .staticFile(path: path.path)
    }

    private static func matchAPI(_ path: PathBytes) -> Route? {
        if path.equals("/api/images") { return .imageList }
        if path.equals("/api/jobs") { return .jobs }
        if path.count > 10, path.hasPrefix("/api/jobs/") {
            if path.count > 17, path.hasSuffix("/events") { return .jobEvents(id: path.slice(10, path.count - 7)) }
            return .job(id: path.slice(10, path.count))
        }
        let prefix = 12  // "/api/images/"
        guard path.count > prefix, path.hasPrefix("/api/images/") else { return nil }
        if path.count > prefix + 8, path.hasSuffix("/visible") { return .visible(name: path.slice(prefix, path.count - 8)) }
        if path.count > prefix + 11, path.hasSuffix("/properties") { return .properties(name: path.slice(prefix, path.count - 11)) }
        // {name}/associated/{kind}: the kind is the last segment, the name all before "/associated/".
        guard let slash = path.lastIndex(of: UInt8(ascii: "/"), in: prefix..<path.count), slash + 1 < path.count,
            slash - prefix > 11, path.hasSuffix("/associated", before: slash)
        else { return nil }
        return .associated(name: path.slice(prefix, slash - 11), kind: path.slice(slash + 1, path.count))
    }

    /// Matches what follows `/images/` (from byte `start`): `{name}.dzi` or `{name}_files/{level}/{col}_{row}.{ext}`.
    private static func matchImages(_ path: PathBytes, from start: Int) -> Route? {
        let end = path.count
        if path.hasSuffix(".dzi") {
            let nameEnd = end - 4
            return nameEnd <= start || path[nameEnd - 1] == UInt8(ascii: "/") ? nil : .descriptor(name: path.slice(start, nameEnd))
        }
        guard let fileSlash = path.lastIndex(of: UInt8(ascii: "/"), in: start..<end),
            let levelSlash = path.lastIndex(of: UInt8(ascii: "/"), in: start..<fileSlash),
            levelSlash - start > 6, path.hasSuffix("_files", before: levelSlash),
            let level = path.canonicalInteger(levelSlash + 1..<fileSlash),
            let underscore = path.firstIndex(of: UInt8(ascii: "_"), in: fileSlash + 1..<end),
            let dot = path.firstIndex(of: UInt8(ascii: "."), in: underscore..<end), dot + 1 < end,
            let column = path.canonicalInteger(fileSlash + 1..<underscore),
            let row = path.canonicalInteger(underscore + 1..<dot)
        else { return nil }
        return .tile(
            name: path.slice(start, levelSlash - 6), tile: TileAddress(level: level, column: column, row: row), format: path.string(dot + 1, end))
    }
}

/// A path's UTF-8 bytes with integer offsets, and the path to slice names from.
private struct PathBytes {
    let path: Substring
    let bytes: UnsafeBufferPointer<UInt8>

    var count: Int { bytes.count }

    subscript(offset: Int) -> UInt8 { bytes[offset] }

    /// The path between byte offsets `from` and `to` (both at ASCII separators, hence character boundaries).
    func slice(_ from: Int, _ to: Int) -> Substring {
        let utf8 = path.utf8
        return path[utf8.index(utf8.startIndex, offsetBy: from)..<utf8.index(utf8.startIndex, offsetBy: to)]
    }

    /// The path's bytes between offsets `from` and `to` as a string of their own: for a short one (a format), less
    /// work than a slice's index arithmetic, and it compares with other strings by its bits.
    func string(_ from: Int, _ to: Int) -> String {
        // The usual tile formats are string literals: nothing decoded, nothing allocated.
        if to - from == 3 && matches("jpg", at: from) { return "jpg" }
        if to - from == 4 && matches("jpeg", at: from) { return "jpeg" }
        if to - from == 3 && matches("png", at: from) { return "png" }
        if to - from == 4 && matches("webp", at: from) { return "webp" }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
    }

    func hasPrefix(_ literal: StaticString) -> Bool {
        literal.utf8CodeUnitCount <= count && matches(literal, at: 0)
    }

    func hasSuffix(_ literal: StaticString) -> Bool {
        hasSuffix(literal, before: count)
    }

    /// Whether the bytes before offset `end` end with `literal`.
    func hasSuffix(_ literal: StaticString, before end: Int) -> Bool {
        literal.utf8CodeUnitCount <= end && matches(literal, at: end - literal.utf8CodeUnitCount)
    }

    func equals(_ literal: StaticString) -> Bool {
        literal.utf8CodeUnitCount == count && matches(literal, at: 0)
    }

    private func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        for index in 0..<length where bytes[offset + index] != literal.utf8Start[index] {
            return false
        }
        return true
    }

    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        range.first { bytes[$0] == byte }
    }

    func lastIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        range.reversed().first { bytes[$0] == byte }
    }

    /// The non-negative decimal integer in `range`, written the way tile paths write it: digits only, no leading
    /// zero (except `0` itself), at most 9 digits.
    func canonicalInteger(_ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 9, range.count == 1 || bytes[range.lowerBound] != UInt8(ascii: "0") else { return nil }
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
