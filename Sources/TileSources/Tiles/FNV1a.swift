/// A 64-bit FNV-1a hash, fed bytes in order: the one hash behind versions and entity tags that must be stable across
/// restarts and replicas (not Swift's `Hasher`, which is seeded per process). O(bytes).
package struct FNV1a {
    /// The hash of what was fed so far.
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// Feeds `bytes`.
    package mutating func mix(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    /// The hash of `bytes` alone.
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = FNV1a()
        hash.mix(bytes)
        return hash.value
    }
}
