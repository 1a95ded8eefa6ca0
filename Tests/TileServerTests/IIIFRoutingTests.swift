import Testing
import TileGeometry

@testable import HTTPCore
@testable import Rendering
@testable import TileServer

/// Matching `/iiif/3/…` targets, identifiers (one segment, `/` as `%2F`, decoded once, checked like names), the
/// JSON-LD negotiation, and the limits' fitting.
@Suite struct IIIFRoutingTests {
    static func route(_ uri: String) throws(RequestError) -> IIIFRoute {
        try IIIFRoute(uri: uri, maxPathBytes: 2048)
    }

    @Test func routes() throws {
        #expect(try Self.route("/iiif/3/abc") == .base(identifier: "abc"))
        #expect(try Self.route("/iiif/3/abc/info.json") == .info(identifier: "abc"))
        #expect(try Self.route("/iiif/3/abc/info.json?x=1") == .info(identifier: "abc"))
        #expect(
            try Self.route("/iiif/3/abc/full/max/0/default.jpg")
                == .image(identifier: "abc", region: "full", size: "max", rotation: "0", qualityAndFormat: "default.jpg"))
        for unknown in [
            "/iiif/3", "/iiif/2/abc/info.json", "/iiif/3/abc/info.xml", "/iiif/3/abc/", "/iiif/3/a/b/full/max/0/default.jpg",
            "/iiif/3/abc/full/max/0", "/iiif/abc/info.json", "/iiif/3/abc/full/max/0/default.jpg/x",
        ] {
            #expect(try Self.route(unknown) == .unknown, "\(unknown)")
        }
    }

    @Test func identifiersAreOneSegmentDecodedOnce() throws {
        #expect(try Self.route("/iiif/3/maps%2Fcity/info.json") == .info(identifier: "maps/city"))
        #expect(try Self.route("/iiif/3/maps%2fcity") == .base(identifier: "maps/city"))
        #expect(try Self.route("/iiif/3/with%20space%2D1/info.json") == .info(identifier: "with space-1"))
        #expect(try Self.route("/iiif/3/caf%C3%A9/info.json") == .info(identifier: "café"))
        #expect(try Self.route("/iiif/3/a%252Fb/info.json") == .info(identifier: "a%2Fb"))
        #expect(try Self.route("/iiif/3/%5Bfrob%5D/info.json") == .info(identifier: "[frob]"))
        #expect(IIIFIdentifier.encode("maps/city v2") == "maps%2Fcity%20v2")
        #expect(IIIFIdentifier.encode("67352ccc-d1b0-11e1-89ae-279075081939") == "67352ccc-d1b0-11e1-89ae-279075081939")
        for name in ["a/b", "café/ü", "x%2Fy", "[frob]", "a b#c?d"] {
            #expect(try Self.route("/iiif/3/\(IIIFIdentifier.encode(name))/info.json") == .info(identifier: name[...]))
        }
    }

    @Test(arguments: [
        "/iiif/3/%2E%2E/info.json", "/iiif/3/..%2Fetc/info.json", "/iiif/3/a%2F..%2Fb/info.json", "/iiif/3/a%2F.%2Fb/info.json",
        "/iiif/3/%2Fa/info.json", "/iiif/3/a%2F/info.json", "/iiif/3/a%2F%2Fb/info.json", "/iiif/3/a%00b/info.json",
        "/iiif/3/a%0Ab/info.json", "/iiif/3/a%5Cb/info.json", "/iiif/3/a%zz/info.json", "/iiif/3/a%2/info.json",
        "/iiif/3/a%FF/info.json", "/iiif/3//info.json", "/iiif/3/a#b/info.json",
        "/iiif/3/abc/full/max/0/default%2Fjpg", "/iiif/3/abc/full/max/0/default%00.jpg", "/iiif/3/abc/full/ma%zz/0/default.jpg",
    ])
    func badIdentifiersAndSegmentsAre400(uri: String) {
        #expect(throws: RequestError.self) { try Self.route(uri) }
    }

    @Test func parametersMayBePercentEncoded() throws {
        #expect(
            try Self.route("/iiif/3/abc/pct%3A1%2C2%2C3%2C4/%5E%21100%2C100/%2190/gray.png")
                == .image(identifier: "abc", region: "pct:1,2,3,4", size: "^!100,100", rotation: "!90", qualityAndFormat: "gray.png"))
    }

    @Test func longPathsAre400() {
        let long = "/iiif/3/" + String(repeating: "a", count: 3000) + "/info.json"
        #expect(throws: RequestError.self) { try Self.route(long) }
    }

    @Test(arguments: [
        (nil, IIIFMediaType.jsonLD), ("application/ld+json", .jsonLD), ("*/*", .json), ("application/json", .json),
        ("application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"", .jsonLD),
        ("application/json, application/ld+json", .jsonLD), ("application/json;q=1, application/ld+json;q=0.5", .json),
        ("application/ld+json;q=0", .json), ("text/html, */*;q=0.8", .json), ("application/ld+json, */*;q=0.1", .jsonLD),
        ("image/png", .json), ("APPLICATION/LD+JSON", .jsonLD),
    ])
    func jsonLDWhenAskedForOrWithoutAccept(accept: String?, expected: IIIFMediaType) {
        #expect(IIIFMediaType.negotiate(accept: accept) == expected)
    }

    @Test func limitsFitWithinEveryBound() {
        let limits = IIIFLimits(maxWidth: 1000, maxHeight: 800, maxArea: 500_000)
        #expect(limits.fit(width: 500, height: 400, growing: false) == (500, 400))
        #expect(limits.fit(width: 500, height: 400, growing: true) == (790, 632))
        #expect(limits.fit(width: 4000, height: 100, growing: false) == (1000, 25))
        #expect(limits.fit(width: 100, height: 4000, growing: false) == (20, 800))
        #expect(limits.fit(width: 1, height: 10_000_000, growing: false) == (1, 800))
        for (width, height) in [(7, 3), (12345, 6789), (999, 1001), (1, 1), (3, 100_000)] {
            for growing in [false, true] {
                let fitted = limits.fit(width: width, height: height, growing: growing)
                #expect(limits.allows(width: fitted.width, height: fitted.height), "\(width)×\(height) → \(fitted)")
                #expect(fitted.width >= 1 && fitted.height >= 1)
            }
        }
    }
}
