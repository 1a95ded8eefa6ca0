/// The response statuses the server sends, with their pre-encoded status lines.
///
/// A closed set, so metrics can count per status in fixed slots (``index``) without hashing or locking a map.
package enum HTTPStatus: Int, CaseIterable, Sendable {
    case ok = 200
    case notModified = 304
    case badRequest = 400
    case notFound = 404
    case methodNotAllowed = 405
    case requestTimeout = 408
    case headersTooLarge = 431
    case internalServerError = 500
    case serviceUnavailable = 503
    case seeOther = 303
    case notImplemented = 501
    case partialContent = 206
    case forbidden = 403
    case rangeNotSatisfiable = 416
    case contentTooLarge = 413
    case expectationFailed = 417
    case unauthorized = 401
    case accepted = 202
    case conflict = 409
    case lengthRequired = 411
    case unsupportedMediaType = 415
    case insufficientStorage = 507
    case badGateway = 502
    case gatewayTimeout = 504

    /// The reason phrase, e.g. `Not Found`.
    package var reason: String {
        switch self {
        case .ok: "OK"
        case .notModified: "Not Modified"
        case .badRequest: "Bad Request"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .requestTimeout: "Request Timeout"
        case .headersTooLarge: "Request Header Fields Too Large"
        case .internalServerError: "Internal Server Error"
        case .serviceUnavailable: "Service Unavailable"
        case .seeOther: "See Other"
        case .notImplemented: "Not Implemented"
        case .partialContent: "Partial Content"
        case .forbidden: "Forbidden"
        case .rangeNotSatisfiable: "Range Not Satisfiable"
        case .contentTooLarge: "Content Too Large"
        case .expectationFailed: "Expectation Failed"
        case .unauthorized: "Unauthorized"
        case .accepted: "Accepted"
        case .conflict: "Conflict"
        case .lengthRequired: "Length Required"
        case .unsupportedMediaType: "Unsupported Media Type"
        case .insufficientStorage: "Insufficient Storage"
        case .badGateway: "Bad Gateway"
        case .gatewayTimeout: "Gateway Timeout"
        }
    }

    /// `HTTP/1.1 <code> <reason>\r\n`.
    package var statusLine: String { "HTTP/1.1 \(rawValue) \(reason)\r\n" }

    /// The position of this status in ``allCases``, for fixed-slot counters.
    package var index: Int {
        switch self {
        case .ok: 0
        case .notModified: 1
        case .badRequest: 2
        case .notFound: 3
        case .methodNotAllowed: 4
        case .requestTimeout: 5
        case .headersTooLarge: 6
        case .internalServerError: 7
        case .serviceUnavailable: 8
        case .seeOther: 9
        case .notImplemented: 10
        case .partialContent: 11
        case .forbidden: 12
        case .rangeNotSatisfiable: 13
        case .contentTooLarge: 14
        case .expectationFailed: 15
        case .unauthorized: 16
        case .accepted: 17
        case .conflict: 18
        case .lengthRequired: 19
        case .unsupportedMediaType: 20
        case .insufficientStorage: 21
        case .badGateway: 22
        case .gatewayTimeout: 23
        }
    }
}
