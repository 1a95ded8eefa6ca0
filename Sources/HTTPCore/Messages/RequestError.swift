import JSONText

/// A request the server refuses: the status to answer and a one-line message for the JSON error body.
package struct RequestError: Error, Sendable, CustomStringConvertible {
    /// The status to answer, a 4xx or 5xx.
    package let status: HTTPStatus
    /// A one-line, specific message, e.g. `zoomScale must be a finite number > 0 (got -1)`.
    package let message: String

    /// `status` with `message`.
    package init(status: HTTPStatus, message: String) {
        self.status = status
        self.message = message
    }

    /// 400: the request is malformed (`message` names what).
    package static func badRequest(_ message: String) -> RequestError { RequestError(status: .badRequest, message: message) }

    /// 404: nothing here (`message` names what was not found).
    package static func notFound(_ message: String) -> RequestError { RequestError(status: .notFound, message: message) }

    /// The 408 of a request that did not arrive within its time.
    package static let requestTimeout = RequestError(status: .requestTimeout, message: "the request did not arrive in time")

    package var description: String { "\(status.rawValue) \(message)" }

    /// `{"error":"…","status":N}`: the body of every JSON error response.
    package var json: String {
        JSONWriter.text(capacity: message.utf8.count + 32) { writer in
            writer.openObject()
            writer.member("error", message)
            writer.member("status", status.rawValue)
            writer.closeObject()
        }
    }
}
