import Foundation
import Testing

@testable import Slicing

/// ``PyramidProperties``: dzsave's `vips-properties.xml` and the SZI format's `scan-properties.xml`, written and read
/// back, and what is refused.
@Suite struct PyramidPropertiesTests {
    static let slide = PyramidProperties(
        width: 2220, height: 2967, bands: 3,
        slideProperties: [
            "openslide.vendor": "aperio", "openslide.mpp-x": "0.499", "openslide.mpp-y": "0.5", "openslide.objective-power": "20",
            "openslide.bounds-x": "10", "openslide.bounds-y": "20", "openslide.bounds-width": "2000", "openslide.bounds-height": "2900",
            "aperio.Filename": "CMU-1 <a & b> \"quoted\" 'single'", "tiff.ImageDescription": "line one\r\nline two\u{1}\u{7}end",
        ])

    @Test func vipsPropertiesReadBackAsWritten() throws {
        let xml = Self.slide.vipsXML(date: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(xml.hasPrefix("<?xml version=\"1.0\"?>\n<image xmlns=\"http://www.vips.ecs.soton.ac.uk//dzsave\" date=\"2026-11-18T"))
        #expect(xml.contains("<name>width</name>\n      <value type=\"gint\">2220</value>"))
        #expect(xml.contains("CMU-1 &lt;a &amp; b&gt; &quot;quoted&quot; &apos;single&apos;"))
        let read = try PyramidProperties(xml: Array(xml.utf8))
        #expect(read.entries.count == Self.slide.entries.count)
        #expect(read["aperio.Filename"] == "CMU-1 <a & b> \"quoted\" 'single'")
        // XML 1.0 cannot hold most control characters: they are written as spaces, line breaks kept (CR LF too).
        #expect(read["tiff.ImageDescription"] == "line one\r\nline two  end")
        #expect(read.entries.first == PyramidProperties.Entry(name: "width", type: "gint", value: "2220"))
        #expect(read.micronsPerPixel?.x == 0.499 && read.micronsPerPixel?.y == 0.5)
        #expect(read.vendor == "aperio" && read.objectivePower == 20)
    }

    @Test func scanPropertiesHoldTheSZIFormsFacts() throws {
        let xml = try #require(Self.slide.scanXML())
        #expect(xml.contains("xmlns=\"http://www.pathozoom.com/szi\""))
        let read = try PyramidProperties(xml: Array(xml.utf8))
        #expect(
            read.values == [
                "Vendor": "aperio", "ObjectiveMagnification": "20", "MicronsPerPixelX": "0.499", "MicronsPerPixelY": "0.5",
                "ImageWidth": "2220", "ImageHeight": "2967",
            ])
        #expect(read.micronsPerPixel?.x == 0.499 && read.vendor == "aperio" && read.objectivePower == 20)
        // Nothing a scan form holds: no such file.
        #expect(PyramidProperties(width: 10, height: 10, bands: 3, slideProperties: ["hamamatsu.SourceLens": "20"]).scanXML() == nil)
    }

    @Test func micronsPerPixelComesFromOpenSlideThenTheSZIFormThenAperio() {
        func mpp(_ values: [String: String]) -> Double? {
            PyramidProperties(entries: values.sorted { $0.key < $1.key }.map { PyramidProperties.Entry(name: $0.key, value: $0.value) })
                .micronsPerPixel?.x
        }
        #expect(mpp(["openslide.mpp-x": "0.25", "openslide.mpp-y": "0.25", "MicronsPerPixelX": "9", "MicronsPerPixelY": "9"]) == 0.25)
        #expect(mpp(["MicronsPerPixelX": "0.3", "MicronsPerPixelY": "0.3", "aperio.MPP": "9"]) == 0.3)
        #expect(mpp(["aperio.MPP": "0.4985"]) == 0.4985)
        #expect(mpp(["openslide.mpp-x": "0", "openslide.mpp-y": "0"]) == nil)
        #expect(mpp(["openslide.mpp-x": "nan", "openslide.mpp-y": "nan"]) == nil)
        #expect(mpp(["openslide.mpp-x": "-1", "openslide.mpp-y": "0.5", "aperio.MPP": "0.7"]) == 0.7)
        #expect(mpp(["openslide.mpp-x": "0.5"]) == nil, "one axis is not a pixel size")
    }

    @Test(arguments: [
        ("not xml at all", "not well-formed"),
        ("<?xml version=\"1.0\"?><html><body/></html>", "not <image>"),
        ("<image><properties><property><name>a</name><value>1</value></property></properties>", "not well-formed"),
    ])
    func whatIsNotAPropertiesFileIsRefusedInOneLine(text: String, says: String) {
        #expect {
            _ = try PyramidProperties(xml: Array(text.utf8))
        } throws: { error in
            let message = (error as? PropertiesError)?.message ?? ""
            return message.contains(says) && !message.contains("\n")
        }
    }

    @Test func aFileLargerThanAnySlidesIsNotParsed() {
        let huge = [UInt8](repeating: 0x20, count: PyramidProperties.maxXMLBytes + 1)
        #expect(throws: PropertiesError.self) { _ = try PyramidProperties(xml: huge) }
    }

    @Test func entitiesAreNotExpandedFromOutside() throws {
        // An external entity must never be fetched; its reference reads as nothing (or the parse fails).
        let xml = """
            <?xml version="1.0"?><!DOCTYPE image [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <image><properties><property><name>x</name><value>&secret;</value></property></properties></image>
            """
        let read = try? PyramidProperties(xml: Array(xml.utf8))
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "\u{0}"
        #expect(!(read?["x"] ?? "").contains(hostname) || hostname.isEmpty)
    }

    @Test func aSlideIsRecordedAndAPhotographIsNot() throws {
        #expect(PyramidProperties.ofSlide(path: "/etc/hostname", width: 1, height: 1, bands: 3) == nil)
        #expect(PyramidProperties.ofSlide(path: "/no/such/file.svs", width: 1, height: 1, bands: 3) == nil)
    }
}
