/// Joins an ICC profile split over JPEG APP2 markers (`"ICC_PROFILE\0"`, sequence number 1…N, count N, data).
enum JPEGICCAssembly {
    static let signature = Array("ICC_PROFILE".utf8) + [0]

    /// The colour tag the APP2 payloads carry: untagged when none is an ICC marker, the profile when the markers
    /// are consistent and lcms can parse it, otherwise the reason it cannot be used. O(total payload bytes).
    static func tag(_ payloads: [[UInt8]]) -> ColourTag {
        let chunks = payloads.filter { $0.count >= 14 && Array($0.prefix(12)) == signature }
        guard !chunks.isEmpty else { return .untagged }
        let count = Int(chunks[0][13])
        var parts = [[UInt8]?](repeating: nil, count: count)
        for chunk in chunks {
            let sequence = Int(chunk[12])
            guard Int(chunk[13]) == count, (1...max(count, 1)).contains(sequence), count > 0 else {
                return .brokenProfile("ICC_PROFILE markers disagree on their numbering")
            }
            guard parts[sequence - 1] == nil else { return .brokenProfile("ICC_PROFILE marker \(sequence) appears twice") }
            parts[sequence - 1] = Array(chunk[14...])
        }
        if let missing = parts.firstIndex(where: { $0 == nil }) {
            return .brokenProfile("ICC_PROFILE marker \(missing + 1) of \(count) is missing")
        }
        let bytes = parts.flatMap { $0! }
        do {
            return .iccProfile(try ICCProfile(bytes: bytes))
        } catch {
            return .brokenProfile(error.message)
        }
    }
}
