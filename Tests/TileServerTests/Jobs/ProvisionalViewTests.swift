import Foundation
import Testing

@testable import SliceJobs
@testable import TileServer

/// A view while slicing (the drop contract's "While slicing"), on a real server: as soon as the job slices, the image
/// is listed with `state: slicing` under a provisional version whose descriptor and written tiles answer `no-store`
/// (never immutable) and whose missing tiles answer 404 with `Retry-After: 1`; once published, the provisional URLs
/// answer 404 and the job's `dzi` is the final, immutable one.
@Suite(.serialized) struct ProvisionalViewTests {
    @Test func theImageIsViewableWhileItIsSliced() async throws {
        let fixture = try UploadFixture()
        let read = try fixture.secured.token("*")
        // The job is held once viewable, before it writes a tile: what follows is seen while it slices.
        try await fixture.whileHeld(upload: "pub/drop", body: try UploadFixture.png(width: 3000, height: 3000)) { server, id, gate in
            let job = try UploadFixture.job(server, id)
            #expect(job["state"] as? String == "slicing" && job["viewable"] as? Bool == true, "\(job)")
            let provisional = try #require(job["dzi"] as? String)
            let list = try fetch(server, "/api/images?token=\(read)")
            let descriptor = try fetch(server, provisional)
            let coarsest = try fetch(server, provisional.replacingOccurrences(of: ".dzi", with: "_files/0/0_0.jpg"))
            let finest = try fetch(server, provisional.replacingOccurrences(of: ".dzi", with: "_files/12/11_11.jpg"))
            let outside = try fetch(server, provisional.replacingOccurrences(of: ".dzi", with: "_files/12/99_0.jpg"))
            let name = provisional.dropFirst("/images/".count).dropLast(".dzi".count)
            let visible = try fetch(server, "/api/images/\(name)/visible?x=0&y=0&width=800&height=600&zoomScale=0.25")
            gate.release()
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(list.text.contains("\"state\":\"slicing\"") && list.text.contains("\"job\":\"/api/jobs/\(id)\""), "\(list.text)")
            #expect(descriptor.status == 200 && descriptor.header("Cache-Control") == "no-store")
            #expect(descriptor.text.contains("Width=\"3000\"") && descriptor.text.contains("Height=\"3000\""))
            for tile in [coarsest, finest] {
                #expect(tile.status == 404 && tile.header("Retry-After") == "1", "not written yet: \(tile.status)")
                #expect(tile.header("Cache-Control") == "no-store")
            }
            #expect(outside.status == 404 && outside.header("Retry-After") == nil, "outside the pyramid: not a tile to wait for")
            // The visible-rect query answers for the provisional version too: its tiles under that version, never stored.
            #expect(visible.status == 200 && visible.header("Cache-Control") == "no-store", "\(visible.status) \(visible.text)")
            #expect(visible.text.contains("\"url\":\"/images/\(name)_files/10/0_0.jpg\""), "\(visible.text)")
            #expect(end["state"] as? String == "done")
            let final = try #require(end["dzi"] as? String)
            #expect(final != provisional)
            let gone = try fetch(server, provisional)
            #expect(gone.status == 404, "the provisional version answers 404 once published")
            let published = try fetch(server, final)
            #expect(published.status == 200 && published.header("Cache-Control")?.contains("immutable") == true)
            #expect(!(try fetch(server, "/api/images?token=\(read)").text.contains("slicing")))
        }
    }
}

extension ProvisionalViewTests {
    /// A large JPEG's coarse pyramid (DCT-scaled decode) is served before the full slice has decoded a row: while the
    /// job says `rowsDecoded: 0`, the tiles of the coarse top level answer 200 and the final level's 404, retry.
    @Test func aJPEGsCoarseLevelsComeFirst() async throws {
        let fixture = try UploadFixture()
        // Held as soon as it is viewable: the coarse pyramid is whole; the full build, which runs beside it, is not shown
        // until the coarse one is.
        try await fixture.whileHeld(upload: "pub/photo", body: try UploadFixture.jpeg(width: 6000, height: 4500)) { server, id, gate in
            let job = try UploadFixture.job(server, id)
            #expect(job["state"] as? String == "slicing", "\(job)")
            // 6000 px → 1/2 scale, 3000 px: the coarse pyramid's top level is 12 (the final one's is 13), 12 × 9 tiles.
            let prefix = try #require(job["dzi"] as? String).replacingOccurrences(of: ".dzi", with: "_files/12/")
            for (column, row) in [(0, 0), (11, 8), (5, 4)] {
                let tile = try fetch(server, "\(prefix)\(column)_\(row).jpg")
                #expect(tile.status == 200 && tile.header("Cache-Control") == "no-store", "coarse tile \(column)_\(row): \(tile.status)")
            }
            let final = try fetch(server, prefix.replacingOccurrences(of: "_files/12/", with: "_files/13/0_0.jpg"))
            #expect(final.status == 404 && final.header("Retry-After") == "1", "the finest level is not there yet")
            gate.release()
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "done")
        }
        #expect(UploadFixture.contents(of: JobRecord.folder(root: fixture.root)).allSatisfy { $0.hasSuffix(".job") }, "coarse pyramid removed")
    }
}

extension ProvisionalViewTests {
    /// A private image being sliced is viewable by whoever may see it, as its final version will be: its provisional
    /// descriptor hands a token's holder the signed query for the provisional version's tiles (`Tiler-Tile-Query`),
    /// the visible-rect answer's URLs carry it, and a tile request needs it (401 without).
    @Test func aPrivateImageIsViewableWhileItIsSlicedWithSignedTileURLs() async throws {
        let fixture = try UploadFixture()
        let read = try fixture.secured.token("c/*")
        try await fixture.whileHeld(upload: "c/photo", body: try UploadFixture.png(width: 3000, height: 3000)) { server, id, gate in
            let provisional = try #require(try UploadFixture.job(server, id)["dzi"] as? String)
            let bearer = ["Authorization: Bearer \(read)"]
            #expect(try fetch(server, provisional).status == 401, "private: the descriptor needs the token")
            let descriptor = try fetch(server, provisional, headers: bearer)
            let query = try #require(descriptor.header("Tiler-Tile-Query"), "the signed query for its tiles")
            #expect(descriptor.status == 200 && descriptor.header("Cache-Control") == "no-store")
            let tile = provisional.replacingOccurrences(of: ".dzi", with: "_files/12/0_0.jpg")
            #expect(try fetch(server, tile).status == 401, "a tile without the signature")
            let signed = try fetch(server, tile + "?" + query)
            #expect(signed.status == 404 && signed.header("Retry-After") == "1", "signed, and not written yet: \(signed.status)")
            let name = provisional.dropFirst("/images/".count).dropLast(".dzi".count)
            let visible = try fetch(server, "/api/images/\(name)/visible?x=0&y=0&width=800&height=600&zoomScale=0.25", headers: bearer)
            #expect(visible.status == 200 && visible.text.contains("_files/10/0_0.jpg?\(query)\""), "\(visible.text)")
            gate.release()
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "done")
        }
    }
}
