import NIOHPACK
import NIOHTTP2

/// A request's urgency (RFC 9218 §4.1: 0 the most urgent, 7 the least, 3 by default) from what its client said.
package enum HTTP2Priority {
    /// The default urgency.
    package static let defaultUrgency = 3

    /// The urgency of a request with `fields`: its `Priority` field's `u` (RFC 9218), else that of the RFC 7540
    /// weight in `priorityData` (browsers that still send the old scheme: Chromium gives its five request priorities
    /// the weights 256, 220, 183, 147 and 110, which map to urgencies 0 to 4), else the default.
    ///
    /// - Complexity: O(fields).
    package static func urgency(of fields: HPACKHeaders, priorityData: HTTP2Frame.StreamPriorityData?) -> Int {
        for (name, value, _) in fields where name == "priority" {
            if let urgency = urgency(inField: value) { return urgency }
        }
        guard let weight = priorityData?.weight else { return defaultUrgency }
        // The field on the wire (and in NIO) is the weight less one: 255 for 256.
        return min(7, (256 - Int(weight)) / 32)
    }

    /// The `u` member of a `Priority` field value (a structured-field dictionary such as `u=1, i`); nil when it has
    /// none or the value is not an integer from 0 to 7, which the RFC says to ignore.
    ///
    /// - Complexity: O(value length).
    package static func urgency(inField value: String) -> Int? {
        var found: Int?
        for member in value.split(separator: ",") {
            let parts = member.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces == "u" else { continue }
            // The last of repeated members counts (RFC 8941 §4.2.2).
            if let urgency = Int(parts[1].trimmingSpaces), (0...7).contains(urgency) { found = urgency } else { found = nil }
        }
        return found
    }
}

extension Substring {
    /// Without leading and trailing spaces (structured fields allow spaces only, around members).
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
