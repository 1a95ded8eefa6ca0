import NIOHTTP1

/// The admission stage: what a request's head must be before anything routes it — its framing (no transfer coding in
/// HTTP/1.0), its `Host` (exactly one in HTTP/1.1, RFC 9112 §3.2), its method, its `Expect` (100-continue alone, RFC
/// 9110 §10.1.1) and its declared body (within the limit of its kind). Every request head read by NIO's decoder is
/// decided here, uploads included, and in this order; the simple requests ``SimpleRequest`` reads are those that pass
/// it with nothing to decide (``hostsAreValid(_:isHTTP10:)`` is the rule both use).
///
/// A value with no socket: the connection acts on its ``Decision``.
package struct RequestAdmission: Sendable {
    /// The most body bytes a `GET`, `HEAD`, `OPTIONS` or `DELETE` may carry (read and dropped).
    package let maxBodyBytes: Int
    /// The most body bytes an upload (`PUT`) may declare.
    package let maxUploadBytes: Int

    /// Admission with these limits, in bytes.
    package init(maxBodyBytes: Int, maxUploadBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxUploadBytes = maxUploadBytes
    }

    /// What the connection does with a request head.
    package enum Decision {
        /// Answer this error at once and close the connection (its body, if any, is never read).
        case refuse(RequestError)
        /// 405: a method no route takes; the route says what its resource allows.
        case refuseMethod
        /// An upload: its route admits or refuses it; `sendContinue` says to answer `100 Continue` first if admitted.
        case upload(sendContinue: Bool)
        /// Read the rest of the request (`bodyFollows`: a body comes), answering `100 Continue` first if
        /// `sendContinue`, then route it.
        case proceed(bodyFollows: Bool, sendContinue: Bool)
    }

    /// The methods some route takes: ``Route/allowedMethods`` says which, for each resource.
    package static let knownMethods: [HTTPMethod] = [.GET, .HEAD, .OPTIONS, .PUT, .DELETE]

    /// Decides on `head`.
    ///
    /// - Complexity: O(header fields).
    package func decide(_ head: HTTPRequestHead) -> Decision {
        let hosts = head.headers["host"].count
        let isHTTP10 = head.version.major == 1 && head.version.minor == 0
        guard Self.hostsAreValid(hosts, isHTTP10: isHTTP10) else {
            let message = hosts == 0 ? "an HTTP/1.1 request needs a Host header" : "the request has \(hosts) Host headers; it may have one"
            return .refuse(.badRequest(message))
        }
        let chunked = head.headers.contains(name: "transfer-encoding")
        if chunked && isHTTP10 {
            // RFC 9112 §6.1: HTTP/1.0 has no transfer codings; such framing is faulty, and the connection must close.
            return .refuse(.badRequest("an HTTP/1.0 request cannot use Transfer-Encoding"))
        }
        guard Self.knownMethods.contains(head.method) else { return .refuseMethod }
        let expectations = head.headers[canonicalForm: "expect"]
        guard expectations.allSatisfy({ $0.lowercased() == "100-continue" }) else {
            return .refuse(RequestError(status: .expectationFailed, message: "the only expectation this server meets is 100-continue"))
        }
        let declared = head.headers.first(name: "content-length").flatMap { Self.declaredLength($0) }
        let bodyFollows = (declared ?? 0) > 0 || chunked
        // The interim answer is only for a client that waits for it (HTTP/1.1) before a body.
        let sendContinue = !expectations.isEmpty && bodyFollows && !isHTTP10
        if head.method == .PUT {
            guard declared != nil || chunked else {
                return .refuse(RequestError(status: .lengthRequired, message: "an upload needs Content-Length (or chunked transfer)"))
            }
            if let declared, declared > maxUploadBytes {
                return .refuse(
                    RequestError(
                        status: .contentTooLarge,
                        message: "the upload's \(declared) bytes are over --max-upload-mb (\(maxUploadBytes >> 20) MiB); nothing was stored"))
            }
            if declared == 0 {
                return .refuse(RequestError(status: .unsupportedMediaType, message: "an empty body is not an image"))
            }
            return .upload(sendContinue: sendContinue)
        }
        if let declared, declared > maxBodyBytes {
            return .refuse(Self.bodyTooLarge(limit: maxBodyBytes))
        }
        return .proceed(bodyFollows: bodyFollows, sendContinue: sendContinue)
    }

    /// The 413 of a request other than an upload whose body is over `limit` bytes (declared, or as it streams).
    package static func bodyTooLarge(limit: Int) -> RequestError {
        RequestError(status: .contentTooLarge, message: "a GET, HEAD, OPTIONS or DELETE request may carry at most \(limit) body bytes")
    }

    /// Whether a request with `count` `Host` headers is taken: exactly one, or none in HTTP/1.0.
    package static func hostsAreValid(_ count: Int, isHTTP10: Bool) -> Bool {
        count == 1 || (count == 0 && isHTTP10)
    }

    /// The answer to a request NIO's decoder could not parse: 431 for a head over `maxHeadBytes` bytes, else 400.
    static func refusal(for error: HTTPParserError, maxHeadBytes: Int) -> RequestError {
        guard error == .headerOverflow else { return .badRequest("malformed request (\(error))") }
        return RequestError(status: .headersTooLarge, message: "the request head is larger than \(maxHeadBytes) bytes")
    }

    /// The number a `Content-Length` value declares (spaces around it allowed), or nil when it is not one.
    package static func declaredLength(_ value: String) -> Int? {
        var text = Substring(value)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return Int(text)
    }
}
