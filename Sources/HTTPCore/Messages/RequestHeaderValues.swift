/// The header values an answer may depend on besides the target, which most requests do not send (`If-None-Match`,
/// `Origin`, `Range`, `If-Range`, `Authorization`, the `tiler_token` cookie), held in one object: a request without
/// any — nearly every tile request — carries `nil`, and a request that has some is copied by retaining one reference
/// instead of one per value (requests and exchanges are copied several times on their way through the stages).
package final class RequestHeaderValues: Sendable {
    /// The first `If-None-Match` header's value.
    package let ifNoneMatch: String?
    /// The first `Origin` header's value (a cross-origin request).
    package let origin: String?
    /// The first `Range` header's value.
    package let range: String?
    /// The first `If-Range` header's value.
    package let ifRange: String?
    /// The first `Authorization` header's value (an access token).
    package let authorization: String?
    /// The `tiler_token` cookie's value (an access token).
    package let cookieToken: Substring?

    private init(
        ifNoneMatch: String?, origin: String?, range: String?, ifRange: String?, authorization: String?, cookieToken: Substring?
    ) {
        self.ifNoneMatch = ifNoneMatch
        self.origin = origin
        self.range = range
        self.ifRange = ifRange
        self.authorization = authorization
        self.cookieToken = cookieToken
    }

    /// The values given, or `nil` when none is.
    package static func holding(
        ifNoneMatch: String?, origin: String?, range: String?, ifRange: String?, authorization: String?, cookieToken: Substring? = nil
    ) -> RequestHeaderValues? {
        if ifNoneMatch == nil && origin == nil && range == nil && ifRange == nil && authorization == nil && cookieToken == nil {
            return nil
        }
        return RequestHeaderValues(
            ifNoneMatch: ifNoneMatch, origin: origin, range: range, ifRange: ifRange, authorization: authorization, cookieToken: cookieToken)
    }
}

extension RequestHeaderValues: Equatable {
    package static func == (lhs: RequestHeaderValues, rhs: RequestHeaderValues) -> Bool {
        lhs.ifNoneMatch == rhs.ifNoneMatch && lhs.origin == rhs.origin && lhs.range == rhs.range && lhs.ifRange == rhs.ifRange
            && lhs.authorization == rhs.authorization && lhs.cookieToken == rhs.cookieToken
    }
}
