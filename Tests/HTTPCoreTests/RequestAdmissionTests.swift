import NIOHTTP1
import Testing

@testable import HTTPCore

/// The admission stage without a socket: every request head, uploads included, is decided in one order — framing,
/// `Host`, method, `Expect`, declared body — and each resource's `Allow` is what it takes.
@Suite struct RequestAdmissionTests {
    let admission = RequestAdmission(maxBodyBytes: 100, maxUploadBytes: 1 << 20)

    func head(_ method: HTTPMethod, _ uri: String = "/", minor: Int = 1, fields: [(String, String)] = [("Host", "t")]) -> HTTPRequestHead {
        HTTPRequestHead(version: HTTPVersion(major: 1, minor: minor), method: method, uri: uri, headers: HTTPHeaders(fields))
    }

    func refusal(_ decision: RequestAdmission.Decision) -> RequestError? {
        if case .refuse(let error) = decision { return error }
        return nil
    }

    @Test func framingAndHostComeFirstForEveryMethod() {
        for method: HTTPMethod in [.GET, .PUT, .DELETE, .POST] {
            // HTTP/1.0 has no transfer codings: refused before the method or the upload is looked at.
            let chunked10 = admission.decide(head(method, minor: 0, fields: [("Transfer-Encoding", "chunked")]))
            #expect(refusal(chunked10)?.status == .badRequest, "\(method)")
            #expect(refusal(chunked10)?.message.contains("HTTP/1.0") == true, "\(method)")
            #expect(refusal(admission.decide(head(method, fields: [])))?.message == "an HTTP/1.1 request needs a Host header", "\(method)")
            #expect(refusal(admission.decide(head(method, fields: [("Host", "a"), ("Host", "b")])))?.status == .badRequest, "\(method)")
        }
        if case .proceed = admission.decide(head(.GET, minor: 0, fields: [])) {} else { Issue.record("HTTP/1.0 needs no Host") }
        #expect(RequestAdmission.hostsAreValid(1, isHTTP10: false) && RequestAdmission.hostsAreValid(0, isHTTP10: true))
        #expect(!RequestAdmission.hostsAreValid(0, isHTTP10: false) && !RequestAdmission.hostsAreValid(2, isHTTP10: true))
    }

    @Test func methodsNoRouteTakesAreRefused() {
        for method: HTTPMethod in [.POST, .PATCH, .TRACE, .CONNECT] {
            if case .refuseMethod = admission.decide(head(method)) {} else { Issue.record("\(method) is refused") }
        }
    }

    @Test func expectationsAndContinue() {
        let odd = admission.decide(head(.GET, fields: [("Host", "t"), ("Expect", "something-else")]))
        #expect(refusal(odd)?.status == .expectationFailed)
        let oddUpload = admission.decide(head(.PUT, "/api/images/a", fields: [("Host", "t"), ("Expect", "x"), ("Content-Length", "5")]))
        #expect(refusal(oddUpload)?.status == .expectationFailed, "an upload meets the same rule")
        guard case .proceed(true, true) = admission.decide(head(.GET, fields: [("Host", "t"), ("Expect", "100-Continue"), ("Content-Length", "5")]))
        else {
            Issue.record("100-continue before a body")
            return
        }
        guard case .proceed(false, false) = admission.decide(head(.GET, fields: [("Host", "t"), ("Expect", "100-continue")])) else {
            Issue.record("no interim answer without a body")
            return
        }
        guard
            case .upload(true) = admission.decide(
                head(.PUT, "/api/images/a", fields: [("Host", "t"), ("Expect", "100-continue"), ("Content-Length", "9")]))
        else {
            Issue.record("an upload's 100-continue")
            return
        }
        guard case .upload(false) = admission.decide(head(.PUT, "/api/images/a", fields: [("Host", "t"), ("Transfer-Encoding", "chunked")])) else {
            Issue.record("a chunked upload")
            return
        }
    }

    @Test func bodyLimitsByKind() {
        #expect(refusal(admission.decide(head(.GET, fields: [("Host", "t"), ("Content-Length", "101")])))?.status == .contentTooLarge)
        guard case .proceed(true, false) = admission.decide(head(.DELETE, fields: [("Host", "t"), ("Content-Length", "100")])) else {
            Issue.record("a body within the limit")
            return
        }
        let upload = { (fields: [(String, String)]) in admission.decide(head(.PUT, "/api/images/a", fields: [("Host", "t")] + fields)) }
        #expect(refusal(upload([]))?.status == .lengthRequired)
        #expect(refusal(upload([("Content-Length", "0")]))?.status == .unsupportedMediaType)
        #expect(refusal(upload([("Content-Length", "\((1 << 20) + 1)")]))?.status == .contentTooLarge)
        guard case .upload = upload([("Content-Length", "\(1 << 20)")]) else {
            Issue.record("an upload at the limit")
            return
        }
    }
}
