import Foundation
import Testing
import TileGeometry

@testable import Rendering
@testable import TileServer

/// The image information document's services, without a socket: the physical dimensions service where a pixel's
/// size is known and square, the Authorization Flow services of a private image, both, or none.
@Suite struct IIIFInfoTests {
    static let pyramid = Pyramid(width: 1000, height: 700, tileSize: 256, overlap: 0)

    static func services(micronsPerPixel: (x: Double, y: Double)?, authBase: String? = nil) throws -> [[String: Any]]? {
        let text = IIIFInfo.json(
            id: "http://test/iiif/3/a", pyramid: pyramid, tileFormat: .jpg, limits: IIIFLimits(), authBase: authBase,
            micronsPerPixel: micronsPerPixel)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["width"] as? Int == 1000, "the rest of the document is there")
        return document["service"] as? [[String: Any]]
    }

    @Test func aKnownSquarePixelGivesThePhysicalDimensionsService() throws {
        let services = try #require(try Self.services(micronsPerPixel: (0.2527, 0.2527)))
        #expect(services.count == 1)
        #expect(services[0]["profile"] as? String == "http://iiif.io/api/annex/services/physdim")
        #expect(abs((services[0]["physicalScale"] as? Double ?? 0) - 0.0002527) < 1e-15 && services[0]["physicalUnits"] as? String == "mm")
    }

    @Test func axesWithinOnePercentShareTheirMean() throws {
        let services = try #require(try Self.services(micronsPerPixel: (0.25, 0.252)))
        #expect(abs((services[0]["physicalScale"] as? Double ?? 0) - 0.000251) < 1e-15)
    }

    @Test func noSizeOrAPixelThatIsNotSquareGivesNoService() throws {
        #expect(try Self.services(micronsPerPixel: nil) == nil)
        #expect(try Self.services(micronsPerPixel: (0.25, 0.5)) == nil, "one scale cannot say both axes")
        #expect(try Self.services(micronsPerPixel: (0, 0)) == nil)
    }

    @Test func aPrivateImageListsTheProbeAndThePhysicalDimensions() throws {
        let services = try #require(try Self.services(micronsPerPixel: (0.5, 0.5), authBase: "http://test"))
        #expect(services.map { $0["type"] as? String ?? $0["profile"] as? String } == ["AuthProbeService2", IIIFInfo.physicalDimensionsProfile])
        #expect(services[0]["id"] as? String == "http://test/iiif/3/a/probe")
    }
}
