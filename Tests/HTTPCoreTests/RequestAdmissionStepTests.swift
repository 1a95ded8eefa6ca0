import NIOCore
import NIOHTTP1
import Testing

@testable import HTTPCore

/// The admission stage's steps, the responder consulted for what only routes know: a refusal closes, a method its
/// resource does not take is a 405 naming those it does (closing too: its body is never read), labelled with its route;
/// the rest is read or streamed.
@Suite struct RequestAdmissionStepTests {
    let admission = RequestAdmission(maxBodyBytes: 100, maxUploadBytes: 1 << 20)

    /// A two-resource service: `/images/…` takes GET, HEAD, OPTIONS, PUT and DELETE; everything else GET and HEAD.
    final class Routes: Responder {
        static let images = RouteLabel(rawValue: 7, name: "images")
        static let other = RouteLabel(rawValue: 8, name: "other")
        func respond(to request: SimpleRequest, exchange: inout Exchange) -> Response { .error(.notFound("none")) }
        func respond(to head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel) -> Response { .error(.notFound("none")) }
        func allowedMethods(uri: String) -> [HTTPMethod] {
            uri.hasPrefix("/images/") ? [.GET, .HEAD, .OPTIONS, .PUT, .DELETE] : [.GET, .HEAD]
        }
        func label(_ head: HTTPRequestHead) -> RouteLabel { head.uri.hasPrefix("/images/") ? Self.images : Self.other }
        func admitBody(
            _ head: HTTPRequestHead, exchange: inout Exchange, eventLoop: any EventLoop, notify: @escaping (RequestError?) -> Void
        ) -> BodyAdmission { .refused(.error(.notFound("none"))) }
    }

    func head(_ method: HTTPMethod, _ uri: String, fields: [(String, String)] = [("Host", "t")]) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(fields))
    }

    @Test func refusalsCloseAndOnlyUploadsAreLabelled() {
        guard case .answer(.error(let error, _, let close), let route) = admission.step(for: head(.GET, "/images/a", fields: []), responder: Routes())
        else {
            Issue.record("a request without Host is answered at once")
            return
        }
        #expect(error.status == .badRequest && close && route == nil)
        let put = head(.PUT, "/images/a", fields: [("Host", "t")])
        guard case .answer(.error(let lengthRequired, _, true), let putRoute) = admission.step(for: put, responder: Routes())
        else {
            Issue.record("an upload without a length is answered at once")
            return
        }
        #expect(lengthRequired.status == .lengthRequired && putRoute == Routes.images)
    }

    @Test func aMethodTheResourceDoesNotTakeIsA405NamingThoseItDoes() {
        for (method, uri) in [(HTTPMethod.DELETE, "/viewer"), (.POST, "/images/a"), (.OPTIONS, "/metrics")] {
            guard case .answer(let response, let route) = admission.step(for: head(method, uri), responder: Routes()) else {
                Issue.record("\(method) \(uri) is a 405")
                continue
            }
            var exchange = Exchange(head: head(method, uri))
            let settled = response.settled(for: &exchange, closing: false, blocks: HTTPBlocks(cors: CORSPolicy(origins: [])))
            #expect(settled?.status == .methodNotAllowed && settled?.close == true, "\(method) \(uri)")
            #expect(settled?.routeText.contains(uri.hasPrefix("/images/") ? "Allow: GET, HEAD, OPTIONS, PUT, DELETE" : "Allow: GET, HEAD") == true)
            #expect(route == Routes().label(head(method, uri)))
        }
    }

    @Test func admittedRequestsAreReadOrStreamed() {
        guard case .receive(false, false) = admission.step(for: head(.GET, "/images/a"), responder: Routes()) else {
            Issue.record("a GET is read")
            return
        }
        let withBody = head(.DELETE, "/images/a", fields: [("Host", "t"), ("Content-Length", "5"), ("Expect", "100-continue")])
        guard case .receive(true, true) = admission.step(for: withBody, responder: Routes()) else {
            Issue.record("a DELETE with a body expecting 100-continue is read after the interim answer")
            return
        }
        let upload = head(.PUT, "/images/a", fields: [("Host", "t"), ("Content-Length", "5")])
        guard case .upload(false) = admission.step(for: upload, responder: Routes()) else {
            Issue.record("a PUT streams")
            return
        }
    }
}
