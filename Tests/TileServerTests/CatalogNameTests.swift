import Foundation
import Logging
import Testing

@testable import TileServer
@testable import TileSources

/// Names the catalog cannot serve as they are: twins that differ only in Unicode normalisation (one served, the other
/// refused and reported once, no flapping) and names with control characters (refused, never listed).
@Suite struct CatalogNameTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    @Test func canonicalTwinsServeOneAndReportTheOtherOnce() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid(Self.nfc, width: 300, height: 200)
        try fixture.addPyramid(Self.nfd, width: 300, height: 200)
        // Twins among folders too: their pyramids would have the same name.
        for folder in [Self.nfc + "-maps", Self.nfd + "-maps"] {
            try FileManager.default.createDirectory(atPath: fixture.root + "/" + folder, withIntermediateDirectories: true)
            try fixture.addPyramid("city", width: 100, height: 100, in: fixture.root + "/" + folder)
        }
        let recorder = LogRecorder(level: .trace)
        let catalog = ImageCatalog(root: fixture.root, maxDepth: 4, logger: recorder.logger, fullWalkEvery: 1)
        let first = catalog.rescan()
        #expect(first.added.count == 2)
        #expect(catalog.images.map(\.name).sorted() == [Self.nfd, Self.nfd + "-maps/city"], "the twin whose bytes sort first")
        // Every scan lists every folder here (fullWalkEvery 1): nothing may change, and nothing more is logged.
        for _ in 0..<5 {
            let again = catalog.rescan()
            #expect(again.added.isEmpty && again.removed.isEmpty)
        }
        let lines = recorder.lines
        #expect(lines.filter { $0.hasPrefix("Not serving") }.count == 2, "\(lines)")
        #expect(lines.contains("Not serving \(Self.nfc).dzi: its name differs from \(Self.nfd).dzi's only in its Unicode normalisation"))
        #expect(!lines.contains { $0.hasPrefix("Stopped serving") })
        // Either spelling in a URL reaches the one served.
        #expect(catalog.current.images[Self.nfc[...]]?.name == Self.nfd)
    }

    @Test func namesWithControlCharactersAreRefusedNotListed() throws {
        let fixture = try PyramidFixture()
        let evil = "evil\n2026-11-26T00:00:00.000Z critical tiler.server: FORGED \u{1B}[31mred\u{1B}[0m"
        try fixture.addPyramid(evil, width: 300, height: 200)
        try fixture.addPyramid("bidi\u{202E}gpj", width: 300, height: 200)
        try FileManager.default.createDirectory(atPath: fixture.root + "/tab\there", withIntermediateDirectories: true)
        try fixture.addPyramid("inside", width: 100, height: 100, in: fixture.root + "/tab\there")
        try fixture.addPyramid("fine", width: 300, height: 200)
        let recorder = LogRecorder(level: .trace)
        let catalog = ImageCatalog(root: fixture.root, maxDepth: 4, logger: recorder.logger, fullWalkEvery: 1)
        catalog.rescan()
        catalog.rescan()
        #expect(catalog.images.map(\.name) == ["fine"])
        let refusals = recorder.lines.filter { $0.hasPrefix("Not serving") }
        #expect(refusals.count == 3, "\(refusals)")
        #expect(refusals.allSatisfy { $0.hasSuffix("its name has a control character") })
        #expect(!String(decoding: catalog.listJSON.readableBytesView, as: UTF8.self).contains("evil"))
    }
}
