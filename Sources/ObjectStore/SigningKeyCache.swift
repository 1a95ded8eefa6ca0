import Crypto
import Synchronization

/// The SigV4 signing key of the last day a signer signed for. Deriving it takes four HMAC-SHA256s, which cost more
/// than the rest of a request's signature; it changes once a day, so it is derived once a day.
final class SigningKeyCache: Sendable {
    private struct Entry: Sendable {
        var day: String
        // SymmetricKey is not Sendable: its bytes are kept.
        var key: [UInt8]
    }

    private let last = Mutex<Entry?>(nil)

    /// The key of `day` (`yyyyMMdd`): the cached one if it is that day's, else `derive(day)`, kept.
    func key(day: String, derive: (String) -> SymmetricKey) -> SymmetricKey {
        if let cached = last.withLock({ $0 }), cached.day == day { return SymmetricKey(data: cached.key) }
        let key = derive(day)
        let entry = Entry(day: day, key: key.withUnsafeBytes { Array($0) })
        last.withLock { $0 = entry }
        return key
    }
}
