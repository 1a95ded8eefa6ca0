import JSONText
import TileGeometry

/// A request the server refuses: the status to answer and a one-line message for the JSON error body.
struct RequestError: Error, Sendable, CustomStringConvertible {
    /// The status to answer, a 4xx or 5xx.
    let status: HTTPStatus
    /// A one-line, specific message, e.g. `zoomScale must be a finite number > 0 (got -1)`.
    let message: String

    /// 400: the request is malformed (`message` names what).
    static func badRequest(_ message: String) -> RequestError { RequestError(status: .badRequest, message: message) }

    /// 404: nothing here (`message` names what was not found).
    static func notFound(_ message: String) -> RequestError { RequestError(status: .notFound, message: message) }

    var description: String { "\(status.rawValue) \(message)" }

    /// `{"error":"…","status":N}`: the body of every JSON error response.
    var json: String {
        JSONWriter.text(capacity: message.utf8.count + 32) { writer in
            writer.openObject()
            writer.member("error", message)
            writer.member("status", status.rawValue)
            writer.closeObject()
        }
    }
}
