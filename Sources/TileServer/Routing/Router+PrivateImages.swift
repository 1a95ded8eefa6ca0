import Glibc
import HTTPCore
import NIOCore
import TileSources

extension Router {
    /// A descriptor: as always for a public image; for a private one granted by a token, with the query of its signed
    /// tile URLs in `Tiler-Tile-Query` and never stored by shared caches.
    func descriptorResponse(name: Substring, grant: AccessGrant) -> Response {
        let found: (image: CatalogImage, versioned: Bool)
        switch lookup(name) {
        case .success(let image): found = image
        case .failure(let error): return provisionalResponse(name: name, tile: nil, grant: grant) ?? .error(error)
        }
        if let signed = signedTiles(for: found.image, grant: grant) {
            return .file(
                found.image.descriptorFile, profile: services.blocks.privateDescriptor,
                extraHeaders: ByteBuffer(string: "\(Self.tileQueryHeader): \(signed.query)\r\n"))
        }
        let profile = found.versioned ? services.blocks.versionedDescriptor : services.blocks.descriptor
        return .file(found.image.descriptorFile, profile: profile, extraHeaders: nil)
    }

    /// The header naming the query to append to a private image's tile URLs.
    static let tileQueryHeader = "Tiler-Tile-Query"

    /// The query of `image`'s signed tile URLs and the suffix of its Deep Zoom tile URLs (`.FORMAT?QUERY`) when
    /// `grant` is a token's (nil for public images). Made once per connection, image and window.
    func signedTiles(for image: CatalogImage, grant: AccessGrant) -> AccessMemo.SignedTiles? {
        guard case .token = grant, let policy = services.access else { return nil }
        let now = WallClock.seconds()
        return memo.signedTiles(image: image.id, window: now / policy.windowSeconds) {
            let query = policy.tileQuery(name: image.name, version: image.version, now: now)
            return (query, "." + image.descriptor.format + "?" + query)
        }
    }

    /// The image list under a policy: the public images and those `token` grants (each private one with its
    /// `tileQuery`), whole or one page. O(n) in the images per request (the list depends on the token, so it is not
    /// shared), and one HMAC-SHA256 per private image listed.
    /// A `refused` credential gets the public list with its refusal in ``AccessRefusal/tokenRefusedHeader``, never
    /// stored by shared caches.
    func filteredImageList(
        page: ImageListPage?, policy: AccessPolicy, token: AccessToken?, carrying queryToken: String? = nil, refused: AccessRefusal? = nil
    ) -> Response {
        // The private images listed (those the token grants), told apart once, as the list is filtered.
        var granted = Set<Int>()
        let visible = services.catalog.current.sorted.filter { image in
            let names = image.accessNames
            if names.allSatisfy({ policy.visibility(of: $0) == .public }) { return true }
            guard let token, names.allSatisfy({ token.grants($0) }) else { return false }
            granted.insert(image.id)
            return true
        }
        let profile = token == nil && refused == nil ? services.blocks.json : services.blocks.jsonPrivate
        let refusedLine = refused?.refusedHeaderLine ?? ""
        // A private image granted by the token is listed with the query of its signed tile URLs, so that a list of
        // images can show their thumbnails (as the descriptor's Tiler-Tile-Query does for one image).
        let now = WallClock.seconds()
        let signed: ((CatalogImage) -> String?)? =
            granted.isEmpty
            ? nil
            : { [granted] image in
                granted.contains(image.id) ? policy.tileQuery(name: image.name, version: image.version, now: now) : nil
            }
        guard let page else {
            let listed = withProvisional(CatalogSnapshot.json(visible[...], signedTiles: signed), count: visible.count) { name in
                policy.visibility(of: name) == .public || (token.map { $0.grants(name) } ?? false)
            }
            return .body(
                status: .ok, headerLines: profile.headerLines, extraHeaders: "X-Total-Count: \(listed.count)\r\n" + refusedLine,
                body: listed.body)
        }
        let start = min(max(page.offset, 0), visible.count)
        let end = start + min(max(page.limit, 0), visible.count - start)
        return .body(
            status: .ok, headerLines: profile.headerLines,
            extraHeaders: page.headerLines(total: visible.count, token: queryToken) + refusedLine,
            body: CatalogSnapshot.json(visible[start..<end], signedTiles: signed))
    }
}

extension AccessGrant {
    /// Whether the answer is the public one.
    var isOpen: Bool {
        if case .open = self { return true }
        if case .list(nil) = self { return true }
        return false
    }
}
