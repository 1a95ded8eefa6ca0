import Testing

@testable import TileServer
@testable import TileSources

/// The facts read from a slide's properties and from TIFF descriptions, without files.
@Suite struct ImageFactsTests {
    @Test func slidePropertiesGiveMicronsObjectiveAndBounds() {
        let facts = ImageFacts(
            vendor: "mirax",
            properties: [
                "openslide.mpp-x": "0.2431", "openslide.mpp-y": "0.2432", "openslide.objective-power": "40", "openslide.bounds-x": "100",
                "openslide.bounds-y": "200", "openslide.bounds-width": "3000", "openslide.bounds-height": "4000",
            ], associated: ["thumbnail", "label", "macro"])
        #expect(facts.micronsPerPixel?.x == 0.2431 && facts.micronsPerPixel?.y == 0.2432 && facts.objectivePower == 40)
        #expect(facts.bounds?.x == 100 && facts.bounds?.y == 200 && facts.bounds?.width == 3000 && facts.bounds?.height == 4000)
        #expect(facts.associated == ["label", "macro", "thumbnail"])
        let bare = ImageFacts(vendor: "generic-tiff", properties: ["openslide.mpp-x": "0", "openslide.bounds-x": "1"], associated: [])
        #expect(bare.micronsPerPixel == nil && bare.bounds == nil && bare.objectivePower == nil)
    }

    @Test func aperioAndOMEDescriptionsGiveMicrons() {
        let aperio = ImageFacts.aperioFields("Aperio Image Library v10.0.51\r\n46920x33014 -> 1024x721 - |AppMag = 20|MPP = 0.4990|Date = 12/29/09")
        #expect(aperio["AppMag"] == "20" && aperio["MPP"] == "0.4990")
        let ome = """
            <?xml version="1.0"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06"><Image ID="Image:0">
            <Pixels ID="Pixels:0" PhysicalSizeX="0.325" PhysicalSizeY="325" PhysicalSizeYUnit="nm" SizeX="10" SizeY="10"/></Image></OME>
            """
        #expect(ImageFacts.omeSize(ome, axis: "X") == 0.325)
        #expect(abs((ImageFacts.omeSize(ome, axis: "Y") ?? 0) - 0.325) < 1e-12)
        #expect(ImageFacts.omeSize("<OME><Pixels ID=\"P\" SizeX=\"1\"/></OME>", axis: "X") == nil)
    }
}
