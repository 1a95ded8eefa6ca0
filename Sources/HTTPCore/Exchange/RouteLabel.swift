/// The route an exchange is counted and logged under: a small closed set the service defines (its slot is an index
/// into the metrics' arrays), of which the HTTP core knows one — ``invalid``, for requests refused before routing.
package struct RouteLabel: Hashable, Sendable {
    /// The label's slot in the service's arrays, 0 ..< the number of labels.
    package let rawValue: Int
    /// The label as the metrics and logs name it.
    package let name: String

    /// A label at `rawValue` named `name`.
    package init(rawValue: Int, name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// Requests refused before routing: malformed, bad paths, wrong methods, timeouts.
    package static let invalid = RouteLabel(rawValue: 0, name: "invalid")

    package static func == (left: RouteLabel, right: RouteLabel) -> Bool { left.rawValue == right.rawValue }
    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
