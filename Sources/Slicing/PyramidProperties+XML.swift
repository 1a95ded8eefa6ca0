import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

extension PyramidProperties {
    /// The largest properties file read, in bytes: far more than any slide's (an Aperio slide's is about 7 KB).
    public static let maxXMLBytes = 1 << 20

    /// The properties as libvips writes `vips-properties.xml` (dzsave's namespace, `date` in ISO 8601; the `version`
    /// attribute, libvips' version there, says `tiler`).
    public func vipsXML(date: Date = Date()) -> String {
        Self.document(namespace: "http://www.vips.ecs.soton.ac.uk//dzsave", version: "tiler", date: date, entries: entries)
    }

    /// The SZI format's `scan-properties.xml` (as libvips writes it in an SZI): vendor, objective, microns per pixel and
    /// size, those known; nil when neither the vendor nor the microns per pixel is.
    public func scanXML(date: Date = Date()) -> String? {
        guard vendor != nil || micronsPerPixel != nil else { return nil }
        var entries: [Entry] = []
        if let vendor { entries.append(Entry(name: "Vendor", value: vendor)) }
        if let power = self["openslide.objective-power"] ?? self["ObjectiveMagnification"] {
            entries.append(Entry(name: "ObjectiveMagnification", value: power))
        }
        if let mpp = micronsPerPixel {
            entries.append(Entry(name: "MicronsPerPixelX", value: Self.number(mpp.x)))
            entries.append(Entry(name: "MicronsPerPixelY", value: Self.number(mpp.y)))
        }
        for (name, key) in [("ImageWidth", "width"), ("ImageHeight", "height")] {
            if let value = self[key] { entries.append(Entry(name: name, type: "gint", value: value)) }
        }
        return Self.document(namespace: "http://www.pathozoom.com/szi", version: "1.0", date: date, entries: entries)
    }

    /// Reads a `vips-properties.xml` or `scan-properties.xml` (an `image` element holding `properties`, each
    /// `property` a `name` and a typed `value`).
    ///
    /// - Throws: ``PropertiesError`` naming the problem: not XML, too large, or not that form.
    public init(xml: [UInt8]) throws(PropertiesError) {
        guard xml.count <= Self.maxXMLBytes else { throw PropertiesError("\(xml.count) bytes is more than a properties file holds") }
        let reader = PropertiesReader()
        let parser = XMLParser(data: Data(xml))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), reader.failure == nil else {
            throw PropertiesError(reader.failure ?? "not well-formed XML (line \(parser.lineNumber))")
        }
        guard reader.sawRoot else { throw PropertiesError("no image element holding properties") }
        // libxml2 through XMLParser accepts a document that simply stops: a file cut short is no properties file.
        guard reader.closedRoot else { throw PropertiesError("not well-formed XML: it ends inside <\(reader.openElement ?? "image")>") }
        self.init(entries: reader.entries)
    }

    /// The properties of every file in `files` (`vips-properties.xml`, then `scan-properties.xml`), in order: the first
    /// file's figures come first where both give one.
    ///
    /// - Throws: the first file's ``PropertiesError`` that is not a properties file.
    public init(xmlFiles files: [[UInt8]]) throws(PropertiesError) {
        var entries: [Entry] = []
        for xml in files { entries += try PyramidProperties(xml: xml).entries }
        self.init(entries: entries)
    }

    /// The properties a TIFF's ImageDescription holds as `vips-properties.xml` (as `tiler slice` and
    /// `vips tiffsave --properties` write it); nil for any other description (a scanner's, OME-XML) or one that does not
    /// parse.
    public init?(imageDescription description: String) {
        guard description.utf8.count <= Self.maxXMLBytes, description.drop(while: \.isWhitespace).hasPrefix("<?xml"),
            description.contains("<properties>"), let read = try? PyramidProperties(xml: Array(description.utf8))
        else { return nil }
        self = read
    }

    private static func document(namespace: String, version: String, date: Date, entries: [Entry]) -> String {
        var xml = "<?xml version=\"1.0\"?>\n<image xmlns=\"\(namespace)\" date=\"\(date.formatted(.iso8601))\" version=\"\(version)\">\n"
        xml += "  <properties>\n"
        for entry in entries {
            xml += "    <property>\n      <name>\(escaped(entry.name))</name>\n"
            xml += "      <value type=\"\(escaped(entry.type))\">\(escaped(entry.value))</value>\n    </property>\n"
        }
        return xml + "  </properties>\n</image>\n"
    }

    /// `text` with XML's five special characters as entities, carriage returns as references, and the control
    /// characters XML 1.0 cannot hold (a property is any bytes OpenSlide read from a file) as spaces.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // A parser turns CR LF and CR into LF: a CR is kept as a reference (Aperio's descriptions have CR LF).
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default: out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF ? " " : scalar)
            }
        }
        return out
    }

    /// The shortest text that reads back as `value`.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// Why a properties file was not read: one line.
public struct PropertiesError: Error, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Collects `image/properties/property/{name,value}`; anything else inside `image` is skipped.
private final class PropertiesReader: NSObject, XMLParserDelegate {
    var entries: [PyramidProperties.Entry] = []
    var failure: String?
    var sawRoot = false
    var closedRoot = false
    private var path: [String] = []

    /// The innermost element still open.
    var openElement: String? { path.last }
    private var text = ""
    private var name: String?
    private var value: (type: String, text: String)?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        if path.isEmpty {
            guard elementName == "image" else {
                failure = "the root element is <\(elementName.prefix(64))>, not <image>"
                parser.abortParsing()
                return
            }
            sawRoot = true
        }
        path.append(elementName)
        text = ""
        if path == ["image", "properties", "property"] {
            name = nil
            value = nil
        } else if path == ["image", "properties", "property", "value"] {
            value = (attributes["type"] ?? "VipsRefString", "")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if path == ["image", "properties", "property", "name"] {
            name = text
        } else if path == ["image", "properties", "property", "value"] {
            value?.text = text
        } else if path == ["image", "properties", "property"] {
            if let name, let value { entries.append(PyramidProperties.Entry(name: name, type: value.type, value: value.text)) }
        }
        path.removeLast()
        if path.isEmpty { closedRoot = true }
        text = ""
    }
}
