import HTTPCore

/// Why a request for a private image is refused: a status and a reason that says what was wrong with what the client
/// sent, never anything about the image (an unknown name under a private prefix is refused exactly like a known one).
struct AccessRefusal: Error, Sendable, Equatable {
    /// 400, 401 or 403.
    let status: HTTPStatus
    /// The JSON error's message.
    let reason: String
    /// The `error` of the `WWW-Authenticate` challenge (RFC 6750 §3.1), for 401s that had a token.
    let challengeError: String?

    /// No token or signature at all: 401.
    static let missing = AccessRefusal(status: .unauthorized, reason: "this needs an access token", challengeError: nil)
    /// A token or signed URL that is not in the documented form: 400.
    static let malformed = AccessRefusal(status: .badRequest, reason: "the access token or signature is malformed", challengeError: "invalid_request")
    /// A signed URL whose query holds more than its one `sig` (another parameter, a second `sig`, an empty pair):
    /// 400, so that no variant of a signed URL is a cache key of its own.
    static let extraQuery = AccessRefusal(
        status: .badRequest, reason: "a signed URL's query is its signature alone: ?sig=SIG and nothing else", challengeError: "invalid_request")
    /// A token whose claims name a member twice (``ClaimKeys``): 400.
    static let repeatedClaim = AccessRefusal(
        status: .badRequest, reason: "the access token's claims give a member twice", challengeError: "invalid_request")
    /// A key id the policy does not have: 401.
    static let unknownKey = AccessRefusal(status: .unauthorized, reason: "the access token's key is unknown", challengeError: "invalid_token")
    /// A signature that does not verify: 401.
    static let badSignature = AccessRefusal(
        status: .unauthorized, reason: "the access token or signature is invalid", challengeError: "invalid_token")
    /// Past its expiry: 401 (the viewer's `tokenexpired`).
    static let expired = AccessRefusal(status: .unauthorized, reason: "the access token or signature has expired", challengeError: "invalid_token")
    /// A valid token that does not name the image: 403.
    static let wrongImage = AccessRefusal(status: .forbidden, reason: "the access token does not grant this image", challengeError: nil)
    /// A valid token whose scope is not the one the request needs: 403.
    static let wrongScope = AccessRefusal(status: .forbidden, reason: "the access token's scope does not allow this", challengeError: nil)

    /// The header lines of the refusal: a Bearer challenge on 401s (RFC 6750), nothing else.
    var headerLines: String {
        guard status == .unauthorized else { return "" }
        let error = challengeError.map { ", error=\"\($0)\"" } ?? ""
        return "WWW-Authenticate: Bearer realm=\"tiler\"\(error)\r\n"
    }

    /// The value of ``tokenRefusedHeader`` on a public answer given although the credential presented was refused:
    /// the status the refusal would have had and its reason, e.g. `401 the access token or signature has expired`.
    var refusedHeaderLine: String {
        "\(Self.tokenRefusedHeader): \(status.rawValue) \(reason)\r\n"
    }

    /// The header of a public answer (the image list) saying that the credential that came with the request was
    /// refused, so that a viewer can renew its token while it shows the public images.
    static let tokenRefusedHeader = "Tiler-Token-Refused"

    /// The response: a JSON error with this status and reason, the challenge on 401s.
    var response: Response {
        .error(RequestError(status: status, message: reason), extraHeaders: headerLines, close: false)
    }
}
