import Glibc
import HTTPCore
import NIOCore
import NIOHTTP1

extension Router {
    /// A refused IIIF request: `info.json` answers with the refusal's status and a document that lists only the
    /// Authorization Flow services (so clients find them; the same for names no image has), the probe with its
    /// result, anything else with the JSON refusal.
    func iiifRefusal(
        _ refusal: AccessRefusal, route: IIIFRoute, head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel
    ) -> Response {
        switch route {
        case .base(let identifier), .info(let identifier):
            exchange.route = .iiifInfo
            var id = channel.allocator.buffer(capacity: 128)
            writeID(ofName: String(identifier), head, into: &id, channel: channel)
            let body = IIIFAuth.servicesOnly(imageID: String(buffer: id), base: serviceBase(head, channel: channel))
            return .body(
                status: refusal.status, headerLines: services.blocks.jsonNoStore.headerLines, extraHeaders: refusal.headerLines,
                body: ByteBuffer(string: body))
        case .probe:
            exchange.route = .iiifInfo
            let body = IIIFAuth.probeResult(status: Int(refusal.status.rawValue))
            return .body(
                status: refusal.status, headerLines: services.blocks.jsonNoStore.headerLines, extraHeaders: refusal.headerLines,
                body: ByteBuffer(string: body))
        case .image:
            exchange.route = .iiifImage
            return refusal.response
        case .accessToken, .unknown:
            return refusal.response
        }
    }

    /// The access token service (external pattern): hands the client the token it presents (its `tiler_token`
    /// cookie, set by the site for its signed-in users, or a bearer), if valid, with its remaining lifetime. With
    /// `messageId` and `origin` (a client's iframe) the answer is a page that posts the result to `origin`'s window,
    /// which must be one of the `--cors-origin` list (never any origin: a page elsewhere must not be handed the
    /// token); else JSON.
    func accessTokenResponse(query: QueryString, exchange: Exchange) -> Response {
        let messageID = query.value(named: "messageId").map(String.init)
        let origin = query.value(named: "origin").map(String.init)
        if let messageID, !messageID.utf8.allSatisfy({ Self.isMessageIDByte($0) }) || messageID.utf8.count > 128 {
            return .error(.badRequest("messageId must be at most 128 of A–Z a–z 0–9 - _ ."))
        }
        if let origin, services.blocks.cors.origins?.contains(origin) != true {
            return .error(RequestError(status: .forbidden, message: "origin is not allowed to receive tokens"))
        }
        var token: String?
        var expiresIn = 0
        var errorProfile = "missingAspect"
        if let policy = services.access, let credential = Self.credential(query: query, exchange: exchange) {
            do {
                let verified = try policy.verify(token: credential, now: WallClock.seconds())
                token = String(credential)
                expiresIn = verified.expires - WallClock.seconds()
            } catch {
                errorProfile = error == .expired ? "expiredAspect" : "invalidAspect"
            }
        }
        let json = IIIFAuth.tokenResult(token: token, expiresIn: expiresIn, errorProfile: errorProfile, messageID: messageID)
        guard messageID != nil, let origin else {
            return .body(status: .ok, headerLines: services.blocks.jsonPrivate.headerLines, extraHeaders: "", body: ByteBuffer(string: json))
        }
        // The JSON holds only base64url, digits and the checked messageId and origin: nothing that ends a script.
        let page = "<!DOCTYPE html><html><body><script>window.parent.postMessage(\(json), \"\(origin)\");</script></body></html>"
        return .body(
            status: .ok, headerLines: services.blocks.privateHTML.headerLines, extraHeaders: "", body: ByteBuffer(string: page))
    }

    private static func isMessageIDByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ".")
    }
}
