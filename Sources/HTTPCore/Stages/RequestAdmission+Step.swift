import NIOHTTP1

extension RequestAdmission {
    /// What the connection does with a request head, the ``Responder`` having said what only routes know.
    package enum Step {
        /// Answer this at once: the request is complete (its body, if any, is never read). `route`, when known, labels
        /// it for metrics and the log.
        case answer(Response, route: RouteLabel?)
        /// An upload: the responder admits or refuses its body (``Responder/admitBody(_:exchange:eventLoop:notify:)``),
        /// answering `100 Continue` first if `sendContinue` and admitted.
        case upload(sendContinue: Bool)
        /// Read the rest of the request (`bodyFollows`: a body comes), answering `100 Continue` first if
        /// `sendContinue`, then route it.
        case receive(bodyFollows: Bool, sendContinue: Bool)
    }

    /// `head`'s step: a refusal closes the connection after its answer (a body nobody wants is never read or timed); a
    /// method the resource does not take is a 405 naming those it does.
    ///
    /// - Complexity: O(header fields), and one route lookup.
    package func step(for head: HTTPRequestHead, responder: any Responder) -> Step {
        let decision = decide(head)
        switch decision {
        case .upload(let sendContinue):
            return .upload(sendContinue: sendContinue)
        case .refuse(let error):
            // Refused before routing, but for an upload (a PUT), which is counted as one.
            return .answer(.error(error, extraHeaders: "", close: true), route: head.method == .PUT ? responder.label(head) : nil)
        case .refuseMethod, .proceed:
            let allowed = responder.allowedMethods(uri: head.uri)
            guard case .proceed(let bodyFollows, let sendContinue) = decision, allowed.contains(head.method) else {
                return .answer(.methodNotAllowed(head.method, allowed: allowed), route: responder.label(head))
            }
            return .receive(bodyFollows: bodyFollows, sendContinue: sendContinue)
        }
    }
}
