extension DZIDescriptor {
    /// The tile formats a descriptor may name: 1 to 16 ASCII letters or digits (`jpg`, `jpeg`, `png`, `webp`), so
    /// the format is safe in file names, URLs and JSON.
    public static let formatLengthLimits: ClosedRange<Int> = 1...16

    /// Parses a `.dzi` descriptor (Deep Zoom 2008 schema), such as ``xml`` or libvips `dzsave` writes.
    ///
    /// Reads `<Image Format=… Overlap=… TileSize=…>` and its `<Size Width=… Height=…/>`, in any attribute order,
    /// with single or double quotes and any whitespace or line breaks between attributes; an XML declaration,
    /// comments, a `DOCTYPE`, namespace prefixes, unknown attributes and other elements (`DisplayRects`) are
    /// ignored. The numbers must be ``GeometryInput`` integers (surrounding whitespace allowed) within the limits of
    /// ``Pyramid/validated(width:height:tileSize:overlap:)``, so ``pyramid`` never traps.
    ///
    /// - Throws: ``GeometryError`` whose parameter is the offending attribute (`Width`, `Height`, `TileSize`,
    ///   `Overlap`, `Format`) or `dzi` for malformed markup or missing elements.
    /// - Complexity: O(`xml.utf8.count`).
    public init(xml: String) throws(GeometryError) {
        let tags = try XMLTagScanner.tags(in: xml)
        let image = try Self.onlyTag("Image", in: tags)
        let size = try Self.onlyTag("Size", in: tags)
        let format = try Self.attribute("Format", of: image)
        let overlap = try Self.integer("Overlap", of: image, in: 0...(Pyramid.tileSizeLimits.upperBound - 1))
        let tileSize = try Self.integer("TileSize", of: image, in: Pyramid.tileSizeLimits)
        let width = try Self.integer("Width", of: size, in: Pyramid.sideLimits)
        let height = try Self.integer("Height", of: size, in: Pyramid.sideLimits)
        guard overlap < tileSize else {
            throw GeometryError(parameter: "Overlap", message: "Overlap must be less than TileSize \(tileSize) (got \(overlap))")
        }
        let isAlphanumeric = format.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        guard Self.formatLengthLimits.contains(format.count), isAlphanumeric else {
            throw GeometryError(
                parameter: "Format", message: "Format must be 1 to 16 ASCII letters or digits (got \(GeometryInput.quoted(format)))")
        }
        self.init(width: width, height: height, tileSize: tileSize, overlap: overlap, format: format)
    }

    private static func onlyTag(_ name: String, in tags: [XMLTagScanner.Tag]) throws(GeometryError) -> XMLTagScanner.Tag {
        let matches = tags.filter { $0.name == name }
        guard matches.count == 1 else {
            let problem = matches.isEmpty ? "has no <\(name)> element" : "has \(matches.count) <\(name)> elements"
            throw GeometryError(parameter: "dzi", message: "dzi \(problem); expected exactly one")
        }
        return matches[0]
    }

    private static func attribute(_ name: String, of tag: XMLTagScanner.Tag) throws(GeometryError) -> String {
        let values = tag.attributes.filter { $0.name == name }
        guard values.count == 1 else {
            let problem = values.isEmpty ? "is missing" : "appears \(values.count) times"
            throw GeometryError(parameter: name, message: "\(name) attribute of <\(tag.name)> \(problem)")
        }
        return values[0].value
    }

    private static func integer(_ name: String, of tag: XMLTagScanner.Tag, in limits: ClosedRange<Int>) throws(GeometryError) -> Int {
        let text = try attribute(name, of: tag)
        let value = try GeometryInput.integer(trimmingSpace(text), parameter: name)
        guard limits.contains(value) else {
            throw GeometryError(
                parameter: name, message: "\(name) must be an integer in \(limits.lowerBound)...\(limits.upperBound) (got \(value))")
        }
        return value
    }

    /// `text` without leading and trailing XML whitespace (space, tab, CR, LF).
    private static func trimmingSpace(_ text: String) -> Substring {
        let isText: (Character) -> Bool = { !($0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n") }
        guard let first = text.firstIndex(where: isText), let last = text.lastIndex(where: isText) else { return "" }
        return text[first...last]
    }
}
