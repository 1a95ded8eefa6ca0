import HTTPCore
import NIOCore
import Rendering

/// The service's response profiles, encoded once at startup, beside the HTTP core's pieces (``http``). A class: handing it around retains one object, where a struct of a
/// dozen buffers would retain each of them on every copy (on every request, from both cores).
final class ResponseBlocks: Sendable {
    /// The HTTP core's pieces (status lines, connection lines, the error profile).
    let http: HTTPBlocks
    /// `X-Cache: hit`
    let cacheHit = ByteBuffer(string: "X-Cache: hit\r\n")
    /// `X-Cache: miss`
    let cacheMiss = ByteBuffer(string: "X-Cache: miss\r\n")
    /// Which origins may read answers; its lines are in every profile here.
    let cors: CORSPolicy
    /// `.dzi` descriptors: XML, short-lived.
    let descriptor: ResponseProfile
    /// `.dzi` descriptors under their versioned URL (`NAME@VERSION.dzi`): they never change there.
    let versionedDescriptor: ResponseProfile
    /// JSON answers: short-lived, never sniffed.
    let json: ResponseProfile
    /// JSON errors and health: not stored, never sniffed (an error names the path it was asked for).
    var jsonNoStore: ResponseProfile { http.jsonNoStore }
    /// JSON answers to an access token: for that client only.
    let jsonPrivate: ResponseProfile
    /// A private image's descriptor, answered to an access token.
    let privateDescriptor: ResponseProfile
    /// Tiles of private images, by ``tileFormatIndex(_:)``: their `Cache-Control` follows their signature.
    private let privateTiles: [ResponseProfile]
    /// The access token service's page for a client's iframe: for that client only.
    let privateHTML: ResponseProfile
    /// Prometheus text.
    let metrics: ResponseProfile
    /// CORS preflight answers and redirects (empty bodies).
    let empty: ResponseProfile
    /// Tiles under versioned URLs (immutable), by ``tileFormatIndex(_:)``.
    private let versionedTiles: [ResponseProfile]
    /// Tiles under unversioned URLs and stored tiles answering IIIF requests (revalidated), by ``tileFormatIndex(_:)``.
    private let revalidatedTiles: [ResponseProfile]
    /// Rendered IIIF images, by format.
    private let iiifImages: [IIIFFormat: ResponseProfile]
    /// IIIF image information as JSON-LD.
    let iiifInfoJSONLD: ResponseProfile
    /// IIIF image information as plain JSON.
    let iiifInfoJSON: ResponseProfile
    /// A private image's IIIF image information, as JSON-LD and as JSON: for the token's bearer only.
    let iiifInfoJSONLDPrivate: ResponseProfile
    let iiifInfoJSONPrivate: ResponseProfile

    /// The blocks for a server whose answers follow `cors`.
    init(cors: CORSPolicy) {
        self.cors = cors
        http = HTTPBlocks(cors: cors)
        descriptor = ResponseProfile(contentType: "application/xml", cacheControl: ResponseProfile.short, cors: cors, acceptsRanges: true)
        versionedDescriptor = ResponseProfile(
            contentType: "application/xml", cacheControl: ResponseProfile.immutable, cors: cors, acceptsRanges: true)
        json = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.short, cors: cors, noSniff: true)
        jsonPrivate = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.privateNoStore, cors: cors, noSniff: true)
        privateDescriptor = ResponseProfile(
            contentType: "application/xml", cacheControl: ResponseProfile.privateNoStore, cors: cors, acceptsRanges: true)
        privateHTML = ResponseProfile(
            contentType: "text/html; charset=utf-8", cacheControl: ResponseProfile.privateNoStore, cors: cors, noSniff: true)
        metrics = ResponseProfile(contentType: "text/plain; version=0.0.4; charset=utf-8", cacheControl: ResponseProfile.noStore, cors: cors)
        empty = ResponseProfile(contentType: "text/plain; charset=utf-8", cacheControl: ResponseProfile.short, cors: cors)
        let tileExtensions = Self.tileFormats
        versionedTiles = tileExtensions.map {
            ResponseProfile(contentType: MIMEType.forExtension($0), cacheControl: ResponseProfile.immutable, cors: cors, acceptsRanges: true)
        }
        revalidatedTiles = tileExtensions.map {
            ResponseProfile(contentType: MIMEType.forExtension($0), cacheControl: ResponseProfile.revalidate, cors: cors, acceptsRanges: true)
        }
        privateTiles = tileExtensions.map {
            ResponseProfile(contentType: MIMEType.forExtension($0), cacheControl: nil, cors: cors, acceptsRanges: true)
        }
        iiifImages = Dictionary(
            uniqueKeysWithValues: IIIFFormat.allCases.map {
                ($0, ResponseProfile(contentType: $0.mimeType, cacheControl: ResponseProfile.revalidate, cors: cors, acceptsRanges: true))
            })
        iiifInfoJSONLD = ResponseProfile(contentType: IIIFMediaType.jsonLD.contentType, cacheControl: ResponseProfile.short, cors: cors)
        iiifInfoJSON = ResponseProfile(contentType: IIIFMediaType.json.contentType, cacheControl: ResponseProfile.short, cors: cors)
        iiifInfoJSONLDPrivate = ResponseProfile(
            contentType: IIIFMediaType.jsonLD.contentType, cacheControl: ResponseProfile.privateNoStore, cors: cors)
        iiifInfoJSONPrivate = ResponseProfile(contentType: IIIFMediaType.json.contentType, cacheControl: ResponseProfile.privateNoStore, cors: cors)
    }

    /// How tiles with file extension `format` are answered: immutable under a versioned URL, else revalidated.
    ///
    /// - Complexity: O(1): a comparison or four for the usual formats.
    func tile(format: String, versioned: Bool) -> ResponseProfile {
        if let index = Self.tileFormatIndex(format) { return (versioned ? versionedTiles : revalidatedTiles)[index] }
        // A format without a prepared profile (a descriptor may name any): made for the request; rare.
        return ResponseProfile(
            contentType: MIMEType.forExtension(format), cacheControl: versioned ? ResponseProfile.immutable : ResponseProfile.revalidate, cors: cors,
            acceptsRanges: true)
    }

    /// The file extensions of tiles with prepared profiles.
    private static let tileFormats = ["jpg", "jpeg", "png", "webp"]

    /// Where `format`'s profiles are in the tile profile lists, if it has prepared ones. Comparing short strings
    /// costs less than hashing one (this is asked once per tile request).
    private static func tileFormatIndex(_ format: String) -> Int? {
        tileFormats.firstIndex(of: format)
    }

    /// How a private image's tiles with file extension `format` are answered: without `Cache-Control`, which the
    /// response adds from its grant.
    func privateTile(format: String) -> ResponseProfile {
        Self.tileFormatIndex(format).map { privateTiles[$0] }
            ?? ResponseProfile(contentType: MIMEType.forExtension(format), cacheControl: nil, cors: cors, acceptsRanges: true)
    }

    /// How rendered IIIF images in `format` are answered: revalidated (IIIF ids carry no version, so a re-slice keeps
    /// the URL), which is cheap: the entity tag is known without rendering.
    func iiifImage(_ format: IIIFFormat) -> ResponseProfile {
        iiifImages[format]!
    }
}
