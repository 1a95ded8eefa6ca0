import TestSupport
import Testing
import TileGeometry

@Suite struct DZIDescriptorParsingTests {
    @Test func roundTripsItsOwnXML() throws {
        var random = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let tileSize = Int.random(in: 1...8192, using: &random)
            let descriptor = DZIDescriptor(
                width: Int.random(in: 1...(1 << 31), using: &random), height: Int.random(in: 1...100_000, using: &random),
                tileSize: tileSize, overlap: Int.random(in: 0..<tileSize, using: &random),
                format: ["jpg", "jpeg", "png", "webp"][Int.random(in: 0..<4, using: &random)])
            #expect(try DZIDescriptor(xml: descriptor.xml) == descriptor)
        }
    }

    /// The shape libvips `dzsave` writes: one attribute per line, `>` on its own line, a space after `<Size`.
    @Test func readsTheVipsMultiLineForm() throws {
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Image xmlns=\"http://schemas.microsoft.com/deepzoom/2008\"\n"
            + "  Format=\"jpeg\"\n  Overlap=\"1\"\n  TileSize=\"254\"\n  >\n  <Size \n    Height=\"3000\"\n    Width=\"4000\"\n  />\n</Image>\n"
        #expect(try DZIDescriptor(xml: xml) == DZIDescriptor(width: 4000, height: 3000, tileSize: 254, overlap: 1, format: "jpeg"))
    }

    @Test(arguments: [
        "<Image TileSize='256' Overlap='0' Format='png'><Size Height='20' Width='10'/></Image>",
        "\r\n<!-- made by hand -->\r\n<!DOCTYPE Image>\t<Image\tFormat = \"png\"\r\n Overlap= '0'   TileSize =\"256\" >\n<Size Width=\" 10 \"\nHeight=\"20\"></Size></Image>",
        "<?xml version='1.0'?><dz:Image xmlns:dz='http://schemas.microsoft.com/deepzoom/2009' Format='&#112;n&#x67;' Overlap='0' TileSize='256' Url='a&amp;b'><dz:Size Width='10' Height='20'/><dz:DisplayRects/></dz:Image>",
        " <Image Format=\"png\" Overlap=\"0\" TileSize=\"256\"><![CDATA[<Size Width='1' Height='1'/>]]><Size Width=\"10\" Height=\"20\"/></Image>",
    ])
    func toleratesOrderQuotesWhitespaceAndDecorations(xml: String) throws {
        #expect(try DZIDescriptor(xml: xml) == DZIDescriptor(width: 10, height: 20, tileSize: 256, overlap: 0, format: "png"))
    }

    @Test(arguments: [
        ("", "dzi"), ("hello", "dzi"), ("<Size Width='1' Height='1'/>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize='256'></Image>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Height='1'/><Size Width='1' Height='1'/></Image>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Height='1/></Image>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize=256><Size Width='1' Height='1'/></Image>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize='256'<Size Width='1' Height='1'/></Image>", "dzi"),
        ("<!-- never closed <Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Height='1'/>", "dzi"),
        ("<Image Format='png&nbsp;' Overlap='0' TileSize='256'><Size Width='1' Height='1'/></Image>", "dzi"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Height='1'/></Image>", "Width"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='abc' Height='1'/></Image>", "Width"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='0' Height='1'/></Image>", "Width"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Width='2' Height='1'/></Image>", "Width"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Height='2147483649'/></Image>", "Height"),
        ("<Image Format='png' Overlap='0' TileSize='256'><Size Width='1' Height='1.5'/></Image>", "Height"),
        ("<Image Format='png' Overlap='0'><Size Width='1' Height='1'/></Image>", "TileSize"),
        ("<Image Format='png' Overlap='0' TileSize='0'><Size Width='1' Height='1'/></Image>", "TileSize"),
        ("<Image Format='png' Overlap='0' TileSize='99999999999999999999'><Size Width='1' Height='1'/></Image>", "TileSize"),
        ("<Image Format='png' Overlap='256' TileSize='256'><Size Width='1' Height='1'/></Image>", "Overlap"),
        ("<Image Format='png' Overlap='-1' TileSize='256'><Size Width='1' Height='1'/></Image>", "Overlap"),
        ("<Image Overlap='0' TileSize='256'><Size Width='1' Height='1'/></Image>", "Format"),
        ("<Image Format='' Overlap='0' TileSize='256'><Size Width='1' Height='1'/></Image>", "Format"),
        ("<Image Format='../x' Overlap='0' TileSize='256'><Size Width='1' Height='1'/></Image>", "Format"),
        ("<Image Format='jpg\"' Overlap='0' TileSize='256'><Size Width='1' Height='1'/></Image>", "Format"),
    ])
    func rejectsBadDescriptorsNamingTheAttribute(xml: String, parameter: String) {
        let error = #expect(throws: GeometryError.self) { try DZIDescriptor(xml: xml) }
        #expect(error?.parameter == parameter, "\(error?.message ?? "")")
        #expect(error?.message.hasPrefix(parameter) == true)
    }
}
