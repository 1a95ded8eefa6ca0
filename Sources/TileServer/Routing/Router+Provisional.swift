import Glibc
import HTTPCore
import JSONText
import NIOCore
import TileGeometry
import TileSources

extension Router {
    /// The answer from a pyramid still being built (``ProvisionalPyramid``) when `name` is `NAME@VERSION` with the
    /// provisional version of a running job: its descriptor, or tile `tile` read from the staging folder on a file
    /// thread — `no-store`, never immutable; a tile not written yet (or still empty) is 404 with `Retry-After: 1`.
    /// Nil when `name` is not provisional. Asked only after the catalog has no such version, so tiles of published
    /// pyramids never pay for it.
    func provisionalResponse(name: Substring, tile: (address: TileAddress, format: String)?, grant: AccessGrant = .open) -> Response? {
        let (base, version) = Self.split(name)
        guard let version, let provisional = services.jobs.provisional(named: base, version: version) else { return nil }
        let descriptor = provisional.descriptor
        let cors = services.blocks.cors
        guard let tile else {
            let profile = ResponseProfile(contentType: "application/xml", cacheControl: ResponseProfile.noStore, cors: cors)
            // A private image's provisional tiles are signed for the provisional version, as its final ones will be.
            let extra = provisionalTileQuery(base: base, version: version, grant: grant).map { "\(Self.tileQueryHeader): \($0)\r\n" } ?? ""
            return .body(status: .ok, headerLines: profile.headerLines, extraHeaders: extra, body: ByteBuffer(string: descriptor.xml))
        }
        let address = tile.address
        guard tile.format == descriptor.format, address.level >= 0, address.level < provisional.pyramid.levelCount,
            case let grid = provisional.pyramid.grid(address.level), address.column < grid.columns, address.row < grid.rows
        else {
            return .error(.notFound("\(base) has no tile \(address.level)/\(address.column)_\(address.row).\(tile.format)"))
        }
        let name = "/\(address.level)/\(address.column)_\(address.row).\(descriptor.format)"
        let paths = provisional.filesPaths.map { $0 + name }
        let profile = ResponseProfile(contentType: MIMEType.forExtension(descriptor.format), cacheControl: ResponseProfile.noStore, cors: cors)
        let deliver = self.deliver
        services.tiles.threadPool.submit { state in
            guard case .active = state else { return deliver(.error(RequestError(status: .serviceUnavailable, message: "shutting down"))) }
            deliver(paths.lazy.compactMap { Self.provisionalTile(at: $0, format: descriptor.format, profile: profile) }.first ?? Self.notYet)
        }
        return .later
    }

    /// The visible-rect answer for a pyramid still being built, when `name` is `NAME@VERSION` with the provisional
    /// version of a running job: its tiles under the provisional version's URLs (which may not be written yet: their
    /// requests answer 404 with `Retry-After` until they are), `no-store`, nothing warmed. Nil when `name` is not
    /// provisional.
    func provisionalVisibleResponse(name: Substring, query: QueryString, grant: AccessGrant = .open) -> Response? {
        let (base, version) = Self.split(name)
        guard let version, let provisional = services.jobs.provisional(named: base, version: version) else { return nil }
        let answer: VisibleTiles
        do throws(GeometryError) {
            answer = try provisional.pyramid.visibleTiles(in: try Viewport(parameters: { query.value(named: $0) }))
        } catch {
            return .error(.badRequest(error.message))
        }
        let signed = provisionalTileQuery(base: base, version: version, grant: grant).map { "?" + $0 } ?? ""
        let json = answer.jsonWriter(
            tileURLPrefix: "/images/\(base)@\(version)_files/", tileURLSuffix: "." + provisional.descriptor.format + signed)
        return .ok(json.withBytes { ByteBuffer(bytes: $0) }, profile: services.blocks.jsonNoStore)
    }

    /// The query of the signed tile URLs of provisional version `version` of image `base` when `grant` is a token's
    /// (nil otherwise: a public image, whose tiles need none).
    private func provisionalTileQuery(base: Substring, version: Substring, grant: AccessGrant) -> String? {
        guard case .token = grant, let policy = services.access else { return nil }
        return policy.tileQuery(name: String(base), version: String(version), now: WallClock.seconds())
    }

    /// The tile file at `path` (blocking): 200 with its bytes, or nil while it is missing, empty or not whole yet —
    /// the slicer writes a tile in place, and a reader can see its first pages before the last
    /// (``isWholeTile(_:format:)``).
    static func provisionalTile(at path: String, format: String, profile: ResponseProfile) -> Response? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: Int(info.st_size))
        let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(info.st_size)) { bytes in
            max(0, read(descriptor, bytes.baseAddress, Int(info.st_size)))
        }
        guard count == Int(info.st_size), buffer.withUnsafeReadableBytes({ Self.isWholeTile($0, format: format) }) else {
            return nil
        }
        return .ok(buffer, profile: profile)
    }

    /// Whether `bytes` are a whole encoded tile of format `format` (a tile file extension), judged by its end: a JPEG
    /// ends with EOI, a PNG with its IEND chunk, a WebP file is as long as its RIFF header says. Other formats: true.
    static func isWholeTile(_ bytes: UnsafeRawBufferPointer, format: String) -> Bool {
        let count = bytes.count
        switch format {
        case "jpg", "jpeg":
            return count >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[count - 2] == 0xFF && bytes[count - 1] == 0xD9
        case "png":
            return count >= 20 && Array(bytes[(count - 12)...]) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        case "webp":
            guard count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8) else { return false }
            let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return size + 8 == count
        default:
            return true
        }
    }

    private static var notYet: Response {
        .error(RequestError.notFound("this tile is not written yet"), extraHeaders: "Retry-After: 1\r\n", close: false)
    }
}

extension Router {
    /// The unpaged image list `body` (a JSON array) with the pyramids being built appended — those `visible` lets the
    /// client see and that have no published version yet — each with `"state": "slicing"`, its job and progress, and
    /// its provisional `version`/`dzi`; and the count. Unchanged (no copy) when nothing is being built.
    func withProvisional(_ body: ByteBuffer, count: Int, visible: (String) -> Bool) -> (body: ByteBuffer, count: Int) {
        let building = services.jobs.provisionalPyramids.filter { catalog.image(named: $0.job.name[...]) == nil && visible($0.job.name) }
        guard !building.isEmpty else { return (body, count) }
        var text = String(buffer: body)
        guard text.hasSuffix("]") else { return (body, count) }
        text.removeLast()
        for provisional in building {
            if text.count > 1 { text += "," }
            let progress = (provisional.job.snapshot.fraction(source: provisional.job.source) * 1000).rounded() / 1000
            text += JSONWriter.text { writer in
                writer.imageListEntry(
                    name: provisional.job.name, descriptor: provisional.descriptor, maxLevel: provisional.pyramid.maxLevel,
                    version: provisional.version, dzi: provisional.dzi
                ) { writer in
                    writer.member("state", "slicing")
                    writer.member("job", "/api/jobs/\(provisional.job.id)")
                    writer.member("progress", progress)
                }
            }
        }
        return (ByteBuffer(string: text + "]"), count + building.count)
    }
}
