import Crypto
import FoundationEssentials

extension AccessPolicy {
    /// Reads the policy file at `path` (JSON) and the keys it names, from files (relative to the policy's folder) or
    /// from variables of `environment`:
    ///
    /// ```json
    /// {"default": "public", "images": {"slides/": "private", "slides/open/": "public"},
    ///  "keys": [{"id": "k2", "file": "k2.key"}, {"id": "k1", "env": "TILER_KEY_K1"}], "sign": "k2", "window": 3600}
    /// ```
    ///
    /// A key is the file's or variable's text without surrounding white space, at least 32 bytes. `sign` (default:
    /// the first key) signs; every key verifies. `window` (default 3600) is the signed tile URLs' window in seconds.
    ///
    /// - Throws: ``AccessPolicyError`` naming what is wrong (never a key's bytes).
    public init(file path: String, environment: [String: String]) throws(AccessPolicyError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AccessPolicyError("cannot read the access policy \(path)")
        }
        let file: PolicyFile
        do {
            file = try JSONDecoder().decode(PolicyFile.self, from: data)
        } catch let error as DecodingError {
            throw AccessPolicyError("the access policy \(path) is not valid: \(Self.describe(error))")
        } catch {
            throw AccessPolicyError("the access policy \(path) is not valid JSON")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var keys: [SigningKey] = []
        for entry in file.keys {
            keys.append(try Self.key(entry, folder: folder, environment: environment))
        }
        let rules = (file.images ?? [:]).map { Rule(prefix: $0.key, visibility: $0.value) }
        try self.init(
            rules: rules, defaultVisibility: file.default ?? .public, keys: keys, signingKeyID: file.sign, windowSeconds: file.window ?? 3600)
    }

    private static func key(_ entry: PolicyFile.Key, folder: String, environment: [String: String]) throws(AccessPolicyError) -> SigningKey {
        guard SigningKey.isValidID(entry.id) else { throw AccessPolicyError("key id \(entry.id) must be 1–32 of A–Z a–z 0–9 _ -") }
        let text: String
        switch (entry.file, entry.env) {
        case (let file?, nil):
            let full = file.hasPrefix("/") ? file : folder + "/" + file
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: full)) else {
                throw AccessPolicyError("cannot read key \(entry.id)'s file \(full)")
            }
            text = String(decoding: data, as: UTF8.self)
        case (nil, let variable?):
            guard let value = environment[variable] else { throw AccessPolicyError("key \(entry.id)'s variable \(variable) is not set") }
            text = value
        default:
            throw AccessPolicyError("key \(entry.id) must give exactly one of file and env")
        }
        let secret = Array(text.utf8.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed())
        guard secret.count >= SigningKey.minimumBytes else {
            throw AccessPolicyError("key \(entry.id) is shorter than \(SigningKey.minimumBytes) bytes")
        }
        return SigningKey(id: entry.id, key: SymmetricKey(data: secret))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .dataCorrupted(let context), .valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default: "unreadable"
        }
    }
}

/// The policy file's shape.
private struct PolicyFile: Decodable {
    struct Key: Decodable {
        let id: String
        let file: String?
        let env: String?
    }

    let `default`: AccessPolicy.Visibility?
    let images: [String: AccessPolicy.Visibility]?
    let keys: [Key]
    let sign: String?
    let window: Int?
}
