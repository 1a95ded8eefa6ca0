import HTTPCore

/// The version in a pyramid's URLs (`/images/NAME@VERSION.dzi`, `…@VERSION_files/…`): 12 lowercase hex digits of a
/// 64-bit FNV-1a hash of the `.dzi` file's bytes, size and modification time.
///
/// `tiler slice --force` publishes a new `.dzi` (a new modification time) with every re-slice, so the version changes
/// with the pyramid and URLs under it can be cached forever (`immutable`). It depends on nothing else, so replicas
/// over one shared folder hand out the same URLs.
package enum PyramidVersion {
    /// The number of hex digits.
    package static let length = 12

    /// The version of the pyramid whose descriptor is `descriptorFile`, read when its `.dzi` had `signature` (and a
    /// slide's other files had `companions`: nil for one missing). O(descriptor bytes + companions).
    package static func of(descriptorFile: LoadedFile, signature: FileSignature, companions: [FileSignature?] = []) -> String {
        var hash = FNV1a()
        hash.mix("v1|\(signature.size)|\(signature.seconds).\(signature.nanoseconds)|".utf8)
        for companion in companions {
            hash.mix((companion.map { "\($0.size).\($0.seconds).\($0.nanoseconds).\($0.inode)|" } ?? "-|").utf8)
        }
        hash.mix(descriptorFile.body)
        let hex = String(hash.value, radix: 16)
        return String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(length))
    }

    /// Whether `text` has a version's shape: exactly ``length`` lowercase hex digits.
    package static func isVersion(_ text: Substring) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
