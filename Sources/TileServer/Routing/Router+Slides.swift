import HTTPCore
import ImageCodecs
import JSONText
import NIOCore
import Slicing
import TileGeometry
import TileSources

extension Router {
    /// `GET /api/images/{name}/properties`: every property OpenSlide reports for a slide, or that a pyramid records
    /// of the slide it was sliced from (``CatalogImage/recorded``), as one JSON object of strings; 404 for an image
    /// with no properties.
    func propertiesResponse(name: Substring) -> Response {
        let properties: [String: String]
        switch lookup(name) {
        case .success(let found):
            guard let known = found.image.properties else { return .error(.notFound("\(found.image.name) has no properties")) }
            properties = known
        case .failure(let error): return .error(error)
        }
        let body = JSONWriter.text(capacity: 64 + properties.count * 64) { writer in
            writer.openObject()
            for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
                writer.member(key, value)
            }
            writer.closeObject()
        }
        return .ok(ByteBuffer(string: body), profile: services.blocks.json)
    }

    /// `GET /api/images/{name}/associated/{kind}`: a slide's associated image as JPEG (quality 90), encoded once on a
    /// render thread (never an event loop) and kept with the slide; 404 when the slide has none of that kind, 503
    /// when the render threads are all taken.
    func associatedResponse(name: Substring, kind: Substring) -> Response {
        let image: CatalogImage
        let slide: SlidePyramid
        switch lookup(name) {
        case .success(let found):
            guard let extras = found.image.slideExtras else { return keptAssociatedResponse(found.image, kind: String(kind)) }
            (image, slide) = (found.image, extras)
        case .failure(let error): return .error(error)
        }
        let kind = String(kind)
        guard slide.associatedImages[kind] != nil else {
            return .error(.notFound("\(image.name) has no associated image \(kind.prefix(64))"))
        }
        let etag = "\"\(image.version)-\(kind)\""
        let profile = services.blocks.tile(format: "jpg", versioned: false)
        if let bytes = slide.encodedAssociated(kind) {
            return .file(LoadedFile(bytes: bytes, etag: etag), profile: profile, extraHeaders: nil)
        }
        let services = self.services
        let deliver = self.deliver
        let job = services.renders.submit(
            { _, _ in try slide.encodeAssociated(kind) },
            completion: { result in
                switch result {
                case .success(let bytes):
                    deliver(.file(LoadedFile(bytes: bytes, etag: etag), profile: profile, extraHeaders: nil))
                case .failure(let error):
                    services.readFailures.note("Reading \(kind) of \(image.name) failed: \(error)", key: image.name)
                    deliver(.error(RequestError(status: .internalServerError, message: "the \(kind) image could not be read")))
                }
            })
        guard job != nil else { return .error(RequestError(status: .serviceUnavailable, message: "too many renders; try again")) }
        return .later
    }

    /// An associated image a sliced slide's folder pyramid, SZI or TIFF keeps (``CatalogImage/keptAssociated``): its
    /// JPEG file, archive entry or TIFF strip, read on a render thread (never an event loop); 404 for a kind it does
    /// not keep (an image that is no slide keeps none), 503 when the render threads are all taken.
    private func keptAssociatedResponse(_ image: CatalogImage, kind: String) -> Response {
        guard image.keptAssociated.contains(kind) else {
            return .error(.notFound("\(image.name) has no associated image \(kind.prefix(64))"))
        }
        let etag = "\"\(image.version)-\(kind)\""
        let profile = services.blocks.tile(format: "jpg", versioned: false)
        let source = image.source
        let services = self.services
        let deliver = self.deliver
        let job = services.renders.submit(
            { _, _ in try source.keptAssociated(kind, of: image) },
            completion: { result in
                switch result {
                case .success(let bytes):
                    deliver(.file(LoadedFile(bytes: bytes, etag: etag), profile: profile, extraHeaders: nil))
                case .failure(let error as FileLoadError) where error.kind == .notFound || error.kind == .outsideRoot:
                    // Removed since the scan, or a symlink out of ROOT: as if it were not kept.
                    deliver(.error(.notFound("\(image.name) has no associated image \(kind)")))
                case .failure(let error):
                    services.readFailures.note("Reading \(kind) of \(image.name) failed: \(error)", key: image.name)
                    deliver(.error(RequestError(status: .internalServerError, message: "the \(kind) image could not be read")))
                }
            })
        guard job != nil else { return .error(RequestError(status: .serviceUnavailable, message: "too many renders; try again")) }
        return .later
    }
}
